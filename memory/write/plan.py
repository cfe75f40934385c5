"""The pure core of the write pipeline: candidates + what is already stored → a list of operations with reasons.

No I/O here, so the plan can be tested without storage and shown in the back office before or after it is applied.
Decision order for each candidate (first match wins):

0. not worth keeping as a fact (:mod:`memory.write.keep`: the learned decision over the candidate's passage vector,
   English statements in the user's own words) → NOOP: the episode keeps it
1. repeated within the same message → NOOP
2. the assistant's inference → NOOP if already known, else ADD at low confidence (it never supersedes, never
   reinforces a user statement and never reaches the profile)
3. a negation ("I no longer …", "不再 …") → UPDATE: supersedes the memories it takes back (same predicate, matching
   object); ADD when there is nothing to take back
4. a duplicate → REINFORCE: one fact by the rule the hygiene queue applies too (:mod:`memory.write.same`): the same
   statement (objects compared in a normal form, so 杭州 = Hangzhou), or passage similarity ≥ ``dedupe_threshold``
   with mostly the same words — never two statements that differ in a number, a date or a name
5. a contradiction → UPDATE: same subject and a single-valued predicate (lives_in, name, budget, …) with another
   object, or the opposite polarity (likes ↔ dislikes) of the same object; a *hedged* candidate never supersedes:
   it is ADDed at low confidence beside the old memory
6. otherwise → ADD
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from memory.config import Settings
from memory.vocab import EventOp
from memory.write import importance, keep
from memory.write.extract.base import OPPOSITES, Candidate, norm_object
from memory.write.same import Said, differ_in_specifics, one_fact

#: the decisions the planner makes (a subset of :class:`memory.vocab.EventOp`)
OPS = (EventOp.ADD, EventOp.REINFORCE, EventOp.UPDATE, EventOp.NOOP)
STRUCTURED_SKIP = {None, "", "fact"}


@dataclass
class Existing:
    """What the planner needs to know about one stored, active memory."""

    id: str
    content: str
    predicate: str | None = None
    object: str | None = None
    subject: str | None = "user"
    source_type: str = "user-stated"
    confidence: float = 1.0
    reinforce_count: int = 0
    negated: bool = False


@dataclass
class Operation:
    op: EventOp
    reason: str
    candidate: Candidate | None = None
    target_ids: list[str] = field(default_factory=list)  # reinforced / superseded memories
    similarity: float | None = None
    confidence: float = 0.0
    importance: float = 0.0
    memory_id: str | None = None  # filled when applied

    def to_dict(self) -> dict[str, Any]:
        c = self.candidate
        return {
            "op": self.op,
            "reason": self.reason,
            "memory_id": self.memory_id,
            "target_ids": list(self.target_ids),
            "content": c.content if c else "",
            "type": c.type if c else None,
            "predicate": c.predicate if c else None,
            "object": c.object if c else None,
            "confidence": self.confidence,
            "importance": self.importance,
            "similarity": self.similarity,
            "source_type": c.source_type if c else None,
            "hedged": bool(c and c.hedged),
            "negated": bool(c and c.negated),
            "event_time": c.event_time.isoformat() if c and c.event_time else None,
        }


def objects_match(a: str | None, b: str | None) -> bool:
    """Same thing named twice: equal normal forms, one inside the other, or half the words shared — never two
    objects that differ in a number or a name."""
    x, y = norm_object(a or ""), norm_object(b or "")
    if not x or not y:
        return False
    if x != y and differ_in_specifics(a, b):
        return False
    if x == y or (min(len(x), len(y)) >= 2 and (x in y or y in x)):
        return True
    tx, ty = set(re.findall(r"\w+", x)), set(re.findall(r"\w+", y))
    return bool(tx and ty) and len(tx & ty) / len(tx | ty) >= 0.5


def _is_duplicate(c: Candidate, e: Existing, threshold: float) -> tuple[bool, float | None]:
    """The one rule (:func:`memory.write.same.one_fact`, which the hygiene queue's near-duplicate check applies too)."""
    sim = c.neighbours.get(e.id)
    new = Said(c.content, c.predicate, c.object, c.subject, c.negated, c.event_time.date() if c.event_time else None)
    old = Said(e.content, e.predicate, e.object, e.subject, e.negated)
    return one_fact(new, old, sim, threshold) is not None, sim


def _contradicted(c: Candidate, e: Existing) -> bool:
    if c.subject != (e.subject or "user") or e.predicate in STRUCTURED_SKIP:
        return False
    if c.predicate == e.predicate and c.single_valued and not e.negated:
        return norm_object(c.object) != norm_object(e.object or "")
    return OPPOSITES.get(c.predicate) == e.predicate and objects_match(c.object, e.object)


def _scored(
    op: EventOp,
    reason: str,
    c: Candidate,
    *,
    targets: list[str] | None = None,
    sim: float | None = None,
    reinforce_count: int = 0,
    confidence: float | None = None,
) -> Operation:
    conf = c.confidence if confidence is None else confidence
    imp = importance.score(c.explicitness, c.impact, reinforce_count)
    return Operation(op, reason, c, list(targets or []), None if sim is None else round(sim, 4), round(conf, 4), imp)


def plan_one(c: Candidate, existing: list[Existing], threshold: float) -> Operation:
    """The one operation for a candidate against what is stored; rules in order, the first that applies decides."""
    dup = next(((e, s) for e in existing for ok, s in [_is_duplicate(c, e, threshold)] if ok), None)
    if c.source_type == "inferred":
        return _inferred(c, dup)
    if c.negated and (taken_back := _taken_back(c, existing)) is not None:
        return taken_back
    if dup:
        return _reinforce(c, dup[0], dup[1], threshold)
    conflicts = [e for e in existing if _contradicted(c, e)]
    if conflicts:
        return _against(c, conflicts)
    if c.negated:
        return _scored(EventOp.ADD, "negation recorded; no stored memory to take back", c)
    why = "hedged statement: low confidence" if c.hedged else "new explicit statement"
    return _scored(EventOp.ADD, f"{why} ({c.predicate})", c)


def _inferred(c: Candidate, dup: tuple[Existing, float | None] | None) -> Operation:
    """The assistant's inference: added at low confidence, or nothing when it repeats a memory (never reinforced)."""
    if dup:
        return _scored(
            EventOp.NOOP,
            f"assistant inference repeats memory {dup[0].id}; inferences never reinforce",
            c,
            targets=[dup[0].id],
            sim=dup[1],
        )
    return _scored(
        EventOp.ADD,
        "assistant inference: kept as a low-confidence 'inferred' memory, never a user fact "
        "and never promoted to the profile",
        c,
    )


def _taken_back(c: Candidate, existing: list[Existing]) -> Operation | None:
    """A negation that matches stored statements supersedes them (None when it takes nothing back)."""
    taken_back = [
        e for e in existing if e.predicate == c.predicate and not e.negated and objects_match(c.object, e.object)
    ]
    if not taken_back:
        return None
    return _scored(
        EventOp.UPDATE,
        f"user takes back '{taken_back[0].content}' ({c.evidence!r}): supersedes it",
        c,
        targets=[e.id for e in taken_back],
    )


def _reinforce(c: Candidate, e: Existing, sim: float | None, threshold: float) -> Operation:
    how = f"similarity {sim:.3f} ≥ {threshold:.2f}" if sim is not None else "same predicate and object"
    return _scored(
        EventOp.REINFORCE,
        f"repeats memory {e.id} ({how})",
        c,
        targets=[e.id],
        sim=sim,
        reinforce_count=e.reinforce_count + 1,
        confidence=importance.reinforced_confidence(e.confidence, c.confidence),
    )


def _against(c: Candidate, conflicts: list[Existing]) -> Operation:
    """A statement that contradicts stored ones: a hedged one is added beside them, a plain one supersedes them."""
    if c.hedged:
        return _scored(
            EventOp.ADD,
            f"hedged ({c.meta.get('hedge')!r}): kept at low confidence beside "
            f"'{conflicts[0].content}', which it does not supersede",
            c,
        )
    return _scored(
        EventOp.UPDATE,
        f"contradicts '{conflicts[0].content}' ({c.predicate} holds one value): the old "
        "memory is superseded and kept in history",
        c,
        targets=[e.id for e in conflicts],
    )


def plan_writes(candidates: list[Candidate], existing: list[Existing], settings: Settings) -> list[Operation]:
    """One operation per candidate; later candidates see what earlier ones in the same message will write."""
    threshold = settings.dedupe_threshold
    embedder = keep.embedder_of(settings)
    ops: list[Operation] = []
    seen: set[tuple] = set()
    for c in candidates:
        if (why := keep.why_not(c, embedder)) is not None:
            ops.append(_scored(EventOp.NOOP, why, c))
            continue
        marker = (c.key(), c.negated)
        if marker in seen:
            ops.append(_scored(EventOp.NOOP, "repeated within the same message", c))
            continue
        seen.add(marker)
        op = plan_one(c, existing, threshold)
        superseded = set(op.target_ids) if op.op == EventOp.UPDATE else set()
        existing = [e for e in existing if e.id not in superseded]
        ops.append(op)
    return ops
