"""A writer killed with SIGKILL mid-stream: after a restart SQL and LanceDB agree and no acknowledged write is lost.

The child acknowledges a write (sends its ids down a pipe) only after ``add_memories`` / ``delete_memory`` returned;
the parent kills it at a random moment of a busy stream, three times over the same data, then restarts: a new
service (start-up check) and ``repair()``. Every acknowledged memory must be in SQL with its acknowledged status, the
index must hold exactly the active rows (no vector without a row, no active row without a vector, no doubles), and
recall must find the acknowledged memories.
"""

from __future__ import annotations

import os
import random
import signal
import traceback

import pytest
from actors import ADMIN
from conftest import worker_context
from sqlmodel import select

from memory.storage.models import Memory

pytestmark = pytest.mark.slow


def _writer(settings_json: str, round_no: int, conn) -> None:
    """Write memories in small batches, deleting one now and then; acknowledge each step once it returned."""
    try:
        from memory.config import Settings
        from memory.service import MemoryService
        from memory.storage.embed import HashEmbedder

        svc = MemoryService(Settings.model_validate_json(settings_json), embedder=HashEmbedder())
        user = svc.ensure_user("crash-user")
        conn.send(("ready", None))
        for batch in range(400):
            texts = [f"round {round_no} batch {batch} note {i} about 杭州 and tennis" for i in range(3)]
            rows = svc.add_memories(user, _drafts(texts))
            conn.send(("added", [r.id for r in rows]))
            if batch % 4 == 3:
                svc.delete_memory(rows[0].id, actor=ADMIN)
                conn.send(("deleted", [rows[0].id]))
    except BaseException:  # noqa: BLE001 - report anything but the kill itself
        conn.send(("error", traceback.format_exc()))


def _drafts(texts: list[str]):
    from memory.service import MemoryDraft

    return [MemoryDraft(content=t) for t in texts]


def _run_and_kill(settings, round_no: int, rng: random.Random) -> tuple[set[str], set[str]]:
    ctx = worker_context()
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_writer, args=(settings.model_dump_json(), round_no, child))
    proc.start()
    child.close()
    added: set[str] = set()
    deleted: set[str] = set()
    kind, payload = parent.recv()
    assert kind == "ready", payload
    kill_after = rng.randint(3, 12)
    while len(added) < kill_after * 3:
        kind, payload = parent.recv()
        assert kind != "error", payload
        (added if kind == "added" else deleted).update(payload)
    # let it get into the middle of the next write (SQL commit, LanceDB upsert or the indexed flag), then kill
    proc.join(timeout=rng.uniform(0.0, 0.15))
    os.kill(proc.pid, signal.SIGKILL)
    proc.join(timeout=30)
    while parent.poll():  # acknowledgements sent before the kill still count
        try:
            kind, payload = parent.recv()
        except EOFError:
            break
        assert kind != "error", payload
        (added if kind == "added" else deleted).update(payload)
    assert proc.exitcode == -signal.SIGKILL
    return added, deleted


def test_sigkill_mid_stream_then_repair_loses_nothing(backend_settings, hash_embedder):
    from memory.service import MemoryService

    rng = random.Random(8)
    acked_added: set[str] = set()
    acked_deleted: set[str] = set()
    for round_no in range(3):
        added, deleted = _run_and_kill(backend_settings, round_no, rng)
        acked_added |= added
        acked_deleted |= deleted
        svc = MemoryService(backend_settings, embedder=hash_embedder)  # the restart
        svc.repair()
        with svc.storage.db() as db:
            rows = {m.id: m for m in db.exec(select(Memory)).all()}
        active = {i for i, m in rows.items() if m.status == "active"}
        listed = svc.storage.index.id_list()
        assert acked_added <= set(rows), "an acknowledged memory was lost"
        assert all(rows[i].status == "deleted" for i in acked_deleted), "an acknowledged delete was undone"
        assert sorted(listed) == sorted(active), "SQL and LanceDB disagree after repair"
        assert all(m.indexed for m in rows.values() if m.status == "active")
        assert svc.repair() == {"indexed": 0, "orphans_removed": 0}  # settled: a second repair finds nothing
        svc.close()
    svc = MemoryService(backend_settings, embedder=hash_embedder)
    text = "round 2 batch 0 note 1 about 杭州 and tennis"  # acknowledged in the last round, never deleted
    # the hash embedder gives "batch 1 note 0" the same bag-of-words vector: what the agent injects would pass over
    # one of the two as a near-duplicate, so the check searches as a door does (every match)
    hits = svc.recall("crash-user", text, mode="vector", threshold=0.999, k=20, near_duplicate_cosine=0.0).hits
    assert text in [h.content for h in hits if h.selected]  # the hash embedder: same text, same vector
    svc.close()
