"""Retrieval: vector and full-text candidates, fused, cut by the similarity threshold, and logged.

Scores (see docs/retrieval.md): *similarity* = 1 − cosine distance, for every candidate (full-text-only candidates get
theirs from their stored vector), so the threshold means the same in every mode. *fts_score* is LanceDB's raw BM25.
*fused* depends on the mode:

- vector: fused = similarity
- fulltext: fused = BM25
- hybrid, ``rrf``: fused = Σ 1 / (k + rank_in_signal) over the signals that found it (LanceDB's RRFReranker)
- hybrid, ``linear``: fused = w · z(similarity) + (1 − w) · 3 · BM25 / max BM25, z = (s − mean) / sd over the
  candidates (e5 similarities crowd into a narrow band, so raw ones would barely move the sum)

In hybrid mode, raw conversation turns (type ``turn``) are first judged with their neighbours: each signal's score
gains ``neighbor_weight`` (similarity) / ``neighbor_weight_fts`` (BM25) times the adjacent turns' scores, halving per
step up to ``neighbor_span`` turns away; after fusion, turns from the days the top candidates come from are lifted
(``day_boost``). See :mod:`memory.retrieval.neighbours` (tuned on LoCoMo, numbers in
``bench/results/eval_locomo_dev.json``).
The shown *similarity* stays the raw one, so the threshold keeps its meaning.

Every candidate also gets a calibrated *relevance* in [0, 1] (:mod:`memory.retrieval.relevance`: an estimated
probability of being relevant, from the signals above and the candidate's standing among this query's candidates).
Candidates are ranked by relevance when a fitted calibration applies (else by fused score); a candidate *passes*
when relevance ≥ threshold (and, when set, similarity ≥
the similarity floor and similarity ≥ best similarity − the relative cut δ); the first k that pass are *selected*
for the prompt. A memory a person flagged as wrong never passes (``drop_reason "flagged"``; it stays in the candidate
list, visible) unless ``include_flagged`` is asked for.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from memory import provenance
from memory.retrieval import context, crosslingual, near_duplicates, neighbours, updates
from memory.retrieval.filters import FILTERED_POOL_FACTOR, RecallFilters, period, time_boost
from memory.retrieval.hits import (
    IN_CONVERSATION,
    RETRACTED,
    SAME_SOURCE,
    Hit,
    MemoryRow,
    hit_of_row,
    stored_rows,
)
from memory.retrieval.policy import RecallPolicy
from memory.retrieval.relevance import Calibration, Scored, features
from memory.storage.lance import import_lancedb
from memory.vocab import MemoryStatus, MemoryType

if TYPE_CHECKING:
    from memory.storage.store import Storage
    from memory.storage.vector_cache import UserVectors

#: a near miss is a candidate cut only by the threshold whose relevance is at least this fraction of the threshold
#: (threshold 0.019 → 0.0095 … 0.019; 0.6 → 0.3 … 0.6). Relative: a fixed band of 0.1 under a calibrated threshold
#: of 0.019 made every candidate a near miss. A flagged hit, or one cut by the similarity floor or the relative cut,
#: is dropped, never a near miss.
NEAR_MISS_RATIO = 0.5


def near_miss_floor(threshold: float) -> float:
    """The lower edge of the near-miss band under ``threshold``."""
    return threshold * NEAR_MISS_RATIO


def is_near_miss(hit: Hit, threshold: float) -> bool:
    """Cut by the threshold alone, and within the band under it: what a slightly lower threshold would let in."""
    rel = hit.relevance
    return hit.drop_reason == "below threshold" and rel is not None and near_miss_floor(threshold) <= rel < threshold


@dataclass
class RecallResult:
    query: str
    retrieval_query: str
    params: RecallPolicy
    hits: list[Hit]
    latency_ms: float = 0.0
    calibration: str = "fallback"
    notice: str | None = None
    filters: dict[str, Any] | None = None
    logged_id: int | None = None
    #: where the query came from (``via`` / ``by`` of ``memory.provenance``), captured before the log is written
    #: in the background, so the retrieval lab can tell the doors apart
    provenance: dict[str, Any] = field(default_factory=provenance.stamp_detail, repr=False, compare=False)
    #: set by the retrieval log's writer once this result's entry is written (memory/retrieval/log.py)
    written: threading.Event | None = field(default=None, repr=False, compare=False)

    @property
    def retrieval_id(self) -> int | None:
        """The logged retrieval's id; waits for the log's writer if the entry is still queued (None: not logged).
        Read it outside an open write transaction: on SQLite the writer needs that lock."""
        if self.written is not None:
            self.written.wait(60)
        return self.logged_id

    @property
    def selected(self) -> list[Hit]:
        return [h for h in self.hits if h.selected]

    @property
    def near_misses(self) -> list[Hit]:
        """Candidates just under the threshold: what a slightly lower threshold would let in."""
        return [h for h in self.hits if is_near_miss(h, self.params.threshold)]

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "retrieval_query": self.retrieval_query,
            "retrieval_id": self.retrieval_id,
            "params": self.params.to_dict(),
            "latency_ms": round(self.latency_ms, 2),
            "calibration": self.calibration,
            "notice": self.notice,
            "filters": self.filters,
            "hits": [h.to_dict() for h in self.hits],
        }


def fuse(
    vec: list[tuple[str, float]], fts: list[tuple[str, float]], sims: dict[str, float], params: RecallPolicy
) -> dict[str, float]:
    """Fused score per candidate id for the given mode (formulas in the module docstring)."""
    if params.mode == "vector":
        return {i: sims[i] for i, _ in vec}
    if params.mode == "fulltext":
        return dict(fts)
    if params.fusion == "linear":
        import numpy as np

        top = max((s for _, s in fts), default=0.0) or 1.0
        bm25 = dict(fts)
        ids = list(dict.fromkeys([i for i, _ in vec] + list(bm25)))
        raw = np.array([sims.get(i, 0.0) for i in ids], dtype=np.float64)
        z = (raw - raw.mean()) / (raw.std() or 1.0) if len(raw) else raw
        w = params.vector_weight
        return {i: float(w * zi + (1 - w) * 3.0 * bm25.get(i, 0.0) / top) for i, zi in zip(ids, z, strict=True)}
    import pyarrow as pa  # only here: the CLI's SQL-only commands must not pay for importing pyarrow / lancedb

    import_lancedb()  # first, so that the `lancedb.` import below skips the REST client (memory.storage.lance)
    from lancedb.rerankers import RRFReranker

    row_of = {i: n for n, i in enumerate(dict.fromkeys([i for i, _ in vec] + [i for i, _ in fts]))}
    vt = pa.table({"_rowid": pa.array([row_of[i] for i, _ in vec], pa.uint64())})
    ft = pa.table({"_rowid": pa.array([row_of[i] for i, _ in fts], pa.uint64())})
    fused = RRFReranker(K=params.rrf_k).rerank_hybrid("", vt, ft)
    back = {n: i for i, n in row_of.items()}
    return dict(zip((back[r] for r in fused["_rowid"].to_pylist()), fused["_relevance_score"].to_pylist(), strict=True))


def _verdict(hit: Hit, params: RecallPolicy, best: float | None) -> str | None:
    """Why a candidate does not pass (None = it passes)."""
    rel, sim = hit.relevance, hit.similarity
    if hit.flagged and not params.include_flagged:
        return "flagged"
    if rel is None or rel < params.threshold:
        return "below threshold"
    if params.similarity_floor is not None and (sim is None or sim < params.similarity_floor):
        return "below similarity floor"
    if params.relative_cut is not None and best is not None and (sim is None or sim < best - params.relative_cut):
        return "below relative cut"
    return None


def rank_and_cut(
    scored: list[Hit],
    params: RecallPolicy,
    shown: frozenset[str] = frozenset(),
) -> list[Hit]:
    """Order (by relevance or by fused score, ``params.order``), then mark passed / selected (pure: no I/O). The one
    cut the agent and the lab share. An episode of a message the prompt already shows (``shown``: the session's
    recent turns), a memory saying what a higher-ranked one of the other layer said (:data:`SAME_SOURCE`) and, when
    the policy passes over near-duplicates, one whose vector is that close to a selected one's
    (:mod:`.near_duplicates`, from ``hit.near``) pass but are not selected, and take no place in the top k."""
    if params.order == "relevance":
        scored.sort(key=lambda h: (-(h.relevance or 0.0), -h.score, h.memory_id))
    else:
        scored.sort(key=lambda h: (-h.score, -(h.similarity or -2.0), h.memory_id))
    best = max((h.similarity for h in scored if h.similarity is not None), default=None)
    chosen = 0
    said: dict[tuple[bool, str], int] = {}  # (is an episode, source message) → rank of the selected hit
    chosen_at: dict[str, int] = {}  # selected memory id → its rank
    for rank, hit in enumerate(scored, 1):
        hit.rank = rank
        hit.drop_reason = _verdict(hit, params, best)
        hit.passed = hit.drop_reason is None
        hit.selected = False
        if hit.passed and chosen < params.k:
            if hit.type == MemoryType.EPISODE and _all_in(hit.source_message_ids, shown):
                hit.drop_reason = IN_CONVERSATION
                continue
            if (twin := _same_source(hit, said)) is not None:
                hit.drop_reason = f"{SAME_SOURCE} #{twin}"
                continue
            if (twin := near_duplicates.twin(hit.near, chosen_at, params.near_duplicate_cosine)) is not None:
                hit.drop_reason = f"{near_duplicates.NEAR_DUPLICATE} #{twin}"
                continue
            hit.selected = True
            chosen += 1
            chosen_at[hit.memory_id] = rank
            for src in hit.source_message_ids:
                said.setdefault((hit.type == MemoryType.EPISODE, str(src)), rank)
        elif hit.passed:
            hit.drop_reason = "beyond top-k"
    return scored


def _all_in(sources: list[Any], shown: frozenset[str]) -> bool:
    return bool(shown) and bool(sources) and all(str(s) in shown for s in sources)


def _same_source(hit: Hit, said: dict[tuple[bool, str], int]) -> int | None:
    """The rank of a selected hit of the other layer (episode / extracted memory) sharing this hit's source."""
    sources = [str(s) for s in hit.source_message_ids]
    if not sources:
        return None
    other = hit.type != MemoryType.EPISODE
    ranks = [said.get((other, s)) for s in sources]
    return None if any(r is None for r in ranks) else min(r for r in ranks if r is not None)


def score_relevance(
    hits: list[Hit], query: str, smoothed: dict[str, float], calibration: Calibration, *, crosslingual: bool = True
) -> None:
    """Fill each hit's features and calibrated relevance (over this query's candidate set)."""
    cands = [
        Scored(
            h.memory_id,
            h.similarity,
            h.fts_score,
            h.score,
            smoothed.get(h.memory_id),
            h.type,
            h.content,
            place=int(h.source_message_ids[0]) if len(h.source_message_ids) == 1 else None,
            day=h.created_at.toordinal() if h.created_at else None,
            subject=h.subject,
        )
        for h in hits
    ]
    feats = features(cands, query, crosslingual=crosslingual)
    rel = calibration.score(feats)
    for h in hits:
        h.features = feats[h.memory_id]
        h.relevance = rel[h.memory_id]


Pairs = list[tuple[str, float]]  # (memory id, score) of one signal, best first


def _contextualise(
    vec: Pairs, fts: Pairs, sims: dict[str, float], rows: list[MemoryRow], params: RecallPolicy
) -> tuple[Pairs, Pairs, dict[str, float]]:
    """Neighbour-smoothed signals (see :mod:`memory.retrieval.neighbours`), re-ranked per signal."""
    # every memory drawn from one message sits at that message's place in the conversation (a turn, or a fact
    # extracted from it); its neighbours are the raw turns around that place. Others only get the floor, so every
    # candidate's score stays on the same scale.
    at = {m.id: int(m.source_message_ids[0]) for m in rows if len(m.source_message_ids or []) == 1}
    turns = {m.id for m in rows if m.type == MemoryType.EPISODE}
    by_turn = {msg: mid for mid, msg in at.items() if mid in turns}
    if not by_turn or (params.neighbor_weight <= 0 and params.neighbor_weight_fts <= 0):
        return vec, fts, sims
    nowhere = -(10**12)  # a place with no neighbours: every neighbour counts as the floor
    turn_of = {m.id: at.get(m.id, nowhere) for m in rows}
    floor = min((sims[i] for i, _ in vec if i in sims), default=0.0)
    sims_s = neighbours.smooth(
        sims, turn_of, by_turn, neighbours.neighbour_weights(params.neighbor_weight, params.neighbor_span), floor
    )
    bm25 = {i: s for i, s in fts}
    padded = {**{i: 0.0 for i in turn_of}, **bm25}
    bm25_s = neighbours.smooth(
        padded, turn_of, by_turn, neighbours.neighbour_weights(params.neighbor_weight_fts, params.neighbor_span), 0.0
    )
    vec_s = sorted(((i, sims_s[i]) for i, _ in vec), key=lambda p: -p[1])
    fts_s = sorted(((i, s) for i, s in bm25_s.items() if s > 0), key=lambda p: -p[1])
    return vec_s, fts_s, sims_s


def _signals(
    store: Storage, user_key: str, agent_id: str | None, query: str, params: RecallPolicy, where: str | None
) -> tuple[Pairs, Pairs, dict[str, float], UserVectors | None]:
    """(vector hits, BM25 hits, similarity per candidate, the user's cached vectors if the search used them) from the
    index, prefiltered to the user (and ``where``)."""
    import numpy as np  # imported on use, like LanceDB: SQL-only commands start without them

    texts = [query] if params.mode != "vector" else []
    if texts and params.crosslingual and (other := crosslingual.expand(query)):
        texts.append(other)  # the query's words in the other language: a second full-text query
    # the user's vectors in this process's memory (memory/storage/vector_cache.py): the full-text searches then skip
    # reading the vector column, and the vector search is a matrix product
    cached = store.index.cached(user_key, where) if params.mode != "fulltext" else None
    pending = [
        store.pool.submit(store.index.search_text, t, user_key, agent_id, params.pool, where, vectors=cached is None)
        for t in texts
    ]
    qvec = store.embedder.embed_query(query)
    vec: Pairs = []
    if cached is not None:
        vec = cached.search(qvec, agent_id, params.pool)[0]
    elif params.mode != "fulltext":
        vec = store.index.search_vector(qvec, user_key, agent_id, params.pool, where)
    found = crosslingual.best_of(*(p.result() for p in pending)) if pending else []
    sims = {i: 1.0 - d for i, d in vec}
    for i, _, v in found:  # full-text-only hits get their similarity from the vector the FTS search returned
        if v is not None:
            sims.setdefault(i, float(np.dot(v, qvec)))
    if cached is not None and (missing := [i for i, _, v in found if v is None and i not in sims]):
        sims.update(cached.similarity(qvec, missing))  # … or from the cached vectors
        if rest := [i for i in missing if i not in sims]:  # rows another process added since the version check
            sims.update(store.index.similarities(qvec, user_key, rest))
    return vec, [(i, s) for i, s, _ in found], sims, cached


@dataclass
class Signals:
    """What the index and SQL returned for one query: the I/O half of a search. Ranking them is pure
    (:func:`rank_signals`), so the evaluation can replay the ranking under other fusion weights without asking again.
    """

    query: str
    vec: list[tuple[str, float]]  # (id, similarity) by the vector search
    fts: list[tuple[str, float]]  # (id, BM25) by the full-text search
    sims: dict[str, float]  # similarity of every candidate
    rows: list[MemoryRow]  # the active ones among them (SQL is the truth: stale index rows are left out)
    #: near-identical pairs among the rows (:mod:`.near_duplicates`; empty when the policy does not pass over them)
    near: near_duplicates.Pairs = field(default_factory=dict)


def gather(
    store: Storage,
    *,
    user_key: str,
    agent_id: str | None,
    query: str,
    params: RecallPolicy,
    filters: RecallFilters | None = None,
) -> Signals:
    """Query both signals and join with SQL, applying the filters that are not index columns."""
    filters = filters or RecallFilters()
    if filters.sql_side:
        params = replace(params, pool=params.pool * FILTERED_POOL_FACTOR)
    vec, fts, sims, cached = _signals(store, user_key, agent_id, query, params, filters.index_clause())
    ids = list(dict.fromkeys([i for i, _ in vec] + [i for i, _ in fts]))
    rows = [m for m in stored_rows(store.engine, user_key, ids, MemoryStatus.ACTIVE) if agent_id in (None, m.agent_id)]
    if filters.sql_side:  # on the rows SQL returned (source type, event time, a door's filters: not index columns)
        rows = [m for m in rows if filters.keeps_row(m)]
        keep = {m.id for m in rows}
        vec, fts = [p for p in vec if p[0] in keep], [p for p in fts if p[0] in keep]
    near = near_duplicates.pairs(store, user_key, [m.id for m in rows], params.near_duplicate_cosine, cached)
    return Signals(query=query, vec=vec, fts=fts, sims=sims, rows=rows, near=near)


def rank_signals(
    sig: Signals, *, params: RecallPolicy, calibration: Calibration, filters: RecallFilters | None = None
) -> list[Hit]:
    """Fuse, score relevance, rank and cut (pure: no I/O)."""
    fused, smoothed = fused_scores(sig, params, filters)
    bm25 = dict(sig.fts)
    hits = [hit_of_row(m, sig.sims, bm25, fused) for m in sig.rows if m.id in fused]
    for h in hits:
        h.near = sig.near.get(h.memory_id, {})
    score_relevance(hits, sig.query, smoothed, calibration, crosslingual=params.crosslingual)
    return rank_and_cut(hits, params, filters.shown_messages if filters is not None else frozenset())


def fused_scores(
    sig: Signals, params: RecallPolicy, filters: RecallFilters | None = None
) -> tuple[dict[str, float], dict[str, float]]:
    """(fused score, neighbour-smoothed similarity) per candidate: in hybrid mode with neighbours and the day boost,
    then the ``as_of`` period lift."""
    vec, fts, sims, rows = sig.vec, sig.fts, sig.sims, sig.rows
    smoothed: dict[str, float] = {}
    if params.mode == "hybrid":
        vec_s, fts_s, smoothed = _contextualise(vec, fts, sims, rows, params)
        fused = fuse(vec_s, fts_s, smoothed, params)
        days = {m.id: m.created_at.date() for m in rows if m.type == MemoryType.EPISODE and m.created_at}
        fused = neighbours.day_boost(fused, days, params.day_boost)
    else:
        fused = fuse(vec, fts, sims, params)
    if filters is not None and filters.as_of is not None and (named := period(sig.query, filters.as_of)):
        fused = time_boost(fused, {m.id: m.event_time or m.created_at for m in rows}, named[1:], params.day_boost)
    return fused, smoothed


def run_search(
    store: Storage,
    *,
    user_key: str,
    agent_id: str | None,
    query: str,
    params: RecallPolicy,
    calibration: Calibration,
    filters: RecallFilters | None = None,
    retracted: Callable[[str], str] | None = None,
) -> list[Hit]:
    """Query both signals, fuse, join with SQL (the truth: stale index rows are ignored), rank and cut; with
    ``retracted``, episodes stating only retracted memories are left out (:func:`without_retracted`); then a memory a
    newer one replaced is ranked below it and labelled earlier, and a question about the past gets the history
    (:func:`memory.retrieval.updates.apply`).

    The full-text search runs in a worker thread while the query is embedded and the vector search runs, so hybrid
    costs about as much as vector alone (LanceDB and the embedder release the GIL). ``filters`` narrow the
    candidates (memory type in the index, the rest in the SQL join) and ``filters.as_of`` lifts the period the
    query's date words name.
    """
    sig = gather(store, user_key=user_key, agent_id=agent_id, query=query, params=params, filters=filters)
    hits = rank_signals(sig, params=params, calibration=calibration, filters=filters)
    if retracted is not None:
        hits = without_retracted(sig, hits, params, calibration, filters, retracted)
    hits = updates.apply(store, user_key, query, hits, params.k, agent_id, filters)  # newer first; history if asked
    add_context(store.engine, user_key, hits, params.context_span)
    return hits


#: rounds of reading the selected episodes for retracted statements (each round reads only the episodes newly
#: selected in place of the ones taken out: the work follows k, not the candidate pool)
RETRACTION_ROUNDS = 4


def without_retracted(
    sig: Signals,
    hits: list[Hit],
    params: RecallPolicy,
    calibration: Calibration,
    filters: RecallFilters | None,
    retracted: Callable[[str], str],
) -> list[Hit]:
    """The selected episodes read through ``retracted`` (their text without the sentences stating a retracted
    memory): a part is cut from the hit's text; an episode with nothing left is taken out of the candidates, which
    are ranked again without it (it must not shape the others' relevance), and it is reported with
    :data:`RETRACTED`; the episodes selected in its place are read in the next round. Only what would be selected
    is read — before, three times k of the best-ranked episodes were, selected or not, which made a door's search
    (k = its limit) cost several times the service call."""
    gone: dict[str, Hit] = {}
    read: dict[str, str] = {}  # episode id → its text without the retracted sentences
    for _ in range(RETRACTION_ROUNDS):
        fresh = _read_selected(hits, read, retracted)
        if not any(not read[i].strip() for i in fresh):  # nothing newly read is gone: the selection stands
            break
        gone.update({h.memory_id: h for h in hits if h.memory_id in fresh and not read[h.memory_id].strip()})
        sig = Signals(
            query=sig.query,
            vec=[p for p in sig.vec if p[0] not in gone],
            fts=[p for p in sig.fts if p[0] not in gone],
            sims={k: v for k, v in sig.sims.items() if k not in gone},
            rows=[m for m in sig.rows if m.id not in gone],
            near=sig.near,
        )
        hits = rank_signals(sig, params=params, calibration=calibration, filters=filters)
    else:  # the last round's replacements are read too; any gone leave the selection without another ranking
        _read_selected(hits, read, retracted)
        for h in hits:
            if h.selected and h.memory_id in read and not read[h.memory_id].strip():
                gone[h.memory_id] = h
        hits = [h for h in hits if h.memory_id not in gone]
    for h in gone.values():
        h.passed, h.selected, h.drop_reason = False, False, RETRACTED
    hits += list(gone.values())
    for rank, h in enumerate(hits, 1):
        h.rank = rank
        kept = read.get(h.memory_id)
        if kept is not None and kept.strip() and kept != h.content:
            h.content = kept
    return hits


def _read_selected(hits: list[Hit], read: dict[str, str], retracted: Callable[[str], str]) -> set[str]:
    """Read the selected episodes not read yet (into ``read``); their ids."""
    fresh = {h.memory_id for h in hits if h.selected and h.type == MemoryType.EPISODE and h.memory_id not in read}
    for h in hits:
        if h.memory_id in fresh:
            read[h.memory_id] = retracted(h.content)
    return fresh


def add_context(engine: Any, user_key: str, hits: list[Hit], span: int) -> None:
    """Fill the selected hits' source context (bounded SQL statements; the others keep none)."""
    chosen = [h for h in hits if h.selected]
    for h in hits:
        h.context = []
    if span <= 0 or not any(h.source_message_ids for h in chosen):
        return
    for hit, rows in zip(
        chosen, context.load(engine, user_key, [h.source_message_ids for h in chosen], span), strict=True
    ):
        hit.context = rows


def timed_search(store: Storage, **kwargs: Any) -> tuple[list[Hit], float]:
    start = time.perf_counter()
    hits = run_search(store, **kwargs)
    return hits, (time.perf_counter() - start) * 1000
