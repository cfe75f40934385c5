"""The retrieval log is written after recall returns, and still nothing logged is lost.

Real SQLite + LanceDB; the hash embedder (the plumbing is under test, not meaning).
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
from pathlib import Path

from sqlalchemy import func, select

from memory import views
from memory.retrieval import log as retrieval_log
from memory.service import MemoryDraft
from memory.storage.models import Memory, Retrieval, RetrievalHit

ROOT = Path(__file__).resolve().parent.parent


def _seed(svc, user_id: str = "ann", n: int = 6):
    user = svc.ensure_user(user_id)
    svc.add_memories(user, [MemoryDraft(content=f"ann likes tea number {i}") for i in range(n)])
    return user


def _count(svc, table) -> int:
    with svc.storage.engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(table)).scalar_one()


def test_every_recall_is_logged_and_readers_see_it(plumbing_svc):
    svc = plumbing_svc
    user = _seed(svc)
    results = [svc.recall("ann", f"tea {i}", threshold=-1.0, k=2) for i in range(12)]
    # readers in this process wait for the writer: the lab's list shows all twelve, newest first
    rows = views.recent_retrievals(svc.storage, user.key, limit=50)
    assert len(rows) == 12
    assert [r["query"] for r in rows] == [f"tea {i}" for i in reversed(range(12))]
    assert all(r.retrieval_id is not None for r in results)
    hits = views.retrieval_hits(svc.storage, results[0].retrieval_id)
    assert len(hits) == len(results[0].hits) > 0
    with svc.storage.engine.connect() as conn:  # access tracking happened too: two selected per recall
        used = conn.execute(select(func.sum(Memory.access_count))).scalar_one()
    assert used == 24
    assert retrieval_log.writer(svc.storage).stats() == {"submitted": 12, "written": 12, "dropped": 0, "pending": 0}


def test_recall_does_not_wait_for_the_log(plumbing_svc):
    """While the writer is held up, recall still returns (its entry waits in the queue)."""
    svc = plumbing_svc
    _seed(svc)
    writer = retrieval_log.writer(svc.storage)
    gate = threading.Event()
    writer.then(gate.wait)  # the writer is now busy until the gate opens
    res = svc.recall("ann", "tea", threshold=-1.0)
    assert res.hits and res.logged_id is None and writer.pending() == 2
    gate.set()
    assert res.retrieval_id is not None  # reading it waits for that entry


def test_follow_ups_run_after_earlier_entries(plumbing_svc):
    svc = plumbing_svc
    _seed(svc)
    res = svc.recall("ann", "tea", threshold=-1.0, k=3)
    seen: list[int | None] = []
    retrieval_log.writer(svc.storage).then(lambda: seen.append(res.retrieval_id))
    retrieval_log.flush(svc.storage)
    assert seen == [res.retrieval_id] and seen[0] is not None


def test_bounded_queue_blocks_instead_of_dropping(plumbing_svc):
    svc = plumbing_svc
    _seed(svc)
    writer = retrieval_log.RetrievalLog(svc.storage, capacity=2)
    retrieval_log.attach(svc.storage, writer)
    gate = threading.Event()
    writer.then(gate.wait)
    done = threading.Event()

    def burst() -> None:
        for i in range(6):
            svc.recall("ann", f"tea {i}", threshold=-1.0)
        done.set()

    t = threading.Thread(target=burst)
    t.start()
    assert not done.wait(1.0)  # a full queue holds the caller back...
    assert writer.pending() <= 3
    gate.set()
    t.join(30)
    assert done.is_set()
    retrieval_log.flush(svc.storage)
    assert _count(svc, Retrieval) == 6  # ...and nothing was dropped
    assert writer.dropped == 0


def test_a_failing_write_is_counted_and_said_and_the_writer_goes_on(plumbing_svc, caplog):
    svc = plumbing_svc
    _seed(svc)
    writer = retrieval_log.writer(svc.storage)
    good = svc.recall("ann", "tea", threshold=-1.0)
    gate = threading.Event()
    writer.then(gate.wait)
    bad = svc.recall("ann", "tea again", threshold=-1.0)
    bad.params = None  # not serialisable as the row's parameters: this entry's write fails
    gate.set()
    with caplog.at_level(logging.WARNING, logger="memory.retrieval.log"):
        retrieval_log.flush(svc.storage)
        after = svc.recall("ann", "more tea", threshold=-1.0)
        retrieval_log.flush(svc.storage)
    assert good.retrieval_id is not None and after.retrieval_id is not None and bad.retrieval_id is None
    assert (writer.written, writer.dropped) == (2, 1)
    assert "1 dropped so far" in caplog.text
    assert _count(svc, Retrieval) == 2


def test_inline_mode_writes_before_recall_returns(settings, hash_embedder):
    from memory.service import MemoryService

    svc = MemoryService(settings.model_copy(update={"retrieval_log_background": False}), embedder=hash_embedder)
    try:
        _seed(svc)
        res = svc.recall("ann", "tea", threshold=-1.0)
        assert res.retrieval_id is not None
        assert _count(svc, RetrievalHit) == len(res.hits)
    finally:
        svc.close()


def test_a_clean_exit_writes_every_queued_entry(tmp_path):
    """A process that recalls and exits at once (no close, no flush) still leaves every retrieval in SQL."""
    code = (
        "from memory.config import Settings\nfrom memory.service import MemoryService, MemoryDraft\n"
        "from memory.storage.embed import HashEmbedder\n"
        f"svc = MemoryService(Settings(data_dir={str(tmp_path)!r}), embedder=HashEmbedder())\n"
        "u = svc.ensure_user('ann')\nsvc.add_memories(u, [MemoryDraft(content='ann likes tea')])\n"
        "for i in range(40):\n    svc.recall('ann', f'tea {i}', threshold=-1.0)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, check=True, timeout=120)
    from memory.config import Settings
    from memory.service import MemoryService

    svc = MemoryService(Settings(data_dir=tmp_path))
    try:
        assert _count(svc, Retrieval) == 40
    finally:
        svc.close()


def test_the_writer_waits_for_a_recall_in_flight_and_never_falls_behind(plumbing_svc, monkeypatch):
    """An entry is written once no recall of this process runs (they would share the GIL) — but not when entries
    pile up: past ``YIELD_BELOW`` waiting, the writer catches up even while recalls run."""
    svc = plumbing_svc
    _seed(svc)
    monkeypatch.setattr(retrieval_log, "YIELD_S", 30.0)
    writer = retrieval_log.writer(svc.storage)
    first = svc.recall("ann", "tea", threshold=-1.0)
    retrieval_log.flush(svc.storage)
    with retrieval_log.in_flight.recall():  # as a recall in another thread would be
        res = svc.recall("ann", "tea again", threshold=-1.0)
        assert not res.written.wait(0.5) and writer.pending() == 1  # held back while a recall runs
    assert res.written.wait(10) and res.logged_id is not None  # and written as soon as none does
    monkeypatch.setattr(retrieval_log, "YIELD_BELOW", 0)
    with retrieval_log.in_flight.recall():
        late = svc.recall("ann", "tea once more", threshold=-1.0)
        assert late.written.wait(10) and late.logged_id is not None  # catching up: not held back
    assert first.logged_id is not None
