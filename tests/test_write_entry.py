"""One write entry (memory.write.entry): the chat turn's background write, every door, ``remember`` and the
evaluation ingest take the user's write lock and read facts by one rule (only the user's own words).

The race: a chat turn saying "I live in A" and a door's add saying "I live in B" for the same user, released
together, must leave exactly one active home city (before the chat turn took the lock, 3 of 12 and 11 of 25 runs
left two)."""

from __future__ import annotations

import asyncio
import threading
import time

import httpx
import pytest
from actors import ADMIN
from doors_helpers import free_port, serve_in_thread
from sqlmodel import select

from agent.runtime import Agent
from agent.serve.api import create_app
from agent.serve.mcp import create_server
from memory import Memory, apikeys
from memory.langgraph import MemLensStore
from memory.storage.models import Message
from memory.vocab import MemoryType

RUNS = 6  # per door; six doors: 36 races


def homes(svc, user_id: str) -> list[str]:
    return [
        m.content
        for m in svc.list_memories(svc.get_user(user_id))
        if m.type != MemoryType.EPISODE and "lives in" in m.content.lower()
    ]


@pytest.fixture
def rest(plumbing_svc):
    for url in serve_in_thread(create_app(plumbing_svc), free_port()):
        key = apikeys.create(plumbing_svc.storage, "race", actor=ADMIN)[0]
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=60) as c:
            yield c


def _replied(svc, user_id: str) -> bool:
    """The chat turn stored its reply: its background write starts now."""
    key = svc.get_user(user_id).key
    with svc.storage.db() as db:
        return (
            db.exec(select(Message.id).where(Message.user_key == key, Message.role == "assistant")).first() is not None
        )


def test_a_chat_turn_racing_every_door_leaves_one_home(plumbing_svc, rest):
    svc = plumbing_svc
    agent = Agent(svc)
    mcp = create_server(svc)
    doors = {
        "python": lambda u, t: Memory(svc).add(t, user_id=u),
        "rest": lambda u, t: rest.post("/v1/memories", json={"messages": t, "user_id": u}).raise_for_status(),
        "mcp": lambda u, t: asyncio.run(mcp.call_tool("add_memory", {"text": t, "user_id": u})),
        "langgraph": lambda u, t: MemLensStore(Memory(svc), infer=True).put((u,), "home", {"content": t}),
        "remember": lambda u, t: svc.remember(u, t),
        "chat": lambda u, t: (agent.chat(u, "other", t), agent.wait()),
    }
    agent.chat("warm", "s", "hello")  # tables, index and graph built before the races
    agent.wait()
    doubled: list[str] = []
    for name, door in doors.items():
        for n in range(RUNS):
            user = f"{name}-{n}"
            svc.ensure_user(user)
            errors: list[BaseException] = []

            def chat(user: str = user, errors: list[BaseException] = errors) -> None:
                try:
                    agent.chat(user, "s", "I live in Lisbon.")
                except BaseException as exc:  # noqa: BLE001 - reported below
                    errors.append(exc)

            t = threading.Thread(target=chat)
            t.start()
            deadline = time.monotonic() + 20
            while not _replied(svc, user) and time.monotonic() < deadline:
                time.sleep(0.001)
            door(user, "I live in Porto.")  # the chat turn's write is running in the background now
            t.join(30)
            agent.wait()
            assert not errors
            found = homes(svc, user)
            assert found, (name, n)
            if len(found) > 1:
                doubled.append(f"{name} run {n}: {found}")
    agent.close()
    assert not doubled, f"{len(doubled)} of {RUNS * len(doors)} races left two homes: {doubled}"


def test_every_door_reads_facts_from_the_users_own_words_only(plumbing_svc, rest):
    """mem0's add (Python and REST) used to read the assistant's messages for facts too ("Since you live in Paris"
    became a fact about the user); the one rule keeps them as episodes with their speaker."""
    talk = [
        {"role": "user", "content": "I adopted a dog last week."},
        {"role": "assistant", "content": "Since you live in Paris, try the Buttes-Chaumont park."},
    ]
    Memory(plumbing_svc).add(talk, user_id="py")
    rest.post("/v1/memories", json={"messages": talk, "user_id": "api"}).raise_for_status()
    for user in ("py", "api"):
        rows = plumbing_svc.list_memories(plumbing_svc.get_user(user))
        facts = [m for m in rows if m.type != MemoryType.EPISODE]
        assert facts and not any("paris" in m.content.lower() for m in facts), [m.content for m in facts]
        said = {m.meta["speaker"] for m in rows if m.type == MemoryType.EPISODE}
        assert said == {"User", "Assistant"}


def _rows(svc) -> tuple[int, int]:
    from sqlmodel import func

    from memory.storage.models import Memory as MemoryRow

    with svc.storage.db() as db:
        return db.exec(select(func.count()).select_from(Message)).one(), db.exec(
            select(func.count()).select_from(MemoryRow)
        ).one()


def test_a_nul_anywhere_is_refused_by_every_door_and_nothing_is_half_written(backend_plumbing_svc):
    """A NUL in metadata used to reach PostgreSQL (a 500, and a message row nobody acknowledged); a NUL in the
    second message of an add left the first stored. Now each door refuses it with a clear error before anything is
    written, on SQLite and PostgreSQL."""
    from mcp.server.fastmcp.exceptions import ToolError

    from memory.errors import InvalidInput

    svc = backend_plumbing_svc
    svc.ensure_user("nul")
    before = _rows(svc)
    mem = Memory(svc)
    talk = [{"role": "user", "content": "I live in Porto."}, {"role": "assistant", "content": "Nice\x00 city"}]
    refused = [
        lambda: mem.add("I live in Porto.", user_id="nul", metadata={"note": "a\x00b"}),
        lambda: mem.add("I live in Porto.", user_id="nul", metadata={"ke\x00y": "b"}),
        lambda: mem.add("I live in Porto.", user_id="nul", metadata={"deep": [{"x": "\x00"}]}),
        lambda: mem.add(talk, user_id="nul"),
        lambda: mem.add(talk, user_id="nul", infer=False),
        lambda: MemLensStore(Memory(svc)).put(("nul",), "k\x00", {"content": "I live in Porto."}),
        lambda: MemLensStore(Memory(svc)).put(("nul",), "k", {"content": "ok", "extra": "\x00"}),
        lambda: svc.remember("nul", "I live in\x00 Porto."),
        lambda: Agent(svc).chat("nul", "s", "I live in\x00 Porto."),
    ]
    for n, call in enumerate(refused):
        with pytest.raises(InvalidInput, match="NUL"):
            call()
        assert _rows(svc) == before, n
    with pytest.raises(ToolError, match="NUL"):
        asyncio.run(create_server(svc).call_tool("add_memory", {"text": "I live in\x00 Porto.", "user_id": "nul"}))
    assert _rows(svc) == before


def test_rest_refuses_a_nul_in_metadata_with_a_400_and_stores_nothing(plumbing_svc, rest):
    before = _rows(plumbing_svc)
    body = {"messages": "I live in Porto.", "user_id": "nul-api", "metadata": {"note": "a\u0000b"}}
    r = rest.post("/v1/memories", json=body)
    assert r.status_code == 400 and "NUL" in r.json()["error"], r.text
    talk = [{"role": "user", "content": "I live in Porto."}, {"role": "user", "content": "and\u0000 Faro"}]
    r = rest.post("/v1/memories", json={"messages": talk, "user_id": "nul-api"})
    assert r.status_code == 422 and "1.content" in r.text, r.text  # the schema refuses a NUL in a message
    assert _rows(plumbing_svc) == before
