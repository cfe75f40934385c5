"""The write pipeline end to end on real SQLite + LanceDB + the e5 embedder: sessions, supersede, reinforce, log."""

from __future__ import annotations

import pytest
from sqlmodel import select

from memory.storage.models import MemoryEvent
from memory.vocab import SEMANTIC_TYPES


def _say(svc, text, session="s1", role="user", user="lin"):
    u = svc.ensure_user(user)
    s = svc.ensure_session(u, session)
    return svc.write_from_message(u, s, svc.add_message(s, role, text))


def _events(svc):
    with svc.storage.db() as db:
        return list(db.exec(select(MemoryEvent).order_by(MemoryEvent.id)).all())


@pytest.mark.slow
def test_move_across_sessions_supersedes_and_stays_in_history(svc):
    first = _say(svc, "I live in Hangzhou and I love hiking.", session="monday")
    old_id = next(o["memory_id"] for o in first.operations if "Hangzhou" in o["content"])
    moved = _say(svc, "我搬到上海了。", session="friday")
    (op,) = moved.operations
    assert op["op"] == "UPDATE" and op["target_ids"] == [old_id]
    old = svc.get_memory(old_id)
    assert old.status == "superseded" and old.superseded_by == op["memory_id"]
    hits = svc.recall("lin", "where does the user live?", threshold=0.0).hits
    assert old_id not in {h.memory_id for h in hits} and op["memory_id"] in {h.memory_id for h in hits}
    assert svc.get_profile("lin")["city"] == "上海"
    hiking = [m for m in svc.list_memories(svc.get_user("lin"), types=SEMANTIC_TYPES) if "hiking" in m.content]
    assert len(hiking) == 1  # unrelated memory untouched


@pytest.mark.slow
def test_repeat_reinforces_instead_of_adding(svc):
    a = _say(svc, "I'm vegetarian.", session="s1")
    b = _say(svc, "Just so you know, I am a vegetarian.", session="s2")
    (add,), (again,) = a.operations, b.operations
    assert add["op"] == "ADD" and again["op"] == "REINFORCE" and again["memory_id"] == add["memory_id"]
    m = svc.get_memory(add["memory_id"])
    assert m.reinforce_count == 1 and m.confidence > add["confidence"] and m.importance > add["importance"]
    assert len(m.source_message_ids) == 2
    assert len(svc.list_memories(svc.get_user("lin"), types=SEMANTIC_TYPES)) == 1


@pytest.mark.slow
def test_every_decision_is_logged_with_its_reason(svc):
    _say(svc, "thanks!")
    _say(svc, "Call me Lin.")
    events = [e for e in _events(svc) if e.detail.get("stage") != "episode"]  # beside them: each message's episode
    assert [e.op for e in events] == ["NOOP", "ADD"]
    assert "small talk" in events[0].reason and events[1].reason and events[1].message_id is not None


@pytest.mark.slow
def test_assistant_turn_never_becomes_a_user_fact_or_profile(svc):
    report = _say(svc, "Since you live in Hangzhou, I recommend West Lake.", role="assistant")
    # the one write entry's rule: an assistant reply is never read for facts; it is kept as said (an episode)
    assert report.operations == [] and report.profile_changes == [] and not report.worth
    assert len(report.episodes) == 1 and svc.get_memory(report.episodes[0]).meta["speaker"] == "Assistant"
    assert svc.get_profile("lin") == {}


@pytest.mark.slow
def test_remember_runs_the_full_pipeline_with_event_dates(svc):
    report = svc.remember("lin", "I have a dentist appointment next Friday.")
    (op,) = report.operations
    m = svc.get_memory(op["memory_id"])
    assert m.type == "event" and m.event_time is not None and m.source_message_ids


@pytest.mark.slow
def test_free_text_memory_is_deduplicated_by_similarity(svc):
    u = svc.ensure_user("lin")
    free = svc.add_memory(u, "User likes hiking.")  # no predicate: only the dedupe threshold can decide
    report = svc.remember("lin", "I like hiking.")
    (op,) = report.operations
    assert op["op"] == "REINFORCE" and op["memory_id"] == free.id
    assert op["similarity"] >= svc.settings.dedupe_threshold
    other = svc.remember("lin", "I live in Chengdu.").operations[0]
    assert other["op"] == "ADD"
