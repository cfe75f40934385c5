"""Two layers, one truth: a correction made on what was said (an episode) or on what it means (a fact, preference,
event) reaches the other layer, the profile and the bridges — and its undo comes back the same way.

:func:`memory.lifecycle.corrections.apply` — the one function every correction goes through, whoever asks (the
pages, the CLI, every door) — asks :func:`plan` for the next steps after a flag, unflag, delete or restore, applies
them through the one status change, and rebuilds the bridges; the rules live here once:

- **an episode flagged or deleted** takes along what was read *only* from it: each fact, preference or event whose
  every source episode is now out of force gets the same op (flag → flag, delete → delete), logged with
  ``detail.cascade_from`` = the episode. A memory with another supporting episode stays (one source fewer: the links
  show that source as withdrawn). A correction's person-edit memory (``meta.correction_of``) goes with an unflag.
- **a fact flagged or deleted** takes along the assistant replies that restated its claim (an episode spoken by the
  agent whose text states the retracted value, while no other live memory still states it).
- **a fact replaced by a person** (a profile edit, a supersede) takes along the replies that restated it, flagged.
- **unflag / restore** undo exactly the steps that were cascaded from that memory: a memory whose last event is the
  matching cascaded op gets the inverse op; what a person withdrew on its own stays withdrawn.
- the profile follows each cascaded step through the status change's own rule (``status.PROFILE_RULE``), and the
  **bridges and summaries** of every session that held a message involved are rebuilt from what is still in force
  (:func:`memory.sessions.summary.rebuild`).

The links both ways are :mod:`memory.write.links`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlmodel import col, select

from memory.storage.models import Memory, MemoryEvent
from memory.vocab import EventOp, MemoryStatus, MemoryType, SourceType, is_flagged
from memory.write.links import CORRECTION_OF, in_force, read_from, sources

if TYPE_CHECKING:
    from memory.storage.db import Database

#: ops that take a memory out of force, and the op that undoes each
WITHDRAW = (EventOp.FLAG, EventOp.DELETE)
UNDO = {EventOp.UNFLAG: EventOp.FLAG, EventOp.RESTORE: EventOp.DELETE}
TRIGGERS = (*WITHDRAW, *UNDO)
#: a person's replacement of a fact (a profile edit, a supersede): its restating replies are flagged with it
REPLACE = EventOp.SUPERSEDE
#: the write-log detail key naming the memory a cascaded step followed
CASCADE_KEY = "cascade_from"
#: how deep a cascade goes: episode → fact → the replies that restated it
DEPTH = 3
_VERB = {
    EventOp.FLAG: "flagged",
    EventOp.DELETE: "deleted",
    EventOp.UNFLAG: "unflagged",
    EventOp.RESTORE: "restored",
    EventOp.SUPERSEDE: "replaced by a person",
}


@dataclass(frozen=True, slots=True)
class Applied:
    """A status change just applied, as the cascade reads it: which memory, which op, its type and reason."""

    memory_id: str
    op: EventOp
    type: str
    reason: str


# -- the cascade -------------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Step:
    """One cascaded status change: ``op`` on ``memory_id``, because of ``because`` (logged as ``cascade_from``)."""

    memory_id: str
    op: EventOp
    because: str  # the memory this step follows
    reason: str


def _last_events(store: Database, ids: Sequence[str]) -> dict[str, MemoryEvent]:
    if not ids:
        return {}
    with store.db() as db:
        rows = db.exec(
            select(MemoryEvent).where(col(MemoryEvent.memory_id).in_(list(ids))).order_by(col(MemoryEvent.id))
        ).all()
    return {str(e.memory_id): e for e in rows}


def _undo_steps(store: Database, candidates: list[Memory], d: Applied) -> list[Step]:
    """The steps cascaded from ``d``'s memory by the op it now undoes, still standing: each gets the inverse."""
    withdrawn_by = UNDO[d.op]
    last = _last_events(store, [m.id for m in candidates])
    out = []
    for m in candidates:
        e = last.get(m.id)
        if e is None or e.op != withdrawn_by or (e.detail or {}).get(CASCADE_KEY) != d.memory_id:
            continue
        if (withdrawn_by == EventOp.FLAG and not is_flagged(m.meta)) or (
            withdrawn_by == EventOp.DELETE and m.status != MemoryStatus.DELETED
        ):
            continue
        why = f"{_VERB[d.op]} with {_what(d)} it followed ({d.memory_id[:8]})"
        out.append(Step(m.id, d.op, d.memory_id, why))
    return out


def _what(d: Applied) -> str:
    return "the episode" if d.type == MemoryType.EPISODE else "the memory"


def _episode_steps(store: Database, d: Applied) -> list[Step]:
    with store.db() as db:
        episode = db.get(Memory, d.memory_id)
    if episode is None:
        return []
    read = read_from(store, episode)
    op = d.op
    if op in UNDO:
        steps = _undo_steps(store, read, d)
        if op == EventOp.UNFLAG:  # the correction taken back: the person's corrected version goes with it
            steps += [
                Step(m.id, EventOp.DELETE, episode.id, f"the correction of episode {episode.id[:8]} was taken back")
                for m in read
                if (m.meta or {}).get(CORRECTION_OF) == episode.id and m.status == MemoryStatus.ACTIVE
            ]
        return steps
    steps = []
    for m in read:
        if not in_force(m) or (m.meta or {}).get(CORRECTION_OF) == episode.id:
            continue
        if any(in_force(e) for e in sources(store, m) if e.id != episode.id):
            continue  # another episode still supports it: it stays, one source fewer
        why = f"{_VERB[op]} with the episode it was read from ({episode.id[:8]}): {d.reason}"
        steps.append(Step(m.id, op, episode.id, why))
    return steps


def _restating(store: Database, m: Memory) -> list[Memory]:
    """The agent's replies (episodes) that state ``m``'s claim, while no other live memory still states it."""
    from memory.write.consistency import consistent_text, retracted_key

    if not m.predicate or not m.object:
        return []
    key = retracted_key(str(m.predicate), str(m.object))
    if key is None:
        return []
    with store.db() as db:
        others = db.exec(
            select(Memory).where(
                Memory.user_key == m.user_key,
                Memory.predicate == m.predicate,
                Memory.status == MemoryStatus.ACTIVE,
                Memory.id != m.id,
            )
        ).all()
        if any(retracted_key(str(o.predicate), str(o.object)) == key and not is_flagged(o.meta) for o in others):
            return []
        replies = db.exec(
            select(Memory).where(
                Memory.user_key == m.user_key,
                Memory.type == MemoryType.EPISODE,
                Memory.source_type == SourceType.AGENT,
                col(Memory.content).contains(str(m.object)),
            )
        ).all()
    return [r for r in replies if consistent_text(r.content, {}, {key}) != r.content]


def _fact_steps(store: Database, d: Applied) -> list[Step]:
    with store.db() as db:
        m = db.get(Memory, d.memory_id)
    if m is None:
        return []
    replies = _restating(store, m)
    if d.op in UNDO:
        return _undo_steps(store, replies, d)
    why = f"a reply restating a memory {_VERB[d.op]} ({m.id[:8]}): {d.reason}"
    op = EventOp.FLAG if d.op == REPLACE else d.op  # a replaced claim: the reply said what is now wrong
    return [Step(r.id, op, m.id, why) for r in replies if in_force(r)]


def plan(store: Database, done: Sequence[Applied]) -> list[Step]:
    """The next steps of a cascade for the changes just applied (see the module docstring)."""
    steps: list[Step] = []
    for d in done:
        if d.op in TRIGGERS:
            steps += _episode_steps(store, d) if d.type == MemoryType.EPISODE else _fact_steps(store, d)
        elif d.op == REPLACE and d.type != MemoryType.EPISODE:
            steps += _fact_steps(store, d)
    seen: set[str] = {d.memory_id for d in done}
    out = []
    for s in steps:
        if s.memory_id not in seen:
            seen.add(s.memory_id)
            out.append(s)
    return out
