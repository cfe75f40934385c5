"""Compaction: near-duplicate or same-topic memories merge into one record that keeps every source's provenance.

Active memories of one user, agent and type merge when they make the same statement (subject + predicate, and the
object too for predicates that hold several values: likes tea ≠ likes coffee) or their similarity
to the group's leader — its highest-value member (value as in :mod:`memory.lifecycle.retention`) —
is ≥ ``compact_similarity``.
The merged record: the leader's text (or, when members state different objects, the distinct texts joined, leader
first), union of ``source_message_ids``, max confidence, combined importance 1 − Π(1 − importance), summed
reinforcements (+1 per merged copy) and accesses, the earliest ``created_at``; ``meta.merged_from`` lists the sources.
The sources become ``superseded`` with ``superseded_by`` = the merged id (never silently lost). The merged vector is
the leader's (same text) or the normalised mean of the sources' (joined text) — no re-embedding. Verbatim transcript
turns (type ``turn``) are evidence, not knowledge, and are never merged. A profile value linked to a source is
linked to the merged record afterwards (it states the same value; the value and its change log stay as they were).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np
from sqlalchemy import insert, update
from sqlmodel import col

from memory import provenance
from memory.lifecycle.retention import MemInfo, load, value
from memory.storage.db import chunks, retrying
from memory.storage.models import Memory, MemoryEvent, new_id, utcnow
from memory.storage.vectors import IndexRow, sql_literal
from memory.vocab import Actor, EventOp, MemoryStatus, MemoryType
from memory.write import status
from memory.write.extract.base import SINGLE_VALUED

if TYPE_CHECKING:
    from memory.config import Settings
    from memory.storage.store import Storage

NEVER_COMPACT = frozenset({MemoryType.EPISODE})


@dataclass
class CompactReport:
    now: datetime
    dry_run: bool
    merges: list[Merge] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "now": self.now.isoformat(),
            "dry_run": self.dry_run,
            "merged_groups": len(self.merges),
            "superseded": sum(len(m.source_ids) for m in self.merges),
            "merges": [m.to_dict() for m in self.merges],
        }


@dataclass
class Merge:
    user_key: str
    agent_id: str
    type: str
    source_ids: list[str]
    reason: str
    record: dict[str, Any]  # the merged Memory's column values
    leader_id: str
    source_content: str = ""  # the leader's text: when the merged text equals it, its vector is reused

    def to_dict(self) -> dict[str, Any]:
        rec = {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in self.record.items()}
        return {
            "user_key": self.user_key,
            "agent_id": self.agent_id,
            "type": self.type,
            "merged_id": rec["id"],
            "source_ids": self.source_ids,
            "reason": self.reason,
            "content": rec["content"][:300],
            "record": rec,
        }


def _norm(text: str | None) -> str:
    return " ".join((text or "").casefold().split())


def _statement_key(m: MemInfo) -> tuple[str, str, str] | None:
    subject, predicate = _norm(m.subject), _norm(m.predicate)
    if not (subject and predicate):
        return None
    return subject, predicate, "" if predicate in SINGLE_VALUED else _norm(m.object)


def cluster(
    members: Sequence[MemInfo], vectors: dict[str, np.ndarray], threshold: float, values: dict[str, float]
) -> list[tuple[list[MemInfo], str]]:
    """Pure: groups of ≥2 memories (leader first) with the reason they belong together.

    The same statement always groups: same subject + predicate, and for a predicate that can hold several values
    (likes, diet, ...) the same object too — "likes tea" and "likes coffee" stay apart, so a later "I no longer like
    tea" can supersede one without taking the other with it. Otherwise each memory joins the first higher-value
    leader it is at least ``threshold`` similar to (greedy leader clustering: no chains of A~B~C where A and C differ).
    """
    order = sorted(members, key=lambda m: (-values[m.id], m.created_at, m.id))
    forest = _Forest([m.id for m in order])
    _join_same_statements(order, forest)
    _join_similar([m for m in order if m.id in vectors], vectors, threshold, forest)
    groups: dict[str, list[MemInfo]] = defaultdict(list)
    for m in order:  # value order, so each group's first member is its leader
        groups[forest.root(m.id)].append(m)
    # a member may lead its own sub-group, linked to the leader only through another member: no reason of its own
    why = forest.why
    return [
        (g, "; ".join(dict.fromkeys(why[m.id] for m in g[1:] if m.id in why))) for g in groups.values() if len(g) > 1
    ]


class _Forest:
    """Union-find over memory ids, with the reason each joined member gave."""

    def __init__(self, ids: list[str]) -> None:
        self.parent = {i: i for i in ids}
        self.why: dict[str, str] = {}

    def root(self, i: str) -> str:
        parent = self.parent
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i


def _join_same_statements(order: list[MemInfo], forest: _Forest) -> None:
    """The same statement always groups, under the highest-value memory that made it."""
    by_key: dict[tuple[str, str, str], str] = {}
    for m in order:
        key = _statement_key(m)
        if key is None:
            continue
        if key in by_key:
            forest.parent[forest.root(m.id)] = forest.root(by_key[key])
            forest.why[m.id] = f"same statement ({m.subject} / {m.predicate}" + (f" / {m.object})" if key[2] else ")")
        else:
            by_key[key] = m.id


def _join_similar(with_vec: list[MemInfo], vectors: dict[str, np.ndarray], threshold: float, forest: _Forest) -> None:
    """Greedy leader clustering in value order: each free memory leads the free ones at least ``threshold`` similar."""
    if len(with_vec) <= 1:
        return
    mat = np.vstack([vectors[m.id] for m in with_vec])
    full = mat @ mat.T if len(with_vec) <= 4096 else None  # one matmul beats n small ones
    lonely = (full >= threshold).sum(axis=1) <= 1 if full is not None else np.zeros(len(with_vec), dtype=bool)
    free = ~lonely  # a memory similar to nothing else can neither lead nor join a group
    for i, m in enumerate(with_vec):
        if not free[i]:
            continue
        free[i] = False
        sims = full[i] if full is not None else mat @ mat[i]
        for j in np.nonzero(free & (sims >= threshold))[0]:
            other = with_vec[j].id
            free[j] = False
            if forest.root(other) != forest.root(m.id):
                forest.parent[forest.root(other)] = forest.root(m.id)
            forest.why.setdefault(other, f"similarity {float(sims[j]):.3f} ≥ {threshold:g} to {m.id}")


def merged_record(group: Sequence[MemInfo], now: datetime) -> dict[str, Any]:
    """Pure: one record carrying the provenance of every source (leader = group[0])."""
    lead = group[0]
    # one text per distinct object (same-topic members state different values); near-duplicates add nothing
    contents, objects, seen = [lead.content], [lead.object] if lead.object else [], {_norm(lead.object)}
    for m in group[1:]:
        if m.object and _norm(m.object) not in seen:
            seen.add(_norm(m.object))
            contents.append(m.content)
            objects.append(m.object)
    same_text = len(contents) == 1
    content = "; ".join(contents)
    sources = sorted({i for m in group for i in m.source_message_ids}, key=lambda x: (str(type(x)), x))
    accessed = [m.last_accessed_at for m in group if m.last_accessed_at]
    expires = [m.expires_at for m in group]
    return status.new_lifecycle(now) | {
        "id": new_id(),
        "user_key": lead.user_key,
        "agent_id": lead.agent_id,
        "type": lead.type,
        "subject": lead.subject,
        "predicate": lead.predicate,
        "object": lead.object if same_text else " / ".join(objects) or None,
        "content": content,
        "source_type": "user-stated" if any(m.source_type == "user-stated" for m in group) else lead.source_type,
        "source_message_ids": sources,
        "confidence": max(m.confidence for m in group),
        "importance": round(1.0 - math.prod(1.0 - min(1.0, max(0.0, m.importance)) for m in group), 6),
        "event_time": lead.event_time,
        "created_at": min(m.created_at for m in group),
        "last_accessed_at": max(accessed) if accessed else None,
        "access_count": sum(m.access_count for m in group),
        "reinforce_count": sum(m.reinforce_count for m in group) + len(group) - 1,
        "expires_at": None if any(e is None for e in expires) else max(e for e in expires if e is not None),
        "meta": {**lead.meta, "merged_from": [m.id for m in group], "compacted_at": now.isoformat()},
    }


def _vectors(store: Storage, user_key: str | None) -> dict[str, np.ndarray]:
    """Stored vectors of the indexed memories (one scan; no re-embedding)."""
    if store.index.count(user_key) == 0:
        return {}
    query = store.index.table.search().select(["id", "vector"])
    if user_key is not None:
        query = query.where(f"user_key = {sql_literal(user_key)}")
    res = query.limit(None).to_arrow()
    vec = res["vector"].combine_chunks()
    mat = np.asarray(vec.values.to_numpy(zero_copy_only=False), dtype=np.float32).reshape(len(vec), -1)
    return dict(zip(res["id"].to_pylist(), mat, strict=True))


def plan_compact(rows: Sequence[MemInfo], vectors: dict[str, np.ndarray], s: Settings, now: datetime) -> list[Merge]:
    """Pure: the merges compaction would make over these active rows."""
    groups: dict[tuple[str, str, str], list[MemInfo]] = defaultdict(list)
    for m in rows:
        if m.type not in NEVER_COMPACT:
            groups[(m.user_key, m.agent_id, m.type)].append(m)
    merges: list[Merge] = []
    for (user_key, agent_id, mtype), members in groups.items():
        if len(members) < 2:
            continue
        values = {m.id: value(m, now, s) for m in members}
        for group, reason in cluster(members, vectors, s.compact_similarity, values):
            record = merged_record(group, now)
            record["content"] = record["content"][: s.max_message_chars]
            merges.append(
                Merge(user_key, agent_id, mtype, [m.id for m in group], reason, record, group[0].id, group[0].content)
            )
    return merges


def compact(
    store: Storage,
    *,
    user_key: str | None = None,
    dry_run: bool = False,
    now: datetime | None = None,
    actor: Actor | None = None,
) -> CompactReport:
    """Plan and (unless ``dry_run``) apply compaction for one user or everyone (``actor``: who asked, else the
    scheduled maintenance)."""
    now = now or utcnow()
    rows = load(store, user_key=user_key, statuses=(MemoryStatus.ACTIVE,))
    vectors = _vectors(store, user_key) if len(rows) > 1 else {}
    report = CompactReport(now=now, dry_run=dry_run, merges=plan_compact(rows, vectors, store.settings, now))
    if not dry_run and report.merges:
        _apply(store, report.merges, vectors, now, actor or status.MAINTENANCE)
    return report


def _apply(
    store: Storage, merges: Sequence[Merge], vectors: dict[str, np.ndarray], now: datetime, actor: Actor
) -> None:
    """SQL first (merged rows unindexed, COMPACT on each, the sources superseded through the one status change:
    MERGE on each), then the index and the profile's links (moved to the merged records), then the merged vectors."""
    changes = [
        status.Change(sid, EventOp.MERGE, f"merged into {m.record['id']}: {m.reason}", m.record["id"])
        for m in merges
        for sid in m.source_ids
    ]

    @retrying
    def write() -> list[status.Done]:
        with store.engine.begin() as conn:
            conn.execute(insert(Memory), [m.record for m in merges])
            conn.execute(insert(MemoryEvent), _compact_events(merges, now))
            return status.stage(conn, changes, actor=actor, strict=False, now=now)

    status.follow(store, write(), actor=actor)
    _index_merged(store, merges, vectors)


def _compact_events(merges: Sequence[Merge], now: datetime) -> list[dict[str, Any]]:
    """The write log of the merged rows: COMPACT on each (its sources' MERGE lines are the status change's)."""
    return [
        {
            "user_key": m.user_key,
            "agent_id": m.agent_id,
            "memory_id": m.record["id"],
            "op": EventOp.COMPACT,
            "reason": f"merged {len(m.source_ids)} memories: {m.reason}",
            "content": m.record["content"],
            "detail": provenance.stamp_detail({"merged_from": m.source_ids}),
            "created_at": now,
        }
        for m in merges
    ]


def _merged_vector(merge: Merge, vectors: dict[str, np.ndarray]) -> np.ndarray | None:
    """The leader's vector when the text is the leader's; for joined texts the normalised mean of the sources'.

    Not re-embedding keeps compaction cheap (e5 embeds ~30 passages/s); ``memlens reindex`` recomputes exactly.
    """
    if merge.record["content"] == merge.source_content:
        return vectors.get(merge.leader_id)
    parts = [vectors[i] for i in merge.source_ids if i in vectors]
    if len(parts) != len(merge.source_ids):
        return None
    mean = np.mean(parts, axis=0)
    norm = float(np.linalg.norm(mean))
    return mean / norm if norm else None


def _index_merged(store: Storage, merges: Sequence[Merge], vectors: dict[str, np.ndarray]) -> None:
    """Index the merged records (vectors from their sources where possible), then mark them indexed."""
    reuse = {m.record["id"]: v for m in merges if (v := _merged_vector(m, vectors)) is not None}
    fresh = [m for m in merges if m.record["id"] not in reuse]
    if fresh:
        embedded = store.embedder.embed_passages([m.record["content"] for m in fresh])
        reuse.update({m.record["id"]: v for m, v in zip(fresh, embedded, strict=True)})
    store.index.upsert(
        [
            IndexRow(
                id=r["id"],
                user_key=r["user_key"],
                agent_id=r["agent_id"],
                text=r["content"],
                vector=reuse[r["id"]],
                type=r["type"],
                created_at=r["created_at"],
            )
            for r in (m.record for m in merges)
        ]
    )
    ids = [m.record["id"] for m in merges]
    with store.engine.begin() as conn:
        for chunk in chunks(ids):
            conn.execute(update(Memory).where(col(Memory.id).in_(chunk)).values(indexed=True))
