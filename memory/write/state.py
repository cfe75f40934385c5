"""What the planner sees of a user's active memories while a batch of messages is planned one message after another.

Loaded once per batch — only the memories that can matter: those sharing a predicate (or its opposite) with a
candidate, plus each candidate's nearest memories when a similarity can decide (one multi-vector index search) — then
kept current in memory as the plan goes: rows added by earlier messages of the batch join it, reinforcements raise
counts and confidence, superseded rows leave it. So message *k* is planned against exactly what it would find in SQL
and the index had messages 1..k-1 been written one by one.

A similarity can decide only when a candidate or a stored fact/preference/event has no structured predicate, or a
stored memory has the candidate's predicate with another object ("likes to help" may repeat "likes helping people":
the one-fact rule, :mod:`memory.write.same`, reads their similarity); otherwise duplicates and contradictions are
settled by predicate and object, so most messages need no vector search at all.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Row, and_, exists, or_, select
from sqlmodel import SQLModel

from memory.storage.models import Memory
from memory.vocab import MemoryStatus, MemoryType
from memory.write.extract.base import OPPOSITES, Candidate, norm_object
from memory.write.plan import STRUCTURED_SKIP, Existing, Operation

if TYPE_CHECKING:
    import numpy as np

    from memory.storage.store import Storage

NEIGHBOURS = 5
#: extra hits fetched per candidate so that rows superseded earlier in the batch can be skipped without a new search
SLACK = 5
_RECALLED = ("fact", "preference", "event")
#: episodes (what was said) are never a fact's duplicate or contradiction: the planner neither loads nor searches them
_NOT_EPISODE = f"type != '{MemoryType.EPISODE}'"
_T = SQLModel.metadata.tables[str(Memory.__tablename__)]  # Core columns: the hot loop of a batch ingest
_COLS = [
    _T.c.id,
    _T.c.content,
    _T.c.predicate,
    _T.c.object,
    _T.c.subject,
    _T.c.source_type,
    _T.c.confidence,
    _T.c.reinforce_count,
    _T.c.meta,
    _T.c.type,
    _T.c.created_at,
]


@dataclass
class Known:
    """One active memory as the planner sees it (``vector`` only for rows added in this batch)."""

    existing: Existing
    type: str
    created_at: datetime
    order: int = 0
    vector: np.ndarray | None = None
    fresh: bool = False  # added by this batch (not in the index yet)

    @property
    def unstructured(self) -> bool:
        return self.type in _RECALLED and self.existing.predicate in STRUCTURED_SKIP


def _aware(at: datetime) -> datetime:
    return at if at.tzinfo else at.replace(tzinfo=UTC)


def _preds(cands: list[Candidate]) -> set[str]:
    preds = {c.predicate for c in cands} | {OPPOSITES[c.predicate] for c in cands if c.predicate in OPPOSITES}
    return {p for p in preds if p is not None}


class PlanState:
    def __init__(self, store: Storage, user_key: str, agent_id: str) -> None:
        self.store, self.user_key, self.agent_id = store, user_key, agent_id
        self.known: dict[str, Known] = {}
        self.superseded: set[str] = set()
        self.hits: dict[int, tuple[int, list[tuple[str, float]]]] = {}  # id(candidate) → (limit, stored hits)
        self.stored_unstructured = False
        self._order = 0

    # -- loading -----------------------------------------------------------------------------------------------
    def _scope(self):
        return and_(
            _T.c.user_key == self.user_key,
            _T.c.agent_id == self.agent_id,
            _T.c.status == MemoryStatus.ACTIVE,
            _T.c.type != MemoryType.EPISODE,
        )

    def _unstructured_query(self, exclude: set[str]):
        cond = and_(
            self._scope(), _T.c.type.in_(_RECALLED), or_(_T.c.predicate.is_(None), _T.c.predicate.in_(["", "fact"]))
        )
        if exclude:
            cond = and_(cond, _T.c.id.not_in(sorted(exclude)))
        return select(exists().where(cond))

    def _take(self, rows: Iterable[Row[Any]]) -> None:
        for r in rows:
            if r.id in self.known:
                continue
            e = Existing(
                id=r.id,
                content=r.content,
                predicate=r.predicate,
                object=r.object,
                subject=r.subject,
                source_type=r.source_type,
                confidence=r.confidence,
                reinforce_count=r.reinforce_count,
                negated=bool((r.meta or {}).get("negated")),
            )
            self._add(Known(e, r.type, _aware(r.created_at)))

    def _add(self, k: Known) -> None:
        k.order, self._order = self._order, self._order + 1
        self.known[k.existing.id] = k

    def load(self, per_message: list[list[Candidate]]) -> None:
        """One connection: does a stored free-text memory exist, and the memories sharing a predicate; then (only
        if a similarity can decide) one index search for the candidates' neighbours, and their rows."""
        cands = [c for cs in per_message for c in cs]
        if not cands:
            return
        order = _T.c.created_at.desc()
        with self.store.engine.connect() as conn:
            self.stored_unstructured = bool(conn.execute(self._unstructured_query(set())).scalar())
            preds = sorted(_preds(cands))
            self._take(conn.execute(select(*_COLS).where(self._scope(), _T.c.predicate.in_(preds)).order_by(order)))
        first = (
            0
            if self.stored_unstructured
            else next((i for i, cs in enumerate(per_message) if any(self._similar_may_decide(c) for c in cs)), None)
        )
        if first is None:
            return
        todo = [c for cs in per_message[first:] for c in cs if c.vector is not None]
        found = (
            self.store.index.search_vectors(
                [c.vector for c in todo], self.user_key, self.agent_id, NEIGHBOURS + SLACK, _NOT_EPISODE
            )
            if todo
            else []
        )
        for c, hits in zip(todo, found, strict=True):
            self.hits[id(c)] = (NEIGHBOURS + SLACK, hits)
        self.load_ids({i for hits in found for i, _ in hits})

    def load_ids(self, ids: set[str]) -> None:
        missing = sorted(ids - set(self.known) - self.superseded)
        if missing:
            query = select(*_COLS).where(self._scope(), _T.c.id.in_(missing)).order_by(_T.c.created_at.desc())
            with self.store.engine.connect() as conn:
                self._take(conn.execute(query))

    # -- what one message sees ------------------------------------------------------------------------------------
    def _similar_may_decide(self, c: Candidate) -> bool:
        """Free text, or a structured candidate whose predicate a stored memory holds with another object."""
        if c.predicate in STRUCTURED_SKIP:
            return True
        other = norm_object(c.object or "")
        return any(
            k.existing.predicate == c.predicate and norm_object(k.existing.object or "") != other
            for k in self.known.values()
        )

    def similarity_matters(self, cands: list[Candidate]) -> bool:
        if any(self._similar_may_decide(c) for c in cands):
            return True
        return self.stored_unstructured or any(k.unstructured for k in self.known.values() if k.fresh)

    def _stored_neighbours(self, c: Candidate) -> list[tuple[str, float]]:
        limit, hits = self.hits.get(id(c), (0, []))
        kept = [(i, d) for i, d in hits if i not in self.superseded]
        if len(hits) >= limit and len(kept) < NEIGHBOURS:  # the batch superseded too many of them: look further
            limit = NEIGHBOURS + len(self.superseded)
            hits = self.store.index.search_vectors([c.vector], self.user_key, self.agent_id, limit, _NOT_EPISODE)[0]
            self.hits[id(c)] = (limit, hits)
            kept = [(i, d) for i, d in hits if i not in self.superseded]
            self.load_ids({i for i, _ in kept})
        return kept

    def neighbours(self, c: Candidate) -> list[tuple[str, float]]:
        """The candidate's nearest active memories as (id, cosine distance) — the index's answer for what is
        stored, merged with the rows this batch added before (same distance, computed here)."""
        found = self._stored_neighbours(c)
        fresh = [k for k in self.known.values() if k.fresh and k.vector is not None]
        if fresh:
            import numpy as np  # on use: commands that never write start without it

            stacked = np.vstack([v for k in fresh if (v := k.vector) is not None])  # once for both products
            sims = stacked @ np.asarray(c.vector, dtype=np.float32)
            norms = np.linalg.norm(stacked, axis=1) * np.linalg.norm(c.vector)
            found += [(k.existing.id, float(1.0 - s / n)) for k, s, n in zip(fresh, sims, norms, strict=True)]
            found.sort(key=lambda h: h[1])
        return found[:NEIGHBOURS]

    def existing_for(self, cands: list[Candidate]) -> list[Existing]:
        """What SQL would return for this message: active memories sharing a predicate, or near a candidate."""
        ids: set[str] = set()
        if self.similarity_matters(cands):
            for c in cands:
                if c.vector is None:
                    continue
                for mid, dist in self.neighbours(c):
                    c.neighbours[mid] = 1.0 - dist
                    ids.add(mid)
        preds = _preds(cands)
        rows = [k for k in self.known.values() if k.existing.predicate in preds or k.existing.id in ids]
        rows.sort(key=lambda k: k.order)
        rows.sort(key=lambda k: k.created_at, reverse=True)  # stable: ties keep load / insertion order
        return [k.existing for k in rows]

    # -- what one message changed -----------------------------------------------------------------------------
    def added(self, existing: Existing, type_: str, created_at: datetime, vector: np.ndarray | None) -> None:
        self._add(Known(existing, type_, _aware(created_at), vector=vector, fresh=True))

    def reinforced(self, op: Operation) -> None:
        for t in op.target_ids:
            if t in self.known:
                e = self.known[t].existing
                e.reinforce_count += 1
                e.confidence = max(e.confidence, op.confidence)

    def supersede(self, ids: list[str]) -> None:
        lost_free_text = False
        for i in ids:
            k = self.known.pop(i, None)
            lost_free_text |= bool(k and not k.fresh and k.unstructured)
            self.superseded.add(i)
        if lost_free_text and self.stored_unstructured:  # was it the last stored one? ask again
            with self.store.engine.connect() as conn:
                self.stored_unstructured = bool(conn.execute(self._unstructured_query(self.superseded)).scalar())
