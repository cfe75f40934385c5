"""A search's hit — one candidate memory with its scores and verdict — and how a stored row becomes one.

Below :mod:`memory.retrieval.recall` (which ranks and cuts hits) and :mod:`memory.retrieval.updates` (which reorders
and labels them after the cut), so each can read hits without importing the other: recall calls the update step,
and the update step builds hits of its own (history a question about the past asks for) from stored rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, select
from sqlmodel import col

from memory.retrieval.context import ContextRow
from memory.storage.models import Memory
from memory.vocab import is_flagged

#: why a hit passed but was left out: a higher-ranked selected memory of the other layer came from the same message
#: (an episode and a fact drawn from it say the same thing; the prompt spends its budget once)
SAME_SOURCE = "same message as"
#: why an episode passed but was left out: its message is among the recent turns the prompt shows anyway
IN_CONVERSATION = "in the recent conversation"

#: why an episode is left out: every sentence of it states a memory a person flagged or deleted, or one later
#: superseded or edited away (what was said stays in the conversation, but is not recalled as holding)
RETRACTED = "states a retracted memory"


@dataclass
class Hit:
    memory_id: str
    content: str
    type: str
    source_type: str
    created_at: datetime | None
    event_time: datetime | None
    confidence: float
    importance: float
    similarity: float | None
    fts_score: float | None
    score: float
    #: a calibrated probability or the raw similarity: ``RecallResult.params.relevance`` says which
    relevance: float | None = None
    rank: int = 0
    passed: bool = False
    selected: bool = False
    injected: bool | None = None
    drop_reason: str | None = None
    source_message_ids: list[Any] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    predicate: str | None = None
    object: str | None = None
    features: list[float] = field(default_factory=list)
    #: source context (selected hits only): the conversation around the message it came from (:mod:`.context`)
    context: list[ContextRow] = field(default_factory=list)
    subject: str | None = None
    #: knowledge updates (:mod:`.updates`): ``earlier`` = a newer memory replaced what this one states (which, and
    #: when), ``current`` = this one replaced an earlier memory; None = no change in time was seen
    update: str | None = None
    replaced_by: str | None = None
    replaced_on: datetime | None = None
    #: the other candidates of this search whose vectors are near-identical to this one's (id → cosine, at the
    #: policy's ``near_duplicate_cosine``; only when the policy passes over near-duplicates)
    near: dict[str, float] = field(default_factory=dict)

    @property
    def flagged(self) -> bool:
        return is_flagged(self.meta)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out.pop("features")  # model inputs, not a score: the lab and the refit read them from the Hit
        out.pop("near")  # the cut's input (its verdict is ``drop_reason``), read from the Hit like the features
        out["context"] = [row.to_dict() for row in self.context]
        for key in ("created_at", "event_time", "replaced_on"):
            out[key] = out[key].isoformat() if out[key] else None
        return out


HIT_COLUMNS = tuple(
    col(c)
    for c in (
        Memory.id,
        Memory.agent_id,
        Memory.content,
        Memory.type,
        Memory.source_type,
        Memory.created_at,
        Memory.event_time,
        Memory.confidence,
        Memory.importance,
        Memory.source_message_ids,
        Memory.meta,
        Memory.predicate,
        Memory.object,
        Memory.subject,
    )
)


@dataclass(frozen=True)
class MemoryRow:
    """One candidate's stored columns (:data:`HIT_COLUMNS`), as SQL returned them."""

    id: str
    agent_id: str | None
    content: str
    type: str
    source_type: str
    created_at: datetime | None
    event_time: datetime | None
    confidence: float
    importance: float
    source_message_ids: list[Any]
    meta: dict[str, Any]
    predicate: str | None
    object: str | None
    subject: str | None = None


def hit_of_row(m: MemoryRow, sims: dict[str, float], bm25: dict[str, float], fused: dict[str, float]) -> Hit:
    return Hit(
        memory_id=m.id,
        content=m.content,
        type=m.type,
        source_type=m.source_type,
        created_at=m.created_at,
        event_time=m.event_time,
        confidence=m.confidence,
        importance=m.importance,
        similarity=round(sims[m.id], 6) if m.id in sims else None,
        fts_score=round(bm25[m.id], 6) if m.id in bm25 else None,
        score=round(float(fused[m.id]), 6),
        source_message_ids=list(m.source_message_ids or []),
        meta=dict(m.meta or {}),
        predicate=m.predicate,
        object=m.object,
        subject=m.subject,
    )


def stored_rows(engine: Engine, user_key: str, ids: Sequence[str], status: str) -> list[MemoryRow]:
    """The rows of ``ids`` that are this user's and in ``status``, in the order SQL returns them. By primary key only,
    owner and status checked on the rows: with them in the WHERE clause SQLite's planner walks the user's (or every
    active) memory index instead of the id list (8.5 → 2.7 ms at 10k memories/user). Plain rows, not ORM objects:
    ~10× cheaper for a hundred candidates."""
    n = len(HIT_COLUMNS)
    with engine.connect() as conn:
        found = conn.execute(
            select(*HIT_COLUMNS, col(Memory.user_key), col(Memory.status)).where(col(Memory.id).in_(list(ids)))
        ).all()
    return [MemoryRow(*m[:n]) for m in found if m.user_key == user_key and m.status == status]
