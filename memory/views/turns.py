"""Logged retrievals and chat turns: what was recalled (scores, the cut, why dropped), a turn's budget and writes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sqlmodel import col, select

from memory.retrieval import context
from memory.retrieval.context import ContextRow
from memory.retrieval.log import flush as flush_log
from memory.storage.models import (
    ContextSnapshot,
    HitLabel,
    Memory,
    MemoryEvent,
    Retrieval,
    RetrievalHit,
    Turn,
    stored_id,
)
from memory.views.composed import Composed, composed
from memory.views.writes import BUILT_IN

if TYPE_CHECKING:
    from memory.storage.store import Storage


def recent_retrievals(store: Storage, user_key: str, limit: int = 50) -> list[dict[str, Any]]:
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


def retrieval_hits(store: Storage, retrieval_id: int) -> list[dict[str, Any]]:
    """A logged retrieval's candidates with content and any label, best first."""
    flush_log(store)  # retrievals this process logged are written on a background thread
    with store.db() as db:
        rows = db.exec(
            select(RetrievalHit, Memory)
            .join(Memory, col(Memory.id) == col(RetrievalHit.memory_id), isouter=True)
            .where(RetrievalHit.retrieval_id == retrieval_id)
            .order_by(col(RetrievalHit.rank))
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


def retrieval_params(r: Retrieval) -> dict[str, Any]:
    """The knobs a logged retrieval ran with (what the chat's hit panel states for its turn)."""
    p = r.params or {}
    return {"threshold": r.threshold, "k": r.k, "mode": r.mode, "fusion": p.get("fusion"), "flagged": "excluded"}


def _turn_context(
    store: Storage, user_key: str, last: dict[Any, Retrieval], hits: Sequence[Any]
) -> dict[tuple[Any, str], list[ContextRow]]:
    """Each injected hit's source context as the turn's prompt showed it (the windows are read once for all turns;
    the span each retrieval ran with, else the live setting)."""
    chosen = [(h, m) for h, m in hits if h.injected and m is not None and m.source_message_ids]
    if not chosen:
        return {}
    default = store.effective_settings().context_span
    spans = {r.id: int((r.params or {}).get("context_span", default)) for r in last.values()}
    wanted = [i for _, m in chosen for i in context.source_ids(m.source_message_ids)]
    placement, rows = context.read(store.engine, user_key, wanted, max(spans.values(), default=0))
    out: dict[tuple[Any, str], list[ContextRow]] = {}
    for rid, span in spans.items():
        mine = [(h, m) for h, m in chosen if h.retrieval_id == rid]  # rank order
        shown = context.verbatim((m.type, m.source_message_ids) for _, m in mine)
        found = context.shown_rows(placement, rows, [m.source_message_ids for _, m in mine], span, shown)
        out.update({(rid, h.memory_id): ctx for (h, _), ctx in zip(mine, found, strict=True)})
    return out


def turn_details(store: Storage, session_key: str, limit: int = 30) -> dict[int, dict[str, Any]]:
    """For the last turns of a session, keyed by the reply's message id: what was recalled, the budget, the writes."""
    flush_log(store)  # retrievals this process logged are written on a background thread
    with store.db() as db:
        turns = db.exec(
            select(Turn).where(Turn.session_id == session_key).order_by(col(Turn.id).desc()).limit(limit)
        ).all()
        ids = [t.id for t in turns]
        if not ids:
            return {}
        retrievals = db.exec(select(Retrieval).where(col(Retrieval.turn_id).in_(ids)).order_by(col(Retrieval.id))).all()
        last = {r.turn_id: r for r in retrievals}  # the final query of the turn is the one composed from
        hits = db.exec(
            select(RetrievalHit, Memory)
            .join(Memory, col(Memory.id) == col(RetrievalHit.memory_id), isouter=True)
            .where(col(RetrievalHit.retrieval_id).in_([r.id for r in last.values()]))
            .order_by(col(RetrievalHit.rank))
        ).all()
        snaps = db.exec(select(ContextSnapshot).where(col(ContextSnapshot.turn_id).in_(ids))).all()
        events = db.exec(
            select(MemoryEvent).where(col(MemoryEvent.turn_id).in_(ids)).order_by(col(MemoryEvent.id))
        ).all()
    shown = _turn_context(store, turns[0].user_key, last, hits)
    out: dict[int, dict[str, Any]] = {}
    for t in turns:
        r = last.get(t.id)
        snap = next((s for s in snaps if s.turn_id == t.id), None)
        out[t.reply_message_id or -stored_id(t.id, "turn")] = {
            "turn_id": t.id,
            "retrieval_id": r.id if r else None,
            "query": r.retrieval_query if r else None,
            "params": retrieval_params(r) if r else None,
            "hits": [
                {
                    "memory_id": h.memory_id,
                    "content": m.content if m else "(removed)",
                    "relevance": h.relevance,
                    "similarity": h.similarity,
                    "fts_score": h.fts_score,
                    "fused": h.fused_score,
                    "passed": h.passed,
                    "selected": h.selected,
                    "injected": h.injected,
                    "why": h.drop_reason,
                    "context": [row.to_dict() for row in shown.get((h.retrieval_id, h.memory_id), [])],
                }
                for h, m in hits
                if r and h.retrieval_id == r.id
            ],
            "budget": {"total_budget": snap.total_budget, "total_used": snap.total_used} if snap else None,
            "composed": composed(snap.prompt) if snap else None,
            "writes": [{"op": e.op, "content": e.content, "reason": e.reason} for e in events if e.turn_id == t.id],
        }
    return out


def turn_composed(store: Storage, turn_id: int | None) -> Composed | None:
    """What the turn's prompt received, from its saved snapshot (None before the turn composed one)."""
    if turn_id is None:
        return None
    with store.db() as db:
        snap = db.exec(
            select(ContextSnapshot).where(ContextSnapshot.turn_id == turn_id).order_by(col(ContextSnapshot.id).desc())
        ).first()
    return composed(snap.prompt) if snap else None
