"""The exported *uncompiled* graph, compiled here with an in-memory checkpointer and driven by a fake chat model
(the langchain-ai/memory-agent way): the memory loop runs end to end on real storage with only the model faked.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver

from agent.graph import TurnContext, build_graph
from agent.llm import make_summariser
from memory.service import MemoryService
from memory.storage.models import ContextSnapshot, Message


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

    def turn(text: str) -> dict:
        ctx = TurnContext(
            service=svc,
            model=model,
            summariser=make_summariser(model),
            settings=svc.effective_settings(),
            user=user,
            session=session,
            text=text,
        )
        state = graph.invoke({"action": "turn"}, config, context=ctx)
        for thread in ctx.background:
            thread.join(30)
        return state

    first = turn("I moved to Hangzhou last month.")
    with svc.db() as db:
        reply = db.get(Message, first["reply_message_id"])
    assert reply is not None and reply.content == "Noted, Hangzhou it is."
    assert [m.content for m in svc.list_memories(user)] == ["User lives in Hangzhou."]
    assert saver.get(config) is not None  # the turn's state was checkpointed on the session's thread

    second = turn("Where do I live now?")
    assert second["turn_id"] != first["turn_id"]
    hits = svc.recall("graph-user", "Where do I live now?", log=False).hits
    assert hits and hits[0].content == "User lives in Hangzhou."
    with svc.db() as db:
        answer = db.get(Message, second["reply_message_id"])
        prompt = db.get(ContextSnapshot, second["snapshot_id"])
    assert answer is not None and answer.content == "You live in Hangzhou."
    assert prompt is not None and "- city: Hangzhou" in prompt.prompt  # turn 1's write reached turn 2's prompt
