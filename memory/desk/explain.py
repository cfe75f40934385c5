"""Why (not) retrieved: one memory's path through recall for one query, stage by stage, and the first stage where it
fell out, in words ("ranked 14th by meaning, 3rd by words; relevance 0.004 < 0.019").

It runs recall's own functions — :func:`memory.retrieval.recall.gather` (the index and the SQL join),
:func:`~memory.retrieval.recall.rank_signals` (fusion, features, calibrated relevance, the cut) and the composer
(:func:`memory.sessions.prompt.compose`) — on the same parameters the search used, so the explanation cannot
disagree with what recall did. Nothing here ranks anything itself. Outside the candidate pool it asks the index
again with a pool as large as the user's memories, only to say how far down the memory was.

For a logged retrieval the query and knobs are the logged ones, and what the log recorded then (rank, relevance,
verdict, whether it reached the prompt) is shown beside what the same search does now.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any

from sqlmodel import select

from memory.errors import InvalidInput, NotFound
from memory.retrieval import policy
from memory.retrieval.filters import RecallFilters
from memory.retrieval.near_duplicates import NEAR_DUPLICATE
from memory.retrieval.policy import RecallPolicy
from memory.retrieval.recall import (
    IN_CONVERSATION,
    RETRACTED,
    SAME_SOURCE,
    Hit,
    gather,
    rank_signals,
    without_retracted,
)
from memory.retrieval.relevance import FEATURES, Calibration
from memory.storage.models import Memory, Retrieval, RetrievalHit, User
from memory.vocab import ANY_AGENT, FLAG_KEY, MemoryStatus
from memory.write import profile_sync

if TYPE_CHECKING:
    from memory.storage.store import Storage

#: the widest pool asked for, only to say how far down a memory outside the real pool was
WIDE_POOL = 5000


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st…"""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


@dataclass
class Stage:
    """One step of recall: ``passed`` None = not applicable (the memory never got there)."""

    name: str
    passed: bool | None
    detail: str
    values: dict[str, Any] = field(default_factory=dict)
    #: False for what only describes (a signal's rank, the fused score, the features): a memory found by one
    #: signal only is still a candidate, so only the gates below can drop it
    gate: bool = True


@dataclass
class Explanation:
    memory_id: str
    query: str
    content: str
    stages: list[Stage]
    #: the first stage it fell out at (None: it reached the prompt)
    fell_out_at: str | None
    summary: str
    params: dict[str, Any]
    calibration: str
    retrieval_id: int | None = None
    #: what the retrieval log recorded for this memory then (logged retrievals only)
    logged: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _params_of(row: Retrieval, now: RecallPolicy) -> RecallPolicy:
    """The knobs a logged retrieval ran with (keys the log lacks keep today's values)."""
    logged = {k: v for k, v in (row.params or {}).items() if k in policy.KNOBS and v is not None}
    mode = logged.get("mode", now.mode)
    return replace(now, calibration=policy.calibration_for(now.calibration, mode), **logged)


def _rank(pairs: list[tuple[str, float]], memory_id: str) -> int | None:
    return next((n for n, (i, _) in enumerate(pairs, 1) if i == memory_id), None)


def _scope_stages(m: Memory, agent_id: str | None, filters: RecallFilters) -> list[Stage]:
    """Status, flag-free index membership, agent scope and filters: before any search."""
    out = []
    active = m.status == MemoryStatus.ACTIVE
    out.append(
        Stage(
            "status",
            active,
            "active: searchable" if active else f"{m.status}: only active memories are searched",
            {"status": m.status},
        )
    )
    scoped = agent_id is None or m.agent_id == agent_id
    out.append(
        Stage(
            "agent scope",
            scoped,
            f"agent {m.agent_id!r}" + ("" if scoped else f": this search is scoped to agent {agent_id!r}"),
            {"memory_agent": m.agent_id, "search_agent": agent_id},
        )
    )
    type_ok = not filters.types or m.type in filters.types
    keeps = filters.keeps(m.source_type, m.event_time)
    out.append(
        Stage(
            "filters",
            type_ok and keeps,
            "no filter excludes it"
            if type_ok and keeps
            else f"excluded by the filters {filters.to_dict()} (type {m.type}, source {m.source_type})",
            {"filters": filters.to_dict()},
        )
    )
    return out


def _signal_stages(
    store: Storage,
    user: User,
    agent_id: str | None,
    query: str,
    params: RecallPolicy,
    filters: RecallFilters,
    memory_id: str,
    calibration: Calibration,
) -> tuple[list[Stage], list[Hit]]:
    """Vector rank, full-text rank, the candidate pool: from the real search (and a wide one for far ranks)."""
    sig = gather(store, user_key=user.key, agent_id=agent_id, query=query, params=params, filters=filters)
    vrank, frank = _rank(sig.vec, memory_id), _rank(sig.fts, memory_id)
    wide_v, wide_f = vrank, frank
    if vrank is None or frank is None:
        wide = replace(params, pool=min(WIDE_POOL, max(params.pool, store.index.count(user.key))))
        far = gather(store, user_key=user.key, agent_id=agent_id, query=query, params=wide, filters=filters)
        wide_v = vrank or _rank(far.vec, memory_id)
        wide_f = frank or _rank(far.fts, memory_id)
    uses_vec, uses_fts = params.mode != "fulltext", params.mode != "vector"
    sim = sig.sims.get(memory_id)

    def said(rank: int | None, wide_rank: int | None, what: str, used: bool) -> str:
        if not used:
            return f"not used in {params.mode} mode"
        if rank is not None:
            return f"ranked {ordinal(rank)} by {what}"
        if wide_rank is not None:
            return f"ranked {ordinal(wide_rank)} by {what}, outside the pool of {params.pool}"
        return "no query word found in it" if what == "words" else f"not found by {what}"

    vtext, ftext = said(vrank, wide_v, "meaning", uses_vec), said(frank, wide_f, "words", uses_fts)
    stages = [
        Stage(
            "vector rank",
            (vrank is not None) if uses_vec else None,
            vtext + (f" (similarity {sim:.3f})" if sim is not None and uses_vec else ""),
            {"rank": vrank, "rank_beyond_pool": wide_v if vrank is None else None, "similarity": sim},
            gate=False,
        ),
        Stage(
            "full-text rank",
            (frank is not None) if uses_fts else None,
            ftext + (f" (BM25 {dict(sig.fts)[memory_id]:.3f})" if frank is not None else ""),
            {"rank": frank, "rank_beyond_pool": wide_f if frank is None else None},
            gate=False,
        ),
    ]
    hits = rank_signals(sig, params=params, calibration=calibration, filters=filters)
    if (reader := profile_sync.retracted_reader(store, user.key)) is not None:  # as recall does
        hits = without_retracted(sig, hits, params, calibration, filters, reader)
    found = any(h.memory_id == memory_id for h in hits)
    words = "; ".join(t for t, used in ((vtext, uses_vec), (ftext, uses_fts)) if used)
    stages.append(
        Stage(
            "candidate pool",
            found,
            f"a candidate ({len(hits)} in all)"
            if found
            else f"not among the {params.pool} candidates each signal brings ({words})",
            {"candidates": len(hits), "pool": params.pool},
        )
    )
    return stages, hits


def _ranking_stages(hit: Hit, hits: list[Hit], params: RecallPolicy, calibration: Calibration) -> list[Stage]:
    """Fusion, features, flag, relevance vs threshold, the floors, the k cut: read off the ranked hit."""
    by_fused = sorted(hits, key=lambda h: (-h.score, h.memory_id))
    fused_rank = next(n for n, h in enumerate(by_fused, 1) if h.memory_id == hit.memory_id)
    feats = dict(zip(FEATURES, (round(float(v), 4) for v in hit.features), strict=False)) if hit.features else {}
    rel, t = hit.relevance, params.threshold
    out = [
        Stage(
            "fusion",
            True,
            f"fused score {hit.score:.4f} ({params.mode}"
            + (f", {params.fusion}" if params.mode == "hybrid" else "")
            + f"): {ordinal(fused_rank)} of {len(hits)} by fused score",
            {"fused": hit.score, "fused_rank": fused_rank},
            gate=False,
        ),
        Stage(
            "relevance features",
            True,
            ", ".join(f"{k} {v:g}" for k, v in feats.items()) or "none (no calibration applies)",
            {"features": feats, "calibration": calibration.version},
            gate=False,
        ),
    ]
    flagged = hit.drop_reason == "flagged"
    out.append(
        Stage(
            "flag",
            not flagged,
            f"flagged as wrong by a person: {hit.meta.get(FLAG_KEY)}" if flagged else "not flagged",
        )
    )
    if flagged:
        return out
    rel_ok = rel is not None and rel >= t
    out.append(
        Stage(
            "relevance threshold",
            rel_ok,
            f"relevance {_num(rel)} {'≥' if rel_ok else '<'} {_num(t)}",
            {"relevance": rel, "threshold": t, "rank": hit.rank},
        )
    )
    if not rel_ok:
        return out
    if params.similarity_floor is not None:
        ok = hit.drop_reason != "below similarity floor"
        out.append(
            Stage(
                "similarity floor",
                ok,
                f"similarity {_num(hit.similarity)} {'≥' if ok else '<'} floor {_num(params.similarity_floor)}",
            )
        )
        if not ok:
            return out
    if params.relative_cut is not None:
        ok = hit.drop_reason != "below relative cut"
        out.append(Stage("relative cut", ok, f"within {params.relative_cut:g} of the best similarity: {ok}"))
        if not ok:
            return out
    if hit.drop_reason == RETRACTED:
        out.append(Stage("retracted", False, "every sentence of it states what a person retracted"))
        return out
    if hit.drop_reason == IN_CONVERSATION:
        out.append(Stage("one copy per message", False, "its message is among the recent turns the prompt shows"))
        return out
    if hit.drop_reason and hit.drop_reason.startswith(SAME_SOURCE):
        twin = hit.drop_reason[len(SAME_SOURCE) :].strip()
        said = f"a better-ranked memory from the same message ({twin}) reaches the prompt instead"
        out.append(Stage("one copy per message", False, said))
        return out
    if hit.drop_reason and hit.drop_reason.startswith(NEAR_DUPLICATE):
        twin = hit.drop_reason[len(NEAR_DUPLICATE) :].strip()
        cos = f"cosine ≥ {params.near_duplicate_cosine:g}"
        said = f"a better-ranked selected memory ({twin}) says nearly the same ({cos}) and reaches the prompt instead"
        out.append(Stage("near-duplicate", False, said))
        return out
    passed = [h for h in hits if h.passed]
    place = next(n for n, h in enumerate(passed, 1) if h.memory_id == hit.memory_id)
    out.append(
        Stage(
            "k cut",
            hit.selected,
            f"{ordinal(place)} of {len(passed)} that passed; k = {params.k}",
            {"place_among_passed": place, "passed": len(passed), "k": params.k},
        )
    )
    return out


def _num(x: float | None) -> str:
    if x is None:
        return "none"
    return f"{x:.3f}" if abs(x) >= 0.01 else f"{x:.3g}"


def _budget_stage(hit: Hit, hits: list[Hit], query: str, profile: dict[str, Any], settings: Any) -> Stage:
    """The composer on the selected memories (with the profile, no chat history): did it fit the token budget?"""
    from memory.sessions import prompt  # LangChain's message types: only when a selected memory is explained

    selected = [h for h in hits if h.selected]
    items = [prompt.MemoryItem.from_hit(h) for h in selected]
    comp = prompt.compose(prompt.ContextRequest(input=query, profile=profile, memories=items), settings)
    if hit.memory_id in comp.injected:
        used = comp.allocation.get("total_used")
        return Stage("prompt", True, f"fits the prompt ({used} of {comp.allocation.get('total_budget')} tokens)")
    if hit.memory_id in comp.contradicted:
        return Stage("prompt", False, "left out: it states another value of a single-valued profile field")
    return Stage("prompt", False, "left out: the memories section ran out of tokens (no chat history counted)")


def explain(
    store: Storage,
    user: User,
    memory_id: str,
    *,
    query: str | None = None,
    retrieval_id: int | None = None,
    agent_id: str | None,
    params: RecallPolicy,
    calibration: Calibration,
    filters: RecallFilters | None = None,
    profile: dict[str, Any] | None = None,
) -> Explanation:
    """Why ``memory_id`` was (not) recalled for ``query`` (or for the logged retrieval ``retrieval_id``)."""
    filters = filters or RecallFilters()
    logged: dict[str, Any] | None = None
    with store.db() as db:
        m = db.get(Memory, memory_id)
        if m is None or m.user_key != user.key:
            raise NotFound(f"no memory {memory_id[:80]!r} for this user")
        if retrieval_id is not None:
            row = db.get(Retrieval, retrieval_id)
            if row is None or row.user_key != user.key:
                raise NotFound(f"no retrieval {retrieval_id} for this user")
            params = _params_of(row, params)
            query = row.retrieval_query
            agent_id = None if row.agent_id == ANY_AGENT else row.agent_id
            then = db.exec(
                select(RetrievalHit).where(
                    RetrievalHit.retrieval_id == retrieval_id, RetrievalHit.memory_id == memory_id
                )
            ).first()
            logged = _logged(then, row)
    if not query:
        raise InvalidInput("give a query or a logged retrieval to explain")
    stages = _scope_stages(m, agent_id, filters)
    hit: Hit | None = None
    if all(s.passed for s in stages):
        signal, hits = _signal_stages(store, user, agent_id, query, params, filters, memory_id, calibration)
        stages += signal
        hit = next((h for h in hits if h.memory_id == memory_id), None)
        if hit is not None:
            stages += _ranking_stages(hit, hits, params, calibration)
            if hit.selected:
                stages.append(_budget_stage(hit, hits, query, profile or {}, store.effective_settings()))
    failed = next((s for s in stages if s.gate and s.passed is False), None)
    return Explanation(
        memory_id=m.id,
        query=query,
        content=m.content,
        stages=stages,
        fell_out_at=failed.name if failed else None,
        summary=_summary(stages, failed),
        params=params.to_dict(),
        calibration=calibration.version,
        retrieval_id=retrieval_id,
        logged=logged,
    )


def _logged(then: RetrievalHit | None, row: Retrieval) -> dict[str, Any]:
    if then is None:
        return {"candidate": False, "said": "not among the candidates logged for this retrieval", "at": row.created_at}
    verdict = (
        "reached the prompt"
        if then.injected
        else "selected"
        if then.selected and not then.drop_reason
        else (then.drop_reason or "not selected")
    )
    return {
        "candidate": True,
        "rank": then.rank,
        "relevance": then.relevance,
        "similarity": then.similarity,
        "passed": then.passed,
        "selected": then.selected,
        "injected": then.injected,
        "drop_reason": then.drop_reason,
        "said": f"ranked {ordinal(then.rank)}, relevance {_num(then.relevance)}: {verdict}",
        "at": row.created_at,
    }


def _summary(stages: list[Stage], failed: Stage | None) -> str:
    """One sentence: the ranks, the relevance against the threshold, and where it fell out."""
    by = {s.name: s for s in stages}
    parts = []
    signals = ("vector rank", "full-text rank")
    ranks = [by[n].detail.split(" (")[0] for n in signals if n in by and by[n].passed is not None]
    if ranks:  # "ranked 14th by meaning, 3rd by words"
        parts.append(", ".join([ranks[0], *(r.removeprefix("ranked ") for r in ranks[1:])]))
    if "relevance threshold" in by:
        parts.append(by["relevance threshold"].detail)
    head = "; ".join(parts)
    if failed is None:
        tail = "reached the prompt"
    elif failed.name in ("relevance threshold",):
        tail = "fell out at the relevance threshold"
    else:
        tail = f"fell out at {failed.name}: {failed.detail}"
    return f"{head} → {tail}" if head else tail
