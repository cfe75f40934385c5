"""The batch write path (``write_from_messages``) decides exactly what message-by-message writing decides, with one
embedding call, and leaves SQL, the index and the write log in the same state."""

from __future__ import annotations

import re
import threading

import numpy as np
import pytest
from sqlmodel import select

from memory.errors import InvalidInput
from memory.storage.models import Memory, MemoryEvent, ProfileChange

# a conversation that, inside one batch, adds, reinforces (vegetarian twice, hiking), supersedes (the move), takes back
# (no longer likes sushi), hedges, dedupes a free-text note by similarity, and has small talk and an assistant turn
SCRIPT = [
    ("user", "Hi!"),
    ("user", "I live in Hangzhou and I love hiking."),
    ("user", "I'm vegetarian. Call me Lin."),
    ("assistant", "Since you live in Hangzhou, you might enjoy West Lake."),
    ("user", "Remember that my spare key is under the blue flowerpot."),
    ("user", "I like sushi. My budget is 5000."),
    ("user", "Just so you know, I am a vegetarian."),
    ("user", "我搬到上海了。"),
    ("user", "Maybe I'll move to Beijing next year."),
    ("user", "I no longer like sushi."),
    ("user", "Remember that my spare key is under the blue flowerpot."),
    ("user", "I love hiking!"),
    ("user", "As I said, I'm vegetarian."),
    ("user", "thanks"),
]


class CountingEmbedder:
    """The real embedder, counting the passage calls (what the batch path promises to make once)."""

    def __init__(self, inner) -> None:
        self.inner, self.name, self.dim, self.calls = inner, inner.name, inner.dim, 0

    def embed_query(self, text):
        return self.inner.embed_query(text)

    def embed_passages(self, texts):
        self.calls += 1
        return self.inner.embed_passages(texts)


def _normaliser():
    names: dict[str, str] = {}

    def norm(value):
        if isinstance(value, dict):
            return {
                k: norm(v)
                for k, v in value.items()
                if k not in ("timings_ms", "message_id", "source_message_id", "event_time")
            }
        if isinstance(value, list):
            return [norm(v) for v in value]
        if isinstance(value, str):
            return re.sub(r"\b[0-9a-f]{32}\b", lambda m: names.setdefault(m.group(), f"M{len(names)}"), value)
        return value

    return norm


def _state(svc, user_id: str, reports) -> dict:
    """Everything the two paths must agree on, with ids replaced by their order of appearance."""
    norm = _normaliser()
    user = svc.get_user(user_id)
    first = min(r.message_id for r in reports)
    with svc.storage.db() as db:
        memories = db.exec(select(Memory).where(Memory.user_key == user.key).order_by(Memory.created_at)).all()
        events = db.exec(select(MemoryEvent).where(MemoryEvent.user_key == user.key).order_by(MemoryEvent.id)).all()
        changes = db.exec(
            select(ProfileChange).where(ProfileChange.user_key == user.key).order_by(ProfileChange.id)
        ).all()
    return {
        "reports": [
            norm({"worth": r.worth, "reason": r.reason, "ops": r.operations, "profile": r.profile_changes})
            for r in reports
        ],
        "memories": sorted(
            (
                norm(m.content),
                m.status,
                norm(m.superseded_by or ""),
                m.reinforce_count,
                m.confidence,
                m.importance,
                tuple(i - first for i in m.source_message_ids),
            )
            for m in memories
        ),
        "events": [
            (e.op, norm(e.reason), norm(e.content), e.message_id - first if e.message_id else None) for e in events
        ],
        "changes": [(c.field, c.old_value, c.new_value, c.reason, c.source_message_id - first) for c in changes],
        "profile": svc.get_profile(user_id),
        "indexed": sorted(norm(i) for i in svc.storage.index.id_list(user.key)),
        "active": sorted(norm(m.id) for m in memories if m.status == "active"),
    }


def _stored(svc, user_id: str):
    user = svc.ensure_user(user_id)
    session = svc.ensure_session(user, "s1")
    return user, session, [svc.add_message(session, role, text) for role, text in SCRIPT]


@pytest.mark.slow
def test_batch_decides_like_message_by_message(settings, e5):
    from memory.service import MemoryService

    emb = CountingEmbedder(e5)
    svc = MemoryService(settings, embedder=emb)
    svc.add_memory(svc.ensure_user("seq"), "User enjoys long walks in the mountains.")  # stored free text for both
    svc.add_memory(svc.ensure_user("batch"), "User enjoys long walks in the mountains.")
    user, session, msgs = _stored(svc, "seq")
    one_by_one = [svc.write_from_message(user, session, m, keep_unparsed=True) for m in msgs]
    user, session, msgs = _stored(svc, "batch")
    calls = emb.calls
    batch = svc.write_from_messages(user, session, msgs, keep_unparsed=True)
    assert emb.calls == calls + 1  # every candidate of the conversation embedded in one call

    seq_state, batch_state = _state(svc, "seq", one_by_one), _state(svc, "batch", batch)
    assert batch_state == seq_state
    ops = [o["op"] for r in batch for o in r.operations]
    assert {"ADD", "REINFORCE", "UPDATE"} <= set(ops)  # the script exercises each decision inside the batch
    assert batch_state["indexed"] == batch_state["active"]  # superseded rows never reached the index
    assert svc.get_profile("batch")["city"] == "上海"
    moved = next(o for r in batch for o in r.operations if o["op"] == "UPDATE" and "上海" in o["content"])
    assert svc.get_memory(moved["target_ids"][0]).status == "superseded"
    key = [o for r in batch for o in r.operations if "flowerpot" in o["content"]]
    assert [o["op"] for o in key] == ["ADD", "REINFORCE"]  # free text deduplicated by similarity within the batch
    assert svc.repair() == {"indexed": 0, "orphans_removed": 0}


def test_a_repeated_batch_writes_nothing_twice(plumbing_svc):
    svc = plumbing_svc
    user, session, msgs = _stored(svc, "lin")
    first = svc.write_from_messages(user, session, [m.id for m in msgs])
    again = svc.write_from_messages(user, session, msgs + msgs[:2])
    assert sum(len(r.operations) for r in first) > 0
    assert [r.reason for r in again] == ["already written (repeated message)"] * (len(msgs) + 2)
    with svc.storage.db() as db:
        per_message = {e.message_id for e in db.exec(select(MemoryEvent)).all()}
    assert per_message >= {m.id for m in msgs}


def test_a_batch_refuses_another_users_message(plumbing_svc):
    svc = plumbing_svc
    _, _, theirs = _stored(svc, "someone-else")
    user = svc.ensure_user("lin")
    with pytest.raises(InvalidInput):
        svc.write_from_messages(user, svc.ensure_session(user, "s"), theirs[:1])


def test_a_plan_made_elsewhere_is_applied_and_logged(plumbing_svc):
    from memory.storage.models import utcnow
    from memory.write.apply import apply_plan
    from memory.write.extract.extractor import extract
    from memory.write.plan import plan_writes

    svc = plumbing_svc
    user = svc.ensure_user("lin")
    cands = extract("I live in Hangzhou.", at=utcnow())
    for c, v in zip(cands, svc.storage.embedder.embed_passages([c.content for c in cands]), strict=True):
        c.vector = v
    (op,) = apply_plan(svc.storage, user, plan_writes(cands, [], svc.settings), agent_id="default")
    m = svc.get_memory(op.memory_id)
    assert op.op == "ADD" and m.indexed and m.predicate == "lives_in"
    assert svc.storage.index.ids(user.key) == {m.id}
    with svc.storage.db() as db:
        (event,) = db.exec(select(MemoryEvent)).all()
    assert event.op == "ADD" and event.memory_id == m.id and event.detail["memory_id"] == m.id


def test_a_batch_of_messages_is_one_embedding_call_spread_over_the_cores(settings, e5, monkeypatch):
    """``write_from_messages`` (every core, MEMLENS_EMBED_THREADS=0) embeds the episodes and facts of N messages in
    ONE call of the real embedder, which runs as concurrent one-thread shards; the index holds for each episode
    exactly the vector its passage gets embedded alone."""
    from memory.service import MemoryService
    from memory.storage.embed import available_cores
    from memory.storage.models import Session
    from memory.write.entry import Said

    if available_cores() < 2:
        pytest.skip("one core: nothing to spread a batch over")
    in_flight: list[int] = []
    meet = threading.Barrier(2, timeout=60)
    real = e5._model.passage

    def passage(texts):
        in_flight.append(threading.get_ident())
        if len(in_flight) <= 2:
            meet.wait()  # the first two shards must run at the same time
        return real(texts)

    emb = CountingEmbedder(e5)
    svc = MemoryService(settings, embedder=emb)
    user = svc.ensure_user("shards")
    session: Session = svc.ensure_session(user, "s1")
    said = [Said(role, text) for role, text in SCRIPT]
    monkeypatch.setattr(e5._model, "passage", passage)
    reports = svc.write_from_messages(user, session, said)
    monkeypatch.setattr(e5._model, "passage", real)
    assert emb.calls == 1 < len(SCRIPT)
    assert len(set(in_flight)) == 2
    episodes = {e for r in reports for e in r.episodes}
    assert len(episodes) == len(SCRIPT)  # every message kept as said
    indexed = [r for r in svc.storage.index.table.to_arrow().to_pylist() if r["user_key"] == user.key]
    assert episodes <= {r["id"] for r in indexed} and len(indexed) > len(episodes)  # the facts are there too
    alone = np.vstack([e5.embed_passages([r["text"]]) for r in indexed])  # each passage on its own, one thread
    assert float(np.abs(np.asarray([r["vector"] for r in indexed], dtype=np.float32) - alone).max()) <= 1e-5
