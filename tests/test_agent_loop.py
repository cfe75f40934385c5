"""The agent loop end to end: real SQLite + LanceDB + e5, fake chat models only at the model boundary (registered
through the real factory seam), the offline engine as the default."""

from __future__ import annotations

import json
import re
import sqlite3
from datetime import UTC, datetime
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from sqlmodel import select
from typer.testing import CliRunner

from agent.llm import make_chat_model, provider, register_chat_model, unregister_chat_model
from agent.offline import OfflineChatModel, OfflineContext, Recalled
from agent.runtime import Agent
from memory.prompts import HEADERS
from memory.service import MemoryService
from memory.storage.models import ContextSection, ContextSnapshot, Retrieval, RetrievalHit, Turn


class RecordingFake(GenericFakeChatModel):
    """langchain's generic fake chat model (streams word by word), remembering every prompt it was given."""

    seen: list = []

    def _stream(self, messages, stop=None, run_manager=None, **kwargs: Any):
        self.seen.append(messages)
        yield from super()._stream(messages, stop=stop, run_manager=run_manager, **kwargs)


@pytest.fixture
def fake_provider():
    """Registers a fake under a provider name; yields the prompts it receives (pydantic copies a passed list)."""
    built: list[RecordingFake] = []
    replies = iter([AIMessage(content=f"Reply number {i}, streamed word by word.") for i in range(50)])

    def factory(_settings):
        built.append(RecordingFake(messages=replies, seen=[]))
        return built[-1]

    register_chat_model("recording-fake", factory)
    yield lambda: [prompt for model in built for prompt in model.seen]
    unregister_chat_model("recording-fake")


def test_factory_resolves_providers(settings):
    assert provider(settings) == "offline" and isinstance(make_chat_model(settings), OfflineChatModel)
    assert provider(settings.model_copy(update={"llm_base_url": "http://127.0.0.1:9/v1"})) == "openai"
    local = make_chat_model(settings.model_copy(update={"llm_base_url": "http://127.0.0.1:9/v1", "llm_model": "m"}))
    assert type(local).__name__ == "ChatOpenAI" and local.openai_api_key.get_secret_value()  # placeholder key


def test_a_turn_through_the_factory_seam_streams_and_leaves_a_complete_record(svc, fake_provider):
    svc.storage.settings = svc.settings.model_copy(
        update={"llm_provider": "recording-fake", "relevance_threshold": 0.0}
    )
    user = svc.ensure_user("alice")
    svc.add_memory(user, "Alice is allergic to peanuts", type="fact")
    agent = Agent(svc)
    stream = agent.stream("alice", "s1", "Can I eat peanut butter cookies?")
    chunks = list(stream)
    result = stream.result
    agent.close()
    assert len(chunks) > 3 and "".join(chunks) == result.reply == "Reply number 0, streamed word by word."
    prompt = fake_provider()[0]
    assert isinstance(prompt[1], SystemMessage) and "allergic to peanuts" in prompt[1].content
    assert "allergic" not in prompt[0].content  # the instructions never carry memory text
    assert prompt[-1].content == "Can I eat peanut butter cookies?"
    with svc.storage.db() as db:
        turn = db.get(Turn, result.turn_id)
        assert turn.user_message_id and turn.reply_message_id and turn.session_id == result.session_key
        retrieval = db.exec(select(Retrieval).where(Retrieval.turn_id == turn.id)).one()
        hits = db.exec(select(RetrievalHit).where(RetrievalHit.retrieval_id == retrieval.id)).all()
        assert any(h.injected for h in hits) and all(h.similarity is not None for h in hits)
        snap = db.exec(select(ContextSnapshot).where(ContextSnapshot.turn_id == turn.id)).one()
        sections = db.exec(select(ContextSection).where(ContextSection.snapshot_id == snap.id)).all()
    assert snap.total_used == result.context["total_used"] <= snap.total_budget
    assert [s.name for s in sorted(sections, key=lambda s: s.position)][-2:] == ["history", "input"]
    # the LangGraph checkpointer lives in the MemLens SQLite file, one thread per session (thread_id = Session.id)
    db_file = svc.settings.resolved_database_url().removeprefix("sqlite:///")
    with sqlite3.connect(db_file) as conn:
        threads = {row[0] for row in conn.execute("SELECT DISTINCT thread_id FROM checkpoints")}
    assert threads == {result.session_key}


@pytest.mark.slow
def test_scripted_sessions_bridge_goal_follow_ups_and_profile(svc, monkeypatch):
    """Offline engine (the default): session 1 → bridge on turn 1 of session 2; follow-ups (English and Chinese)
    are composed with the destination from the summary; a profile fact of session 1 is in session 3's context."""
    svc.storage.settings = svc.settings.model_copy(update={"summary_trigger_turns": 3, "summary_keep_turns": 1})
    agent = Agent(svc)
    prompts: list[str] = []
    real_stream = OfflineChatModel._stream

    def spy(self, messages, *args, **kwargs):  # what the model saw: (system message, recent history)
        prompts.append((messages[1].content, " ".join(str(m.content) for m in messages[2:-1])))
        yield from real_stream(self, messages, *args, **kwargs)

    monkeypatch.setattr(OfflineChatModel, "_stream", spy)
    try:
        for text in ["Please plan a 3-day trip to Hangzhou for me.", "I live in Shanghai.", "I prefer quiet places."]:
            agent.chat("lin", "s1", text)
            agent.wait()
        follow = agent.chat("lin", "s1", "make the hotel cheaper")
        system, history = prompts[-1]
        summary_part = system.split(HEADERS["summary"])[1]
        assert "Hangzhou" in summary_part and "Hangzhou" not in history  # it came from the summary, not the window
        assert "Hangzhou" in follow.retrieval_query and follow.recall.query == "make the hotel cheaper"

        first = agent.chat("lin", "s2", "请帮我规划成都三天的旅行。")
        assert first.bridge and "Hangzhou" in first.bridge and first.bridge in prompts[-1][0]
        for text in ["我喜欢安静的地方。", "我不吃辣。"]:
            agent.chat("lin", "s2", text)
            agent.wait()
        zh = agent.chat("lin", "s2", "酒店换便宜点的")
        assert "成都" in prompts[-1][0].split(HEADERS["summary"])[1] and "成都" in zh.retrieval_query

        third = agent.chat("lin", "s3", "What should I pack?")
        assert "成都" in third.bridge  # session 2's bridge, not session 1's
        profile_part = prompts[-1][0].split(HEADERS["profile"])[1].split("##")[0]
        assert "Shanghai" in profile_part
    finally:
        agent.close()
    ctx = third.context
    assert ctx["total_used"] <= ctx["total_budget"] and {s["name"] for s in ctx["sections"]} >= {"profile", "bridge"}


def test_offline_engine_is_honest_deterministic_and_bilingual():
    told = datetime(2026, 11, 24, 10, 0, tzinfo=UTC)
    ctx = OfflineContext(
        profile={"city": "杭州", "preferred_name": "小芳"},
        profile_dates={"city": told},
        memories=[Recalled("用户不吃辣。", told)],
    )
    model = OfflineChatModel()
    zh = [SystemMessage("whatever the prompt format is"), HumanMessage("我吃什么比较好？")]
    chunks = [c.content for c in model.stream(zh, memlens=ctx)]
    reply = "".join(chunks)
    assert len(chunks) > 3 and reply == model.invoke(zh, memlens=ctx).content
    assert "离线" in reply and "小芳" in reply and "你不吃辣（11月24日告诉我的）" in reply
    assert not re.search(r"[A-Za-z_]{4,}|用户|\[", reply.replace("MemLens", "")), reply  # no field names or tags
    en = model.invoke([HumanMessage("Where do I live now?")], memlens=ctx).content
    assert "offline engine" in en and "You live in 杭州 — you told me on 24 November." in en
    later = model.invoke([HumanMessage("hello there")], memlens=OfflineContext(first_turn=False)).content
    assert "offline" not in later.lower() and later  # said once per session, not in every reply
    bare = model.invoke([HumanMessage("what do you remember about me?")]).content
    assert "offline engine" in bare and "don't remember anything" in bare


def test_tell_me_about_me_lists_profile_and_top_memories_even_below_the_threshold(svc):
    svc.storage.settings = svc.settings.model_copy(update={"relevance_threshold": 0.99})
    agent = Agent(svc)
    try:
        for text in ["I live in Lisbon and I work as a nurse.", "My wife loves sushi.", "I'm vegetarian."]:
            agent.chat("zoe", "s1", text)
            agent.wait()
        en = agent.chat("zoe", "s1", "What do you remember about me?")
        zh = agent.chat("zoe", "s1", "你记得我什么？")
    finally:
        agent.close()
    assert not en.recall.selected  # nothing passed the threshold ...
    assert "You live in Lisbon" in en.reply and "Your wife likes sushi" in en.reply  # ... yet the user hears it all
    assert "You work as a nurse" in en.reply and "offline engine" not in en.reply  # said on turn 1 only
    assert "我记得关于你的这些" in zh.reply and "Lisbon" in zh.reply and "city" not in zh.reply


def test_cli_chat_json_and_end_session(monkeypatch):
    monkeypatch.setenv("MEMLENS_EMBEDDER", "hash")
    from agent.cli import app

    runner = CliRunner()
    out = runner.invoke(app, ["chat", "--user", "u1", "--session", "a", "--json", "I want to visit Kyoto in April."])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["reply"] and isinstance(data["hits"], list) and data["bridge"] is None
    ctx = data["context"]
    assert ctx["total_used"] <= ctx["total_budget"]
    assert all({"name", "budget", "used"} <= set(s) for s in ctx["sections"])
    ended = runner.invoke(app, ["end-session", "--user", "u1", "--session", "a"])
    assert ended.exit_code == 0 and "Kyoto" in ended.stdout
    nxt = json.loads(runner.invoke(app, ["chat", "--user", "u1", "--session", "b", "--json", "hi"]).stdout)
    assert "Kyoto" in nxt["bridge"]
    missing = runner.invoke(app, ["end-session", "--user", "u1", "--session", "nope"])
    assert missing.exit_code != 0


def test_end_session_on_the_graph_uses_the_same_thread(plumbing_svc):
    svc: MemoryService = plumbing_svc
    agent = Agent(svc)
    agent.chat("u", "s1", "I am planning a trip to Lisbon.")
    bridge = agent.end_session("u", "s1")
    state = agent.graph.get_state({"configurable": {"thread_id": agent.last_result.session_key}})
    agent.close()
    assert "Lisbon" in bridge and state.values["ended"] is True


def test_a_retried_turn_with_the_same_idempotency_key_stores_the_message_and_memory_once(plumbing_svc):
    from memory.storage.models import MemoryEvent, Message

    agent = Agent(plumbing_svc)
    try:
        for _ in range(2):
            agent.chat("retry-user", "s1", "I live in Chengdu", idempotency_key="client-msg-1")
        agent.chat("retry-user", "s1", "I live in Chengdu")  # no key: a new message, the memory is reinforced
        agent.wait()
    finally:
        agent.close()
    with plumbing_svc.storage.db() as db:
        users = [m for m in db.exec(select(Message).where(Message.role == "user")).all()]
        adds = db.exec(select(MemoryEvent).where(MemoryEvent.op == "ADD")).all()
    assert len(users) == 2
    facts = [e for e in adds if "Chengdu" in e.content and e.detail.get("stage") != "episode"]
    episodes = [e for e in adds if e.detail.get("stage") == "episode" and "Chengdu" in e.content]
    assert len(facts) == 1 and len(episodes) == 2  # one episode per stored message, the retry added none
