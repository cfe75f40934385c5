"""The write log: one page of memory events with their memory, a memory's own history, a write's source message.

The log is paginated in SQL, so 100,000 events cost the same as 100."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import func
from sqlmodel import col, select

from memory.storage.models import (
    Memory,
    MemoryEvent,
    Message,
    Session,
)
from memory.vocab import MemoryStatus, MemoryType, is_flagged

if TYPE_CHECKING:
    from memory.storage.db import Database


@dataclass
class WriteFilter:
    """What the Memories page filters the write log by (all optional)."""

    ops: Sequence[str] = ()
    types: Sequence[str] = ()
    statuses: Sequence[str] = ()
    search: str = ""
    #: doors the write came through (``api:<key>``, ``mcp``, ``langgraph``, ``python``…); ``BUILT_IN`` = no door
    vias: Sequence[str] = ()


#: the "via" of writes made without a door: the built-in agent, the back office, the CLI
BUILT_IN = "built-in"


def _via_column():
    return col(MemoryEvent.detail)["via"].as_string()


def _like(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _write_query(user_key: str, flt: WriteFilter):
    query = select(MemoryEvent, Memory).join(Memory, col(Memory.id) == col(MemoryEvent.memory_id), isouter=True)
    query = query.where(MemoryEvent.user_key == user_key)
    if flt.ops:
        query = query.where(col(MemoryEvent.op).in_(list(flt.ops)))
    if flt.types:
        query = query.where(col(Memory.type).in_(list(flt.types)))
    if flt.statuses:
        query = query.where(col(Memory.status).in_(list(flt.statuses)))
    if flt.vias:
        named = [v for v in flt.vias if v != BUILT_IN]
        cond = _via_column().in_(named)
        query = query.where(cond | _via_column().is_(None) if BUILT_IN in flt.vias else cond)
    if flt.search.strip():
        pattern = _like(flt.search.strip())
        query = query.where(
            col(MemoryEvent.content).like(pattern, escape="\\") | col(MemoryEvent.reason).like(pattern, escape="\\")
        )
    return query


def write_log(
    store: Database, user_key: str, flt: WriteFilter | None = None, *, limit: int = 25, offset: int = 0
) -> tuple[list[dict[str, Any]], int]:
    """One page of the write log (newest first) and the total number of matching events."""
    flt = flt or WriteFilter()
    query = _write_query(user_key, flt)
    count_query = select(func.count()).select_from(query.subquery())
    with store.db() as db:
        total = db.exec(count_query).one()
        rows = db.exec(query.order_by(col(MemoryEvent.id).desc()).limit(limit).offset(offset)).all()
    return [_write_row(e, m) for e, m in rows], int(total)


def _write_row(e: MemoryEvent, m: Memory | None) -> dict[str, Any]:
    detail = e.detail or {}
    return {
        "event_id": e.id,
        "at": e.created_at,
        "op": e.op,
        "reason": e.reason,
        "content": e.content or (m.content if m else ""),
        "memory_id": e.memory_id,
        "type": m.type if m else detail.get("type"),
        "confidence": m.confidence if m else detail.get("confidence"),
        "importance": m.importance if m else detail.get("importance"),
        "status": m.status if m else None,
        "flagged": bool(m and is_flagged(m.meta)),
        "source": m.source_type if m else detail.get("source_type"),
        "via": detail.get("via") or BUILT_IN,
        "by": detail.get("by") or detail.get("actor"),  # a door's caller, or the person who made the change
        "agent": e.agent_id,
        "message_id": e.message_id or ((m.source_message_ids or [None])[0] if m else None),
        "turn_id": e.turn_id,
    }


def memory_events(store: Database, memory_id: str, limit: int = 500) -> list[dict[str, Any]]:
    """A memory's own write log, oldest first (the public APIs' ``history``), with where each change came from."""
    query = select(MemoryEvent).where(MemoryEvent.memory_id == memory_id).order_by(col(MemoryEvent.id)).limit(limit)
    with store.db() as db:
        events = db.exec(query).all()
    return [
        {
            "id": e.id,
            "memory_id": e.memory_id,
            "event": e.op,
            "old_memory": (e.detail or {}).get("old_content"),
            "new_memory": e.content,
            "reason": e.reason,
            "via": (e.detail or {}).get("via"),
            "by": (e.detail or {}).get("by") or (e.detail or {}).get("actor"),
            "created_at": e.created_at.isoformat(),
        }
        for e in events
    ]


def message_with_context(
    store: Database, message_id: int, around: int = 2, *, user_key: str | None = None
) -> dict[str, Any] | None:
    """A source message and its neighbours in the session, so a write can be read where it came from; with
    ``user_key``, ``None`` for a message of another user (a source id set through a door is not trusted)."""
    with store.db() as db:
        msg = db.get(Message, message_id)
        if msg is None or (user_key is not None and msg.user_key != user_key):
            return None
        session = db.get(Session, msg.session_id)
        before = db.exec(
            select(Message)
            .where(Message.session_id == msg.session_id, col(Message.id) < msg.id)
            .order_by(col(Message.id).desc())
            .limit(around)
        ).all()
        after = db.exec(
            select(Message)
            .where(Message.session_id == msg.session_id, col(Message.id) > msg.id)
            .order_by(col(Message.id))
            .limit(around)
        ).all()
    rows = [*reversed(before), msg, *after]
    return {
        "message": _msg(msg),
        "session": session.external_id if session else msg.session_id,
        "thread": [{**_msg(m), "is_source": m.id == msg.id} for m in rows],
    }


def source_words(store: Database, memory_id: str, limit: int = 20) -> dict[str, Any] | None:
    """The words a fact, preference or event came from, for its card: the sentence the extractor read
    (``evidence``), the question it answered when it was read with one, and every source message as said (a memory
    reinforced by later messages has several), oldest first, only ever the memory's own user's messages (a source id
    given through a door is not trusted to name one). ``None`` for an episode (it *is* the words) or a
    memory no message stated (a person's edit)."""
    with store.db() as db:
        m = db.get(Memory, memory_id)
        if m is None or m.type == MemoryType.EPISODE:
            return None
        ids = [int(i) for i in m.source_message_ids or [] if str(i).isdigit()][:limit]
        mine = select(Message).where(col(Message.id).in_(ids), Message.user_key == m.user_key)  # never another's
        msgs = db.exec(mine.order_by(col(Message.id))).all() if ids else []
    meta = m.meta or {}
    if not msgs and not meta.get("evidence"):
        return None
    return {
        "evidence": str(meta.get("evidence") or ""),
        "in_answer_to": str(meta.get("in_answer_to") or ""),
        "messages": [_msg(x) for x in msgs],
    }


def _msg(m: Message) -> dict[str, Any]:
    return {"id": m.id, "role": m.role, "content": m.content, "at": m.created_at, "tokens": m.tokens}


def memory_counts(store: Database, user_key: str) -> dict[str, dict[str, int]]:
    """Counts by status and by type (active only): the headline metrics of the Memories page."""
    with store.db() as db:
        by_status = db.exec(
            select(Memory.status, func.count()).where(Memory.user_key == user_key).group_by(Memory.status)
        ).all()
        by_type = db.exec(
            select(Memory.type, func.count())
            .where(Memory.user_key == user_key, Memory.status == MemoryStatus.ACTIVE)
            .group_by(Memory.type)
        ).all()
    return {"status": dict(by_status), "type": dict(by_type)}


def event_vias(store: Database, user_key: str) -> list[str]:
    """The doors this user's writes came through (for the Memories page's filter), ``BUILT_IN`` first."""
    query = select(_via_column()).where(MemoryEvent.user_key == user_key).distinct()
    with store.db() as db:
        found = {v for v in db.exec(query).all()}
    return ([BUILT_IN] if None in found else []) + sorted(v for v in found if v)
