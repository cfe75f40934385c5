"""Several processes writing for one user at once (SQLite file and PostgreSQL): nothing lost, nothing doubled.

Real processes (forked from a forkserver that has imported the engine), each with its own MemoryService on the
shared database and LanceDB folder, released
together by a barrier. The hash embedder keeps them light: identical text still gets identical vectors, which is
all the deduplication here needs.
"""

from __future__ import annotations

import traceback
from collections import Counter
from typing import Any

import pytest
from conftest import worker_context
from sqlmodel import func, select

from memory.storage.models import Memory, MemoryEvent, Message

pytestmark = pytest.mark.slow
PROCS = 4
SPORTS = ["tennis", "chess", "rowing", "fencing", "judo", "sailing"]


def _service(settings_json: str):
    from memory.config import Settings
    from memory.service import MemoryService
    from memory.storage.embed import HashEmbedder

    return MemoryService(Settings.model_validate_json(settings_json), embedder=HashEmbedder())


def _child(job: str, settings_json: str, n: int, barrier, out) -> None:
    """Run one job in a fresh process; report its result (or its traceback) on the queue."""
    try:
        svc = _service(settings_json)
        svc.ensure_user("shared-user")  # warm: connect + migrate before the barrier
        barrier.wait(timeout=60)
        out.put((n, JOBS[job](svc, n)))
    except BaseException:  # noqa: BLE001 - the parent must see any failure, whatever it is
        out.put((n, {"error": traceback.format_exc()}))


def _job_retried_write(svc, n: int) -> dict[str, Any]:
    """Every process plays the same client retrying the same turns: store (idempotent) then write."""
    user = svc.ensure_user("shared-user")
    session = svc.ensure_session(user, "s")
    ops, ids = [], []
    for i, sport in enumerate(SPORTS):
        msg = svc.add_message(session, "user", f"I like {sport}", idempotency_key=f"turn-{i}")
        ids.append(msg.id)
        ops += [o["op"] for o in svc.write_from_message(user, session, msg).operations]
    return {"ops": ops, "ids": ids}


def _job_distinct_facts(svc, n: int) -> dict[str, Any]:
    """Each process adds its own interests (a read-modify-write of one profile list) and repeats a shared fact."""
    ops = []
    for j in range(3):
        ops += [o["op"] for o in svc.remember("shared-user", f"I like sport{n}x{j}").operations]
        ops += [o["op"] for o in svc.remember("shared-user", "I live in Hangzhou").operations]
    return {"ops": ops}


JOBS = {"retried_write": _job_retried_write, "distinct_facts": _job_distinct_facts}


def run_processes(job: str, settings, procs: int = PROCS) -> list[dict[str, Any]]:
    ctx = worker_context()
    barrier, out = ctx.Barrier(procs), ctx.Queue()
    children = [
        ctx.Process(target=_child, args=(job, settings.model_dump_json(), n, barrier, out)) for n in range(procs)
    ]
    for c in children:
        c.start()
    results = dict(out.get(timeout=240) for _ in children)
    for c in children:
        c.join(timeout=60)
    errors = [r["error"] for r in results.values() if "error" in r]
    assert not errors, errors[0]
    return [results[n] for n in range(procs)]


def test_a_retried_turn_stores_one_message_and_never_adds_a_memory_twice(backend_plumbing_svc):
    svc = backend_plumbing_svc
    results = run_processes("retried_write", svc.settings)
    assert all(r["ids"] == results[0]["ids"] for r in results)  # the same stored message for each repeated key
    with svc.storage.db() as db:
        assert db.exec(select(func.count()).select_from(Message)).one() == len(SPORTS)
    adds = Counter(op for r in results for op in r["ops"])["ADD"]
    with svc.storage.db() as db:
        active = db.exec(select(Memory).where(Memory.status == "active")).all()
        added = db.exec(select(MemoryEvent).where(MemoryEvent.op == "ADD")).all()
    memories = [m for m in active if m.type != "episode"]
    per_message = Counter(e.message_id for e in added if e.detail.get("stage") != "episode")
    episodes = Counter(e.message_id for e in added if e.detail.get("stage") == "episode")
    assert adds == len(memories) == len(SPORTS)
    assert sorted(m.object for m in memories) == sorted(SPORTS)
    assert set(per_message.values()) == {1} and set(episodes.values()) == {1} and len(episodes) == len(SPORTS)
    assert svc.storage.index.count() == 2 * len(SPORTS)  # each fact and the episode it was read from


def test_concurrent_writers_lose_no_profile_item_and_no_reinforcement(backend_plumbing_svc):
    svc = backend_plumbing_svc
    home = svc.remember("shared-user", "I live in Hangzhou").operations[0]["memory_id"]
    results = run_processes("distinct_facts", svc.settings)
    ops = Counter(op for r in results for op in r["ops"])
    interests = svc.get_profile("shared-user")["interests"]
    assert sorted(interests) == sorted(f"sport{n}x{j}" for n in range(PROCS) for j in range(3))
    assert ops["REINFORCE"] == PROCS * 3  # every repetition of the shared fact reinforced the one memory
    assert svc.get_memory(home).reinforce_count == PROCS * 3
    assert svc.get_profile("shared-user")["city"] == "Hangzhou"
    assert svc.repair() == {"indexed": 0, "orphans_removed": 0}
