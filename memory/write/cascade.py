"""Two layers, one truth: a correction made on what was said (an episode) or on what it means (a fact, preference,
event) reaches the other layer, the profile and the bridges — and its undo comes back the same way.

:func:`follow` is called by the one status change (:func:`memory.write.status.change`) after every flag, unflag,
delete and restore, whoever asks (the pages, the CLI, every door, the hygiene queue), so the rules live here once:

- **an episode flagged or deleted** takes along what was read *only* from it: each fact, preference or event whose
  every source episode is now out of force gets the same op (flag → flag, delete → delete), logged with
  ``detail.cascade_from`` = the episode. A memory with another supporting episode stays (one source fewer: the links
  show that source as withdrawn). A correction's person-edit memory (``meta.correction_of``) goes with an unflag.
- **a fact flagged or deleted** takes along the assistant replies that restated its claim (an episode spoken by the
  agent whose text states the retracted value, while no other live memory still states it).
- **unflag / restore** undo exactly the steps that were cascaded from that memory: a memory whose last event is the
  matching cascaded op gets the inverse op; what a person withdrew on its own stays withdrawn.
- the profile follows each cascaded step through the status change's own rule (``status.PROFILE_RULE``), and the
  **bridges and summaries** of every session that held a message involved are rebuilt from what is still in force
  (:func:`memory.sessions.summary.rebuild`).

The links both ways (what an episode was read into, which episodes a memory was read from) are :func:`read_from` and
:func:`sources`; ``memlens memory show``, the Memories and Sessions pages and the audit desk say them in words.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlmodel import col, select

from memory.storage.models import Memory, MemoryEvent, Message
from memory.vocab import Actor, EventOp, MemoryStatus, MemoryType, SourceType, is_flagged

if TYPE_CHECKING:
    from memory.storage.db import Database
    from memory.storage.store import Storage
    from memory.write.status import Done

#: ops that take a memory out of force, and the op that undoes each
WITHDRAW = (EventOp.FLAG, EventOp.DELETE)
UNDO = {EventOp.UNFLAG: EventOp.FLAG, EventOp.RESTORE: EventOp.DELETE}
#: the write-log detail key naming the memory a cascaded step followed
CASCADE_KEY = "cascade_from"
#: the meta key of a person's correction memory naming the episode it corrects
CORRECTION_OF = "correction_of"
#: how deep a cascade goes: episode → fact → the replies that restated it
_DEPTH = 3
_VERB = {EventOp.FLAG: "flagged", EventOp.DELETE: "deleted", EventOp.UNFLAG: "unflagged", EventOp.RESTORE: "restored"}


def in_force(m: Memory) -> bool:
    """Active and not flagged: what recall, the profile and the bridges may use."""
    return m.status == MemoryStatus.ACTIVE and not is_flagged(m.meta)


def state_words(m: Memory) -> str:
    """A memory's state in words: "in force", "flagged as wrong", "corrected", "deleted", "superseded"…"""
    meta = m.meta or {}
    if m.status == MemoryStatus.ACTIVE:
        if meta.get("correction"):
            return "corrected"
        return "flagged as wrong" if is_flagged(meta) else "in force"
    return str(m.status)


# -- the links -----------------------------------------------------------------------------------------------------
def _ids(values: Iterable[Any]) -> set[int]:
    return {int(v) for v in values or [] if isinstance(v, int) or str(v).isdigit()}


def _episodes_of(store: Database, user_key: str, message_ids: set[int]) -> dict[int, list[Memory]]:
    """{message id: its episodes, in order} for this user's messages (one SQL read, narrowed by the messages'
    times: an episode is dated by its message)."""
    if not message_ids:
        return {}
    with store.db() as db:
        times = db.exec(select(Message.created_at).where(col(Message.id).in_(sorted(message_ids)))).all()
        rows = db.exec(
            select(Memory).where(
                Memory.user_key == user_key,
                Memory.type == MemoryType.EPISODE,
                col(Memory.created_at).in_(list(set(times))),
            )
        ).all()
    out: dict[int, list[Memory]] = {}
    for e in sorted(rows, key=lambda r: int((r.meta or {}).get("part", 1))):
        for mid in _ids(e.source_message_ids) & message_ids:
            out.setdefault(mid, []).append(e)
    return out


def _attributed(m: Memory, episode: Memory, parts: list[Memory]) -> bool:
    """Was ``m`` read from ``episode`` (one part of its message)? A single-part message: yes. Several parts: the
    part the memory names (``meta.episode_id``), else the message's first part."""
    if len(parts) <= 1:
        return True
    named = (m.meta or {}).get("episode_id")
    if named in {p.id for p in parts}:
        return bool(named == episode.id)
    return parts[0].id == episode.id


def sources(store: Database, m: Memory) -> list[Memory]:
    """The episodes ``m`` was read from (any state), oldest message first; none for an episode or a person's row."""
    if m.type == MemoryType.EPISODE:
        return []
    msgs = _ids(m.source_message_ids)
    parts = _episodes_of(store, m.user_key, msgs)
    return [e for mid in sorted(parts) for e in parts[mid] if _attributed(m, e, parts[mid])]


def read_from(store: Database, episode: Memory) -> list[Memory]:
    """What was read from ``episode`` (any state): the facts, preferences and events whose sources include its
    message (and, for a message cut into parts, this part), plus a person's correction of it."""
    if episode.type != MemoryType.EPISODE:
        return []
    msgs = _ids(episode.source_message_ids)
    if not msgs:
        return []
    with store.db() as db:
        candidates = db.exec(
            select(Memory.id, Memory.source_message_ids, Memory.meta).where(
                Memory.user_key == episode.user_key, Memory.type != MemoryType.EPISODE
            )
        ).all()
        wanted = [
            i
            for i, src, meta in candidates
            if _ids(src) & msgs or (isinstance(meta, dict) and meta.get(CORRECTION_OF) == episode.id)
        ]
        rows = list(db.exec(select(Memory).where(col(Memory.id).in_(wanted))).all()) if wanted else []
    parts = _episodes_of(store, episode.user_key, msgs)
    out = []
    for m in sorted(rows, key=lambda r: r.created_at):
        if (m.meta or {}).get(CORRECTION_OF) == episode.id:
            out.append(m)
            continue
        shared = _ids(m.source_message_ids) & msgs
        if any(_attributed(m, episode, parts.get(mid, [episode])) for mid in shared):
            out.append(m)
    return out


def withdrawn_messages(store: Database, user_key: str, message_ids: Iterable[int]) -> set[int]:
    """The messages whose every episode is out of force (flagged, corrected, deleted): what was said there no
    longer counts for a bridge or a summary. A message without episodes (a canned reply) is not withdrawn."""
    parts = _episodes_of(store, user_key, set(message_ids))
    return {mid for mid, eps in parts.items() if eps and not any(in_force(e) for e in eps)}


# -- the cascade -------------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _Step:
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


def _undo_steps(store: Database, candidates: list[Memory], d: Done) -> list[_Step]:
    """The steps cascaded from ``d``'s memory by the op it now undoes, still standing: each gets the inverse."""
    withdrawn_by = UNDO[d.change.op]
    last = _last_events(store, [m.id for m in candidates])
    out = []
    for m in candidates:
        e = last.get(m.id)
        if e is None or e.op != withdrawn_by or (e.detail or {}).get(CASCADE_KEY) != d.change.memory_id:
            continue
        if (withdrawn_by == EventOp.FLAG and not is_flagged(m.meta)) or (
            withdrawn_by == EventOp.DELETE and m.status != MemoryStatus.DELETED
        ):
            continue
        why = f"{_VERB[d.change.op]} with {_what(d)} it followed ({d.change.memory_id[:8]})"
        out.append(_Step(m.id, d.change.op, d.change.memory_id, why))
    return out


def _what(d: Done) -> str:
    return "the episode" if d.type == MemoryType.EPISODE else "the memory"


def _episode_steps(store: Database, d: Done) -> list[_Step]:
    with store.db() as db:
        episode = db.get(Memory, d.change.memory_id)
    if episode is None:
        return []
    read = read_from(store, episode)
    op = d.change.op
    if op in UNDO:
        steps = _undo_steps(store, read, d)
        if op == EventOp.UNFLAG:  # the correction taken back: the person's corrected version goes with it
            steps += [
                _Step(m.id, EventOp.DELETE, episode.id, f"the correction of episode {episode.id[:8]} was taken back")
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
        why = f"{_VERB[op]} with the episode it was read from ({episode.id[:8]}): {d.change.reason}"
        steps.append(_Step(m.id, op, episode.id, why))
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


def _fact_steps(store: Database, d: Done) -> list[_Step]:
    with store.db() as db:
        m = db.get(Memory, d.change.memory_id)
    if m is None:
        return []
    replies = _restating(store, m)
    if d.change.op in UNDO:
        return _undo_steps(store, replies, d)
    why = f"a reply restating a memory {_VERB[d.change.op]} ({m.id[:8]}): {d.change.reason}"
    return [_Step(r.id, d.change.op, m.id, why) for r in replies if in_force(r)]


def plan(store: Database, done: Sequence[Done]) -> list[_Step]:
    """The next steps of a cascade for the changes just applied (see the module docstring)."""
    steps: list[_Step] = []
    for d in done:
        if d.change.op not in (*WITHDRAW, *UNDO):
            continue
        steps += _episode_steps(store, d) if d.type == MemoryType.EPISODE else _fact_steps(store, d)
    seen: set[str] = {d.change.memory_id for d in done}
    out = []
    for s in steps:
        if s.memory_id not in seen:
            seen.add(s.memory_id)
            out.append(s)
    return out


def follow(store: Storage, done: Sequence[Done], *, actor: Actor) -> list[Done]:
    """Carry ``done`` (changes just applied by the one status change) to the other layer, then rebuild the bridges
    and summaries of every session involved. Returns the cascaded changes."""
    from memory.write import status

    if not any(d.change.op in (*WITHDRAW, *UNDO) for d in done):
        return []
    applied: list[Done] = []
    frontier = list(done)
    for _ in range(_DEPTH):
        steps = plan(store, frontier)
        if not steps:
            break
        changes = [
            status.Change(s.memory_id, s.op, s.reason, detail={CASCADE_KEY: s.because, "cascade": True}) for s in steps
        ]
        frontier = status.change(store, changes, actor=actor, strict=False, cascade=False)
        applied += frontier
    rebuild_for(store, [d.change.memory_id for d in [*done, *applied]])
    return applied


def rebuild_for(store: Storage, memory_ids: Sequence[str]) -> None:
    """Rebuild the bridges and summaries of the sessions holding the messages these memories came from."""
    from memory.sessions import summary

    if not memory_ids:
        return
    msgs: dict[str, set[int]] = {}
    with store.db() as db:
        rows = db.exec(select(Memory.user_key, Memory.source_message_ids).where(col(Memory.id).in_(list(memory_ids))))
        for user_key, src in rows.all():
            msgs.setdefault(user_key, set()).update(_ids(src))
        touched = {
            user_key: set(db.exec(select(Message.session_id).where(col(Message.id).in_(sorted(ids)))).all())
            for user_key, ids in msgs.items()
            if ids
        }
    for user_key, sessions in touched.items():
        summary.rebuild(store, user_key, sessions)
