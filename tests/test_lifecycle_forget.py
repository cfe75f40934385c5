"""Forgetting with a controllable clock: access tracking, expiry per type, decay, the per-user cap, retention."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from actors import ADMIN
from sqlalchemy import update
from typer.testing import CliRunner

from memory.retrieval import log as retrieval_log
from memory.service import MemoryDraft
from memory.storage.models import Memory, MemoryEvent

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


def _set(svc, memory_id: str, **values) -> None:
    with svc.storage.engine.begin() as conn:
        conn.execute(update(Memory).where(Memory.id == memory_id).values(**values))


def _by_content(report) -> dict[str, object]:
    return {a.content: a for a in report.actions}


def test_recall_tracks_access_of_selected_hits_only(plumbing_svc):
    svc = plumbing_svc
    user = svc.ensure_user("alice")
    hit, other = svc.add_memories(
        user, [MemoryDraft("alice collects vintage cameras"), MemoryDraft("bob dislikes rain")]
    )
    for _ in range(2):
        result = svc.recall("alice", "vintage cameras", threshold=0.0, k=1)
    assert [h.memory_id for h in result.selected] == [hit.id]
    retrieval_log.flush(svc.storage)  # access tracking is written after recall returns (memory/retrieval/log.py)
    seen, unseen = svc.get_memory(hit.id), svc.get_memory(other.id)
    assert seen.access_count == 2 and seen.last_accessed_at is not None
    assert seen.version == hit.version  # reading is not an edit
    assert unseen.access_count == 0 and unseen.last_accessed_at is None


def test_expiry_per_type_and_explicit_date(plumbing_svc):
    svc = plumbing_svc
    user = svc.ensure_user("alice")
    svc.add_memories(
        user,
        [
            MemoryDraft(
                "trip to Paris", type="event", event_time=T0 - timedelta(days=31), created_at=T0 - timedelta(days=1)
            ),
            MemoryDraft("dinner next week", type="event", event_time=T0 - timedelta(days=29)),
            MemoryDraft("lives in Hangzhou", type="fact", created_at=T0 - timedelta(days=10), importance=0.9),
            MemoryDraft("turn: hello there", type="episode", created_at=T0 - timedelta(days=10), importance=0.9),
            MemoryDraft("coupon valid until Friday", expires_at=T0 - timedelta(hours=1), importance=0.9),
        ],
    )
    plan = _by_content(svc.lifecycle.forget("alice", dry_run=True, now=T0))
    assert set(plan) == {"trip to Paris", "coupon valid until Friday"}
    assert plan["trip to Paris"].rule == "expired" and "30 days after their event time" in plan["trip to Paris"].reason
    assert "its own expiry date" in plan["coupon valid until Friday"].reason
    assert len(svc.list_memories(user)) == 5  # dry run changed nothing

    svc.lifecycle.forget("alice", now=T0, actor=ADMIN)
    assert {m.content for m in svc.list_memories(user, statuses=("archived",))} == set(plan)
    assert len(svc.list_memories(user)) == 3
    assert svc.storage.index.count(user.key) == 3  # archived memories leave the index
    later = _by_content(svc.lifecycle.forget("alice", dry_run=True, now=T0 + timedelta(days=2)))
    assert set(later) == {"dinner next week"}  # facts and turns never expire


def test_cap_archives_lowest_value_first_and_reinforcement_helps(plumbing_svc, monkeypatch):
    svc = plumbing_svc
    svc.settings.max_active_memories = 2
    user = svc.ensure_user("alice")
    created = T0 - timedelta(days=60)
    fresh, stale, repeated, single = svc.add_memories(
        user,
        [
            MemoryDraft("uses the memory every day", importance=0.5, created_at=created),
            MemoryDraft("mentioned once long ago", importance=0.5, created_at=created),
            MemoryDraft("said three times", importance=0.4, created_at=created),
            MemoryDraft("said once", importance=0.4, created_at=created),
        ],
    )
    _set(svc, fresh.id, last_accessed_at=T0 - timedelta(days=1))
    _set(svc, repeated.id, reinforce_count=3)
    report = svc.lifecycle.forget("alice", now=T0, actor=ADMIN)
    archived = {a.memory_id: a for a in report.actions}
    # decay: 60 idle days = 2 half-lives → 0.125; the reinforced 0.4 beats the single 0.4 and the idle 0.5
    assert set(archived) == {stale.id, single.id}
    assert all(a.rule == "cap" and "MEMLENS_MAX_ACTIVE_MEMORIES" in a.reason for a in archived.values())
    assert {m.id for m in svc.list_memories(user)} == {fresh.id, repeated.id}


def test_faded_memories_archived_then_purged_after_retention(plumbing_svc):
    svc = plumbing_svc
    user = svc.ensure_user("alice")
    faded, kept = svc.add_memories(
        user,
        [
            MemoryDraft("a passing remark", importance=0.2, created_at=T0 - timedelta(days=200)),
            MemoryDraft("an important fact", importance=1.0, created_at=T0 - timedelta(days=100)),
        ],
    )
    report = svc.lifecycle.forget("alice", now=T0, actor=ADMIN)
    assert [(a.memory_id, a.rule) for a in report.actions] == [(faded.id, "faded")]
    assert "without use" in report.actions[0].reason

    assert svc.lifecycle.forget("alice", dry_run=True, now=T0 + timedelta(days=89)).count("delete") == 0
    purge = svc.lifecycle.forget("alice", now=T0 + timedelta(days=91), actor=ADMIN)
    assert [(a.memory_id, a.action, a.rule) for a in purge.actions] == [(faded.id, "delete", "retention")]
    with svc.storage.db() as db:
        assert db.get(Memory, faded.id) is None and db.get(Memory, kept.id) is not None
        events = db.query(MemoryEvent).filter(MemoryEvent.memory_id == faded.id).all()
    assert [e.op for e in events] == ["PURGE"] and events[0].content == ""  # why, without the text


def test_cli_forget_dry_run_json(plumbing_svc, monkeypatch, settings):
    from memory.cli import app

    svc = plumbing_svc
    user = svc.ensure_user("用户 ✈")
    svc.add_memory(user, "去巴黎旅行", type="event", event_time=T0 - timedelta(days=40))
    svc.close()
    monkeypatch.setenv("MEMLENS_EMBEDDER", "hash")
    res = CliRunner().invoke(app, ["forget", "--user", "用户 ✈", "--dry-run", "--json", "--now", T0.isoformat()])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["dry_run"] is True and out["archived"] == 1 and out["actions"][0]["content"] == "去巴黎旅行"
    assert out["by_rule"] == {"expired": 1}
