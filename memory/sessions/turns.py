"""Turn rows: one pass of the agent loop, opened when the user's message is stored and closed by the stored reply.

The turn's id ties its retrieval log entry, its context snapshot and its write events together (the Chat and
Memories pages read them by it). ``shift_session`` moves a whole session back in time (``memlens seed-demo`` makes
its demo histories read like weeks of use).
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

from sqlmodel import col, select

from memory.errors import NotFound
from memory.storage.models import (
    ContextSnapshot,
    Memory,
    MemoryEvent,
    Message,
    ProfileChange,
    ProfileField,
    Retrieval,
    Session,
    SessionBridge,
    SummaryAnchor,
    Turn,
    stored_id,
)
from memory.vocab import EventOp

if TYPE_CHECKING:
    from sqlmodel import Session as DBSession

    from memory.storage.db import Database

#: the rows a session produced, each with its own ``created_at``
Dated = Turn | Message | ContextSnapshot | Retrieval | SummaryAnchor | SessionBridge | MemoryEvent | Memory


def open_turn(store: Database, session: Session, user_message: Message, *, model: str) -> int:
    """A new turn row for the stored user message; returns its id."""
    turn = Turn(session_id=session.id, user_key=session.user_key, user_message_id=user_message.id, model=model)
    with store.db() as db:
        db.add(turn)
        db.commit()
    return stored_id(turn.id, "turn")


def close_turn(store: Database, turn_id: int, reply: Message) -> None:
    """Link the stored reply to its turn."""
    with store.db() as db:
        turn = db.get(Turn, turn_id)
        if turn is None:
            raise NotFound(f"no turn {turn_id}")
        turn.reply_message_id = reply.id
        db.add(turn)
        db.commit()


def shift_session(store: Database, user_key: str, session_id: str, days: float) -> bool:
    """Move one session (by its external id) and everything it produced ``days`` back in time, keeping the order
    inside it: the session, its turns, messages, snapshots, retrievals, anchors, bridge, write events and the
    memories they added. False when the user has no such session."""
    shift = timedelta(days=days)
    with store.db() as db:
        s = db.exec(select(Session).where(Session.user_key == user_key, Session.external_id == session_id)).first()
        if s is None:
            return False
        s.started_at -= shift
        s.last_activity_at -= shift
        s.ended_at = s.ended_at - shift if s.ended_at else None
        turns = db.exec(select(Turn).where(Turn.session_id == s.id)).all()
        rows: list[Dated] = [
            *turns,
            *db.exec(select(Message).where(Message.session_id == s.id)).all(),
            *db.exec(select(ContextSnapshot).where(ContextSnapshot.session_id == s.id)).all(),
            *db.exec(select(Retrieval).where(Retrieval.session_id == s.id)).all(),
            *db.exec(select(SummaryAnchor).where(SummaryAnchor.session_id == s.id)).all(),
            *db.exec(select(SessionBridge).where(SessionBridge.from_session_id == s.id)).all(),
        ]
        turn_ids = [t.id for t in turns]
        events = db.exec(select(MemoryEvent).where(col(MemoryEvent.turn_id).in_(turn_ids))).all()
        added = {e.memory_id for e in events if e.memory_id and e.op in (EventOp.ADD, EventOp.UPDATE)}
        memories = db.exec(select(Memory).where(col(Memory.id).in_(list(added)))).all()
        said = {m.id: m for m in rows if isinstance(m, Message)}
        db.add(s)
        rows += [*events, *memories]
        for row in rows:
            row.created_at -= shift
            if isinstance(row, Memory):
                row.updated_at -= shift
                _redate(row, said, shift)
            db.add(row)
        _shift_profile(db, user_key, list(said), shift)
        db.commit()
    return True


def _redate(memory: Memory, said: dict[int | None, Message], shift: timedelta) -> None:
    """One notion of time: a memory's relative date ("next month") is resolved again against its message's (moved)
    time, and its event time with it; without a stamped date the event time moves with the session."""
    from memory.text.dates import restamp

    source = next((said[i] for i in memory.source_message_ids or [] if i in said), None)
    if memory.event_time is None:
        return
    if source is not None:
        content, when = restamp(
            memory.content, source.created_at, prefer="past" if memory.predicate == "event" else None
        )
        if when is not None:
            memory.content, memory.event_time = content, when
            return
    memory.event_time -= shift


def _shift_profile(db: DBSession, user_key: str, message_ids: list[int | None], shift: timedelta) -> None:
    """The profile fields and change-log rows these messages set move with them (the change log's chart, and "you
    told me on …", read the day it was said)."""
    ids = [i for i in message_ids if i is not None]
    if not ids:
        return
    changes = db.exec(
        select(ProfileChange).where(ProfileChange.user_key == user_key, col(ProfileChange.source_message_id).in_(ids))
    ).all()
    fields = db.exec(
        select(ProfileField).where(ProfileField.user_key == user_key, col(ProfileField.source_message_id).in_(ids))
    ).all()
    for change in changes:
        change.at -= shift
        db.add(change)
    for row in fields:
        row.updated_at -= shift
        db.add(row)
