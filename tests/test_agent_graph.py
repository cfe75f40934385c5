"""The exported *uncompiled* graph, compiled here with an in-memory checkpointer and driven by a fake chat model
(the langchain-ai/memory-agent way): the memory loop runs end to end on real storage with only the model faked.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver

from agent.graph import TurnContext, TurnState, build_graph
from agent.llm import make_summariser
from memory.service import MemoryService
from memory.storage.models import ContextSnapshot, Message
from memory.vocab import SEMANTIC_TYPES


def replies() -> Iterator[AIMessage]:
    """What the fake model says, in call order: a reply, then (the write step asks it to extract) the facts."""
    yield AIMessage(content="Noted, Hangzhou it is.")
    fact = {"predicate": "lives_in", "object": "Hangzhou", "content": "User lives in Hangzhou."}
    yield AIMessage(content=json.dumps({"facts": [fact]}))
    yield AIMessage(content="You live in Hangzhou.")
    while True:  # nothing more to extract from a question
        yield AIMessage(content=json.dumps({"facts": []}))


def test_the_uncompiled_graph_runs_with_an_in_memory_saver_and_a_fake_model(svc: MemoryService):
    saver = InMemorySaver()
    graph = build_graph().compile(checkpointer=saver)
    model = GenericFakeChatModel(messages=replies())
    user = svc.ensure_user("graph-user")
    session = svc.ensure_session(user, "s1")
    config = {"configurable": {"thread_id": session.id}}

    contexts: list[TurnContext] = []

    def turn(text: str) -> TurnState:
        ctx = TurnContext(
            service=svc,
            model=model,
            summariser=make_summariser(model),
            settings=svc.effective_settings(),
            user=user,
            session=session,
            text=text,
        )
        state = graph.invoke(TurnState(action="turn"), config, context=ctx)
        for thread in ctx.background:
            thread.join(30)
        contexts.append(ctx)
        return state

    first = turn("I moved to Hangzhou last month.")
    with svc.storage.db() as db:
        reply = db.get(Message, first["reply_message_id"])
    assert reply is not None and reply.content == "Noted, Hangzhou it is."
    svc.wait_writes(user)  # the write runs after the reply; the next turn waits for it itself (checked below)
    assert [m.content for m in svc.list_memories(user, types=SEMANTIC_TYPES)] == ["User lives in Hangzhou."]
    assert saver.get(config) is not None  # the turn's state was checkpointed on the session's thread

    second = turn("Where do I live now?")
    assert second["turn_id"] != first["turn_id"]
    hits = svc.recall("graph-user", "Where do I live now?", log=False).hits
    assert hits and hits[0].content == "User lives in Hangzhou."
    with svc.storage.db() as db:
        answer = db.get(Message, second["reply_message_id"])
        prompt = db.get(ContextSnapshot, second["snapshot_id"])
    assert answer is not None and answer.content == "You live in Hangzhou."
    assert prompt is not None and "- city: Hangzhou" in prompt.prompt  # turn 1's write reached turn 2's prompt

    # what each node handed the next, typed: the second turn's scratch holds turn 1's message, its write and the recall
    s = contexts[1].scratch
    assert s.user_message is not None and s.user_message.id == second["user_message_id"]
    assert [m.content for m in s.history] == ["I moved to Hangzhou last month.", "Noted, Hangzhou it is."]
    assert s.profile == {"city": "Hangzhou"} and s.profile_sources["city"] == "user-stated"
    assert s.profile_dates["city"] <= datetime.now(UTC)
    assert s.recall is not None and s.recall.selected[0].content == "User lives in Hangzhou."
    assert [m.content for m in s.memory_items] == ["User lives in Hangzhou."]
    assert s.composition is not None and s.composition.injected == [s.memory_items[0].memory_id]
    assert s.reply == "You live in Hangzhou." and s.written() is not None and not s.written().added
    assert contexts[0].scratch.written() is not None and contexts[0].scratch.written().added
    assert s.bridge is None and s.bridge_written is None and not s.erased

    # the other branch: ending the session writes its bridge, which the scratch carries back to the caller
    end = TurnContext(
        service=svc,
        model=model,
        summariser=make_summariser(model),
        settings=svc.effective_settings(),
        user=user,
        session=session,
    )
    ended = graph.invoke(TurnState(action="end"), config, context=end)
    bridge = end.scratch.bridge_written
    assert ended["ended"] and bridge is not None and ended["bridge_id"] == bridge.id
    assert end.scratch.user_message is None and end.scratch.recall is None  # the turn's nodes did not run


def test_the_agent_reads_and_writes_only_through_the_service_facade():
    """No SQL in agent/: no database session opened, no SQLModel query built, no table row made by hand."""
    root = Path(__file__).resolve().parents[1] / "agent"
    offenders = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if re.search(r"\.db\(\)|\bfrom sqlmodel\b|\bimport sqlmodel\b|\bfrom sqlalchemy\b|\.engine\b", text):
            offenders.append(str(path.relative_to(root.parent)))
    assert offenders == []
