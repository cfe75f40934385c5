"""One session end (MemoryService.end_session_row), whoever ends it: the agent's end node, a new session closing the
open one, the ids-based call (CLI, back office) and the evaluation's ingest all wait for the user's background writes,
mark the session ended and write its bridge once. Real SQLite + LanceDB (hash embedder)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlmodel import select

from agent.runtime import Agent
from memory.evaluation import load
from memory.evaluation.ingest import ingest_session
from memory.service import MemoryService
from memory.storage.models import Session, SessionBridge
from memory.vocab import SessionStatus

TINY = Path(__file__).parent / "data" / "tiny_locomo_format.json"


def _pending_write(svc: MemoryService, user_id: str) -> threading.Event:
    """A background write of the user still running (as a turn's write after its reply): set when it finished."""
    done = threading.Event()

    def slow() -> None:
        time.sleep(0.8)
        done.set()

    svc.writes.submit(svc.ensure_user(user_id).key, slow)
    return done


def _said(svc: MemoryService, user_id: str, session_id: str, text: str) -> Session:
    session = svc.ensure_session(svc.ensure_user(user_id), session_id)
    svc.add_message(session, "user", text)
    svc.add_message(session, "assistant", "Noted.")
    return session


def agent_end(svc: MemoryService) -> tuple[str, str]:
    agent = Agent(svc)
    agent.chat("u", "s1", "I am planning a trip to Lisbon.")
    agent.wait()
    done = _pending_write(svc, "u")
    agent.end_session("u", "s1")
    agent.close()
    assert done.is_set()
    return svc.find_session(svc.get_user("u"), "s1", svc.settings.default_agent_id).id, "Lisbon"


def new_session(svc: MemoryService) -> tuple[str, str]:
    s1 = _said(svc, "u", "s1", "我打算下个月去成都旅游。")
    s2 = svc.ensure_session(svc.get_user("u"), "s2")
    done = _pending_write(svc, "u")
    svc.close_other_sessions(s2, svc.settings, first_turn=True)
    assert done.is_set()
    return s1.id, "成都"


def by_ids(svc: MemoryService) -> tuple[str, str]:
    s1 = _said(svc, "u", "s1", "I am planning a trip to Lisbon.")
    done = _pending_write(svc, "u")
    svc.end_session("u", "s1")
    assert done.is_set()
    return s1.id, "Lisbon"


def evaluation_ingest(svc: MemoryService) -> tuple[str, str]:
    sample = load(TINY)[0]
    ls = sample.sessions[0]
    done = _pending_write(svc, "eval")
    ingest_session(svc, svc.ensure_user("eval"), sample, ls, extract=False)
    assert done.is_set()
    session = svc.find_session(svc.get_user("eval"), f"session_{ls.number}", svc.settings.default_agent_id)
    return session.id, ""  # an extractive bridge of a LoCoMo session: its wording is not asserted here


CALLERS: dict[str, Callable[[MemoryService], tuple[str, str]]] = {
    "agent end node": agent_end,
    "a new session closes the open one": new_session,
    "by ids (CLI, back office)": by_ids,
    "evaluation ingest": evaluation_ingest,
}


@pytest.mark.parametrize("caller", list(CALLERS))
def test_every_session_end_waits_marks_and_bridges(plumbing_svc, caller):
    svc = plumbing_svc
    session_key, word = CALLERS[caller](svc)  # each asserts the pending background write finished first
    with svc.storage.db() as db:
        row = db.get(Session, session_key)
        bridges = db.exec(select(SessionBridge).where(SessionBridge.from_session_id == session_key)).all()
    assert row is not None and row.status == SessionStatus.ENDED and row.ended_at is not None
    assert len(bridges) == 1 and bridges[0].text and word in bridges[0].text
    again = svc.end_session_row(row)  # ending again: the same bridge, no second one
    assert again is not None and again.id == bridges[0].id
