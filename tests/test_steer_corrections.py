"""Seeing is steering: every correction a person makes (edit, supersede, flag, delete, a profile edit) is what the
agent obeys — one truth per fact, flagged never injected, a person's words never presented as the user's."""

from __future__ import annotations

import pytest

from agent.runtime import Agent
from memory.errors import Conflict
from memory.lifecycle import curation
from memory.retrieval.recall import RETRACTED
from memory.sessions.prompt import MemoryItem, one_value_each
from memory.vocab import SEMANTIC_TYPES, Actor, EventOp, Role, SourceType

ANA = Actor("ana", Role.CURATOR, "ui")


def _mem(svc, user: str, needle: str):
    return next(m for m in svc.list_memories(svc.get_user(user), types=SEMANTIC_TYPES) if needle in m.content)


def test_editing_a_memory_moves_its_profile_field_and_recall(svc):
    svc.remember("t1", "I live in Lisbon")
    mem = _mem(svc, "t1", "Lisbon")
    assert svc.profile_fields("t1")["city"].memory_ids == {"Lisbon": mem.id}  # the field records its memory
    curation.edit_memory(svc.storage, mem.id, "User lives in Porto.", actor=ANA, reason="moved")
    field = svc.profile_fields("t1")["city"]
    assert field.value == "Porto" and field.source == SourceType.PERSON_EDIT and field.memory_ids == {"Porto": mem.id}
    last = svc.profile_history("t1")[-1]
    assert last.actor == "ana · ui" and "moved" in last.reason and last.memory_id == mem.id
    result = svc.recall("t1", "where do I live", threshold=0.0)  # (the relevance cut is recall's own business)
    assert [h.content for h in result.selected] == ["User lives in Porto."]
    # the episode saying it is kept and found, never selected: it is the same message as the edited fact, or (when
    # it would be selected) states the retracted claim
    assert all(h.drop_reason for h in result.hits if "Lisbon" in h.content)
    edited = svc.get_memory(mem.id)
    assert edited.source_type == "person-edit" and edited.meta["person"]["actor"] == "ana"
    assert (edited.predicate, edited.object) == ("lives_in", "Porto")


def test_superseding_the_budget_memory_leaves_one_value_in_profile_and_prompt(svc):
    svc.remember("alice", "My budget is 3000")
    old = _mem(svc, "alice", "3000")
    new = curation.supersede_memory(svc.storage, old.id, "User's budget is 2500.", actor=ANA, reason="user lowered it")
    assert svc.get_profile("alice")["budget"] == "2500"
    # a person's supersede is the person's: not user-stated, not the old message's words
    assert new.source_type == "person-edit" and new.source_message_ids == []
    assert new.meta["person"]["actor"] == "ana" and "user lowered it" in new.meta["person"]["reason"]
    agent = Agent(svc)
    try:
        result = agent.chat("alice", "s2", "what is my budget?")
    finally:
        agent.close()
    assert "2500" in result.reply and "3000" not in result.reply
    ops = {e["op"] for e in curation.show_memory(svc.storage, old.id)["events"]}
    assert EventOp.SUPERSEDE in ops


def test_profile_edit_supersedes_the_memory_stating_the_old_value(svc):
    svc.remember("王芳", "我搬到了上海，现在住在那里")
    shanghai = _mem(svc, "王芳", "上海")
    svc.update_profile("王芳", "city", "北京", actor=ANA, reason="用户电话确认")
    assert svc.get_memory(shanghai.id).status == "superseded"
    now = svc.list_memories(svc.get_user("王芳"), types=SEMANTIC_TYPES)
    assert [m.content for m in now] == ["用户住在北京。"] and now[0].source_type == "person-edit"
    assert svc.profile_fields("王芳")["city"].memory_ids == {"北京": now[0].id}
    agent = Agent(svc)
    try:
        result = agent.chat("王芳", "s2", "我住在哪里？")
    finally:
        agent.close()
    assert "北京" in result.reply and "上海" not in result.reply
    assert "由工作人员更正" in result.reply  # the offline engine answers in the user's language


def test_flagged_memory_is_never_injected_and_unflag_restores_it(svc):
    svc.remember("王芳", "我的职业是设计师")
    wrong = _mem(svc, "王芳", "设计师")
    assert svc.get_profile("王芳")["occupation"] == "设计师"
    curation.flag_memory(svc.storage, wrong.id, actor=ANA, reason="用户其实是产品经理")
    assert svc.get_profile("王芳").get("occupation") is None  # cleared with a logged reason
    assert "flagged" in svc.profile_history("王芳")[-1].reason
    result = svc.recall("王芳", "我的职业是什么", threshold=0.0)
    hit = next(h for h in result.hits if h.memory_id == wrong.id)
    assert not hit.selected and hit.drop_reason == "flagged"  # kept and visible, never selected
    assert svc.recall("王芳", "我的职业是什么", threshold=0.0, include_flagged=True).selected
    agent = Agent(svc)
    try:
        reply = agent.chat("王芳", "s2", "我的职业是什么？").reply
    finally:
        agent.close()
    assert "设计师" not in reply
    with pytest.raises(Conflict):
        curation.flag_memory(svc.storage, wrong.id, actor=ANA, reason="twice")
    curation.unflag_memory(svc.storage, wrong.id, actor=ANA)
    back = svc.recall("王芳", "我的职业是什么", threshold=0.0)
    assert not [h for h in back.hits if h.drop_reason == "flagged"]
    # recalled again, one hit per message (docs/retrieval.md, "One hit per message"): the better-ranked of the two
    # layers (episode, fact) represents it, and the other passes but is logged as the same message
    said = sorted((h for h in back.hits if h.source_message_ids == wrong.source_message_ids), key=lambda h: h.rank)
    assert sorted(h.type for h in said) == ["episode", "fact"] and wrong.id in {h.memory_id for h in said}
    assert [h.selected for h in said] == [True, False]
    assert said[1].drop_reason == f"same message as #{said[0].rank}"
    assert svc.get_profile("王芳")["occupation"] == "设计师"


def test_flag_reverts_to_the_earlier_value_whose_memory_still_holds(svc):
    svc.remember("bob", "I live in Lisbon")
    svc.remember("bob", "I like hiking. I like chess.")
    person = curation.person_memory(svc.storage, svc.get_user("bob"), "User lives in Porto.", actor=ANA, reason="phone")
    from memory.write import profile_sync

    profile_sync.put(svc.storage, person, actor=ANA, why="added")
    assert svc.get_profile("bob")["city"] == "Porto"
    curation.flag_memory(svc.storage, person.id, actor=ANA, reason="wrong after all")
    lisbon = _mem(svc, "bob", "Lisbon")
    assert svc.get_memory(lisbon.id).status == "active"
    assert svc.get_profile("bob")["city"] == "Lisbon"
    chess = _mem(svc, "bob", "chess")
    curation.delete_memory(svc.storage, chess.id, actor=ANA, reason="not true")
    assert svc.get_profile("bob")["interests"] == ["hiking"]  # per value
    curation.restore_memory(svc.storage, chess.id, actor=ANA)
    assert svc.get_profile("bob")["interests"] == ["hiking", "chess"]
    assert svc.recall("bob", "chess", threshold=0.0).selected


def test_list_field_edit_works_per_item(svc):
    svc.remember("lin", "I like hiking. I like chess.")
    svc.update_profile("lin", "interests", ["hiking", "jazz"], actor=ANA, reason="phone call")
    contents = sorted(m.content for m in svc.list_memories(svc.get_user("lin"), types=SEMANTIC_TYPES))
    assert contents == ["User likes hiking.", "User likes jazz."]
    deleted = svc.list_memories(svc.get_user("lin"), statuses=("deleted",), types=SEMANTIC_TYPES)
    assert [m.content for m in deleted] == ["User likes chess."]
    links = svc.profile_fields("lin")["interests"].memory_ids
    assert set(links) == {"hiking", "jazz"}


def test_composer_never_states_two_values_of_a_single_valued_fact():
    items = [
        MemoryItem("a", "User lives in Shanghai.", predicate="lives_in", object="上海"),
        MemoryItem("b", "User likes tea.", predicate="likes", object="tea"),
        MemoryItem("c", "User lives in Beijing.", predicate="lives_in", object="Beijing"),
        MemoryItem("d", "User likes coffee.", predicate="likes", object="coffee"),
    ]
    kept, out = one_value_each({"city": "北京"}, items)
    assert [m.memory_id for m in kept] == ["b", "c", "d"] and out == ["a"]  # 北京 = Beijing
    kept, out = one_value_each({}, items)
    assert [m.memory_id for m in kept] == ["a", "b", "d"] and out == ["c"]  # the better-ranked value wins
    kept, out = one_value_each({"budget": "2500"}, [MemoryItem("x", "3000", predicate="budget", object="3000")])
    assert kept == [] and out == ["x"]


def test_delete_and_restore_are_logged_with_the_actor(svc):
    svc.remember("u", "I live in Lisbon")
    mem = _mem(svc, "u", "Lisbon")
    curation.delete_memory(svc.storage, mem.id, actor=ANA, reason="asked to forget")
    assert svc.get_profile("u").get("city") is None
    hits = svc.recall("u", "where do I live", threshold=0.0).hits
    assert not [h for h in hits if h.passed]  # the fact is gone; the sentence that said it is not recalled as true
    assert {h.drop_reason for h in hits if h.type == "episode"} == {RETRACTED}
    with pytest.raises(Conflict):
        curation.edit_memory(svc.storage, mem.id, "User lives in Porto.", actor=ANA)
    curation.restore_memory(svc.storage, mem.id, actor=ANA, reason="mistake")
    assert svc.get_profile("u")["city"] == "Lisbon"
    shown = curation.show_memory(svc.storage, mem.id)
    assert [e["op"] for e in shown["events"]] == ["ADD", "DELETE", "RESTORE"]
    assert shown["events"][1]["detail"]["actor"] == "ana" and shown["events"][1]["reason"] == "asked to forget"
