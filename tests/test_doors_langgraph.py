"""MemLensStore inside a real compiled LangGraph graph (fake chat model at the model boundary), and the tools."""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.store.base import BaseStore, PutOp

from memory import Memory, views
from memory.errors import InvalidInput
from memory.langgraph import MemLensStore, memlens_tools


class Prompts(GenericFakeChatModel):
    """Replies in turn and keeps every prompt it was given (to check what the store put into it)."""

    seen: list = []


@pytest.fixture
def store(plumbing_svc) -> MemLensStore:
    return MemLensStore(Memory(plumbing_svc, via="langgraph"), threshold=-1.0)


def build(model) -> StateGraph:
    def respond(state: MessagesState, config, *, store: BaseStore):
        user = config["configurable"]["user_id"]
        question = state["messages"][-1].content
        found = store.search((user, "bot"), query=question, limit=3)
        notes = "\n".join(f"- {i.value['content']}" for i in found)
        prompt = [SystemMessage(f"What you remember:\n{notes}"), *state["messages"]]
        model.seen.append(prompt)
        store.put((user, "bot", "notes"), question[:12], {"content": question})
        return {"messages": [model.invoke(prompt)]}

    builder = StateGraph(MessagesState)
    builder.add_node("respond", respond)
    builder.add_edge(START, "respond")
    return builder


def test_compiled_graph_remembers_through_the_store(store, plumbing_svc):
    model = Prompts(messages=iter([AIMessage("ok"), AIMessage("ok"), AIMessage("ok")]), seen=[])
    graph = build(model).compile(store=store)
    alice = {"configurable": {"user_id": "alice"}}
    graph.invoke({"messages": [HumanMessage("I keep a cat called Mochi")]}, alice)
    graph.invoke({"messages": [HumanMessage("bob secret: my PIN hint is tulip")]}, {"configurable": {"user_id": "bob"}})
    graph.invoke({"messages": [HumanMessage("what is my cat called?")]}, alice)
    last_prompt = model.seen[-1][0].content
    assert "Mochi" in last_prompt and "tulip" not in last_prompt  # alice's memory in, bob's never
    item = store.get(("alice", "bot", "notes"), "I keep a cat")
    assert item.value == {"content": "I keep a cat called Mochi"} and item.namespace == ("alice", "bot", "notes")
    rows, _ = views.write_log(plumbing_svc.storage, plumbing_svc.get_user("alice").key)
    assert rows and all(r["via"] == "langgraph" for r in rows)


def test_store_operations_and_isolation(store):
    ns = ("alice", "bot", "prefs")
    store.put(ns, "food", {"content": "likes spicy noodles", "level": 3})
    store.put(ns, "food", {"content": "likes mild noodles", "level": 1})  # same key: supersedes
    store.put(("bob", "bot", "prefs"), "food", {"content": "bob likes rice"})
    assert store.get(ns, "food").value["level"] == 1
    hits = store.search(("alice", "bot"), query="noodles")
    assert [h.key for h in hits] == ["food"] and hits[0].score is not None
    assert all(h.namespace[0] == "alice" for h in store.search(("alice",)))
    assert store.search(ns, filter={"level": 3}) == []
    assert store.list_namespaces(prefix=("alice",)) == [ns]
    store.memory.add("bob likes tea", user_id="bob", infer=False)  # another door's memory: keyed by its id
    other = next(r for r in store.memory.get_all(user_id="bob")["results"] if r["key"] is None)
    home = ("bob", "default", other["type"])  # the user's template + (agent, type)
    assert store.get(home, other["id"]).value["content"] == "bob likes tea" and store.get(ns, other["id"]) is None
    store.delete(ns, "food")
    assert store.get(ns, "food") is None
    assert asyncio.run(store.asearch(("bob", "bot"), query="rice"))[0].value["content"] == "bob likes rice"
    deep = ("alice", "a", "b", "c", "d")  # any depth round-trips
    store.put(deep, "k", {"content": "x"})
    assert store.get(deep, "k").namespace == deep
    with pytest.raises(InvalidInput):
        store.batch([PutOp((), "k", {"content": "x"})])


def test_infer_put_goes_through_the_pipeline(plumbing_svc):
    store = MemLensStore(Memory(plumbing_svc, via="langgraph"), infer=True, threshold=-1.0)
    store.put(("dan",), "ignored", {"content": "I moved to Shanghai last year"})
    items = store.search(("dan",))
    [item] = [i for i in items if i.value["type"] == "fact"]  # beside it, the episode: what was said, as said
    assert "Shanghai" in item.value["content"]
    assert [i.value["content"] for i in items if i.value["type"] == "episode"] == ["I moved to Shanghai last year"]


def test_tools_remember_and_recall_per_user(plumbing_svc):
    remember, recall = memlens_tools(Memory(plumbing_svc, via="langgraph"))
    cfg = {"configurable": {"user_id": "erin"}}
    assert "ADD" in remember.invoke({"fact": "I am allergic to peanuts"}, cfg)
    assert "peanuts" in recall.invoke({"query": "allergies peanuts"}, cfg)
    assert recall.invoke({"query": "allergies peanuts"}, {"configurable": {"user_id": "frank"}}).startswith("nothing")


def test_tool_errors_go_back_to_the_model_and_the_run_goes_on(plumbing_svc):
    from langgraph.prebuilt import ToolNode

    remember, recall = memlens_tools(Memory(plumbing_svc, via="langgraph"))
    calls = AIMessage(
        "",
        tool_calls=[
            {"name": "remember", "args": {"fact": "   "}, "id": "c1"},  # an empty fact
            {"name": "recall", "args": {"query": "tea"}, "id": "c2"},  # no user in the run's config
        ],
    )
    builder = StateGraph(MessagesState)
    builder.add_node("tools", ToolNode([remember, recall]))
    builder.add_edge(START, "tools")
    out = builder.compile().invoke({"messages": [calls]}, {"configurable": {}})
    texts = {m.tool_call_id: m.content for m in out["messages"][1:]}
    assert texts["c1"].startswith("error:") and texts["c2"].startswith("error:") and "no user" in texts["c2"]
    ok = remember.invoke({"fact": "I like tea"}, {"configurable": {"user_id": "ivy"}})
    assert "ADD" in ok
