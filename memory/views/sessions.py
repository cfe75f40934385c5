"""Sessions and what joins them: message counts, summary anchors, bridges in and out, the context budget per turn."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sqlalchemy import func
from sqlmodel import Session as DBSession
from sqlmodel import col, select

from memory.storage.models import (
    ContextSection,
    ContextSnapshot,
    Memory,
    MemoryEvent,
    Message,
    Session,
    SessionBridge,
    SummaryAnchor,
)
from memory.vocab import CANNED, EventOp
from memory.write.profile_sync import text_filter

if TYPE_CHECKING:
    from memory.storage.db import Database


def sessions_overview(store: Database, user_key: str, limit: int = 200) -> list[dict[str, Any]]:
    """The user's sessions (newest first) with message counts, anchors and the bridges in and out."""
    with store.db() as db:
        sessions = db.exec(
            select(Session).where(Session.user_key == user_key).order_by(col(Session.started_at).desc()).limit(limit)
        ).all()
        ids = [s.id for s in sessions]
        counts = _message_counts(db, ids)
        anchors = (
            db.exec(
                select(SummaryAnchor).where(col(SummaryAnchor.session_id).in_(ids)).order_by(col(SummaryAnchor.id))
            ).all()
            if ids
            else []
        )
        bridges = db.exec(
            select(SessionBridge).where(SessionBridge.user_key == user_key).order_by(col(SessionBridge.id))
        ).all()
    names = {s.id: s.external_id for s in sessions}
    holds = text_filter(store, user_key)  # what a person retracted is gone from every bridge and summary shown
    return [
        {
            **_session_row(s, counts.get(s.id, 0)),
            "anchors": [_anchor(a, holds) for a in anchors if a.session_id == s.id],
            "bridge_out": [_bridge(b, names, holds) for b in bridges if b.from_session_id == s.id],
            "bridge_in": [_bridge(b, names, holds) for b in bridges if b.to_session_id == s.id],
        }
        for s in sessions
    ]


def _message_counts(db: DBSession, ids: list[str]) -> dict[str, int]:
    """session id → number of messages (one grouped query)."""
    if not ids:
        return {}
    query = (
        select(Message.session_id, func.count()).where(col(Message.session_id).in_(ids)).group_by(Message.session_id)
    )
    return dict(db.exec(query).all())


def _session_row(s: Session, messages: int) -> dict[str, Any]:
    return {
        "id": s.id,
        "session": s.external_id,
        "agent": s.agent_id,
        "status": s.status,
        "title": s.title,
        "started_at": s.started_at,
        "last_activity_at": s.last_activity_at,
        "ended_at": s.ended_at,
        "messages": messages,
    }


def _anchor(a: SummaryAnchor, holds: Callable[[str], str]) -> dict[str, Any]:
    text = holds(a.text)
    return {"from": a.from_message_id, "to": a.to_message_id, "text": text, "tokens": a.tokens, "at": a.created_at}


def _bridge(b: SessionBridge, names: dict[str, str], holds: Callable[[str], str]) -> dict[str, Any]:
    return {
        "from": names.get(b.from_session_id, b.from_session_id),
        "to": names.get(b.to_session_id, b.to_session_id) if b.to_session_id else None,
        "text": holds(b.text),
        "tokens": b.tokens,
        "at": b.created_at,
        "injected_at": b.injected_at,
    }


def bridge_into(store: Database, session_key: str) -> str | None:
    """The bridge text that opened this session, if the previous one left one."""
    with store.db() as db:
        row = db.exec(
            select(SessionBridge)
            .where(SessionBridge.to_session_id == session_key)
            .order_by(col(SessionBridge.id).desc())
        ).first()
    return text_filter(store, row.user_key)(row.text) if row else None


def context_snapshots(store: Database, session_key: str, limit: int = 200) -> list[dict[str, Any]]:
    """Per turn of a session (oldest first): budget, use, and each section's allocation."""
    with store.db() as db:
        snaps = db.exec(
            select(ContextSnapshot)
            .where(ContextSnapshot.session_id == session_key)
            .order_by(col(ContextSnapshot.id).desc())
            .limit(limit)
        ).all()
        ids = [s.id for s in snaps]
        sections = (
            db.exec(
                select(ContextSection)
                .where(col(ContextSection.snapshot_id).in_(ids))
                .order_by(col(ContextSection.position))
            ).all()
            if ids
            else []
        )
    out = []
    for n, s in enumerate(reversed(snaps), 1):
        secs = [
            {
                "name": c.name,
                "budget": c.budget,
                "used": c.used,
                "kept": c.kept,
                "dropped": c.dropped,
                "dropped_items": c.dropped_items,
                "context_used": c.context_used,
            }
            for c in sections
            if c.snapshot_id == s.id
        ]
        out.append(
            {
                "snapshot_id": s.id,
                "turn": n,
                "turn_id": s.turn_id,
                "at": s.created_at,
                "total_budget": s.total_budget,
                "total_used": s.total_used,
                "sections": secs,
            }
        )
    return out


#: the most messages the Sessions page lists per session (the newest ones)
CONVERSATION_ROWS = 200


def conversation(store: Database, session_key: str, limit: int = CONVERSATION_ROWS) -> list[dict[str, Any]]:
    """A session's newest messages, oldest first, each with the episode kept of it and what was read from it
    (facts added, updated or reinforced): the link from what was said to both memory layers."""
    from memory.write.episodes import speaker  # what the episode names as the speaker

    with store.db() as db:
        msgs = list(
            db.exec(
                select(Message).where(Message.session_id == session_key).order_by(col(Message.id).desc()).limit(limit)
            ).all()
        )
        ids = [m.id for m in msgs if m.id is not None]
        events = db.exec(select(MemoryEvent).where(col(MemoryEvent.message_id).in_(ids))).all() if ids else []
    kept: dict[int, list[str]] = {}
    read: dict[int, int] = {}
    for e in events:
        if e.message_id is None or e.memory_id is None:
            continue
        if (e.detail or {}).get("stage") == "episode":
            kept.setdefault(e.message_id, []).append(e.memory_id)
        elif e.op in (EventOp.ADD, EventOp.UPDATE, EventOp.REINFORCE):
            read[e.message_id] = read.get(e.message_id, 0) + 1
    from memory.write.links import state_words

    episode_ids = [i for ids in kept.values() for i in ids]
    with store.db() as db:
        rows = db.exec(select(Memory).where(col(Memory.id).in_(episode_ids))).all() if episode_ids else []
    states = {r.id: state_words(r) for r in rows}
    return [
        {
            "message_id": m.id,
            "at": m.created_at,
            "speaker": speaker(m),
            "text": m.content,
            "episodes": kept.get(m.id or 0, []),
            "facts": read.get(m.id or 0, 0),
            "kept as": _kept_as(m, [states.get(i, "purged") for i in kept.get(m.id or 0, [])]),
        }
        for m in reversed(msgs)
    ]


def _kept_as(m: Message, states: list[str]) -> str:
    """What memory made of one message, in words: its episode's state (in force, flagged as wrong, corrected,
    deleted…), "a canned reply, not memory", or "not kept"."""
    if (m.meta or {}).get(CANNED):
        return "a canned reply: in the transcript, not memory"
    if not states:
        return "not kept"
    return "episode " + ", ".join(dict.fromkeys(states))
