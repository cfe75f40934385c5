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
from typing import Any

import numpy as np
from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.orm.exc import StaleDataError

from memory import profile, provenance, validate
from memory.errors import InvalidInput
from memory.storage.db import retrying
from memory.storage.models import MEMORY_TYPES, SOURCE_TYPES, Memory, MemoryEvent, User, new_id, utcnow
from memory.storage.vectors import IndexRow
from memory.text.privacy import mask_pii, mask_value
from memory.write.plan import Operation

_M, _E = Memory.__table__, MemoryEvent.__table__


@dataclass
class Writes:
    """Everything one batch writes, in plan order."""

    inserts: list[dict[str, Any]] = field(default_factory=list)
    new: dict[str, dict[str, Any]] = field(default_factory=dict)  # id → row in ``inserts``
    vectors: dict[str, np.ndarray] = field(default_factory=dict)
    reinforce: list[tuple[Operation, int | None]] = field(default_factory=list)  # of stored rows: (op, message id)
    supersede: dict[str, str] = field(default_factory=dict)  # stored id → superseded by
    contents: dict[str, str] = field(default_factory=dict)  # superseded id → its content (for the log)
    events: list[tuple[str, Any]] = field(default_factory=list)  # ("op", (op, msg, turn)) | ("skip", ...) | ...
    profile: list[tuple[list[Operation], int | None]] = field(default_factory=list)  # each message's ops, in order
    profile_changes: list[list[dict[str, Any]]] = field(default_factory=list)  # filled by ``commit``


def new_row(
    store, user: User, agent_id: str, op: Operation, message_id: int | None, created_at: datetime | None
) -> dict[str, Any]:
    """The Memory row an ADD / UPDATE stores (the same validation and masking as ``MemoryService.add_memories``)."""
    c = op.candidate
    content = mask_pii(validate.text(c.content, store.settings.max_message_chars, "memory"))
    if c.type not in MEMORY_TYPES:
        raise InvalidInput(f"memory type must be one of {', '.join(MEMORY_TYPES)}")
    if c.source_type not in SOURCE_TYPES:
        raise InvalidInput(f"source type must be one of {', '.join(SOURCE_TYPES)}")
    meta = {
        "extractor": c.extractor,
        "evidence": mask_pii(c.evidence),
        "language": c.language,
        "negated": c.negated,
        "hedged": c.hedged,
        **mask_value(dict(c.meta)),
    }
    if op.op == "UPDATE":
        meta["supersedes"] = list(op.target_ids)
    obj = mask_pii(c.object)
    now = utcnow()
    return {
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
        "status": "active",
        "superseded_by": None,
        "event_time": c.event_time,
        "created_at": created_at or now,
        "updated_at": now,
        "last_accessed_at": None,
        "access_count": 0,
        "reinforce_count": 0,
        "expires_at": None,
        "indexed": False,
        "version": 1,
        "meta": provenance.stamp_meta(meta),
    }


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


@retrying(attempts=10, integrity=True)  # optimistic versions: a concurrent writer won → re-read, decide, re-apply
def commit(store, user: User, agent_id: str, w: Writes) -> None:
    """The one SQL transaction of a batch: memory rows, reinforcements, supersessions, the write log, then the
    profile changes (read after the log is written: on SQLite the write lock is held from the first insert on)."""
    with store.engine.begin() as conn:
        if w.inserts:
            conn.execute(insert(_M), w.inserts)  # first: on SQLite the write lock is held from here on
        _reinforce_stored(conn, w)
        if w.supersede:
            conn.execute(
                update(_M)
                .where(_M.c.id == bindparam("b_id"))
                .values(
                    status="superseded", updated_at=utcnow(), superseded_by=bindparam("b_by"), version=_M.c.version + 1
                ),
                [{"b_id": i, "b_by": by} for i, by in w.supersede.items()],
            )
        events = _events(user, agent_id, w)
        if events:
            conn.execute(insert(_E), events)
        w.profile_changes = profile.apply_in(conn, user.key, w.profile)


def _reinforce_stored(conn, w: Writes) -> None:
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
    out = []
    for kind, data in w.events:
        row = {
            "user_key": user.key,
            "agent_id": agent_id,
            "turn_id": None,
            "message_id": None,
            "detail": {},
            "created_at": utcnow(),
        }
        if kind == "skip":
            reason, content, message_id, turn_id = data
            row.update(
                memory_id=None,
                op="NOOP",
                reason=reason,
                content=mask_pii(content[:300]),
                message_id=message_id,
                turn_id=turn_id,
                detail={"stage": "classify"},
            )
        elif kind == "op":
            op, message_id, turn_id = data
            row.update(
                memory_id=op.memory_id or (op.target_ids or [None])[0],
                op=op.op,
                reason=mask_pii(op.reason),
                content=mask_pii(op.candidate.content if op.candidate else ""),
                message_id=message_id,
                turn_id=turn_id,
                detail=_detail(op),
            )
        else:  # "superseded": the old row's own line, as MemoryService.set_status logs it
            old, op = data
            row.update(
                memory_id=old,
                op="SUPERSEDED",
                reason=f"superseded by {op.memory_id}: {op.reason}",
                content=w.contents.get(old, ""),
            )
        row["detail"] = provenance.stamp_detail(row["detail"])
        out.append(row)
    return out


def _detail(op: Operation) -> dict[str, Any]:
    d = op.to_dict()
    c = op.candidate
    if c is not None:
        d.update(evidence=c.evidence, extractor=c.extractor, subject=c.subject)
    ids = {"memory_id": d.pop("memory_id"), "target_ids": d.pop("target_ids")}  # hex ids can look like phone numbers
    return {**mask_value(d), **ids}


def index(store, w: Writes) -> None:
    """The index side, after the SQL commit: append the new active rows, drop the superseded, mark indexed."""
    rows = [
        IndexRow(
            id=r["id"],
            user_key=r["user_key"],
            agent_id=r["agent_id"],
            text=r["content"],
            vector=w.vectors[r["id"]],
            type=r["type"],
            created_at=r["created_at"],
        )
        for r in w.inserts
        if r["status"] == "active" and r["id"] in w.vectors
    ]
    if rows:
        store.index.add(rows)
    if w.supersede:
        store.index.delete(sorted(w.supersede))
    if rows:
        ids = [r.id for r in rows]
        with store.engine.begin() as conn:
            for start in range(0, len(ids), 500):
                conn.execute(update(_M).where(_M.c.id.in_(ids[start : start + 500])).values(indexed=True))


def apply_plan(
    store,
    user: User,
    ops: list[Operation],
    *,
    agent_id: str,
    message_id: int | None = None,
    turn_id: int | None = None,
    created_at=None,
) -> list[Operation]:
    """Carry out a plan made elsewhere (fills ``op.memory_id``) and log one MemoryEvent per operation."""
    from memory.write.batch import record

    w = Writes()
    targets = sorted({t for op in ops if op.op == "UPDATE" for t in op.target_ids})
    if targets:
        with store.engine.connect() as conn:
            w.contents.update(conn.execute(select(_M.c.id, _M.c.content).where(_M.c.id.in_(targets))).all())
    record(store, user, agent_id, w, ops, message_id=message_id, turn_id=turn_id, created_at=created_at)
    commit(store, user, agent_id, w)
    index(store, w)
    return ops
