"""Rolling summaries and session bridges.

A session's prompt carries a *sliding window* of its latest messages verbatim; older messages are folded into
``SummaryAnchor`` rows, each recording the message range it covers, so the summary never loses track of where it came
from. Folding is triggered by turns or tokens (settings) and runs after the reply. When a session ends — explicitly,
because the user started another one, or after an idle timeout — a 2–3 sentence ``SessionBridge`` is written and
linked to the user's next session, whose first turn gets it injected ("last time we …").

The summariser is a seam: an LLM one when configured (agent/llm.py), the extractive one here otherwise. Summaries
start with a ``Goal:`` / ``目标：`` line, which the agent adds to retrieval queries for follow-ups.
"""

from __future__ import annotations

import threading
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from sqlalchemy import func
from sqlmodel import col, select

from memory.config import Settings
from memory.sessions.extractive import (  # noqa: F401 (re-exported: callers import these from here)
    ExtractiveSummariser,
    Summariser,
    _cap,
    bridge_text,
    current_goal,
    retrieval_query,
)
from memory.storage import records
from memory.storage.models import Message, Session, SessionBridge, SummaryAnchor, stored_id, utcnow
from memory.text.language import is_chinese
from memory.text.tokens import count_tokens
from memory.vocab import SessionStatus

if TYPE_CHECKING:
    from memory.storage.db import Database

_session_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()


# -- anchors -----------------------------------------------------------------------------------------------------
def anchors(store: Database, session_key: str) -> list[SummaryAnchor]:
    with store.db() as db:
        q = (
            select(SummaryAnchor)
            .where(SummaryAnchor.session_id == session_key)
            .order_by(col(SummaryAnchor.to_message_id))
        )
        return list(db.exec(q).all())


def covered_to(store: Database, session_key: str) -> int:
    with store.db() as db:
        q = select(func.max(SummaryAnchor.to_message_id)).where(SummaryAnchor.session_id == session_key)
        return db.exec(q).one() or 0


def _lock(session_key: str) -> threading.Lock:
    with _locks_guard:
        return _session_locks.setdefault(session_key, threading.Lock())


def _turn_starts(messages: list[Message]) -> list[int]:
    return [n for n, m in enumerate(messages) if m.role == "user"]


def maybe_summarise(
    store: Database, session_key: str, settings: Settings, summariser: Summariser | None = None
) -> SummaryAnchor | None:
    """Fold the oldest unsummarised turns into an anchor when turns or tokens pass their trigger."""
    with _lock(session_key):
        done = covered_to(store, session_key)
        pending = records.messages(store, session_key, after_id=done)
        starts = _turn_starts(pending)
        tokens = sum(m.tokens for m in pending)
        if len(starts) < settings.summary_trigger_turns and tokens < settings.summary_trigger_tokens:
            return None
        keep = settings.summary_keep_turns
        if keep and len(starts) > keep:
            cut = starts[-keep]
        elif keep and starts and starts[-1] > 0:  # token trigger with few turns: fold all but the newest turn
            cut = starts[-1]
        else:
            cut = len(pending)
        fold = pending[:cut]
        if not fold:
            return None
        return _write_anchor(store, session_key, fold, settings, summariser or ExtractiveSummariser())


def _write_anchor(
    store: Database, session_key: str, fold: list[Message], settings: Settings, summariser: Summariser
) -> SummaryAnchor | None:
    previous = current_goal([a.text for a in anchors(store, session_key)])
    text = _cap(
        summariser.summarise([(m.role, m.content) for m in fold], previous, settings.summary_max_tokens),
        settings.summary_max_tokens,
    )
    text = without_retracted(store, fold[0].user_key, text)
    row = SummaryAnchor(
        session_id=session_key,
        user_key=fold[0].user_key,
        from_message_id=stored_id(fold[0].id, "message"),
        to_message_id=stored_id(fold[-1].id, "message"),
        text=text,
        tokens=count_tokens(text),
    )
    if covered_to(store, session_key) >= row.from_message_id:  # another process folded these meanwhile
        return None
    with store.db() as db:
        db.add(row)
        db.commit()
    return row


# -- retraction: what a person flagged, deleted or superseded never enters a new summary or bridge -----------------
def without_retracted(store: Database, user_key: str, text: str) -> str:
    """``text`` through the one status filter (``memory.write.profile_sync.text_filter``) before it is stored: a summary
    or bridge written after a flag no longer says the flagged fact, whatever its wording (readers filter again)."""
    from memory.write.profile_sync import text_filter  # the profile's module graph loads only when something is folded

    return text_filter(store, user_key)(text)


def _words(text: str) -> dict[str, str]:
    from memory.prompts import BRIDGE_WORDS

    return BRIDGE_WORDS["zh" if is_chinese(text) else "en"]


def _nothing(text: str) -> str:
    return _words(text)["nothing"]


def _in_force(store: Database, user_key: str, msgs: list[Message]) -> tuple[list[Message], bool]:
    """``msgs`` without those whose every episode was flagged, corrected or deleted (what was said there no longer
    counts), and whether any user message went."""
    from memory.write.links import withdrawn_messages

    gone = withdrawn_messages(store, user_key, [stored_id(m.id, "message") for m in msgs])
    kept = [m for m in msgs if m.id not in gone]
    return kept, any(m.role == "user" and m.id in gone for m in msgs)


def bridge_for(
    store: Database, session: Session, settings: Settings, summariser: Summariser | None = None
) -> str | None:
    """A session's bridge from what is still in force: its summaries and its messages after them, without the
    messages a person withdrew (their episodes flagged, corrected or deleted), through the status filter. When the
    only news was corrected away it says so plainly (``BRIDGE_WORDS["corrected"]``), never "nothing new". None when
    the user said nothing in the session."""
    msgs = records.messages(store, session.id)
    if not any(m.role == "user" for m in msgs):
        return None
    kept, withdrew = _in_force(store, session.user_key, msgs)
    summary = "\n".join(a.text for a in anchors(store, session.id))
    done = covered_to(store, session.id)
    recent = [(m.role, m.content) for m in kept if stored_id(m.id, "message") > done] or [
        (m.role, m.content) for m in kept[-4:]
    ]
    if not summary:
        summary = ExtractiveSummariser().summarise(recent, None, settings.summary_max_tokens)
    text = _cap(
        (summariser or ExtractiveSummariser()).bridge(recent, summary, settings.summary_max_tokens),
        settings.summary_max_tokens,
    )
    filtered = without_retracted(store, session.user_key, text)
    said = " ".join(m.content for m in msgs if m.role == "user")
    if (withdrew or filtered != text) and (
        not filtered or filtered == _nothing(filtered) or filtered == _nothing(said)
    ):
        return _words(said)["corrected"]
    return filtered or _nothing(text)


def rebuild(store: Database, user_key: str, session_keys: set[str], settings: Settings | None = None) -> int:
    """After a correction: the summaries and bridges of these sessions written again from what is still in force
    (the extractive summariser: a correction needs no model call), so none of them says what was corrected away and
    an undo brings it back. Returns the rows rewritten."""
    settings = settings or getattr(store, "settings", None) or Settings()
    changed = 0
    with store.db() as db:
        sessions = db.exec(
            select(Session).where(col(Session.id).in_(sorted(session_keys)), Session.user_key == user_key)
        ).all()
    for session in sessions:
        msgs = records.messages(store, session.id)
        kept, _ = _in_force(store, user_key, msgs)
        for anchor in anchors(store, session.id):
            lines = [
                (m.role, m.content)
                for m in kept
                if anchor.from_message_id <= stored_id(m.id, "message") <= anchor.to_message_id
            ]
            text = without_retracted(
                store,
                user_key,
                _cap(
                    ExtractiveSummariser().summarise(lines, None, settings.summary_max_tokens),
                    settings.summary_max_tokens,
                ),
            )
            if text != anchor.text and _rewrite(store, SummaryAnchor, anchor.id, text):
                changed += 1
        with store.db() as db:
            bridges = db.exec(select(SessionBridge).where(SessionBridge.from_session_id == session.id)).all()
        for bridge in bridges:
            said = bridge_for(store, session, settings)
            if said is not None and said != bridge.text and _rewrite(store, SessionBridge, bridge.id, said):
                changed += 1
    return changed


def _rewrite(store: Database, table: type[SummaryAnchor] | type[SessionBridge], row_id: int | None, text: str) -> bool:
    """One summary or bridge row given its rewritten text (and its token count, which the prompt budget reads); False
    when the row is gone meanwhile, so :func:`rebuild` counts only what it really rewrote."""
    with store.db() as db:
        row = db.get(table, row_id)
        if row is None:
            return False
        row.text, row.tokens = text, count_tokens(text)
        db.add(row)
        db.commit()
    return True


# -- sessions and bridges ----------------------------------------------------------------------------------------
def end_session_row(
    store: Database, session: Session, settings: Settings, summariser: Summariser | None = None
) -> SessionBridge | None:
    """Mark the session ended and write its bridge (once; an ended session returns its existing bridge). The SQL
    half of the one session end: callers go through :meth:`memory.service.MemoryService.end_session_row`, which
    first waits for the user's background writes (the last turn's memories and profile belong in the bridge)."""
    with store.db() as db:
        existing = db.exec(select(SessionBridge).where(SessionBridge.from_session_id == session.id)).first()
        row = db.get(Session, session.id)
        if row is not None and row.status != SessionStatus.ENDED:
            row.status, row.ended_at = SessionStatus.ENDED, utcnow()
            db.add(row)
            db.commit()
    if existing is not None:
        return existing
    text = bridge_for(store, session, settings, summariser)
    if text is None:
        return None
    bridge = SessionBridge(
        user_key=session.user_key,
        agent_id=session.agent_id,
        from_session_id=session.id,
        text=text,
        tokens=count_tokens(text),
    )
    with store.db() as db:
        db.add(bridge)
        db.commit()
    return bridge


def sessions_to_end(store: Database, session: Session, settings: Settings, *, first_turn: bool) -> list[Session]:
    """The user's other active sessions a turn of ``session`` ends: all of them on its first turn, else those idle
    past the timeout; oldest activity first, so the most recent one's bridge is written last (it is taken next).
    Ending them is :meth:`memory.service.MemoryService.end_session_row`, the one session end."""
    idle = settings.session_idle_minutes
    cutoff = utcnow() - timedelta(minutes=idle) if idle else None
    with store.db() as db:
        others = db.exec(
            select(Session)
            .where(
                Session.user_key == session.user_key,
                Session.agent_id == session.agent_id,
                Session.status == SessionStatus.ACTIVE,
                Session.id != session.id,
            )
            .order_by(col(Session.last_activity_at))
        ).all()
    return [s for s in others if first_turn or (cutoff is not None and _aware(s.last_activity_at) < cutoff)]


def _aware(value: datetime) -> datetime:
    from datetime import UTC

    return value if value.tzinfo else value.replace(tzinfo=UTC)


def take_bridge(store: Database, session: Session) -> SessionBridge | None:
    """Link the newest unlinked bridge of this user and agent to ``session`` (its first turn) and return it."""
    with store.db() as db:
        bridge = db.exec(
            select(SessionBridge)
            .where(
                SessionBridge.user_key == session.user_key,
                SessionBridge.agent_id == session.agent_id,
                SessionBridge.from_session_id != session.id,
                col(SessionBridge.to_session_id).is_(None) | (SessionBridge.to_session_id == session.id),
            )
            .order_by(col(SessionBridge.created_at).desc(), col(SessionBridge.id).desc())
        ).first()
        if bridge is None:
            return None
        bridge.to_session_id, bridge.injected_at = session.id, bridge.injected_at or utcnow()
        db.add(bridge)
        db.commit()
        return bridge


def reopen(store: Database, session: Session) -> None:
    """A message in an ended session makes it active again (its bridge stays: it already served the next session)."""
    with store.db() as db:
        row = db.get(Session, session.id)
        if row is not None and row.status == SessionStatus.ENDED:
            row.status, row.ended_at = SessionStatus.ACTIVE, None
            db.add(row)
            db.commit()


def find_session(store: Database, user_key: str, session_id: str, agent_id: str) -> Session | None:
    with store.db() as db:
        return db.exec(
            select(Session).where(
                Session.user_key == user_key, Session.agent_id == agent_id, Session.external_id == session_id
            )
        ).first()
