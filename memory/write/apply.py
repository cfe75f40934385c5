"""Apply a write plan in the order that survives a crash: ONE SQL transaction (new rows marked unindexed,
reinforcements, supersessions, the write log) → the index (one append, one delete) → one UPDATE marking the rows
indexed. A crash in between leaves unindexed rows or orphan vectors, which ``memory.storage.integrity`` repairs.

SQLAlchemy Core, not ORM objects: rows are plain dicts (the hot loop of a batch ingest). Content is masked
(memory.text.privacy) before it is embedded or stored; the vectors computed for deduplication are the ones indexed, so
each new memory is embedded exactly once. Rows reinforced or superseded by an earlier message of the same batch are
changed before they are inserted, so the stored result equals a message-by-message write.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import Connection, insert, select, update
from sqlalchemy.orm.exc import StaleDataError

from memory import provenance, validate
from memory.errors import InvalidInput
from memory.storage.db import retrying
from memory.storage.models import MEMORY_TYPES, SOURCE_TYPES, Memory, MemoryEvent, User, new_id, utcnow
from memory.storage.passages import passage
from memory.storage.vectors import IndexRow
from memory.text.privacy import mask_pii, mask_value
from memory.vocab import EventOp, MemoryStatus
from memory.write import profile_step as profile  # the write's own profile step (apply_in)
from memory.write import status
from memory.write.extract.base import Candidate
from memory.write.plan import Existing, Operation
from memory.write.state import PlanState

if TYPE_CHECKING:
    import numpy as np

    from memory.storage.db import Database
    from memory.storage.store import Storage

_M, _E = cast(Any, Memory).__table__, cast(Any, MemoryEvent).__table__
PIPELINE = status.PIPELINE


@dataclass(frozen=True, slots=True)
class Skipped:
    """A message the classifier found nothing worth keeping in: logged as a NOOP of the classify stage."""

    reason: str
    content: str
    message_id: int | None
    turn_id: int | None


@dataclass(frozen=True, slots=True)
class Decided:
    """One planned operation (ADD / REINFORCE / UPDATE / NOOP) of one message."""

    op: Operation
    message_id: int | None
    turn_id: int | None


@dataclass(frozen=True, slots=True)
class Superseded:
    """The old row's own line when an UPDATE replaces it (its shape: ``memory.write.status.event``)."""

    old_id: str
    by: Operation


@dataclass(frozen=True, slots=True)
class Said:
    """An episode kept of a message (memory.write.episodes): logged as an ADD of the episode stage."""

    memory_id: str
    content: str
    message_id: int | None
    turn_id: int | None


Event = Skipped | Decided | Superseded | Said


@dataclass
class Writes:
    """Everything one batch writes, in plan order."""

    inserts: list[dict[str, Any]] = field(default_factory=list)
    new: dict[str, dict[str, Any]] = field(default_factory=dict)  # id → row in ``inserts``
    vectors: dict[str, np.ndarray] = field(default_factory=dict)
    reinforce: list[tuple[Operation, int | None]] = field(default_factory=list)  # of stored rows: (op, message id)
    supersede: dict[str, status.Change] = field(default_factory=dict)  # stored id → its change (applied at commit)
    superseded: list[status.Done] = field(default_factory=list)  # by ``commit``: what index and profile follow
    contents: dict[str, str] = field(default_factory=dict)  # superseded id → its content (for the log)
    events: list[Event] = field(default_factory=list)  # the write log, in order
    profile: list[tuple[list[Operation], int | None]] = field(default_factory=list)  # each message's ops, in order
    profile_changes: list[list[dict[str, Any]]] = field(default_factory=list)  # filled by ``commit``


def new_row(
    store: Storage, user: User, agent_id: str, op: Operation, message_id: int | None, created_at: datetime | None
) -> dict[str, Any]:
    """The Memory row an ADD / UPDATE stores (the same validation and masking as ``MemoryService.add_memories``)."""
    c = _candidate(op)
    content = mask_pii(validate.text(c.content, store.settings.max_message_chars, "memory"))
    if str(c.type) not in MEMORY_TYPES:
        raise InvalidInput(f"memory type must be one of {', '.join(MEMORY_TYPES)}")
    if str(c.source_type) not in SOURCE_TYPES:
        raise InvalidInput(f"source type must be one of {', '.join(SOURCE_TYPES)}")
    meta = {
        "extractor": c.extractor,
        "evidence": mask_pii(c.evidence),
        "language": c.language,
        "negated": c.negated,
        "hedged": c.hedged,
        **mask_value(dict(c.meta)),
    }
    if op.op == EventOp.UPDATE:
        meta["supersedes"] = list(op.target_ids)
    obj = mask_pii(c.object)
    now = utcnow()
    return status.new_lifecycle(now) | {
        "id": new_id(),
        "user_key": user.key,
        "agent_id": agent_id,
        "type": c.type,
        "subject": c.subject,
        "predicate": c.predicate,
        "object": mask_pii(obj) if obj else obj,
        "content": content,
        "source_type": c.source_type,
        "source_message_ids": [message_id] if message_id is not None else [],
        "confidence": float(op.confidence),
        "importance": float(op.importance),
        "event_time": c.event_time,
        "created_at": created_at or now,
        "meta": provenance.stamp_meta(meta),
    }


def _candidate(op: Operation) -> Candidate:
    """The candidate an ADD / UPDATE stores (the planner gives every one of them a candidate)."""
    if op.candidate is None:
        raise InvalidInput(f"a {op.op} operation needs a candidate")
    return op.candidate


def keep_episodes(w: Writes, episodes: list[Any], turn_id: int | None, vectors: list[Any]) -> None:
    """A message's episodes (``memory.write.episodes.Episode``) into the batch: rows, vectors, one ADD each."""
    for e, v in zip(episodes, vectors, strict=True):
        w.inserts.append(e.row)
        w.new[e.id] = e.row
        w.vectors[e.id] = v
        w.events.append(Said(e.id, e.row["content"], e.row["source_message_ids"][0], turn_id))


def reinforce_values(row: dict[str, Any], op: Operation, message_id: int | None) -> dict[str, Any]:
    """A reinforcement: one more repeat, the higher confidence and importance, the message added as a source."""
    sources = list(row["source_message_ids"] or [])
    if message_id is not None and message_id not in sources:
        sources.append(message_id)
    return {
        "reinforce_count": row["reinforce_count"] + 1,
        "confidence": max(row["confidence"], op.confidence),
        "importance": max(row["importance"], op.importance),
        "source_message_ids": sources,
        "updated_at": utcnow(),
        "version": row["version"] + 1,
    }


def record(
    store: Storage,
    user: User,
    agent_id: str,
    w: Writes,
    ops: list[Operation],
    *,
    message_id: int | None,
    turn_id: int | None,
    created_at: datetime | None,
    state: PlanState | None = None,
) -> None:
    """Turn one message's plan into rows and log lines (``w``) and show its effect to the planner (``state``)."""
    for op in ops:
        if op.op not in (EventOp.ADD, EventOp.UPDATE):
            continue
        row = new_row(store, user, agent_id, op, message_id, created_at)
        op.memory_id = row["id"]
        w.inserts.append(row)
        w.new[row["id"]] = row
        c = _candidate(op)
        if c.vector is not None:
            w.vectors[row["id"]] = c.vector
        if state is not None:
            state.added(_as_existing(row, op), c.type, row["created_at"], c.vector)
    for op in ops:
        if op.op == EventOp.REINFORCE:
            _reinforce(w, op, message_id)
            if state is not None:
                state.reinforced(op)
    w.events += [Decided(op, message_id, turn_id) for op in ops]
    for op in ops:
        if op.op == EventOp.UPDATE:
            _supersede(w, op, state)


def _as_existing(row: dict[str, Any], op: Operation) -> Existing:
    """A row added by this batch as the planner sees stored memories (so later messages can match it)."""
    c = _candidate(op)
    return Existing(
        id=row["id"],
        content=row["content"],
        predicate=c.predicate,
        object=row["object"],
        subject=c.subject,
        source_type=c.source_type,
        confidence=row["confidence"],
        negated=bool(row["meta"].get("negated")),
    )


def _supersede(w: Writes, op: Operation, state: PlanState | None) -> None:
    """An UPDATE's targets, through the one status change: a row of this batch is stored already superseded (the
    same values), a stored one is changed at commit."""
    by = op.memory_id
    assert by is not None  # set by ``record`` for every ADD / UPDATE
    for old in op.target_ids:
        change = status.Change(old, EventOp.SUPERSEDE, f"superseded by {by}: {op.reason}", by)
        if state is not None and old in state.known:
            w.contents[old] = state.known[old].existing.content
        if old in w.new:  # added earlier in this batch: stored already superseded
            w.new[old].update(status.values(change, w.new[old], PIPELINE))
            w.contents[old] = w.new[old]["content"]
        else:
            w.supersede[old] = change
        w.events.append(Superseded(old, op))
    if state is not None:
        state.supersede(list(op.target_ids))


def _reinforce(w: Writes, op: Operation, message_id: int | None) -> None:
    fresh = [t for t in op.target_ids if t in w.new]
    for t in fresh:
        w.new[t].update(reinforce_values(w.new[t], op, message_id))
        op.memory_id = t
    if len(fresh) < len(op.target_ids):
        w.reinforce.append((op, message_id))


@retrying(attempts=10, integrity=True)  # optimistic versions: a concurrent writer won → re-read, decide, re-apply
def commit(store: Database, user: User, agent_id: str, w: Writes) -> None:
    """The one SQL transaction of a batch: memory rows, reinforcements, supersessions, the write log, then the
    profile changes (read after the log is written: on SQLite the write lock is held from the first insert on)."""
    with store.engine.begin() as conn:
        if w.inserts:
            conn.execute(insert(_M), w.inserts)  # first: on SQLite the write lock is held from here on
        _reinforce_stored(conn, w)
        # the one status change; its log lines are this batch's own (``Superseded``), in plan order
        w.superseded = status.stage(conn, list(w.supersede.values()), actor=PIPELINE, strict=False, log=False)
        events = _events(user, agent_id, w)
        if events:
            conn.execute(insert(_E), events)
        w.profile_changes = profile.apply_in(conn, user.key, w.profile)


def _reinforce_stored(conn: Connection, w: Writes) -> None:
    if not w.reinforce:
        return
    ids = sorted({t for op, _ in w.reinforce for t in op.target_ids})
    cols = [_M.c.id, _M.c.version, _M.c.confidence, _M.c.importance, _M.c.reinforce_count, _M.c.source_message_ids]
    rows = {r.id: dict(r._mapping) for r in conn.execute(select(*cols).where(_M.c.id.in_(ids)))}
    read = {i: r["version"] for i, r in rows.items()}
    for op, message_id in w.reinforce:
        op.memory_id = None
        for t in op.target_ids:
            if t in rows:
                rows[t].update(reinforce_values(rows[t], op, message_id))
                op.memory_id = t
    for i, r in rows.items():
        done = conn.execute(
            update(_M).where(_M.c.id == i, _M.c.version == read[i]).values({k: v for k, v in r.items() if k != "id"})
        )
        if done.rowcount != 1:
            raise StaleDataError(f"memory {i} changed concurrently")


def _events(user: User, agent_id: str, w: Writes) -> list[dict[str, Any]]:
    base: dict[str, Any] = {
        "user_key": user.key,
        "agent_id": agent_id,
        "turn_id": None,
        "message_id": None,
        "detail": {},
    }
    rows = [{**base, "created_at": utcnow(), **_event_values(e, w, user.key, agent_id)} for e in w.events]
    for row in rows:
        row["detail"] = provenance.stamp_detail(row["detail"])
    return rows


def _event_values(e: Event, w: Writes, user_key: str, agent_id: str) -> dict[str, Any]:
    if isinstance(e, Skipped):
        return {
            "memory_id": None,
            "op": EventOp.NOOP,
            "reason": e.reason,
            "content": mask_pii(e.content[:300]),
            "message_id": e.message_id,
            "turn_id": e.turn_id,
            "detail": {"stage": "classify"},
        }
    if isinstance(e, Said):
        return {
            "memory_id": e.memory_id,
            "op": EventOp.ADD,
            "reason": "episode: what was said, kept as said",
            "content": e.content[:300],
            "message_id": e.message_id,
            "turn_id": e.turn_id,
            "detail": {"stage": "episode"},
        }
    if isinstance(e, Decided):
        op = e.op
        return {
            "memory_id": op.memory_id or next(iter(op.target_ids), None),
            "op": op.op,
            "reason": mask_pii(op.reason),
            "content": mask_pii(op.candidate.content if op.candidate else ""),
            "message_id": e.message_id,
            "turn_id": e.turn_id,
            "detail": _detail(op),
        }
    by = e.by.memory_id or ""
    change = status.Change(e.old_id, EventOp.SUPERSEDE, f"superseded by {by}: {e.by.reason}", by)
    row = {"user_key": user_key, "agent_id": agent_id, "content": w.contents.get(e.old_id, "")}
    return status.event(change, row, PIPELINE)


def _detail(op: Operation) -> dict[str, Any]:
    d = op.to_dict()
    c = op.candidate
    if c is not None:
        d.update(evidence=c.evidence, extractor=c.extractor, subject=c.subject)
    ids = {"memory_id": d.pop("memory_id"), "target_ids": d.pop("target_ids")}  # hex ids can look like phone numbers
    return {**mask_value(d), **ids}


def index(store: Storage, w: Writes) -> None:
    """The index side, after the SQL commit: append the new active rows, drop the superseded, mark indexed."""
    rows = [
        IndexRow(
            id=r["id"],
            user_key=r["user_key"],
            agent_id=r["agent_id"],
            text=passage(r["type"], r["content"], r["subject"], r["created_at"]),
            vector=w.vectors[r["id"]],
            type=r["type"],
            created_at=r["created_at"],
        )
        for r in w.inserts
        if r["status"] == MemoryStatus.ACTIVE and r["id"] in w.vectors
    ]
    if rows:
        store.index.add(rows)
        ids = [r.id for r in rows]
        with store.engine.begin() as conn:
            for start in range(0, len(ids), 500):
                conn.execute(update(_M).where(_M.c.id.in_(ids[start : start + 500])).values(indexed=True))
    # the superseded stored rows: out of the index, and the profile values they still state dropped
    status.follow(store, w.superseded, actor=PIPELINE)


def apply_plan(
    store: Storage,
    user: User,
    ops: list[Operation],
    *,
    agent_id: str,
    message_id: int | None = None,
    turn_id: int | None = None,
    created_at: datetime | None = None,
) -> list[Operation]:
    """Carry out a plan made elsewhere (fills ``op.memory_id``) and log one MemoryEvent per operation."""
    w = Writes()
    targets = sorted({t for op in ops if op.op == EventOp.UPDATE for t in op.target_ids})
    if targets:
        with store.engine.connect() as conn:
            w.contents.update(conn.execute(select(_M.c.id, _M.c.content).where(_M.c.id.in_(targets))).all())
    record(store, user, agent_id, w, ops, message_id=message_id, turn_id=turn_id, created_at=created_at)
    commit(store, user, agent_id, w)
    index(store, w)
    return ops
