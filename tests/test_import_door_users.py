"""Export → delete → import round-trips a user whatever door they used: each door's own writes and searches (a
door's search is logged under the "any agent" id, a mem0 UPDATE keeps the replaced memory's id on the new row, a
LangGraph put keeps its namespace and key) come back as the same rows, and the door still finds the memories.
SQLite and PostgreSQL; the hash embedder (meaning does not matter here)."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from actors import ADMIN
from doors_helpers import free_port, serve_in_thread
from test_export_roundtrip import _same_rows

from agent.serve.api import create_app
from agent.serve.mcp import create_server
from memory import Memory, apikeys
from memory.langgraph import MemLensStore
from memory.service import MemoryService

DOORS = ["python", "langgraph", "rest", "mcp", "chat"]


def _python(svc: MemoryService, user: str) -> None:
    mem = Memory(svc)
    mem.add("I live in Paris", user_id=user)
    mem.add("I live in Berlin now", user_id=user)  # the pipeline replaces the row; mem0's id stays on the new one
    assert mem.search("where do I live", user_id=user, threshold=0.0)["results"]


def _langgraph(svc: MemoryService, user: str) -> None:
    store = MemLensStore(Memory(svc, via="langgraph"))
    store.put((user, "notes"), "tea", {"content": "I like jasmine tea"})
    store.put((user, "notes"), "tea", {"content": "I like oolong tea"})  # the key's second put supersedes the first
    assert store.search((user,), query="tea")


def _rest(svc: MemoryService, user: str) -> None:
    key = apikeys.create(svc.storage, "crm", actor=ADMIN)[0]
    for base in serve_in_thread(create_app(svc), free_port()):
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=60) as c:
            assert c.post("/v1/memories", json={"messages": "I love green tea", "user_id": user}).status_code == 200
            found = c.post("/v1/memories/search", json={"query": "tea", "user_id": user, "threshold": 0})
            assert found.status_code == 200 and found.json()["results"], found.text


def _mcp(svc: MemoryService, user: str) -> None:
    server = create_server(svc, default_user=user)
    asyncio.run(server.call_tool("add_memory", {"text": "I moved to Hangzhou last month"}))
    asyncio.run(server.call_tool("search_memories", {"query": "where do I live"}))


def _chat(svc: MemoryService, user: str) -> None:
    key = apikeys.create(svc.storage, "chat-app", actor=ADMIN)[0]
    for base in serve_in_thread(create_app(svc), free_port()):
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=120) as c:
            for text in ("I live in Chengdu", "我养了一只猫", "Where do I live?"):
                r = c.post("/v1/chat", json={"user_id": user, "session_id": "s1", "message": text})
                assert r.status_code == 200, r.text
    svc.wait_writes(user)


USE = {"python": _python, "langgraph": _langgraph, "rest": _rest, "mcp": _mcp, "chat": _chat}


@pytest.mark.parametrize("door", DOORS)
def test_a_door_user_round_trips_through_export_and_import(backend_plumbing_svc, door):
    svc = backend_plumbing_svc
    user = f"{door}-user"
    USE[door](svc, user)
    svc.flush_retrieval_log()
    first = json.loads(json.dumps(svc.lifecycle.export_user(user, actor=ADMIN), ensure_ascii=False))
    assert first["tables"]["retrieval"], "the door's searches are logged and exported"
    svc.lifecycle.delete_user(user, actor=ADMIN)
    counts = svc.lifecycle.import_user(first, actor=ADMIN)
    assert counts["retrieval"] == len(first["tables"]["retrieval"])
    again = svc.lifecycle.export_user(user, actor=ADMIN)
    assert _same_rows(again) == _same_rows(first)
    active = [m for m in again["tables"]["memory"] if m["status"] == "active"]
    hits = svc.recall(user, active[0]["content"], threshold=-1.0, log=False, any_agent=True).hits
    assert active[0]["id"] in [h.memory_id for h in hits]  # indexed again


def test_a_mem0_id_kept_across_an_update_names_the_imported_row(backend_plumbing_svc):
    """The id a mem0 caller holds after an UPDATE (``meta.stable_id``) is remapped with the row it names: after the
    import, the door's listing, get and history agree on the new id."""
    svc = backend_plumbing_svc
    _python(svc, "ana")
    first = svc.lifecycle.export_user("ana", actor=ADMIN)
    assert any((m["meta"] or {}).get("stable_id") for m in first["tables"]["memory"]), "an UPDATE happened"
    svc.lifecycle.delete_user("ana", actor=ADMIN)
    svc.lifecycle.import_user(json.loads(json.dumps(first)), actor=ADMIN)
    mem = Memory(svc)
    ids = {m["id"] for m in svc.lifecycle.export_user("ana", actor=ADMIN)["tables"]["memory"]}
    listed = mem.get_all(user_id="ana")["results"]
    berlin = next(r for r in listed if "Berlin" in r["memory"] and r["type"] == "fact")
    assert berlin["id"] in ids  # a row of this user, not the id from the file
    assert mem.get(berlin["id"], user_id="ana")["memory"] == berlin["memory"]
    ops = [e["event"] for e in mem.history(berlin["id"], user_id="ana")]
    assert "ADD" in ops and "UPDATE" in ops, ops
