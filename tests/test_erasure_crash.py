"""Erasure is a journaled job: killed (SIGKILL) before each of its steps, a rerun of ``delete-user`` or ``repair``
finishes it, and then no file holds anything of the user — the SQLite database and its WAL, the LanceDB folder,
and PostgreSQL's table files after a ``CHECKPOINT``."""

from __future__ import annotations

import os
import signal

import pytest
from actors import ADMIN
from conftest import worker_context
from test_erasure_complete import _disk

from memory.config import Settings
from memory.errors import NotFound
from memory.service import MemoryService
from memory.storage.embed import HashEmbedder
from memory.storage.models import ErasureJob

#: where the child is killed: just before this step runs
POINTS = ["rows", "index", "reclaim", "close"]


def _svc(settings_json: str) -> MemoryService:
    return MemoryService(Settings.model_validate_json(settings_json), embedder=HashEmbedder())


def _die(*_args, **_kwargs):
    os.kill(os.getpid(), signal.SIGKILL)


def _erase_and_die(settings_json: str, point: str) -> None:
    """Child process: start erasing, and be killed just before ``point``."""
    from memory.lifecycle import erasure, export
    from memory.storage import vectors

    target = {
        "rows": (export, "_delete_user_rows"),
        "index": (vectors.VectorIndex, "delete_user"),
        "reclaim": (export, "reclaim"),
        "close": (erasure, "close_job"),
    }[point]
    setattr(*target, _die)
    _svc(settings_json).lifecycle.delete_user("gone", actor=ADMIN)


def _seed(svc: MemoryService) -> None:
    for i in range(3):
        svc.remember("gone", f"I love zqcrash{i} hiking and my diary says zqcrash{i}", session_id="s")
        svc.remember("kept", f"I like tea number {i}", session_id="s")
    svc.recall("gone", "zqcrash1 hiking")
    svc.flush_retrieval_log()


@pytest.mark.parametrize("finish", ["rerun", "repair"])
@pytest.mark.parametrize("point", POINTS)
def test_a_killed_erasure_is_finished_by_a_rerun_or_repair(backend_settings, point, finish):
    settings_json = backend_settings.model_dump_json()
    svc = _svc(settings_json)
    _seed(svc)
    svc.close()
    child = worker_context().Process(target=_erase_and_die, args=(settings_json, point))
    child.start()
    child.join(120)
    assert child.exitcode == -signal.SIGKILL, "the child must have been killed mid-erasure"

    svc = _svc(settings_json)
    with svc.storage.db() as db:
        assert db.get(ErasureJob, db.exec(ErasureJob.__table__.select()).first()[0]) is not None  # left open
    if finish == "rerun":
        svc.lifecycle.delete_user("gone", actor=ADMIN)  # not "no user": the job is found by the id's hash and finished
    else:
        assert svc.repair().get("erasures_finished") == 1
    with svc.storage.db() as db:
        assert db.exec(ErasureJob.__table__.select()).first() is None
    with pytest.raises(NotFound):
        svc.lifecycle.delete_user("gone", actor=ADMIN)  # finished: now there is no such user
    assert [h.content for h in svc.recall("kept", "tea", threshold=-1.0, log=False).hits]
    svc.close()
    blob = _disk(backend_settings)
    assert b"I like tea" in blob, "the scan must see the stored text"
    assert b"zqcrash" not in blob


def test_two_erasures_of_one_user_at_once_both_end_well(plumbing_svc):
    """Two admins press delete at the same moment: one journal row, both calls return, nothing is left."""
    from concurrent.futures import ThreadPoolExecutor

    _seed(plumbing_svc)
    results: list[object] = []

    def erase() -> None:
        try:
            results.append(plumbing_svc.lifecycle.delete_user("gone", actor=ADMIN))
        except NotFound as exc:  # the other call finished first
            results.append(exc)

    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda _: erase(), range(2)))
    assert len(results) == 2 and any(isinstance(r, dict) for r in results)
    with plumbing_svc.storage.db() as db:
        assert db.exec(ErasureJob.__table__.select()).first() is None
    assert "gone" not in [u["user_id"] for u in plumbing_svc.list_users()]


@pytest.mark.postgres
@pytest.mark.parametrize("guard", ["wait", "rewrite-again"])
def test_an_older_snapshot_does_not_keep_erased_rows(tmp_path, monkeypatch, guard):
    """A transaction that began before the erasure (a killed process's backend not yet reaped, an autovacuum
    ANALYZE) makes ``VACUUM FULL`` copy the erased rows along. Each guard alone is enough: the rewrite waits for
    older transactions of the database, and a table PostgreSQL says kept deleted rows is rewritten again (for a
    snapshot the wait cannot see; here the wait is switched off to stand in for one)."""
    import threading

    import psycopg
    from conftest import PG_URL, drop_pg_database, fresh_pg_database

    from memory.lifecycle import erasure

    if not PG_URL:
        pytest.skip("MEMLENS_TEST_PG_URL is not set (source .ci/postgres.sh)")
    if guard == "rewrite-again":
        monkeypatch.setattr(erasure, "_wait_for_older_transactions", lambda conn, deadline: 0)
    url = fresh_pg_database(f"older_{guard}")
    try:
        settings = Settings(data_dir=tmp_path / "data", database_url=url)
        svc = MemoryService(settings, embedder=HashEmbedder())
        _seed(svc)
        older = psycopg.connect(url.replace("+psycopg", ""))
        older.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
        older.execute("SELECT 1")  # a snapshot from before the erasure, and no lock on any user table
        threading.Timer(2.0, older.commit).start()
        svc.lifecycle.delete_user("gone", actor=ADMIN)
        older.close()
        svc.close()
        blob = _disk(settings)
        assert b"I like tea" in blob and b"zqcrash" not in blob
    finally:
        drop_pg_database(url)
