"""The write pipeline for one message: classify → extract → mask → validate (dedupe, contradictions) → prioritise →
persist, each decision logged with its reason.

Masking runs on the message before extraction (the stored message is already masked by ``add_message``) and again
on every candidate, so nothing unmasked is ever embedded. Cost per message: one ``embed_passages`` call for all its
candidates, one vector search per candidate (nearest memories, for near-duplicates) and one SQL query for the
memories sharing a predicate (for contradictions).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlmodel import col, or_, select

from memory.extract import Candidate, classify, extract
from memory.extract.base import OPPOSITES
from memory.models import Memory, Message, Session, User, utcnow
from memory.privacy import mask_pii
from memory.write.apply import apply_plan, log_skip
from memory.write.plan import STRUCTURED_SKIP, Existing, Operation, plan_writes

NEIGHBOURS = 5


@dataclass
class WriteReport:
    """What one message did to memory: the applied operations and the profile changes."""

    message_id: int | None
    role: str
    worth: bool
    reason: str
    operations: list[dict[str, Any]] = field(default_factory=list)
    profile_changes: list[dict[str, Any]] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)

    @property
    def added(self) -> list[dict[str, Any]]:
        return [o for o in self.operations if o["op"] in ("ADD", "UPDATE")]

    def to_dict(self) -> dict[str, Any]:
        return {"message_id": self.message_id, "role": self.role, "worth": self.worth, "reason": self.reason,
                "operations": self.operations, "profile_changes": self.profile_changes,
                "timings_ms": self.timings_ms}


def mask_candidates(cands: list[Candidate]) -> list[Candidate]:
    for c in cands:
        c.content, c.object, c.evidence = mask_pii(c.content), mask_pii(c.object), mask_pii(c.evidence)
    return cands


def load_existing(store, user: User, agent_id: str, cands: list[Candidate]) -> list[Existing]:
    """Every active memory sharing a predicate (SQL) plus — only when a similarity can matter, i.e. a candidate or a
    stored memory has no structured predicate — the nearest memories of each candidate (index)."""
    ids: set[str] = set()
    for c in cands if _similarity_matters(store, user, agent_id, cands) else []:
        if c.vector is None:
            continue
        for mid, dist in store.index.search_vector(c.vector, user.key, agent_id, NEIGHBOURS):
            c.neighbours[mid] = 1.0 - dist
            ids.add(mid)
    preds = {c.predicate for c in cands} | {OPPOSITES[c.predicate] for c in cands if c.predicate in OPPOSITES}
    cond = col(Memory.predicate).in_(sorted(preds))
    if ids:
        cond = or_(cond, col(Memory.id).in_(sorted(ids)))
    query = select(Memory).where(Memory.user_key == user.key, Memory.agent_id == agent_id,
                                 Memory.status == "active", cond)
    with store.db() as db:
        rows = db.exec(query.order_by(col(Memory.created_at).desc())).all()
    return [Existing(id=m.id, content=m.content, predicate=m.predicate, object=m.object, subject=m.subject,
                     source_type=m.source_type, confidence=m.confidence, reinforce_count=m.reinforce_count,
                     negated=bool((m.meta or {}).get("negated"))) for m in rows]


def _similarity_matters(store, user: User, agent_id: str, cands: list[Candidate]) -> bool:
    if any(c.predicate in STRUCTURED_SKIP for c in cands):
        return True
    query = select(Memory.id).where(
        Memory.user_key == user.key, Memory.agent_id == agent_id, Memory.status == "active",
        col(Memory.type).in_(["fact", "preference", "event"]),
        or_(col(Memory.predicate).is_(None), col(Memory.predicate).in_(["", "fact"])),
    )
    with store.db() as db:
        return db.exec(query.limit(1)).first() is not None


def run(store, user: User, session: Session, message: Message, *, agent_id: str, turn_id: int | None = None,
        model=None, keep_unparsed: bool = False) -> WriteReport:
    """The whole pipeline for one stored message (see module docstring)."""
    t0 = time.perf_counter()
    timings: dict[str, float] = {}
    text = mask_pii(message.content)
    worth, reason = classify(text, message.role)
    report = WriteReport(message.id, message.role, worth, reason, timings_ms=timings)
    if not worth:
        log_skip(store, user, agent_id=agent_id, reason=f"not remembered: {reason}", content=text,
                 message_id=message.id, turn_id=turn_id)
        timings["total"] = (time.perf_counter() - t0) * 1000
        return report
    at = message.created_at or utcnow()
    cands = mask_candidates(extract(text, role=message.role, at=_aware(at), model=model))
    timings["extract"] = (time.perf_counter() - t0) * 1000
    if not cands and keep_unparsed and message.role == "user":
        cands = [_verbatim(text)]
    if not cands:
        report.reason = "nothing about the user to remember"
        log_skip(store, user, agent_id=agent_id, reason=f"not remembered: {report.reason}", content=text,
                 message_id=message.id, turn_id=turn_id)
        timings["total"] = (time.perf_counter() - t0) * 1000
        return report
    t1 = time.perf_counter()
    vectors = store.embedder.embed_passages([c.content for c in cands])
    for c, v in zip(cands, vectors, strict=True):
        c.vector = v
    timings["embed"] = (time.perf_counter() - t1) * 1000
    existing = load_existing(store, user, agent_id, cands)
    ops = plan_writes(cands, existing, store.settings)
    apply_plan(store, user, ops, agent_id=agent_id, message_id=message.id, turn_id=turn_id,
               created_at=message.created_at)
    report.operations = [op.to_dict() for op in ops]
    report.profile_changes = _profile(store, user, ops, message)
    timings["total"] = (time.perf_counter() - t0) * 1000
    return report


def _verbatim(text: str) -> Candidate:
    """An explicit 'remember this' that no rule understood is kept as a free-text user statement."""
    c = Candidate(predicate="fact", object=text[:200], content=text, evidence=text[:200], extractor="verbatim")
    c.meta["reason"] = "explicit remember request; no structured fact recognised"
    return c


def _profile(store, user: User, ops: list[Operation], message: Message) -> list[dict[str, Any]]:
    from memory import profile

    return profile.apply_operations(store, user, ops, source_message_id=message.id)


def _aware(at: datetime) -> datetime:
    from datetime import UTC

    return at if at.tzinfo else at.replace(tzinfo=UTC)
