"""Read models for the back office: one small query per table the pages show, always bounded.

Every list here takes a limit (and an offset or a session) so a page never loads a user's whole history: the write
log is paginated in SQL, so 100,000 events cost the same as 100. Functions take the service as their *store* and
return plain dicts (easy to put in a dataframe, nothing lazy left to load after the DB session closes).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import func
from sqlmodel import col, select

from memory.errors import Conflict, NotFound
from memory.retrieval.log import flush as flush_log
from memory.storage.models import (
    ContextSection,
    ContextSnapshot,
    HitLabel,
    Memory,
    MemoryEvent,
    Message,
    ProfileChange,
    ProfileField,
    Retrieval,
    RetrievalHit,
    Session,
    SessionBridge,
    SummaryAnchor,
    Turn,
    User,
    id_hash,
    utcnow,
)
from memory.vocab import MemoryStatus

if TYPE_CHECKING:
    from memory.storage.records import Records


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
    store: Records, user_key: str, flt: WriteFilter | None = None, *, limit: int = 25, offset: int = 0
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
        "flagged": bool(m and (m.meta or {}).get("flagged")),
        "source": m.source_type if m else detail.get("source_type"),
        "via": detail.get("via") or BUILT_IN,
        "by": detail.get("by"),
        "agent": e.agent_id,
        "message_id": e.message_id or ((m.source_message_ids or [None])[0] if m else None),
        "turn_id": e.turn_id,
    }


def memory_events(store: Records, memory_id: str, limit: int = 500) -> list[dict[str, Any]]:
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
            "by": (e.detail or {}).get("by"),
            "created_at": e.created_at.isoformat(),
        }
        for e in events
    ]


def message_with_context(store: Records, message_id: int, around: int = 2) -> dict[str, Any] | None:
    """A source message and its neighbours in the session, so a write can be read where it came from."""
    with store.db() as db:
        msg = db.get(Message, message_id)
        if msg is None:
            return None
        session = db.get(Session, msg.session_id)
        before = db.exec(
            select(Message)
            .where(Message.session_id == msg.session_id, Message.id < msg.id)
            .order_by(col(Message.id).desc())
            .limit(around)
        ).all()
        after = db.exec(
            select(Message)
            .where(Message.session_id == msg.session_id, Message.id > msg.id)
            .order_by(Message.id)
            .limit(around)
        ).all()
    rows = [*reversed(before), msg, *after]
    return {
        "message": _msg(msg),
        "session": session.external_id if session else msg.session_id,
        "thread": [{**_msg(m), "is_source": m.id == msg.id} for m in rows],
    }


def _msg(m: Message) -> dict[str, Any]:
    return {"id": m.id, "role": m.role, "content": m.content, "at": m.created_at, "tokens": m.tokens}


def memory_counts(store: Records, user_key: str) -> dict[str, dict[str, int]]:
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


def event_vias(store: Records, user_key: str) -> list[str]:
    """The doors this user's writes came through (for the Memories page's filter), ``BUILT_IN`` first."""
    query = select(_via_column()).where(MemoryEvent.user_key == user_key).distinct()
    with store.db() as db:
        found = {v for v in db.exec(query).all()}
    return ([BUILT_IN] if None in found else []) + sorted(v for v in found if v)


def event_ops(store: Records, user_key: str) -> list[str]:
    with store.db() as db:
        return sorted(db.exec(select(MemoryEvent.op).where(MemoryEvent.user_key == user_key).distinct()).all())


# -- profile ------------------------------------------------------------------------------------------------------
def profile_fields(store: Records, user_key: str) -> list[dict[str, Any]]:
    with store.db() as db:
        rows = db.exec(select(ProfileField).where(ProfileField.user_key == user_key).order_by(ProfileField.field)).all()
    return [
        {
            "field": r.field,
            "value": r.value,
            "confidence": r.confidence,
            "source": r.source,
            "updated_at": r.updated_at,
            "version": r.version,
        }
        for r in rows
    ]


def profile_changes(store: Records, user_key: str, limit: int = 200) -> list[dict[str, Any]]:
    with store.db() as db:
        rows = db.exec(
            select(ProfileChange)
            .where(ProfileChange.user_key == user_key)
            .order_by(col(ProfileChange.id).desc())
            .limit(limit)
        ).all()
    return [
        {
            "at": r.at,
            "field": r.field,
            "old": r.old_value,
            "new": r.new_value,
            "source": r.source,
            "reason": r.reason,
            "message_id": r.source_message_id,
        }
        for r in rows
    ]


# -- sessions -------------------------------------------------------------------------------------------------------
def sessions_overview(store: Records, user_key: str, limit: int = 200) -> list[dict[str, Any]]:
    """The user's sessions (newest first) with message counts, anchors and the bridges in and out."""
    with store.db() as db:
        sessions = db.exec(
            select(Session).where(Session.user_key == user_key).order_by(col(Session.started_at).desc()).limit(limit)
        ).all()
        ids = [s.id for s in sessions]
        counts = (
            dict(
                db.exec(
                    select(Message.session_id, func.count())
                    .where(col(Message.session_id).in_(ids))
                    .group_by(Message.session_id)
                ).all()
            )
            if ids
            else {}
        )
        anchors = (
            db.exec(
                select(SummaryAnchor).where(col(SummaryAnchor.session_id).in_(ids)).order_by(SummaryAnchor.id)
            ).all()
            if ids
            else []
        )
        bridges = db.exec(
            select(SessionBridge).where(SessionBridge.user_key == user_key).order_by(SessionBridge.id)
        ).all()
    names = {s.id: s.external_id for s in sessions}
    out = []
    for s in sessions:
        out.append(
            {
                "id": s.id,
                "session": s.external_id,
                "agent": s.agent_id,
                "status": s.status,
                "title": s.title,
                "started_at": s.started_at,
                "last_activity_at": s.last_activity_at,
                "ended_at": s.ended_at,
                "messages": counts.get(s.id, 0),
                "anchors": [
                    {
                        "from": a.from_message_id,
                        "to": a.to_message_id,
                        "text": a.text,
                        "tokens": a.tokens,
                        "at": a.created_at,
                    }
                    for a in anchors
                    if a.session_id == s.id
                ],
                "bridge_out": [_bridge(b, names) for b in bridges if b.from_session_id == s.id],
                "bridge_in": [_bridge(b, names) for b in bridges if b.to_session_id == s.id],
            }
        )
    return out


def _bridge(b: SessionBridge, names: dict[str, str]) -> dict[str, Any]:
    return {
        "from": names.get(b.from_session_id, b.from_session_id),
        "to": names.get(b.to_session_id, b.to_session_id) if b.to_session_id else None,
        "text": b.text,
        "tokens": b.tokens,
        "at": b.created_at,
        "injected_at": b.injected_at,
    }


# -- context budget -------------------------------------------------------------------------------------------------
def context_snapshots(store: Records, session_id: str, limit: int = 200) -> list[dict[str, Any]]:
    """Per turn of a session (oldest first): budget, use, and each section's allocation."""
    with store.db() as db:
        snaps = db.exec(
            select(ContextSnapshot)
            .where(ContextSnapshot.session_id == session_id)
            .order_by(col(ContextSnapshot.id).desc())
            .limit(limit)
        ).all()
        ids = [s.id for s in snaps]
        sections = (
            db.exec(
                select(ContextSection).where(col(ContextSection.snapshot_id).in_(ids)).order_by(ContextSection.position)
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


# -- retrievals and labels ------------------------------------------------------------------------------------------
def recent_retrievals(store: Records, user_key: str, limit: int = 50) -> list[dict[str, Any]]:
    flush_log(store)  # retrievals this process logged are written on a background thread
    with store.db() as db:
        rows = db.exec(
            select(Retrieval).where(Retrieval.user_key == user_key).order_by(col(Retrieval.id).desc()).limit(limit)
        ).all()
    return [
        {
            "id": r.id,
            "at": r.created_at,
            "query": r.query,
            "retrieval_query": r.retrieval_query,
            "mode": r.mode,
            "k": r.k,
            "threshold": r.threshold,
            "params": r.params,
            "via": (r.params or {}).get("via") or BUILT_IN,
            "turn_id": r.turn_id,
        }
        for r in rows
    ]


def retrieval_hits(store: Records, retrieval_id: int) -> list[dict[str, Any]]:
    """A logged retrieval's candidates with content and any label, best first."""
    flush_log(store)  # retrievals this process logged are written on a background thread
    with store.db() as db:
        rows = db.exec(
            select(RetrievalHit, Memory)
            .join(Memory, col(Memory.id) == col(RetrievalHit.memory_id), isouter=True)
            .where(RetrievalHit.retrieval_id == retrieval_id)
            .order_by(RetrievalHit.rank)
        ).all()
        labels = {
            lb.memory_id: lb.relevant
            for lb in db.exec(select(HitLabel).where(HitLabel.retrieval_id == retrieval_id)).all()
        }
    return [
        {
            "memory_id": h.memory_id,
            "rank": h.rank,
            "relevance": h.relevance,
            "similarity": h.similarity,
            "fts_score": h.fts_score,
            "fused_score": h.fused_score,
            "passed": h.passed,
            "selected": h.selected,
            "injected": h.injected,
            "drop_reason": h.drop_reason,
            "content": m.content if m else "(memory removed)",
            "label": labels.get(h.memory_id),
        }
        for h, m in rows
    ]


def query_key(text: str) -> str:
    """The same query whatever its spacing or case (labels are one per query, memory and labeller)."""
    return id_hash(" ".join(text.split()).casefold())


def _label_row(db, user_key: str, qkey: str, memory_id: str, labeled_by: str) -> HitLabel | None:
    return db.exec(
        select(HitLabel).where(
            HitLabel.user_key == user_key,
            HitLabel.query_key == qkey,
            HitLabel.memory_id == memory_id,
            HitLabel.labeled_by == labeled_by,
        )
    ).first()


def set_label(
    store: Records, user_key: str, retrieval_id: int, memory_id: str, relevant: bool | None, labeled_by: str = "team"
) -> None:
    """Record (or clear, with None) a person's verdict on one hit. One label per (query, memory, labeller):
    labelling the same query again updates that label (and moves it to this retrieval's scores), never adds one."""
    flush_log(store)  # retrievals this process logged are written on a background thread
    with store.db() as db:
        retrieval = db.get(Retrieval, retrieval_id)
        if retrieval is None or retrieval.user_key != user_key:
            raise NotFound(f"no retrieval {retrieval_id} for this user")
        qkey = query_key(retrieval.query)
        row = _label_row(db, user_key, qkey, memory_id, labeled_by)
        here = db.exec(
            select(HitLabel).where(HitLabel.retrieval_id == retrieval_id, HitLabel.memory_id == memory_id)
        ).first()
        if here is not None and here is not row:
            if here.labeled_by != labeled_by:
                raise Conflict("another person labelled this hit of this very search: search again to add yours")
            db.delete(here)  # a row from before query keys existed
            db.flush()
        if relevant is None:
            if row is not None:
                db.delete(row)
        else:
            row = row or HitLabel(user_key=user_key, memory_id=memory_id, relevant=True, query_key=qkey)
            row.retrieval_id, row.relevant, row.labeled_by = retrieval_id, bool(relevant), labeled_by
            row.created_at = utcnow()
            db.add(row)
        db.commit()


def labels_for_query(store: Records, user_key: str, query: str, labeled_by: str) -> dict[str, bool]:
    """memory id → this labeller's verdict for this query (shown again when the same query is searched again)."""
    with store.db() as db:
        rows = db.exec(
            select(HitLabel.memory_id, HitLabel.relevant).where(
                HitLabel.user_key == user_key,
                HitLabel.query_key == query_key(query),
                HitLabel.labeled_by == labeled_by,
            )
        ).all()
    return {m: bool(r) for m, r in rows}


def _labelled_scores(store: Records, score: Any, user_key: str | None) -> list[tuple[float, bool]]:
    """(a hit's score at retrieval time, relevant) for every labelled hit that logged that score."""
    flush_log(store)  # retrievals this process logged are written on a background thread
    query = select(score, HitLabel.relevant).join(
        RetrievalHit,
        (col(RetrievalHit.retrieval_id) == col(HitLabel.retrieval_id))
        & (col(RetrievalHit.memory_id) == col(HitLabel.memory_id)),
    )
    if user_key:
        query = query.where(HitLabel.user_key == user_key)
    with store.db() as db:
        return [(float(s), bool(r)) for s, r in db.exec(query).all() if s is not None]


def labelled_similarities(store: Records, user_key: str | None = None) -> list[tuple[float, bool]]:
    """(similarity, relevant) for every labelled hit: the raw-similarity PR curve's input."""
    return _labelled_scores(store, RetrievalHit.similarity, user_key)


def labelled_relevance(store: Records, user_key: str | None = None) -> list[tuple[float, bool]]:
    """(relevance, relevant) for every labelled hit logged with a relevance: the PR curve's input."""
    return _labelled_scores(store, RetrievalHit.relevance, user_key)


def labelled_queries(store: Records, user_key: str | None = None) -> list[dict[str, Any]]:
    """Every labelled retrieval with its query, its user and the verdicts: what a refit replays."""
    query = select(HitLabel, Retrieval, User.external_id).join(
        Retrieval, col(Retrieval.id) == col(HitLabel.retrieval_id)
    )
    query = query.join(User, col(User.key) == col(Retrieval.user_key))
    if user_key:
        query = query.where(HitLabel.user_key == user_key)
    out: dict[int, dict[str, Any]] = {}
    with store.db() as db:
        for label, r, external in db.exec(query).all():
            entry = out.setdefault(
                r.id,
                {
                    "retrieval_id": r.id,
                    "user_id": external,
                    "agent_id": None if r.agent_id == "*" else r.agent_id,
                    "retrieval_query": r.retrieval_query,
                    "mode": r.mode,
                    "labels": {},
                },
            )
            entry["labels"][label.memory_id] = bool(label.relevant)
    return list(out.values())


def turn_of_message(store: Records, message_id: int) -> int | None:
    with store.db() as db:
        return db.exec(select(Turn.id).where(Turn.user_message_id == message_id)).first()


# -- chat history -------------------------------------------------------------------------------------------------
def retrieval_params(r: Retrieval) -> dict[str, Any]:
    """The knobs a logged retrieval ran with (what the chat's hit panel states for its turn)."""
    p = r.params or {}
    return {"threshold": r.threshold, "k": r.k, "mode": r.mode, "fusion": p.get("fusion"), "flagged": "excluded"}


def turn_details(store: Records, session_id: str, limit: int = 30) -> dict[int, dict[str, Any]]:
    """For the last turns of a session, keyed by the reply's message id: what was recalled, the budget, the writes."""
    flush_log(store)  # retrievals this process logged are written on a background thread
    with store.db() as db:
        turns = db.exec(
            select(Turn).where(Turn.session_id == session_id).order_by(col(Turn.id).desc()).limit(limit)
        ).all()
        ids = [t.id for t in turns]
        if not ids:
            return {}
        retrievals = db.exec(select(Retrieval).where(col(Retrieval.turn_id).in_(ids)).order_by(Retrieval.id)).all()
        last = {r.turn_id: r for r in retrievals}  # the final query of the turn is the one composed from
        hits = db.exec(
            select(RetrievalHit, Memory)
            .join(Memory, col(Memory.id) == col(RetrievalHit.memory_id), isouter=True)
            .where(col(RetrievalHit.retrieval_id).in_([r.id for r in last.values()]))
            .order_by(RetrievalHit.rank)
        ).all()
        snaps = db.exec(select(ContextSnapshot).where(col(ContextSnapshot.turn_id).in_(ids))).all()
        events = db.exec(select(MemoryEvent).where(col(MemoryEvent.turn_id).in_(ids)).order_by(MemoryEvent.id)).all()
    out: dict[int, dict[str, Any]] = {}
    for t in turns:
        r = last.get(t.id)
        snap = next((s for s in snaps if s.turn_id == t.id), None)
        out[t.reply_message_id or -t.id] = {
            "turn_id": t.id,
            "query": r.retrieval_query if r else None,
            "params": retrieval_params(r) if r else None,
            "hits": [
                {
                    "content": m.content if m else "(removed)",
                    "relevance": h.relevance,
                    "similarity": h.similarity,
                    "fts_score": h.fts_score,
                    "fused": h.fused_score,
                    "passed": h.passed,
                    "selected": h.selected,
                    "injected": h.injected,
                    "why": h.drop_reason,
                }
                for h, m in hits
                if r and h.retrieval_id == r.id
            ],
            "budget": {"total_budget": snap.total_budget, "total_used": snap.total_used} if snap else None,
            "writes": [{"op": e.op, "content": e.content, "reason": e.reason} for e in events if e.turn_id == t.id],
        }
    return out


def bridge_into(store: Records, session_id: str) -> str | None:
    """The bridge text that opened this session, if the previous one left one."""
    with store.db() as db:
        row = db.exec(
            select(SessionBridge)
            .where(SessionBridge.to_session_id == session_id)
            .order_by(col(SessionBridge.id).desc())
        ).first()
    return row.text if row else None
