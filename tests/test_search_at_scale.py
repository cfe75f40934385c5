"""A user with 10,000 memories, written through the mem0 door in batches as an importer would, searched with
``limit=100``, metadata filters and ``run_id`` through every door: the Python ``Memory``, the LangGraph store, REST
(real uvicorn) and MCP (the server's own tool dispatch). Source context for a hundred hits used to be one UNION
statement per hit, which SQLite refuses past 500 terms ("too many terms in compound SELECT"); it is now read in
bounded statements, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import time

import httpx
import pytest
from actors import ADMIN
from doors_helpers import free_port, serve_in_thread

from agent.serve.api import create_app
from agent.serve.mcp import create_server
from memory import Memory, apikeys
from memory.langgraph import MemLensStore

USERS_MEMORIES = 10_000
BATCH = 500  # messages per add: one embedding call, one transaction, one index append (the batch write path)
RUNS = 4
TOPICS = ("tea", "hiking", "piano", "Hangzhou", "football")


def _fill(mem: Memory, user: str) -> None:
    """10,000 memories: each message of each ``add`` is kept as said (``infer=False``: one episode per message), in
    ``RUNS`` runs with metadata to filter on; consecutive messages form conversations, so every hit has context."""
    for start in range(0, USERS_MEMORIES, BATCH):
        run = f"run-{start // BATCH % RUNS}"
        msgs = [
            {
                "role": "user" if i % 2 == 0 else "assistant",
                "content": f"Note {i}: we talked about {TOPICS[i % len(TOPICS)]} on day {i // 40}",
            }
            for i in range(start, start + BATCH)
        ]
        meta = {"category": TOPICS[(start // BATCH) % len(TOPICS)], "batch": start // BATCH}
        out = mem.add(msgs, user_id=user, run_id=run, metadata=meta, infer=False)
        assert len(out["results"]) == BATCH


@pytest.fixture
def big_user(backend_plumbing_svc):
    svc = backend_plumbing_svc
    started = time.perf_counter()
    _fill(Memory(svc), "alice")
    built = time.perf_counter() - started
    Memory(svc).add("I love jasmine tea", user_id="bob", infer=False)  # another user: never among alice's hits
    assert svc.lifecycle.user_stats("alice")["memories"]["active"] >= USERS_MEMORIES, built
    return svc


FILTERS = [
    {},
    {"category": "tea"},
    {"category": {"in": ["tea", "piano"]}, "batch": {"gte": 2}},
    {"OR": [{"category": "hiking"}, {"batch": {"lt": 1}}], "type": "episode"},
]


def _check(results: list[dict], limit: int, run: str | None, filters: dict) -> None:
    assert 0 < len(results) <= limit
    assert all("jasmine" not in r["memory"] for r in results)
    if run is not None:
        assert {r["run_id"] for r in results} == {run}
    if "category" in filters and isinstance(filters["category"], str):
        assert {r["metadata"]["category"] for r in results} == {filters["category"]}
    scores = [r["score"] for r in results]
    assert scores == sorted(scores, reverse=True)  # mem0's order: best score first


@pytest.mark.slow  # builds 10,000 memories (about a minute on SQLite)
def test_a_user_of_10000_memories_searches_through_every_door(big_user):
    svc = big_user
    mem = Memory(svc)
    timings = {}
    for filters in FILTERS:
        for run in (None, "run-1"):
            started = time.perf_counter()
            out = mem.search(
                "what did we say about tea", filters={"user_id": "alice", **filters}, run_id=run, limit=100
            )
            timings[(json.dumps(filters), run)] = time.perf_counter() - started
            _check(out["results"], 100, run, filters)
    full = mem.search("what did we say about tea", user_id="alice", limit=100)["results"]
    assert len(full) == 100 and sum(bool(r["context"]) for r in full) >= 50  # context read for a hundred hits
    wild = mem.search("tea", filters={"user_id": "alice", "run_id": "*"}, limit=100)["results"]
    assert len(wild) == 100 and all(r["run_id"] for r in wild)

    store = MemLensStore(Memory(svc, via="langgraph", name="langgraph-store"))
    items = store.search(("alice",), query="what did we say about tea", limit=100)
    assert len(items) == 100 and all(i.namespace[0] == "alice" for i in items)
    typed = store.search(("alice",), query="hiking", filter={"type": "episode"}, limit=100)
    assert len(typed) == 100 and all(i.value["type"] == "episode" for i in typed)

    key = apikeys.create(svc.storage, "backend", actor=ADMIN)[0]
    port = free_port()
    for url in serve_in_thread(create_app(svc), port):
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=120) as c:
            for filters in FILTERS:
                body = {"query": "piano", "user_id": "alice", "limit": 100, "filters": filters, "run_id": "run-2"}
                r = c.post("/v1/memories/search", json=body)
                assert r.status_code == 200, r.text
                _check(r.json()["results"], 100, "run-2", filters)
            assert c.get("/v1/health").status_code == 200  # the same keep-alive connection still answers

    server = create_server(svc, pin_user="alice")
    _content, found = asyncio.run(
        server.call_tool("search_memories", {"query": "what did we say about tea", "limit": 100})
    )
    assert found["results"] and len(found["results"]) <= 100
    assert all("jasmine" not in r["memory"] for r in found["results"])
    policy = svc.recall_policy(k=100, threshold=-1.0).replace(similarity_floor=0.1, relative_cut=None)
    started = time.perf_counter()
    svc.recall("alice", "what did we say about tea", any_agent=True, policy=policy)
    service = time.perf_counter() - started
    print("10k-user search seconds (Python door):", {f"{k[0]} run={k[1]}": round(v, 3) for k, v in timings.items()})
    print(f"the same recall through the service, no filter: {service:.3f} s")
