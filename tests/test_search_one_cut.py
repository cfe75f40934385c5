"""One cut for every search door: the Python ``Memory``, REST, MCP and the LangGraph store return exactly what
recall selected — never a memory a person deleted or flagged coming back through the message it was learnt from,
never a fact and its own message side by side — and mem0's order, wildcard and errors hold on the mem0-shaped doors.
Before, the doors filtered recall's candidates on "not flagged" themselves, so recall's other verdicts (states a
retracted memory, same message as a better hit) were lost."""

from __future__ import annotations

import asyncio
import itertools

import httpx
import pytest
from actors import ADMIN
from doors_helpers import free_port, serve_in_thread
from sqlalchemy import text

from agent.serve.api import create_app
from agent.serve.mcp import create_server
from memory import Memory, apikeys
from memory.config import Settings
from memory.errors import InvalidInput
from memory.langgraph import MemLensStore
from memory.service import MemoryService
from memory.vocab import Actor, Role

SAID = ("I live in Hangzhou", "I love jasmine tea", "My sister Mia plays the violin", "I work as a nurse")
KEYS = itertools.count()
QUERIES = ("where do I live", "what tea do I like", "who plays the violin", "what is my job")


@pytest.fixture
def door_svc(tmp_path, e5):
    """The real offline embedder; MemLens's calibrated cut off (the MCP door uses it), so every door has candidates
    to return and the only thing left out is what recall's verdicts leave out."""
    svc = MemoryService(Settings(data_dir=tmp_path / "data", relevance_threshold=0.0), embedder=e5)
    yield svc
    svc.close()


def _door_results(svc: MemoryService, query: str) -> dict[str, list[str]]:
    """Memory ids each door returns for ``query`` (alice), through the door as a client calls it."""
    out = {"python": [r["id"] for r in Memory(svc).search(query, user_id="alice", threshold=0.0)["results"]]}
    store = MemLensStore(Memory(svc, via="langgraph", name="langgraph-store"))
    out["langgraph"] = [i.key for i in store.search(("alice",), query=query, limit=20)]
    key = apikeys.create(svc.storage, f"backend-{next(KEYS)}", actor=ADMIN)[0]
    for url in serve_in_thread(create_app(svc), free_port()):
        r = httpx.post(
            f"{url}/v1/memories/search",
            json={"query": query, "user_id": "alice", "threshold": 0.0},
            headers={"Authorization": f"Bearer {key}"},
            timeout=60,
        )
        assert r.status_code == 200, r.text
        out["rest"] = [h["id"] for h in r.json()["results"]]
    _content, found = asyncio.run(create_server(svc, pin_user="alice").call_tool("search_memories", {"query": query}))
    out["mcp"] = [h["id"] for h in found["results"]]
    return out


def _assert_one_cut(svc: MemoryService, gone_words: tuple[str, ...] = ()) -> None:
    for query in QUERIES:
        for door, ids in _door_results(svc, query).items():
            assert ids, (door, query)
            rows = svc.memories_by_id(ids)
            assert set(rows) == set(ids), (door, query)
            texts = [rows[i].content for i in ids]
            for word in gone_words:  # not even through the message the retracted memory was learnt from
                assert all(word not in t for t in texts), (door, query, texts)
            sources = [str(s) for i in ids for s in rows[i].source_message_ids or []]
            assert len(sources) == len(set(sources)), (door, query, texts)  # never a fact and its own message


def test_every_door_returns_recalls_verdicts_not_its_own(door_svc):
    svc = door_svc
    mem = Memory(svc)
    ids = {said: mem.add(said, user_id="alice")["results"][0]["id"] for said in SAID}
    mem.add("I love green tea too", user_id="bob")
    _assert_one_cut(svc)  # a fact and the message it came from: one of them, never both

    mem.delete(ids["I love jasmine tea"], user_id="alice")
    svc.flag_memory(ids["I work as a nurse"], actor=Actor(name="ana", role=Role.CURATOR, via="backoffice"))
    _assert_one_cut(svc, gone_words=("jasmine", "nurse"))


def test_mem0_order_wildcard_and_errors(door_svc):
    mem = Memory(door_svc)
    for n, said in enumerate(SAID):
        mem.add(said, user_id="alice", run_id=f"chat-{n % 2}", infer=False)
    mem.add("I live near the West Lake", user_id="alice", infer=False)  # no run id
    hits = mem.search("where do I live", user_id="alice", threshold=0.0)["results"]
    scores = [h["score"] for h in hits]
    assert len(hits) == 5 and scores == sorted(scores, reverse=True)  # mem0: best score first

    wild = mem.search("where do I live", filters={"user_id": "alice", "run_id": "*"}, threshold=0.0)["results"]
    assert len(wild) == 4 and {h["run_id"] for h in wild} == {"chat-0", "chat-1"}  # any run id, none missing
    assert len(mem.get_all(filters={"user_id": "alice", "run_id": "*"})["results"]) == 4
    one = mem.search("where do I live", filters={"user_id": "alice", "run_id": "chat-1"}, threshold=0.0)["results"]
    assert {h["run_id"] for h in one} == {"chat-1"} and len(one) == 2

    for user in ("alice", "nobody-yet"):  # the same clear error whether or not the user exists
        for query in ("", "   "):
            with pytest.raises(InvalidInput, match="query is empty"):
                mem.search(query, user_id=user)
            with pytest.raises(InvalidInput, match="query is empty"):
                mem.search(query, user_id=user, limit=0)


def test_rest_405_names_the_allowed_methods_and_a_500_keeps_the_connection(plumbing_svc):
    key = apikeys.create(plumbing_svc.storage, "backend", actor=ADMIN)[0]
    Memory(plumbing_svc).add("I like tea", user_id="alice", infer=False)
    for url in serve_in_thread(create_app(plumbing_svc), free_port()):
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=60) as c:
            wrong = c.put("/v1/memories/search", json={})
            assert wrong.status_code == 405 and wrong.headers["allow"] == "POST"  # the resource, as OpenAPI has it
            assert c.put("/v1/health").headers["allow"] == "GET"
            assert c.put("/v1/memories/abc").headers["allow"] == "GET, PATCH, DELETE"
            with plumbing_svc.storage.engine.begin() as conn:  # a real fault: the write log's table is gone
                conn.execute(text("DROP TABLE memoryevent"))
            broken = c.post("/v1/memories", json={"messages": "I like coffee", "user_id": "alice"})
            assert broken.status_code == 500 and broken.json() == {"error": "internal error (OperationalError)"}
            assert c.get("/v1/health").json() == {"status": "ok"}  # the same keep-alive connection answers
            assert c.put("/v1/health").status_code == 405
