"""Two layers, one truth: a correction on what was said (an episode) or on what it means (a fact) reaches the other
layer, the profile, the bridge and the agent's next turn — and flag/delete are undone by unflag/restore, step for
step. Real SQLite + LanceDB, the real e5 embedder, the offline agent; EN and ZH."""

from __future__ import annotations

from cascade_helpers import ANA, bridge_text, chat_settled, fact_with, selected_contents

from memory import Memory as Client
from memory import views
from memory.lifecycle import curation
from memory.prompts import BRIDGE_WORDS
from memory.vocab import MemoryStatus, MemoryType, SourceType, is_flagged


def _episode(svc, user: str, needle: str):
    rows = svc.list_memories(svc.get_user(user), types=[MemoryType.EPISODE], statuses=tuple(MemoryStatus))
    return next(m for m in rows if needle in m.content and m.source_type == SourceType.USER_STATED)


def test_flagging_an_episode_retracts_what_was_read_from_it_and_unflag_brings_it_all_back(svc):
    first = chat_settled(svc, "q", "a", "I keep a parrot named Kiwi.")
    episode, fact = _episode(svc, "q", "Kiwi"), fact_with(svc, "q", "Kiwi")
    svc.flag_memory(episode.id, actor=ANA, reason="that is my sister's parrot")
    assert is_flagged(svc.get_memory(fact.id).meta)  # read only from it: flagged with it
    assert svc.get_memory(episode.id).content == "I keep a parrot named Kiwi."  # what was said stays as said
    turn = chat_settled(svc, "q", "b", "What is my parrot called?")
    assert turn.bridge == BRIDGE_WORDS["en"]["corrected"]  # said plainly, not "you didn't tell me anything new"
    assert "Kiwi" not in turn.reply and not [c for c in selected_contents(turn) if "Kiwi" in c]
    svc.unflag_memory(episode.id, actor=ANA, reason="it was theirs after all")
    assert not is_flagged(svc.get_memory(fact.id).meta)
    assert "Kiwi" in bridge_text(svc, first.session_key)  # the bridge is rebuilt, not just hidden
    again = chat_settled(svc, "q", "c", "Do you remember the name of my parrot?")
    assert "Kiwi" in again.reply and [c for c in selected_contents(again) if "Kiwi" in c]


def test_deleting_an_episode_keeps_a_fact_with_another_source_and_restore_undoes_every_step_zh(svc):
    chat_settled(svc, "王芳", "a", "我住在杭州。")
    chat_settled(svc, "王芳", "b", "我住在杭州，很喜欢这里。")
    fact = fact_with(svc, "王芳", "杭州")
    assert len(fact.source_message_ids) == 2 and svc.get_profile("王芳")["city"] == "杭州"
    one, two = _episode(svc, "王芳", "我住在杭州。"), _episode(svc, "王芳", "很喜欢")
    svc.delete_memory(one.id, actor=ANA, reason="说错了")
    assert svc.get_memory(fact.id).status == "active"  # another episode still supports it: one source fewer
    shown = curation.show_memory(svc.storage, fact.id)
    assert [s["state"] for s in shown["read_from"]] == ["deleted", "in force"]
    svc.delete_memory(two.id, actor=ANA, reason="也说错了")
    assert svc.get_memory(fact.id).status == "deleted" and svc.get_profile("王芳").get("city") is None
    turn = chat_settled(svc, "王芳", "c", "我住在哪里？")
    assert "杭州" not in turn.reply and not [c for c in selected_contents(turn) if "杭州" in c]
    assert turn.bridge == BRIDGE_WORDS["zh"]["corrected"]  # the only news was corrected away: said plainly
    svc.restore_memory(two.id, actor=ANA, reason="其实没错")
    assert svc.get_memory(fact.id).status == "active" and svc.get_profile("王芳")["city"] == "杭州"
    city = next(f for f in views.profile_fields(svc.storage, svc.get_user("王芳").key) if f["field"] == "city")
    assert city["said"] == "“我住在杭州。” (deleted); “我住在杭州，很喜欢这里。”"  # the profile names its episodes
    again = chat_settled(svc, "王芳", "d", "我住在哪里？")
    assert "杭州" in again.reply


def test_editing_an_episode_records_a_correction_the_facts_profile_and_agent_follow(svc):
    m = Client(service=svc)
    m.add("I live in Valencia", user_id="v")
    episode, fact = _episode(svc, "v", "Valencia"), fact_with(svc, "v", "Valencia")
    m.update(episode.id, "I live in Seville")  # the Python door: the same correction as the pages and the CLI
    kept = svc.get_memory(episode.id)
    assert kept.content == "I live in Valencia" and kept.type == MemoryType.EPISODE
    assert kept.source_type == SourceType.USER_STATED  # never the person's words presented as the user's
    assert kept.meta["correction"]["text"] == "I live in Seville" and is_flagged(kept.meta)
    assert is_flagged(svc.get_memory(fact.id).meta)
    assert svc.get_profile("v")["city"] == "Seville"
    correction = next(
        x for x in curation.show_memory(svc.storage, episode.id)["read_into"] if "Seville" in x["content"]
    )
    assert correction["state"] == "in force" and svc.get_memory(correction["memory_id"]).source_type == "person-edit"
    turn = chat_settled(svc, "v", "b", "Where do I live?")
    assert "Seville" in turn.reply and "Valencia" not in turn.reply
    assert not [c for c in selected_contents(turn) if "Valencia" in c]
    svc.unflag_memory(episode.id, actor=ANA, reason="the correction was wrong")
    assert svc.get_memory(correction["memory_id"]).status == "deleted"
    assert svc.get_profile("v")["city"] == "Valencia" and not is_flagged(svc.get_memory(fact.id).meta)
    assert "correction" not in svc.get_memory(episode.id).meta


def test_flagging_a_fact_retracts_the_configured_models_reply_that_restated_it_and_unflag_restores_it(svc):
    m = Client(service=svc)
    m.add(
        [
            {"role": "user", "content": "I live in Valencia."},
            {"role": "assistant", "content": "Noted: you live in Valencia, by the sea."},
        ],
        user_id="v",
    )
    fact = fact_with(svc, "v", "Valencia")
    rows = svc.list_memories(svc.get_user("v"), types=[MemoryType.EPISODE])
    reply = next(r for r in rows if r.source_type == SourceType.AGENT)  # a model's reply stays retrievable
    assert reply.subject == "Assistant"
    svc.flag_memory(fact.id, actor=ANA, reason="wrong city")
    assert is_flagged(svc.get_memory(reply.id).meta)  # it restated the retracted claim
    hits = svc.recall("v", "where do I live", threshold=0.0).selected
    assert not [h for h in hits if "Valencia" in h.content]
    svc.unflag_memory(fact.id, actor=ANA, reason="right after all")
    assert not is_flagged(svc.get_memory(reply.id).meta)


def test_deleting_a_fact_keeps_its_claim_out_while_its_episode_is_recalled_and_restore_brings_it_back_zh(svc):
    first = chat_settled(svc, "李雷", "a", "我的职业是设计师，我养了一只猫叫米米。")
    fact = fact_with(svc, "李雷", "设计师")
    svc.delete_memory(fact.id, actor=ANA, reason="用户其实是产品经理")
    assert svc.get_profile("李雷").get("occupation") is None
    turn = chat_settled(svc, "李雷", "b", "我的职业是什么？")
    assert "设计师" not in turn.reply
    assert not [c for c in selected_contents(turn) if "设计师" in c]  # the episode, when recalled, without the claim
    assert "设计师" not in bridge_text(svc, first.session_key)
    cat = chat_settled(
        svc, "李雷", "b", "我的猫叫什么？"
    )  # the message's other content still answers, the claim left out
    assert "猫" in cat.reply and "设计师" not in cat.reply
    assert not [c for c in selected_contents(cat) if "设计师" in c]
    svc.restore_memory(fact.id, actor=ANA, reason="没错")
    assert svc.get_profile("李雷")["occupation"] == "设计师"
    assert "设计师" in bridge_text(svc, first.session_key)  # rebuilt from what is in force again
    assert "设计师" in chat_settled(svc, "李雷", "c", "我的职业是什么？").reply


def test_offline_replies_stay_in_the_transcript_but_are_not_retrievable_memory(svc):
    turn = chat_settled(svc, "q", "a", "I keep a parrot named Kiwi.")
    said = [msg.role for msg in svc.messages(turn.session_key)]
    assert said == ["user", "assistant"]
    rows = svc.list_memories(svc.get_user("q"), types=[MemoryType.EPISODE])
    assert [r.source_type for r in rows] == [SourceType.USER_STATED]


def test_a_summary_anchor_is_rebuilt_without_a_flagged_message_and_with_it_again_on_unflag(tmp_path, e5):
    from memory.config import Settings
    from memory.service import MemoryService

    settings = Settings(
        data_dir=tmp_path / "fold", summary_trigger_turns=2, summary_keep_turns=1, summary_background=False
    )
    svc = MemoryService(settings, embedder=e5)
    try:
        for text in ("I keep a parrot named Kiwi.", "I work as a nurse.", "I like hiking."):
            turn = chat_settled(svc, "q", "a", text)

        def folded() -> str:
            return "\n".join(a.text for a in svc.summary_anchors(turn.session_key))

        assert "Kiwi" in folded()
        svc.flag_memory(_episode(svc, "q", "Kiwi").id, actor=ANA, reason="my sister's parrot")
        assert "Kiwi" not in folded() and "nurse" in folded()  # rebuilt from what is still in force
        svc.unflag_memory(_episode(svc, "q", "Kiwi").id, actor=ANA, reason="theirs after all")
        assert "Kiwi" in folded()
    finally:
        svc.close()
