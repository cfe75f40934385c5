"""Compaction: same-topic and near-duplicate memories merge into one record that keeps every source's provenance."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from actors import ADMIN

from memory.service import MemoryDraft
from memory.storage.models import Memory, MemoryEvent

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


def test_the_same_statement_merges_with_provenance(plumbing_svc):
    svc = plumbing_svc
    user = svc.ensure_user("alice")
    session = svc.ensure_session(user, "s1")
    m1, m2, m3 = (svc.add_message(session, "user", t).id for t in ("I like hiking", "I really love Hiking", "x"))
    a, b, other, photo = svc.add_memories(
        user,
        [
            MemoryDraft(
                "User likes hiking",
                subject="user",
                predicate="likes",
                object="hiking",
                source_message_ids=[m1],
                confidence=0.7,
                importance=0.5,
                created_at=T0 - timedelta(days=3),
            ),
            MemoryDraft(
                "User loves hiking",
                subject="User ",
                predicate="LIKES",
                object=" Hiking",
                source_message_ids=[m2, m1],
                confidence=0.9,
                importance=0.6,
                created_at=T0 - timedelta(days=1),
            ),
            MemoryDraft(
                "User lives in Hangzhou",
                subject="user",
                predicate="lives_in",
                object="Hangzhou",
                source_message_ids=[m3],
            ),
            MemoryDraft(
                "User likes photography",
                subject="user",
                predicate="likes",
                object="photography",
                source_message_ids=[m3],
            ),
        ],
    )
    assert svc.lifecycle.compact("alice", dry_run=True, now=T0).merges and len(svc.list_memories(user)) == 4

    report = svc.lifecycle.compact("alice", now=T0, actor=ADMIN)
    assert len(report.merges) == 1
    merged = svc.get_memory(report.merges[0].record["id"])
    assert merged.status == "active" and merged.source_message_ids == sorted([m1, m2])
    assert merged.confidence == 0.9 and abs(merged.importance - (1 - 0.5 * 0.4)) < 1e-9
    assert "hiking" in merged.content.lower() and "photography" not in merged.content
    assert merged.meta["merged_from"] == [b.id, a.id]  # leader (highest value) first
    assert merged.reinforce_count == 1 and merged.created_at == T0 - timedelta(days=3)
    for old in (a, b):
        row = svc.get_memory(old.id)
        assert row.status == "superseded" and row.superseded_by == merged.id
    assert svc.get_memory(other.id).status == "active" and svc.get_memory(photo.id).status == "active"
    assert svc.storage.index.ids(user.key) == {merged.id, other.id, photo.id}
    with svc.storage.db() as db:
        ops = sorted(e.op for e in db.query(MemoryEvent).filter(MemoryEvent.op.in_(["MERGE", "COMPACT"])).all())
    assert ops == ["COMPACT", "MERGE", "MERGE"]
    assert svc.lifecycle.compact("alice", now=T0, actor=ADMIN).merges == []  # idempotent


def test_near_duplicates_merge_by_meaning_english_and_chinese(svc):
    """Real e5: paraphrases (≥ 0.95) merge; a same-template fact about another city (≈ 0.93) does not."""
    user = svc.ensure_user("lin")
    rows = svc.add_memories(
        user,
        [
            MemoryDraft("I live in Hangzhou", source_message_ids=[1], importance=0.8),
            MemoryDraft("I live in Hangzhou now", source_message_ids=[2], importance=0.5),
            MemoryDraft("I live in Beijing", source_message_ids=[3]),
            MemoryDraft("我住在杭州", source_message_ids=[4], importance=0.6, type="preference"),
            MemoryDraft("我现在住在杭州。", source_message_ids=[5], importance=0.3, type="preference"),
            MemoryDraft("I don't eat spicy food", source_message_ids=[6], type="preference"),
            MemoryDraft("turn: I live in Hangzhou", type="episode"),
            MemoryDraft("turn: I live in Hangzhou.", type="episode"),
        ],
    )
    report = svc.lifecycle.compact("lin", now=T0, actor=ADMIN)
    groups = sorted(sorted(m.source_ids) for m in report.merges)
    ids = {r.content: r.id for r in rows}
    assert groups == sorted(
        [
            sorted([ids["I live in Hangzhou"], ids["I live in Hangzhou now"]]),
            sorted([ids["我住在杭州"], ids["我现在住在杭州。"]]),
        ]
    )
    merged = {m.record["content"]: svc.get_memory(m.record["id"]) for m in report.merges}
    assert set(merged) == {"I live in Hangzhou", "我住在杭州"}  # the higher-value text is kept
    assert merged["我住在杭州"].source_message_ids == [4, 5]
    hits = svc.recall("lin", "Where do I live?", threshold=0.0, k=10, mode="vector").hits
    found = {h.memory_id for h in hits}
    assert merged["I live in Hangzhou"].id in found and ids["I live in Hangzhou now"] not in found
    with svc.storage.db() as db:
        turns = db.query(Memory).filter(Memory.type == "episode", Memory.status == "active").count()
    assert turns == 2  # transcript turns are evidence: never merged
