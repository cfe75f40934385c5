"""The MCP server through the official SDK client: over stdio (a real `memlens serve mcp` process) and over
streamable HTTP with API keys (a real uvicorn server)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import httpx
import pytest
from actors import ADMIN
from doors_helpers import free_port, serve_in_thread
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.fastmcp.exceptions import ToolError

from agent.serve.mcp import create_server
from memory import apikeys, views

ROOT = Path(__file__).resolve().parents[1]
TOOLS = {"add_memory", "search_memories", "list_memories", "delete_memory", "get_profile"}


def payload(result) -> dict:
    assert not result.isError, result.content
    return json.loads(result.content[0].text)


async def stdio_session_run(data_dir: Path, steps):
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "MEMLENS_DATA_DIR": str(data_dir),
        "MEMLENS_EMBEDDER": "hash",
        "MEMLENS_RELEVANCE_THRESHOLD": "0",
    }
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "agent.cli", "serve", "mcp", "--user", "alice"], env=env, cwd=str(ROOT)
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        return await steps(session)


@pytest.mark.slow  # starts a real server process (about 10 s on a busy machine)
def test_stdio_tools_end_to_end_and_users_never_cross(tmp_path, plumbing_svc):
    """``serve mcp --user alice`` pins the server to alice: every tool acts for her, and a call naming another user
    (bob, who has memories of his own) is refused with a clear tool error, audited; bob's memories stay untouched."""
    from memory import Memory, audit
    from memory.vocab import AuditAction

    bob_id = Memory(plumbing_svc).add("I moved to Paris last year", user_id="bob", infer=False)["results"][0]["id"]

    async def steps(s: ClientSession):
        listed = await s.list_tools()
        assert {t.name for t in listed.tools} == TOOLS
        assert all(len(t.description) > 60 for t in listed.tools)  # written for a model to use
        added = payload(await s.call_tool("add_memory", {"text": "I moved to Hangzhou last month"}))  # the pinned user
        as_alice = payload(await s.call_tool("search_memories", {"query": "where do I live", "user_id": "alice"}))
        found = payload(await s.call_tool("search_memories", {"query": "where do I live"}))
        refused = {
            tool: await s.call_tool(tool, {**args, "user_id": "bob"})
            for tool, args in (
                ("add_memory", {"text": "I moved to Rome"}),
                ("search_memories", {"query": "where do I live"}),
                ("list_memories", {}),
                ("delete_memory", {"memory_id": bob_id}),
                ("get_profile", {}),
            )
        }
        profile = payload(await s.call_tool("get_profile", {}))
        listed_mem = payload(await s.call_tool("list_memories", {}))
        cross = await s.call_tool("delete_memory", {"memory_id": bob_id})  # as alice
        empty = await s.call_tool("add_memory", {"text": "  "})
        gone = payload(await s.call_tool("delete_memory", {"memory_id": added["results"][0]["id"]}))
        return added, as_alice, found, refused, profile, listed_mem, cross, empty, gone

    added, as_alice, found, refused, profile, listed_mem, cross, empty, gone = asyncio.run(
        stdio_session_run(plumbing_svc.settings.data_dir, steps)
    )
    assert "Hangzhou" in found["results"][0]["memory"] and found["results"][0]["via"] == "mcp"
    assert as_alice["results"] == found["results"]  # naming the pinned user is allowed
    assert found["results"][0]["context"] == []  # the field is there; one message has no conversation around it
    assert all("Paris" not in r["memory"] for r in found["results"] + listed_mem["results"])
    for tool, res in refused.items():
        assert res.isError, tool
        text = res.content[0].text
        assert "acts only for user 'alice'" in text and "'bob'" in text and "Traceback" not in text, text
    assert profile == {"user_id": "alice", "profile": {"city": "Hangzhou"}}
    assert cross.isError and "no memory" in cross.content[0].text  # bob's memory is not alice's to delete
    assert empty.isError and "empty" in empty.content[0].text and "Traceback" not in empty.content[0].text
    assert gone["id"] == added["results"][0]["id"]
    rows, _ = views.write_log(plumbing_svc.storage, plumbing_svc.get_user("alice").key, views.WriteFilter(vias=["mcp"]))
    assert {r["op"] for r in rows} >= {"ADD", "DELETE"}
    bob = Memory(plumbing_svc).get_all(user_id="bob")["results"]
    assert [r["id"] for r in bob] == [bob_id] and bob[0]["via"] == "python"  # nothing written, read or deleted
    denied = [r for r in audit.events(plumbing_svc.storage, action=AuditAction.DENIED) if r.user_id == "bob"]
    assert len(denied) == len(refused) and all(r.via == "mcp" for r in denied)


@pytest.fixture
def http_server(plumbing_svc):
    port = free_port()
    server = create_server(plumbing_svc, http=True, port=port)
    yield from serve_in_thread(server.streamable_http_app(), port, path="/mcp")


async def http_call(url: str, key: str | None, tool: str, args: dict):
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    async with (
        httpx.AsyncClient(headers=headers, timeout=30) as client,
        streamable_http_client(url, http_client=client) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        return await session.call_tool(tool, args)


def test_http_transport_needs_a_key_and_respects_its_users(http_server, plumbing_svc):
    only_alice = apikeys.create(plumbing_svc.storage, "desktop", ["alice"], actor=ADMIN)[0]
    assert httpx.post(http_server, json={}).status_code == 401
    assert httpx.post(http_server, json={}, headers={"Authorization": "Bearer mlk_wrong"}).status_code == 401
    ok = asyncio.run(
        http_call(http_server, only_alice, "add_memory", {"text": "I love jasmine tea", "user_id": "alice"})
    )
    assert not ok.isError
    refused = asyncio.run(http_call(http_server, only_alice, "list_memories", {"user_id": "bob"}))
    assert refused.isError and "may not act for user" in refused.content[0].text
    rows = views.write_log(plumbing_svc.storage, plumbing_svc.get_user("alice").key)[0]
    assert len(rows) == 2 and {r["via"] for r in rows} == {"mcp:desktop"}  # the episode and the fact


def test_an_empty_user_id_and_hostile_paging_are_tool_errors(plumbing_svc):
    server = create_server(plumbing_svc, default_user="alice")
    for args in ({"user_id": ""}, {"user_id": "   "}, {"offset": 2**63}, {"limit": -1}):
        with pytest.raises(ToolError) as err:
            asyncio.run(server.call_tool("list_memories", args))
        assert "Traceback" not in str(err.value)
    with pytest.raises(ToolError, match="user_id is empty"):
        asyncio.run(server.call_tool("add_memory", {"text": "I like tea", "user_id": ""}))
    assert plumbing_svc.list_users() == []  # nothing was written for the default user


def test_refused_mcp_calls_are_audited_like_rest_refusals(http_server, plumbing_svc):
    """Each kind of refusal on the MCP door leaves one ``denied`` row naming the door and what was refused, never
    the key: no key, an unknown key, a user the key may not act for, an empty user id, input the tool refuses, a
    memory that is not the user's, an unknown tool. Calls that succeed leave none."""
    from memory import audit
    from memory.vocab import AuditAction

    def denied():
        return audit.events(plumbing_svc.storage, action=AuditAction.DENIED)

    only_alice = apikeys.create(plumbing_svc.storage, "desktop", ["alice"], actor=ADMIN)[0]
    assert httpx.post(http_server, json={}).status_code == 401
    assert httpx.post(http_server, json={}, headers={"Authorization": "Bearer mlk_wrong"}).status_code == 401
    http_rows = denied()
    assert len(http_rows) == 2 and {r.via for r in http_rows} == {"mcp"}
    assert all("401" in r.reason and "/mcp" in r.reason for r in http_rows)

    ok = asyncio.run(
        http_call(http_server, only_alice, "add_memory", {"text": "I love jasmine tea", "user_id": "alice"})
    )
    assert not ok.isError and len(denied()) == 2  # an accepted call is not a refusal
    refusals = [
        ("list_memories", {"user_id": "bob"}, "may not act for user"),
        ("add_memory", {"text": "I like tea", "user_id": "  "}, "user_id is empty"),
        ("list_memories", {"user_id": "alice", "limit": "many"}, "limit"),
        ("delete_memory", {"memory_id": "0" * 32, "user_id": "alice"}, "not found"),
        ("forget_everything", {}, "Unknown tool"),
    ]
    for tool, args, why in refusals:
        res = asyncio.run(http_call(http_server, only_alice, tool, args))
        assert res.isError and why in res.content[0].text, res.content
    tool_rows = [r for r in denied() if r.via == "mcp:desktop"]
    assert len(tool_rows) == len(refusals), [r.reason for r in tool_rows]
    for row, (tool, _args, why) in zip(sorted(tool_rows, key=lambda r: r.id), refusals, strict=True):
        assert row.actor == "desktop" and repr(tool) in row.reason and why in row.reason
        assert only_alice not in row.reason and only_alice not in str(row.detail)
    assert next(r for r in tool_rows if "bob" in r.reason).user_id == "bob"  # erasing bob clears it with his rows


def test_stdio_side_refusals_are_audited_too(plumbing_svc):
    """Without HTTP (the stdio transport: no key) a refused tool call is still audited, as ``via=mcp``."""
    from memory import audit
    from memory.vocab import AuditAction

    server = create_server(plumbing_svc, default_user="alice")
    with pytest.raises(ToolError):
        asyncio.run(server.call_tool("list_memories", {"offset": 2**63}))
    asyncio.run(server.call_tool("list_memories", {}))  # accepted: no row
    rows = audit.events(plumbing_svc.storage, action=AuditAction.DENIED)
    assert len(rows) == 1 and rows[0].via == "mcp" and "list_memories" in rows[0].reason
