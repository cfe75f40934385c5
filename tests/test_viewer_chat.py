"""A viewer cannot chat through the service (issue #30): the chat turn writes the user's message and the memories
drawn from it, so the agent itself checks the role of the person a door passes — the page hiding its chat box is
not the rule. A refused turn writes nothing and leaves a ``denied`` audit row; the role is read at the call."""

from __future__ import annotations

import pytest
from actors import ADMIN, CURATOR, VIEWER

from agent.runtime import Agent
from memory import accounts, audit
from memory.errors import Forbidden
from memory.storage.models import Message
from memory.vocab import AuditAction, Role


def _messages(svc) -> int:
    with svc.storage.db() as db:
        return len(db.query(Message).all())


def test_a_viewer_is_refused_before_anything_is_written(plumbing_svc):
    agent = Agent(plumbing_svc)
    with pytest.raises(Forbidden, match="'test-viewer' is a viewer; to chat as a user"):
        agent.chat("lin", "s1", "I live in Hangzhou", actor=VIEWER)
    with pytest.raises(Forbidden):
        list(agent.stream("lin", "s1", "我住在杭州", actor=VIEWER))
    assert plumbing_svc.list_users() == [] and _messages(plumbing_svc) == 0  # not even the user row
    denied = audit.events(plumbing_svc.storage, action=AuditAction.DENIED)
    assert len(denied) == 2 and {d.actor for d in denied} == {"test-viewer"}
    assert all("chat" in d.reason and d.detail.get("needs") == "curator" for d in denied)


def test_curators_and_admins_chat_and_the_program_itself_needs_no_actor(plumbing_svc):
    agent = Agent(plumbing_svc)
    for who in (CURATOR, ADMIN, None):
        result = agent.chat("lin", "s1", "I live in Hangzhou", actor=who)
        assert result.reply
    agent.wait()
    assert _messages(plumbing_svc) == 6  # three turns: message and reply each
    assert audit.events(plumbing_svc.storage, action=AuditAction.DENIED) == []


def test_ending_a_session_is_refused_to_a_viewer(plumbing_svc):
    agent = Agent(plumbing_svc)
    agent.chat("lin", "s1", "I live in Hangzhou", actor=CURATOR)
    agent.wait()
    with pytest.raises(Forbidden, match="end a chat session"):
        agent.end_session("lin", "s1", actor=VIEWER)
    assert plumbing_svc.find_session(plumbing_svc.get_user("lin"), "s1", "default").ended_at is None


def test_an_account_demoted_after_sign_in_is_refused_at_its_next_turn(plumbing_svc):
    """The page's copy of who signed in may be stale; the agent reads the account's role at the call."""
    store = plumbing_svc.storage
    accounts.add(store, "mei", Role.CURATOR, "correct horse battery", actor=ADMIN)
    mei = accounts.sign_in(store, "mei", "correct horse battery")
    agent = Agent(plumbing_svc)
    agent.chat("lin", "s1", "I live in Hangzhou", actor=mei)
    from memory.storage.people import Account

    with store.db() as db:
        row = db.get(Account, "mei")
        row.role = str(Role.VIEWER)
        db.add(row)
        db.commit()
    with pytest.raises(Forbidden, match="'mei' is a viewer"):
        agent.chat("lin", "s1", "Actually I moved to Ningbo", actor=mei)  # mei still says curator
    agent.wait()
    assert _messages(plumbing_svc) == 2
    assert [d.actor for d in audit.events(store, action=AuditAction.DENIED)] == ["mei"]
