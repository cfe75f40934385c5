"""Retrieval: vector and full-text candidates, fused, cut by the similarity threshold, and logged.

Scores (DESIGN.md §5): *similarity* = 1 − cosine distance, for every candidate (full-text-only candidates get theirs
from their stored vector), so the threshold means the same in every mode. *fts_score* is LanceDB's raw BM25.
*fused* depends on the mode:

- vector: fused = similarity
- fulltext: fused = BM25
- hybrid, ``rrf``: fused = Σ 1 / (k + rank_in_signal) over the signals that found it (LanceDB's RRFReranker)
- hybrid, ``linear``: fused = w · similarity + (1 − w) · BM25 / max BM25 among the candidates

Candidates are ranked by fused score; a candidate *passes* when similarity ≥ threshold (and, with a relative cut δ,
similarity ≥ best similarity − δ); the first k that pass are *selected* for the prompt.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
import pyarrow as pa
from lancedb.rerankers import RRFReranker
from sqlmodel import Session as DBSession
from sqlmodel import col, select

from memory.models import Memory, Retrieval, RetrievalHit
from memory.privacy import mask_pii

NEAR_MISS_BAND = 0.05


@dataclass
class RecallParams:
    mode: str = "hybrid"
    k: int = 5
    threshold: float = 0.80
    relative_cut: float | None = None
    fusion: str = "rrf"
    vector_weight: float = 0.7
    rrf_k: int = 60
    pool: int = 50


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
    rank: int = 0
    passed: bool = False
    selected: bool = False
    injected: bool | None = None
    drop_reason: str | None = None
    source_message_ids: list = field(default_factory=list)
    meta: dict = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        for key in ("created_at", "event_time"):
            out[key] = out[key].isoformat() if out[key] else None
        return out


@dataclass
class RecallResult:
    query: str
    retrieval_query: str
    params: RecallParams
    hits: list[Hit]
    latency_ms: float = 0.0
    retrieval_id: int | None = None

    @property
    def selected(self) -> list[Hit]:
        return [h for h in self.hits if h.selected]

    @property
    def near_misses(self) -> list[Hit]:
        """Candidates just under the threshold: what a slightly lower threshold would let in."""
        t = self.params.threshold
        return [h for h in self.hits if not h.passed and h.similarity is not None and h.similarity >= t - NEAR_MISS_BAND]

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "retrieval_query": self.retrieval_query,
            "retrieval_id": self.retrieval_id,
            "params": asdict(self.params),
            "latency_ms": round(self.latency_ms, 2),
            "hits": [h.to_dict() for h in self.hits],
        }


def fuse(
    vec: list[tuple[str, float]], fts: list[tuple[str, float]], sims: dict[str, float], params: RecallParams
) -> dict[str, float]:
    """Fused score per candidate id for the given mode (formulas in the module docstring)."""
    if params.mode == "vector":
        return {i: sims[i] for i, _ in vec}
    if params.mode == "fulltext":
        return dict(fts)
    if params.fusion == "linear":
        top = max((s for _, s in fts), default=0.0) or 1.0
        bm25 = dict(fts)
        ids = {i for i, _ in vec} | set(bm25)
        w = params.vector_weight
        return {i: w * sims.get(i, 0.0) + (1 - w) * bm25.get(i, 0.0) / top for i in ids}
    ids = {i: n for n, i in enumerate(dict.fromkeys([i for i, _ in vec] + [i for i, _ in fts]))}
    vt = pa.table({"_rowid": pa.array([ids[i] for i, _ in vec], pa.uint64())})
    ft = pa.table({"_rowid": pa.array([ids[i] for i, _ in fts], pa.uint64())})
    fused = RRFReranker(K=params.rrf_k).rerank_hybrid("", vt, ft)
    back = {n: i for i, n in ids.items()}
    return dict(zip((back[r] for r in fused["_rowid"].to_pylist()), fused["_relevance_score"].to_pylist(), strict=True))


def rank_and_cut(scored: list[Hit], params: RecallParams) -> list[Hit]:
    """Order by fused score, then mark passed / selected (pure: no I/O)."""
    scored.sort(key=lambda h: (-h.score, -(h.similarity or -2.0), h.memory_id))
    best = max((h.similarity for h in scored if h.similarity is not None), default=None)
    chosen = 0
    for rank, hit in enumerate(scored, 1):
        hit.rank = rank
        sim = hit.similarity
        hit.passed = sim is not None and sim >= params.threshold
        if hit.passed and params.relative_cut is not None and best is not None:
            hit.passed = sim >= best - params.relative_cut
        if not hit.passed:
            hit.drop_reason = "below threshold" if sim is None or sim < params.threshold else "below relative cut"
        elif chosen < params.k:
            hit.selected = True
            chosen += 1
        else:
            hit.drop_reason = "beyond top-k"
    return scored


def run_search(store, *, user_key: str, agent_id: str | None, query: str, params: RecallParams) -> list[Hit]:
    """Query both signals, fuse, join with SQL (the truth: stale index rows are ignored), rank and cut."""
    qvec = store.embedder.embed_query(query)
    vec = store.index.search_vector(qvec, user_key, agent_id, params.pool) if params.mode != "fulltext" else []
    fts = store.index.search_text(query, user_key, agent_id, params.pool) if params.mode != "vector" else []
    sims = {i: 1.0 - d for i, d in vec}
    missing = [i for i, _ in fts if i not in sims]
    for i, v in store.index.vectors(missing).items():
        sims[i] = float(np.dot(v, qvec))
    fused = fuse(vec, fts, sims, params)
    with DBSession(store.engine) as db:
        rows = db.exec(
            select(Memory).where(col(Memory.id).in_(list(fused)), Memory.user_key == user_key, Memory.status == "active")
        ).all()
    bm25 = dict(fts)
    hits = [
        Hit(
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
        )
        for m in rows
        if agent_id is None or m.agent_id == agent_id
    ]
    return rank_and_cut(hits, params)


def log_retrieval(store, result: RecallResult, *, user_key: str, agent_id: str | None, session_id: str | None,
                  turn_id: int | None) -> int:
    with DBSession(store.engine) as db:
        row = Retrieval(
            user_key=user_key,
            agent_id=agent_id or "*",
            session_id=session_id,
            turn_id=turn_id,
            query=mask_pii(result.query),
            retrieval_query=mask_pii(result.retrieval_query),
            mode=result.params.mode,
            k=result.params.k,
            threshold=result.params.threshold,
            params=asdict(result.params),
            latency_ms=result.latency_ms,
        )
        db.add(row)
        db.flush()
        db.add_all(
            RetrievalHit(
                retrieval_id=row.id,
                memory_id=h.memory_id,
                rank=h.rank,
                similarity=h.similarity,
                fts_score=h.fts_score,
                fused_score=h.score,
                passed=h.passed,
                selected=h.selected,
                injected=bool(h.injected),
                drop_reason=h.drop_reason,
            )
            for h in result.hits
        )
        db.commit()
        return row.id


def timed_search(store, **kwargs) -> tuple[list[Hit], float]:
    start = time.perf_counter()
    hits = run_search(store, **kwargs)
    return hits, (time.perf_counter() - start) * 1000
