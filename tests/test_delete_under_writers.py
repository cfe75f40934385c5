"""Deleting users and memories while another process keeps writing: no writer error, every other user's recall
works, and no deleted text is left in any file of the data folder. Also: a broken index (a data file or the version
folder gone) is rebuilt from SQL by repair / reindex, even when the start-up repair itself fails."""

from __future__ import annotations

import shutil
import time
import traceback
import uuid

import pytest
from actors import ADMIN
from conftest import worker_context

from memory.config import Settings
from memory.service import MemoryService
from memory.storage.embed import HashEmbedder

KEEP = ["keep-a", "keep-b", "keep-c"]


def _svc(settings_json: str) -> MemoryService:
    return MemoryService(Settings.model_validate_json(settings_json), embedder=HashEmbedder())


def _writer(settings_json: str, seconds: float, out) -> None:
    """Write memories for the kept users in a loop (each remember = SQL rows + a LanceDB append)."""
    errors, n = [], 0
    try:
        svc = _svc(settings_json)
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            user = KEEP[n % len(KEEP)]
            try:
                svc.add_memory(svc.ensure_user(user), f"{user} note number {n} about gardening")
            except Exception:  # noqa: BLE001 - every failure is a finding
                errors.append(traceback.format_exc(limit=3))
            n += 1
    finally:
        out.put({"writes": n, "errors": errors})


def _bytes_of(folder) -> bytes:
    return b"".join(p.read_bytes() for p in folder.rglob("*") if p.is_file())


@pytest.mark.slow
def test_deletes_while_another_process_writes(settings):
    svc = _svc(settings.model_dump_json())
    for user in KEEP:
        svc.add_memory(svc.ensure_user(user), f"{user} lives by the harbour")
    ctx = worker_context()
    out = ctx.Queue()
    writer = ctx.Process(target=_writer, args=(settings.model_dump_json(), 25.0, out))
    writer.start()
    secrets = []
    deadline = time.monotonic() + 22
    rounds = 0
    while time.monotonic() < deadline:
        secret = "zq" + uuid.uuid4().hex[:12]
        secrets.append(secret)
        doomed = svc.ensure_user(f"gone-{rounds}")
        for j in range(3):
            svc.add_memory(doomed, f"{secret} private diary line {j}")
        svc.lifecycle.delete_user(f"gone-{rounds}", actor=ADMIN)
        purge_secret = "zp" + uuid.uuid4().hex[:12]
        secrets.append(purge_secret)
        m = svc.add_memory(svc.ensure_user("keep-a"), f"{purge_secret} a memory to purge")
        svc.lifecycle.purge_memory(m.id, actor=ADMIN)
        rounds += 1
    report = out.get(timeout=120)
    writer.join(timeout=60)
    assert rounds >= 3 and report["writes"] > 20
    assert report["errors"] == [], report["errors"][:2]
    for user in KEEP:
        hits = svc.recall(user, f"{user} lives by the harbour", log=False).selected
        assert hits and hits[0].content == f"{user} lives by the harbour"
    svc.close()
    _svc(settings.model_dump_json()).repair()
    blob = _bytes_of(settings.data_dir)
    left = [s for s in secrets if s.encode() in blob]
    assert not left, f"{len(left)} of {len(secrets)} deleted texts still on disk"


def _table_dir(settings: Settings):
    return next(p for p in settings.data_dir.rglob("memories.lance") if p.is_dir())


@pytest.mark.parametrize("damage", ["data-file", "versions-folder"])
def test_a_broken_index_is_rebuilt_from_sql(settings, damage, monkeypatch):
    svc = _svc(settings.model_dump_json())
    for i in range(5):
        svc.add_memory(svc.ensure_user("u"), f"fact number {i} about sailing")
    svc.close()
    table = _table_dir(settings)
    if damage == "data-file":
        for f in (table / "data").iterdir():
            f.unlink()
    else:
        shutil.rmtree(table / "_versions")
    # repair-on-start meets the broken index first: it cannot read it, so it rebuilds it from SQL
    fresh = _svc(settings.model_dump_json())
    assert fresh.storage.index.count() == 5
    assert fresh.repair() == {"indexed": 0, "orphans_removed": 0}  # settled at start-up already
    assert len(fresh.recall("u", "fact number 3 about sailing", log=False).selected) >= 1
    fresh.close()
    for f in (_table_dir(settings) / "data").iterdir():
        f.unlink()
    monkeypatch.setenv("MEMLENS_DATA_DIR", str(settings.data_dir))
    again = _svc(settings.model_dump_json())
    assert again.reindex() == 5
    assert again.recall("u", "fact number 1 about sailing", log=False).selected
