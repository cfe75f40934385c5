"""One status change (memory.write.status), whoever asks: the write pipeline, a person's curation, the hygiene queue,
compaction, forgetting, a purge, the mem0 door and the LangGraph store all leave the same traces — the row's version
bumped, the index following (out when the memory leaves use, back when it returns, kept for a flag), the profile value
it stated no longer linked to it, one write-log line naming the actor and door, and an audit row when a person or a
door asked. Real SQLite + LanceDB (hash embedder: what is compared here is bookkeeping, not meaning)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

import pytest
from actors import ADMIN, CURATOR
from sqlalchemy import update
from sqlmodel import col, select

from memory import profile
from memory.client import Memory as Mem0
from memory.desk import hygiene
from memory.langgraph import MemLensStore
from memory.service import MemoryDraft, MemoryService
from memory.storage.models import Memory, MemoryEvent, utcnow
from memory.storage.people import AuditEvent
from memory.vocab import EventOp, MemoryStatus, is_flagged


@dataclass(frozen=True)
class Case:
    state: str  # the memory's state afterwards ("gone": purged)
    op: EventOp  # its write-log line
    indexed: bool  # in LanceDB afterwards
    audited: bool  # a person or a door asked: an audit row


def _stated(svc: MemoryService, user: str, text: str) -> str:
    return next(op["memory_id"] for op in svc.remember(user, text).added if op["type"] != "episode")


def _linked(svc: MemoryService, user: str) -> set[str]:
    return {i for f in svc.profile_fields(user).values() for i in (f.memory_ids or {}).values()}


def _row(svc: MemoryService, memory_id: str) -> Memory | None:
    with svc.storage.db() as db:
        return db.get(Memory, memory_id)


def _last_event(svc: MemoryService, memory_id: str) -> MemoryEvent | None:
    with svc.storage.db() as db:
        q = select(MemoryEvent).where(MemoryEvent.memory_id == memory_id).order_by(col(MemoryEvent.id).desc())
        return db.exec(q).first()


def _audit_rows(svc: MemoryService) -> int:
    with svc.storage.db() as db:
        return len(db.exec(select(AuditEvent)).all())


# -- each caller: set a memory up stating the user's city, change it; returns the memory's id ----------------------
def _porto(svc: MemoryService) -> str:
    m = _stated(svc, "u", "I live in Porto")
    assert svc.profile_fields("u")["city"].memory_ids == {"Porto": m}
    return m


def pipeline(svc: MemoryService) -> str:
    m = _porto(svc)
    svc.remember("u", "I moved to Lisbon")  # an UPDATE of the write pipeline supersedes it
    return m


def pipeline_zh(svc: MemoryService) -> str:
    m = _stated(svc, "u", "我住在上海")
    assert set(svc.profile_fields("u")["city"].memory_ids.values()) == {m}
    svc.remember("u", "我搬到北京了")
    return m


def curation_delete(svc: MemoryService) -> str:
    m = _porto(svc)
    svc.delete_memory(m, actor=CURATOR, reason="wrong city")
    return m


def curation_supersede(svc: MemoryService) -> str:
    m = _porto(svc)
    svc.supersede_memory(m, "User lives in Faro.", actor=CURATOR)
    return m


def curation_flag(svc: MemoryService) -> str:
    m = _porto(svc)
    svc.flag_memory(m, actor=CURATOR, reason="never lived there")
    return m


def curation_flag_zh(svc: MemoryService) -> str:
    m = _stated(svc, "u", "我住在上海")
    svc.flag_memory(m, actor=CURATOR, reason="用户从没住过上海")
    return m


def hygiene_merge(svc: MemoryService) -> str:
    m = _porto(svc)
    (keep,) = svc.add_memories(svc.get_user("u"), [MemoryDraft("User enjoys sailing.")])
    hygiene.merge_into(svc.storage, keep.id, others=[m], actor=CURATOR)
    return m


def compaction(svc: MemoryService) -> str:
    m = _porto(svc)
    svc.add_memories(
        svc.get_user("u"), [MemoryDraft("User lives in Porto.", subject="user", predicate="lives_in", object="Porto")]
    )
    report = svc.lifecycle.compact("u", actor=CURATOR)
    assert any(m in merge.source_ids for merge in report.merges)
    return m


def forgetting(svc: MemoryService) -> str:
    m = _porto(svc)
    with svc.storage.engine.begin() as conn:
        conn.execute(update(Memory).where(col(Memory.id) == m).values(expires_at=utcnow() - timedelta(days=1)))
    svc.lifecycle.forget("u", actor=CURATOR)
    return m


def purge(svc: MemoryService) -> str:
    m = _porto(svc)
    svc.lifecycle.purge_memory(m, actor=ADMIN)
    return m


def mem0_door(svc: MemoryService) -> str:
    m = _porto(svc)
    Mem0(svc, via="test-door").delete(m, user_id="u")
    return m


def langgraph_door(svc: MemoryService) -> str:
    store = MemLensStore(Mem0(svc, via="langgraph", name="langgraph-store"))
    store.put(("u", "facts"), "home", {"text": "I live in Porto"})
    (old,) = [r for r in svc.list_memories(svc.get_user("u")) if (r.meta or {}).get("store_key") == "home"]
    # the store writes verbatim (no profile); link the field to it as a pipeline write would have
    profile.set_field(
        svc.storage, svc.get_user("u"), "city", "Porto", source="user-stated", reason="test", links={"Porto": old.id}
    )
    store.put(("u", "facts"), "home", {"text": "I live in Faro"})  # a second put supersedes the first
    return old.id


def restored(svc: MemoryService) -> str:
    m = _porto(svc)
    svc.delete_memory(m, actor=CURATOR)
    svc.restore_memory(m, actor=CURATOR)
    return m


def unflagged(svc: MemoryService) -> str:
    m = _porto(svc)
    svc.flag_memory(m, actor=CURATOR)
    svc.unflag_memory(m, actor=CURATOR)
    return m


LEAVING: dict[str, tuple[Callable[[MemoryService], str], Case]] = {
    "pipeline": (pipeline, Case(MemoryStatus.SUPERSEDED, EventOp.SUPERSEDE, False, False)),
    "pipeline (中文)": (pipeline_zh, Case(MemoryStatus.SUPERSEDED, EventOp.SUPERSEDE, False, False)),
    "curation delete": (curation_delete, Case(MemoryStatus.DELETED, EventOp.DELETE, False, True)),
    "curation supersede": (curation_supersede, Case(MemoryStatus.SUPERSEDED, EventOp.SUPERSEDE, False, True)),
    "curation flag": (curation_flag, Case("flagged", EventOp.FLAG, True, True)),
    "curation flag (中文)": (curation_flag_zh, Case("flagged", EventOp.FLAG, True, True)),
    "hygiene merge": (hygiene_merge, Case(MemoryStatus.SUPERSEDED, EventOp.SUPERSEDE, False, True)),
    "compaction": (compaction, Case(MemoryStatus.SUPERSEDED, EventOp.MERGE, False, True)),
    "forgetting": (forgetting, Case(MemoryStatus.ARCHIVED, EventOp.ARCHIVE, False, True)),
    "purge": (purge, Case("gone", EventOp.PURGE, False, True)),
    "mem0 door": (mem0_door, Case(MemoryStatus.DELETED, EventOp.DELETE, False, True)),
    "langgraph door": (langgraph_door, Case(MemoryStatus.SUPERSEDED, EventOp.SUPERSEDE, False, True)),
}


@pytest.mark.parametrize("caller", list(LEAVING))
def test_every_caller_leaves_the_same_traces(plumbing_svc, caller):
    svc = plumbing_svc
    act, case = LEAVING[caller]
    audits = _audit_rows(svc)
    memory_id = act(svc)
    row = _row(svc, memory_id)
    if case.state == "gone":
        assert row is None
    else:
        assert row is not None
        assert (is_flagged(row.meta), row.status) == (
            (True, MemoryStatus.ACTIVE) if case.state == "flagged" else (False, case.state)
        )
        assert row.version >= 2, "the version is bumped (a memory is written at version 1)"
    assert (memory_id in svc.storage.index.ids()) is case.indexed, "the index follows"
    assert memory_id not in _linked(svc, "u"), "no profile value is linked to it any more"
    last = _last_event(svc, memory_id)
    assert last is not None and last.op == case.op, "one write-log line of the change"
    assert {"actor", "via"} <= set(last.detail), "the line names who changed it and through which door"
    assert (_audit_rows(svc) > audits) is case.audited, "a person's or a door's change is audited"


RETURNING = {"restore": (restored, EventOp.RESTORE), "unflag": (unflagged, EventOp.UNFLAG)}


@pytest.mark.parametrize("caller", list(RETURNING))
def test_a_memory_coming_back_is_indexed_and_states_its_value_again(plumbing_svc, caller):
    svc = plumbing_svc
    act, op = RETURNING[caller]
    memory_id = act(svc)
    row = _row(svc, memory_id)
    assert row is not None and row.status == MemoryStatus.ACTIVE and not is_flagged(row.meta)
    assert row.version >= 3  # out and back: two changes
    assert memory_id in svc.storage.index.ids()
    assert svc.profile_fields("u")["city"].memory_ids == {"Porto": memory_id}
    last = _last_event(svc, memory_id)
    assert last is not None and last.op == op and {"actor", "via"} <= set(last.detail)


def test_a_change_that_does_not_apply_is_refused_and_changes_nothing(plumbing_svc):
    from memory.errors import Conflict

    svc = plumbing_svc
    m = _porto(svc)
    with pytest.raises(Conflict):
        svc.restore_memory(m, actor=CURATOR)  # active: nothing to restore
    svc.flag_memory(m, actor=CURATOR)
    with pytest.raises(Conflict):
        svc.flag_memory(m, actor=CURATOR)
    row = _row(svc, m)
    assert row is not None and row.version == 2  # one change landed, the refused ones wrote nothing
