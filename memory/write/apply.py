"""Apply a write plan: SQL first (new rows, reinforcements, the write log), then the index, then supersessions.

Content is masked (memory.privacy) before it is embedded or stored; the vectors computed for deduplication are the
ones indexed, so each new memory is embedded exactly once.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sqlmodel import col, select

from memory.db import retrying
from memory.models import Memory, MemoryEvent, User, utcnow
from memory.privacy import mask_pii, mask_value
from memory.write.plan import Operation


def _draft(store, op: Operation, message_id: int | None, created_at=None):
    from memory.service import MemoryDraft

    c = op.candidate
    meta = {"extractor": c.extractor, "evidence": mask_pii(c.evidence), "language": c.language,
            "negated": c.negated, "hedged": c.hedged, **mask_value({k: v for k, v in c.meta.items()})}
    if op.op == "UPDATE":
        meta["supersedes"] = list(op.target_ids)
    return MemoryDraft(
        content=c.content, type=c.type, subject=c.subject, predicate=c.predicate, object=mask_pii(c.object),
        source_type=c.source_type, source_message_ids=[message_id] if message_id is not None else [],
        confidence=op.confidence, importance=op.importance, event_time=c.event_time, created_at=created_at, meta=meta,
    )


def apply_plan(store, user: User, ops: list[Operation], *, agent_id: str, message_id: int | None = None,
               turn_id: int | None = None, created_at=None) -> list[Operation]:
    """Carry out ``ops`` (fills ``op.memory_id``) and log one MemoryEvent per operation."""
    new_ops = [op for op in ops if op.op in ("ADD", "UPDATE")]
    if new_ops:
        drafts = [_draft(store, op, message_id, created_at) for op in new_ops]
        vectors = [op.candidate.vector for op in new_ops]
        stacked = np.vstack(vectors) if all(v is not None for v in vectors) else None
        rows = store.add_memories(user, drafts, agent_id=agent_id, vectors=stacked)
        for op, row in zip(new_ops, rows, strict=True):
            op.memory_id = row.id
    _reinforce_and_log(store, user, ops, agent_id=agent_id, message_id=message_id, turn_id=turn_id)
    for op in ops:
        if op.op == "UPDATE":
            for old in op.target_ids:
                store.set_status(old, "superseded", superseded_by=op.memory_id, op="SUPERSEDED",
                                 reason=f"superseded by {op.memory_id}: {op.reason}")
    return ops


@retrying  # the rows carry optimistic versions: a concurrent reinforcement wins → re-read and re-apply, never lost
def _reinforce_and_log(store, user: User, ops: list[Operation], *, agent_id: str, message_id: int | None,
                       turn_id: int | None) -> None:
    reinforce = {t: op for op in ops if op.op == "REINFORCE" for t in op.target_ids}
    now = utcnow()
    with store.db() as db:
        if reinforce:
            for m in db.exec(select(Memory).where(col(Memory.id).in_(list(reinforce)))).all():
                op = reinforce[m.id]
                m.reinforce_count += 1
                m.confidence = max(m.confidence, op.confidence)
                m.importance = max(m.importance, op.importance)
                if message_id is not None and message_id not in (m.source_message_ids or []):
                    m.source_message_ids = [*(m.source_message_ids or []), message_id]
                m.updated_at, m.version = now, m.version + 1
                db.add(m)
                op.memory_id = m.id
        for op in ops:
            db.add(MemoryEvent(
                user_key=user.key, agent_id=agent_id, memory_id=op.memory_id or (op.target_ids or [None])[0],
                op=op.op, reason=mask_pii(op.reason), content=mask_pii(op.candidate.content if op.candidate else ""),
                message_id=message_id, turn_id=turn_id, detail=_detail(op),
            ))
        db.commit()


def _detail(op: Operation) -> dict[str, Any]:
    d = op.to_dict()
    c = op.candidate
    if c is not None:
        d.update(evidence=c.evidence, extractor=c.extractor, subject=c.subject)
    return mask_value(d)


def log_skip(store, user: User, *, agent_id: str, reason: str, content: str, message_id: int | None,
             turn_id: int | None) -> None:
    """A message judged not worth remembering still leaves one NOOP line in the write log."""
    with store.db() as db:
        db.add(MemoryEvent(user_key=user.key, agent_id=agent_id, op="NOOP", reason=reason,
                           content=mask_pii(content[:300]), message_id=message_id, turn_id=turn_id,
                           detail={"stage": "classify"}))
        db.commit()
