"""Forgetting and compaction keep the profile and its memories one truth (memory.write.profile_sync): a value whose
memory is archived or purged moves to another memory stating it or is dropped with a change-log entry; a value whose
memory is merged follows it to the merged record. Real SQLite + LanceDB + e5."""

from __future__ import annotations

from datetime import timedelta

from actors import CURATOR
from sqlalchemy import update

from memory.service import MemoryDraft, MemoryService
from memory.storage.models import Memory, utcnow
from memory.vocab import MemoryStatus


def _state(svc: MemoryService, user: str, field: str) -> tuple[object, dict]:
    f = svc.profile_fields(user).get(field)
    return (f.value, dict(f.memory_ids or {})) if f else (None, {})


def _expire(svc: MemoryService, memory_id: str) -> None:
    with svc.storage.engine.begin() as conn:
        conn.execute(update(Memory).where(Memory.id == memory_id).values(expires_at=utcnow() - timedelta(days=1)))


def _stated(svc: MemoryService, user: str, text: str) -> str:
    report = svc.remember(user, text)
    return next(op["memory_id"] for op in report.added)


def test_an_archived_memory_takes_its_profile_value_with_it(svc: MemoryService):
    city = _stated(svc, "ana", "I live in Lisbon")
    diet = _stated(svc, "ana", "我不吃辣")
    assert _state(svc, "ana", "city") == ("Lisbon", {"Lisbon": city})
    before = len(svc.profile_history("ana"))
    _expire(svc, city)
    report = svc.lifecycle.forget("ana", actor=CURATOR)
    assert [a.memory_id for a in report.actions] == [city]
    assert _state(svc, "ana", "city") == (None, {})  # the prompt and the profile page no longer say Lisbon
    change = svc.profile_history("ana")[-1]
    assert len(svc.profile_history("ana")) == before + 1
    assert (change.field, change.old_value, change.new_value, change.memory_id) == ("city", "Lisbon", None, city)
    assert "forgotten" in change.reason and "expired" in change.reason and CURATOR.name in change.reason
    assert change.source == "system"
    dietary, links = _state(svc, "ana", "dietary")
    assert dietary and set(links.values()) == {diet}  # another field, another memory: untouched


def test_a_forgotten_value_stated_by_another_memory_moves_its_link(svc: MemoryService):
    first = _stated(svc, "bo", "I live in Porto")
    user = svc.get_user("bo")
    (again,) = svc.add_memories(
        user, [MemoryDraft("User lives in Porto.", subject="user", predicate="lives_in", object="Porto")]
    )
    before = len(svc.profile_history("bo"))
    _expire(svc, first)
    svc.lifecycle.forget("bo", actor=CURATOR)
    assert _state(svc, "bo", "city") == ("Porto", {"Porto": again.id})
    assert len(svc.profile_history("bo")) == before  # the value did not change: no change-log entry


def test_a_purged_memory_clears_a_value_still_linked_to_it(svc: MemoryService):
    city = _stated(svc, "cy", "I live in Kyoto")
    with svc.storage.engine.begin() as conn:  # archived long ago by a version that left the link in place
        conn.execute(
            update(Memory)
            .where(Memory.id == city)
            .values(status=MemoryStatus.ARCHIVED, updated_at=utcnow() - timedelta(days=400))
        )
    report = svc.lifecycle.forget("cy", actor=CURATOR)
    assert [(a.memory_id, a.action) for a in report.actions] == [(city, "delete")]
    assert _state(svc, "cy", "city") == (None, {})
    assert "forgotten (archived on" in svc.profile_history("cy")[-1].reason


def test_compaction_moves_the_link_to_the_merged_record(svc: MemoryService):
    city = _stated(svc, "di", "I live in Oslo")
    user = svc.get_user("di")
    svc.add_memories(user, [MemoryDraft("User lives in Oslo.", subject="user", predicate="lives_in", object="Oslo")])
    before = len(svc.profile_history("di"))
    report = svc.lifecycle.compact("di", actor=CURATOR)
    (merge,) = report.merges
    assert city in merge.source_ids
    merged_id = merge.record["id"]
    assert _state(svc, "di", "city") == ("Oslo", {"Oslo": merged_id})
    assert len(svc.profile_history("di")) == before  # same value: no change-log entry
    # the link is live: deleting the merged record clears the value, as any deletion does
    svc.delete_memory(merged_id, actor=CURATOR, reason="wrong city")
    assert _state(svc, "di", "city") == (None, {})
    assert svc.profile_history("di")[-1].memory_id == merged_id
