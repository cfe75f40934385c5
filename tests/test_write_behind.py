"""A turn's write runs after its reply (memory/write/behind.py): the reply does not wait for it, the user's next
turn does, a clean close finishes it, and after a crash the user's next write catches the lost one up.
Real SQLite + LanceDB + e5; the offline engine answers."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from sqlmodel import select

from agent.runtime import Agent
from memory.config import Settings
from memory.service import MemoryService
from memory.storage.models import MemoryEvent, Turn
from memory.vocab import SEMANTIC_TYPES
from memory.write import behind


def _slow_writes(svc: MemoryService, monkeypatch, gate: threading.Event) -> None:
    """Every write waits for ``gate`` first (the real pipeline runs after it)."""
    real = svc.write_turn

    def gated(*args, **kwargs):
        assert gate.wait(30)
        return real(*args, **kwargs)

    monkeypatch.setattr(svc, "write_turn", gated)


def _contents(svc: MemoryService, user_id: str) -> list[str]:
    return [m.content for m in svc.list_memories(svc.get_user(user_id), types=SEMANTIC_TYPES)]


def test_the_reply_does_not_wait_for_the_write_and_the_next_turn_sees_it(svc: MemoryService, monkeypatch):
    gate = threading.Event()
    _slow_writes(svc, monkeypatch, gate)
    bot = Agent(svc)
    first = bot.chat("wb-user", "s1", "I live in Lisbon and I work as a nurse.")
    assert first.reply  # returned while the write still waits at the gate
    assert first.write_job is not None and not first.write_job.done()
    assert _contents(svc, "wb-user") == []
    threading.Timer(0.3, gate.set).start()
    second = bot.chat("wb-user", "s1", "Where do I live?")  # its loads wait for turn 1's write
    assert first.write_job.done() and first.writes is not None and first.writes.added
    assert "Lisbon" in second.reply
    assert any(h.content == "User lives in Lisbon." for h in second.recall.selected)
    bot.close()


def test_a_clean_close_finishes_the_write(settings: Settings, e5, monkeypatch):
    svc = MemoryService(settings, embedder=e5)
    gate = threading.Event()
    _slow_writes(svc, monkeypatch, gate)
    result = Agent(svc).chat("wb-close", "s1", "我住在杭州")
    assert not result.write_job.done()
    threading.Timer(0.2, gate.set).start()
    svc.close()  # waits for the background write before the engine goes
    again = MemoryService(settings, embedder=e5)
    assert _contents(again, "wb-close") == ["用户住在杭州。"]
    assert again.get_profile("wb-close") == {"city": "杭州"}
    again.close()


def test_a_write_lost_in_a_crash_is_caught_up_by_the_next_one(svc: MemoryService, monkeypatch):
    bot = Agent(svc)
    lost = threading.Event()

    def crash(*args, **kwargs):  # the process "dies" before the write: nothing is claimed, nothing written
        lost.set()
        return [None]

    monkeypatch.setattr(svc, "write_turn", crash)
    bot.chat("wb-crash", "s1", "I am vegetarian.")
    bot.wait()
    assert lost.is_set() and _contents(svc, "wb-crash") == []
    monkeypatch.undo()
    with svc.storage.db() as db:  # the turn is older than the grace that protects a live writer's turns
        turn = db.exec(select(Turn)).one()
        turn.created_at = turn.created_at - behind.CATCH_UP_GRACE - timedelta(seconds=1)
        db.add(turn)
        db.commit()
    assert [t[0][0] for t in behind.unwritten_turns(svc.storage, turn.user_key)] == [turn.user_message_id]
    result = bot.chat("wb-crash", "s2", "I live in Oslo.")
    written = set(_contents(svc, "wb-crash")) if result.writes else set()
    assert {"User is vegetarian.", "User lives in Oslo."} <= written
    with svc.storage.db() as db:  # the caught-up write is logged under the lost turn's own id, once
        events = db.exec(select(MemoryEvent).where(MemoryEvent.message_id == turn.user_message_id)).all()
    assert events and {e.turn_id for e in events} == {turn.id}
    assert behind.unwritten_turns(svc.storage, turn.user_key) == []
    bot.close()


def test_a_failed_write_is_reported_on_the_result_and_the_next_turn_runs(svc: MemoryService, monkeypatch):
    bot = Agent(svc)

    def broken(*args, **kwargs):
        raise RuntimeError("index unavailable")

    monkeypatch.setattr(svc, "write_turn", broken)
    result = bot.chat("wb-fail", "s1", "I like tennis.")
    with pytest.raises(RuntimeError, match="index unavailable"):
        _ = result.writes
    monkeypatch.undo()
    assert bot.chat("wb-fail", "s1", "I like chess.").writes.added
    bot.close()


def test_one_users_jobs_run_in_order_and_others_do_not_wait():
    writer = behind.WriteBehind()
    order: list[str] = []
    slow = threading.Event()
    writer.submit("u1", lambda: (slow.wait(5), order.append("u1-a")))
    writer.submit("u1", lambda: order.append("u1-b"))
    writer.submit("u2", lambda: order.append("u2-a"))
    start = time.perf_counter()
    assert writer.wait("u2", 5) and order == ["u2-a"]  # u2 does not queue behind u1's slow job
    assert time.perf_counter() - start < 2
    assert not writer.wait("u1", 0.05)
    slow.set()
    assert writer.wait(None, 5) and order == ["u2-a", "u1-a", "u1-b"]


def test_a_message_whose_write_fails_is_set_aside_and_later_turns_write(svc: MemoryService, monkeypatch):
    """Issue #28: a crashing message was retried before every later turn, failed again and the new message was
    never written (three later turns wrote 0 memories). Now it is set aside with its error, once; later turns write
    normally; a person sees it and retries it (curator, audited)."""
    from memory.errors import Forbidden
    from memory.storage.integrity import CLAIM_LEASE
    from memory.storage.models import Message
    from memory.storage.people import AuditEvent
    from tests.actors import CURATOR, VIEWER

    bot = Agent(svc)
    real = svc.write_turn
    bad = "I love cycling. I went to Paris on 2024-02-31."
    tries: list[int] = []

    def crashes_on_paris(user, session, said, *args, **kwargs):  # a turn's write: the message, then the reply
        first = said[0]
        with svc.storage.db() as db:
            text = db.get(Message, first if isinstance(first, int) else first.id).content
        if text == bad:
            tries.append(1)
            raise ValueError("day is out of range for month")
        return real(user, session, said, *args, **kwargs)

    monkeypatch.setattr(svc, "write_turn", crashes_on_paris)
    first = bot.chat("wb-aside", "s1", bad)
    with pytest.raises(ValueError):
        _ = first.writes
    with svc.storage.db() as db:  # old enough for a catch-up, its claim (if any) abandoned
        turn = db.exec(select(Turn)).one()
        turn.created_at = turn.created_at - behind.CATCH_UP_GRACE - timedelta(seconds=1)
        message = db.get(Message, turn.user_message_id)
        if message.write_claimed_at is not None:
            message.write_claimed_at = message.write_claimed_at - CLAIM_LEASE - timedelta(seconds=1)
        db.add(turn)
        db.add(message)
        db.commit()
    for text in ("I live in Oslo.", "I am vegetarian.", "I work as a nurse."):
        assert bot.chat("wb-aside", "s1", text).writes.added, text
    assert tries == [1]  # tried once, never again on its own
    assert {"User lives in Oslo.", "User is vegetarian.", "User works as a nurse."} <= set(_contents(svc, "wb-aside"))
    aside = svc.set_aside_writes("wb-aside")
    assert [(a["text"], a["message_id"]) for a in aside] == [(bad, turn.user_message_id)]
    assert "ValueError: day is out of range for month" in aside[0]["error"]

    with pytest.raises(Forbidden):
        svc.retry_write("wb-aside", turn.user_message_id, actor=VIEWER)
    monkeypatch.undo()
    report = svc.retry_write("wb-aside", turn.user_message_id, actor=CURATOR)
    assert report.added and svc.set_aside_writes("wb-aside") == []
    assert any("cycling" in c for c in _contents(svc, "wb-aside"))
    with svc.storage.db() as db:
        audited = db.exec(select(AuditEvent).where(AuditEvent.action == "retry-write")).all()
    assert [(a.actor, a.target_ids) for a in audited] == [("test-curator", [str(turn.user_message_id)])]
    bot.close()
