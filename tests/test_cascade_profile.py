"""A person's profile edit is a correction like any other: it goes through the one correction function
(``memory.lifecycle.corrections.apply``), so clearing or changing a value a fact fed reaches the fact, the replies that
restated it, the stored bridges and the next turn — and restoring the deleted fact brings the value back everywhere.
Through the service (as the Profile page calls it) and the Python door, EN and ZH; real SQLite + LanceDB, the real
e5 embedder, the offline agent."""

from __future__ import annotations

from cascade_helpers import ANA, bridge_text, chat_settled, fact_with, selected_contents

from memory import Memory as Client
from memory.vocab import MemoryStatus, MemoryType, SourceType, is_flagged


def _clear_then_restore(svc, user: str, said: str, place: str, hello: str, question: str) -> None:
    first = chat_settled(svc, user, "a", said)
    chat_settled(svc, user, "b", hello)  # the bridge from session a is written now, saying the place
    assert place in bridge_text(svc, first.session_key)
    fact = fact_with(svc, user, place)
    svc.update_profile(user, "city", None, actor=ANA, reason="no longer true")
    assert svc.get_memory(fact.id).status == MemoryStatus.DELETED and svc.get_profile(user).get("city") is None
    assert place not in bridge_text(svc, first.session_key)  # rebuilt, not just hidden when read
    turn = chat_settled(svc, user, "c", question)
    assert place not in turn.reply and place not in (turn.bridge or "")
    assert not [c for c in selected_contents(turn) if place in c]
    svc.restore_memory(fact.id, actor=ANA, reason="it was true")
    assert svc.get_profile(user)["city"] == place
    assert place in bridge_text(svc, first.session_key)
    assert place in chat_settled(svc, user, "d", question).reply


def test_clearing_a_profile_value_retracts_its_fact_and_bridge_and_restore_brings_them_back(svc):
    _clear_then_restore(svc, "v", "I live in Valencia.", "Valencia", "Hello again.", "Where do I live?")


def test_clearing_a_profile_value_retracts_its_fact_and_bridge_and_restore_brings_them_back_zh(svc):
    _clear_then_restore(svc, "王芳", "我住在杭州。", "杭州", "你好。", "我住在哪里？")


def _reply(svc, user: str):
    rows = svc.list_memories(svc.get_user(user), types=[MemoryType.EPISODE], statuses=tuple(MemoryStatus))
    return next(r for r in rows if r.source_type == SourceType.AGENT)


def test_changing_a_profile_value_flags_the_models_reply_that_restated_the_old_one(svc):
    m = Client(service=svc)
    said = [
        {"role": "user", "content": "I live in Valencia."},
        {"role": "assistant", "content": "Noted: you live in Valencia, by the sea."},
    ]
    m.add(said, user_id="v")
    fact, reply = fact_with(svc, "v", "Valencia"), _reply(svc, "v")
    svc.update_profile("v", "city", "Seville", actor=ANA, reason="moved")
    assert svc.get_memory(fact.id).status == MemoryStatus.SUPERSEDED
    assert is_flagged(svc.get_memory(reply.id).meta)  # the reply said what is now replaced
    hits = [h.content for h in svc.recall("v", "where do I live", threshold=0.0).selected]
    assert not [h for h in hits if "Valencia" in h] and [h for h in hits if "Seville" in h]
    assert svc.get_profile("v")["city"] == "Seville"


def test_clearing_a_profile_value_deletes_the_models_reply_and_restore_brings_it_back_zh(svc):
    m = Client(service=svc)
    said = [{"role": "user", "content": "我住在杭州。"}, {"role": "assistant", "content": "好的，你住在杭州。"}]
    m.add(said, user_id="王芳")
    fact, reply = fact_with(svc, "王芳", "杭州"), _reply(svc, "王芳")
    svc.update_profile("王芳", "city", None, actor=ANA, reason="搬走了")
    assert svc.get_memory(reply.id).status == MemoryStatus.DELETED
    assert not [h for h in svc.recall("王芳", "我住在哪里", threshold=0.0).selected if "杭州" in h.content]
    svc.restore_memory(fact.id, actor=ANA, reason="没搬")
    assert svc.get_memory(reply.id).status == MemoryStatus.ACTIVE and svc.get_profile("王芳")["city"] == "杭州"
