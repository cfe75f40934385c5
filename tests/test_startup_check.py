"""Start-up notices index damage that leaves the counts equal (memory.storage.integrity.startup_repair): a vector lost
with an orphan left in its place, or a vector filed under another user; it repairs both. Real SQLite (and
PostgreSQL when configured) + LanceDB; hash embedder (meaning does not matter here)."""

from __future__ import annotations

import numpy as np

from memory.service import MemoryService
from memory.storage import integrity
from memory.storage.models import new_id, utcnow
from memory.storage.vectors import IndexRow


def _seed(svc: MemoryService) -> dict[str, list[str]]:
    out = {}
    for name in ("ana", "bo"):
        user = svc.ensure_user(name)
        out[name] = [svc.add_memory(user, f"{name} note {i} about rowing").id for i in range(4)]
    return out


def _pairs(svc: MemoryService) -> list[tuple[str, str]]:
    return sorted(svc.storage.index.owners())


def _reopened(svc: MemoryService) -> MemoryService:
    """A new process opening the same data: its first use of the index runs the start-up check."""
    return MemoryService(svc.settings, embedder=svc.storage.embedder)


def test_a_lost_vector_replaced_by_an_orphan_is_noticed_and_repaired(backend_plumbing_svc: MemoryService):
    svc = backend_plumbing_svc
    ids = _seed(svc)
    good = _pairs(svc)
    lost = ids["ana"][1]
    ana = svc.get_user("ana")
    svc.storage.index.delete([lost])
    dim = svc.storage.embedder.dim
    vec = np.ones(dim, dtype=np.float32) / np.sqrt(dim)
    svc.storage.index.add([IndexRow(new_id(), ana.key, "default", "a vector with no row", vec, "fact", utcnow())])
    assert svc.storage.index.count() == len(good)  # equal counts: the old check saw nothing
    diff, _ = integrity.compare(svc.storage)
    assert diff.counts() == {"missing": 1, "orphans": 1, "doubles": 0, "misfiled": 0}
    again = _reopened(svc)
    assert _pairs(again) == good
    hits = again.recall("ana", "ana note 1 about rowing", threshold=-1.0, mode="vector").hits
    assert lost in [h.memory_id for h in hits]
    assert not integrity.compare(again.storage)[0]
    again.close()


def test_a_vector_filed_under_another_user_is_noticed_and_refiled(backend_plumbing_svc: MemoryService):
    svc = backend_plumbing_svc
    ids = _seed(svc)
    good = _pairs(svc)
    moved = ids["bo"][0]
    row = svc.get_memory(moved)
    svc.storage.index.delete([moved])
    vec = svc.storage.embedder.embed_passages([row.content])[0]
    svc.storage.index.add([IndexRow(moved, svc.get_user("ana").key, "default", row.content, vec, "fact", utcnow())])
    assert svc.storage.index.count() == len(good) and sorted(i for i, _ in _pairs(svc)) == sorted(i for i, _ in good)
    assert integrity.compare(svc.storage)[0].counts()["misfiled"] == 1
    again = _reopened(svc)
    assert _pairs(again) == good
    assert moved in [h.memory_id for h in again.recall("bo", row.content, threshold=-1.0, mode="vector").hits]
    again.close()


def test_an_agreeing_index_costs_no_repair(backend_plumbing_svc: MemoryService, monkeypatch):
    svc = backend_plumbing_svc
    _seed(svc)
    calls = []
    monkeypatch.setattr(integrity, "repair", lambda *a, **k: calls.append(1) or {"indexed": 0, "orphans_removed": 0})
    assert integrity.startup_repair(svc.storage) == {"indexed": 0, "orphans_removed": 0, "full": False}
    assert calls == []


def test_ids_of_another_shape_fall_back_to_the_full_comparison(backend_plumbing_svc: MemoryService, monkeypatch):
    svc = backend_plumbing_svc
    ids = _seed(svc)
    assert integrity.agrees(svc.storage)
    monkeypatch.setattr(integrity, "RECORD", 63)  # no record is 63 bytes: both fast paths give up
    assert svc.storage.index.records(63) is None and integrity._sql_records(svc.storage) is None
    assert integrity.agrees(svc.storage)
    svc.storage.index.delete([ids["bo"][2]])
    assert not integrity.agrees(svc.storage)


def test_a_write_in_flight_is_no_disagreement_and_an_operation_never_leaves_one(plumbing_svc: MemoryService, caplog):
    """A row in the index not yet marked indexed (its writer between the append and the mark) is a write in
    flight, not damage: no warning with every count at zero. And a delete, flag, edit or restore run as a fresh
    process's first operation opens the index before its SQL side, so its own start-up check never sees it half
    done (it used to report "orphans 1" for the row it was deleting)."""
    from sqlalchemy import update

    from memory.lifecycle import curation
    from memory.storage.models import Memory
    from memory.vocab import Actor, Role

    svc = plumbing_svc
    ids = _seed(svc)["ana"]
    with svc.storage.engine.begin() as conn:
        conn.execute(update(Memory).where(Memory.id == ids[0]).values(indexed=False, updated_at=utcnow()))
    caplog.set_level("DEBUG", logger="memory.storage.integrity")
    report = integrity.startup_repair(_reopened(svc).storage)
    assert "disagrees" not in caplog.text and report["full"] is False
    ana = Actor("ana", Role.CURATOR, "cli")
    for op in (
        lambda s: curation.delete_memory(s.storage, ids[1], actor=ana),
        lambda s: curation.restore_memory(s.storage, ids[1], actor=ana),
        lambda s: curation.flag_memory(s.storage, ids[2], actor=ana),
        lambda s: curation.edit_memory(s.storage, ids[3], "ana note about sculling", actor=ana),
    ):
        fresh = _reopened(svc)  # a new process: the operation is its first use of the index
        caplog.clear()
        op(fresh)
        assert "disagrees" not in caplog.text
        fresh.close()
    assert not integrity.compare(svc.storage)[0]
