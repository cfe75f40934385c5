"""Evidence-recall metrics (pure functions, no I/O).

LoCoMo's official retrieval metric: for one question, evidence recall@k = |gold dia_ids covered by the top-k
retrieved records| / |gold dia_ids|, averaged over questions. A record covers what the prompt receives with it: the
dia_ids of the messages it came from and of its source context (the turns around them,
:mod:`memory.retrieval.context`); its tokens are the memory's plus the context lines no better-ranked record already
brought (:func:`prompt_tokens`). :func:`alone` gives the same outcomes without source context (the memory itself).
The relevance labels stay on the memory's own evidence (``own_dia_ids``). The cut mirrors
:func:`memory.retrieval.recall.rank_and_cut`: candidates in fused order, only those whose calibrated relevance
passes the threshold are selectable, the first k are selected. So one recall at threshold −1 (every candidate kept,
in rank order) yields the metrics at every threshold and every k without asking again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

from memory.prompts import HEADERS
from memory.sessions.prompt import MIN_PARTIAL
from memory.text.tokens import count_tokens
from memory.vocab import MemoryType

SWEEP = tuple(round(i / 20, 2) for i in range(21))  # relevance 0.00 .. 1.00


@cache
def memories_header_tokens() -> int:
    """Tokens of the composer's memory-section header (:mod:`memory.sessions.prompt`): counted on first use, so
    importing the evaluation (the Evaluation page, the demo's seeding) does not load the tokenizer."""
    return count_tokens(f"\n\n{HEADERS['memories']}")


@dataclass(frozen=True)
class RankedRecord:
    """One retrieved record in a question's ranked list: the dialogue turns it came from (its evidence), its scores
    and its size. (Not the write path's ``memory.write.extract.base.Candidate``, a fact about to be stored.)"""

    dia_ids: frozenset[str]  # what the prompt receives with it: its own evidence and its source context's
    similarity: float | None
    tokens: int  # the memory's own
    type: str = MemoryType.EPISODE
    relevance: float | None = None
    features: tuple[float, ...] = ()
    #: the memory's own evidence (the messages it came from); None = ``dia_ids`` (no context was added)
    own_dia_ids: frozenset[str] | None = None
    #: its source message ids, and its source context's (the window around them, its sources left out)
    sources: frozenset[int] = frozenset()
    context_ids: tuple[int, ...] = ()
    memory_id: str = ""
    #: the candidates of this search near-identical to it at the policy's cosine (recall passes over them)
    near: frozenset[str] = frozenset()
    #: tokens of its line in the prompt's memory section (date, source and type prefix included; 0 = unknown)
    line_tokens: int = 0

    @property
    def own(self) -> frozenset[str]:
        """The memory's own evidence: what its relevance label is about."""
        return self.dia_ids if self.own_dia_ids is None else self.own_dia_ids


@dataclass
class Outcome:
    """One question's retrieval: the gold evidence and every candidate in rank order."""

    sample_id: str
    index: int
    category: int
    gold: frozenset[str]
    ranked: list[RankedRecord] = field(default_factory=list)
    latency_ms: float = 0.0
    #: asked of another conversation's user (its sample id): nothing there can be relevant
    asked_of: str | None = None
    #: tokens of each message as a source-context line (shared by the outcomes of one user; None = no context)
    message_tokens: Mapping[int, int] | None = field(default=None, repr=False, compare=False)
    #: the dia_id of each message (shared by the outcomes of one user): what a kept context line covers
    dia_of: Mapping[int, str] | None = field(default=None, repr=False, compare=False)
    #: the composer's memory-section cap (``context_memories_cap``; None = none): context lines past it are not shown
    memory_cap: int | None = None

    @property
    def foreign(self) -> bool:
        return self.asked_of is not None


def selected(ranked: Sequence[RankedRecord], k: int, threshold: float | None = None) -> list[RankedRecord]:
    """The first k candidates whose relevance passes the threshold (None = no threshold), passing over one
    near-identical to a selected one (as :func:`memory.retrieval.recall.rank_and_cut` does)."""
    out: list[RankedRecord] = []
    chosen: set[str] = set()
    for c in ranked:
        if len(out) >= k:
            break
        if threshold is not None and (c.relevance is None or c.relevance < threshold):
            continue
        if c.near & chosen:
            continue
        out.append(c)
        chosen.add(c.memory_id)
    return out


def shown(o: Outcome, k: int, threshold: float | None = None) -> list[RankedRecord]:
    """What the prompt shows of a question's selection: :func:`selected`, with the source context the composer's
    memory cap keeps (:func:`capped`)."""
    return capped(selected(o.ranked, k, threshold), o)


def capped(top: Sequence[RankedRecord], o: Outcome) -> list[RankedRecord]:
    """The records as the composer's memory section keeps them under ``o.memory_cap``
    (:func:`memory.sessions.prompt._fill_memories`): the header and every memory line first (a line that does not fit
    is kept cut, without context, when the room is worth it, and the rest go), then each record's new context lines
    in rank order, nearest to its source first, until the first that does not fit. A record covers its own evidence
    and its kept lines' (a line no better-ranked record already brought, as :func:`prompt_tokens` counts it)."""
    if o.memory_cap is None or o.message_tokens is None or o.dia_of is None:
        return list(top)
    used, kept = memories_header_tokens(), []
    for c in top:
        if used + c.line_tokens <= o.memory_cap:
            kept.append(c)
            used += c.line_tokens
            continue
        if o.memory_cap - used >= MIN_PARTIAL:
            kept.append(replace(c, context_ids=()))
            used = o.memory_cap
        break
    claimed = {m for c in kept if c.type == MemoryType.EPISODE for m in c.sources}
    out, full = [], False
    for c in kept:
        claimed |= c.sources
        lines: list[int] = []
        for m in sorted((m for m in c.context_ids if m not in claimed), key=lambda m: (_distance(m, c.sources), m)):
            cost = o.message_tokens.get(m, 0)
            if full or used + cost > o.memory_cap:
                full = True
                break
            lines.append(m)
            used += cost
        claimed.update(lines)
        dia = frozenset(o.dia_of[m] for m in lines if m in o.dia_of)
        out.append(replace(c, context_ids=tuple(sorted(lines)), dia_ids=c.own | dia))
    return out


def _distance(message_id: int, sources: frozenset[int]) -> int:
    return min((abs(message_id - s) for s in sources), default=0)


def prompt_tokens(top: Sequence[RankedRecord], message_tokens: Mapping[int, int] | None) -> int:
    """Tokens the prompt spends on these records: each memory's own, plus its context lines that no better-ranked
    record already brought (as source or context) and that are not shown as a ``turn`` memory of their own — the
    dedupe :func:`memory.retrieval.context.contexts` does."""
    total, claimed = 0, {m for c in top if c.type == MemoryType.EPISODE for m in c.sources}
    for c in top:
        total += c.tokens
        claimed |= c.sources
        if message_tokens is not None:
            new = [m for m in c.context_ids if m not in claimed]
            total += sum(message_tokens.get(m, 0) for m in new)
            claimed.update(new)
    return total


def alone(outcomes: Sequence[Outcome]) -> list[Outcome]:
    """The same outcomes as if each memory came without its source context (the memory's own evidence and tokens)."""
    return [
        replace(o, ranked=[replace(c, dia_ids=c.own, context_ids=()) for c in o.ranked], message_tokens=None)
        for o in outcomes
    ]


def _mean_tokens(outcomes: Sequence[Outcome], tops: Sequence[Sequence[RankedRecord]]) -> float:
    if not tops:
        return 0.0
    return round(sum(prompt_tokens(t, o.message_tokens) for o, t in zip(outcomes, tops, strict=True)) / len(tops), 1)


def covered(top: Iterable[RankedRecord]) -> set[str]:
    return set().union(*(c.dia_ids for c in top))


def evidence_recall(gold: frozenset[str], top: Sequence[RankedRecord]) -> float:
    return len(gold & covered(top)) / len(gold) if gold else 0.0


def hit(gold: frozenset[str], top: Sequence[RankedRecord]) -> float:
    return 1.0 if gold & covered(top) else 0.0


def reciprocal_rank(gold: frozenset[str], top: Sequence[RankedRecord]) -> float:
    for rank, c in enumerate(top, 1):
        if gold & c.dia_ids:
            return 1.0 / rank
    return 0.0


def _pct(values: list[float]) -> float:
    return round(100.0 * sum(values) / len(values), 2) if values else 0.0


def aggregate(outcomes: Sequence[Outcome], ks: Sequence[int], threshold: float | None = None) -> dict:
    """recall@k / hit@k (percentages), MRR@max k, mean tokens@k, over questions that have gold evidence."""
    scored = [o for o in outcomes if o.gold]
    out: dict = {"questions": len(outcomes), "with_evidence": len(scored)}
    for k in ks:
        tops = [shown(o, k, threshold) for o in scored]
        out[f"recall@{k}"] = _pct([evidence_recall(o.gold, t) for o, t in zip(scored, tops, strict=True)])
        out[f"hit@{k}"] = _pct([hit(o.gold, t) for o, t in zip(scored, tops, strict=True)])
        out[f"tokens@{k}"] = _mean_tokens(scored, tops)
    top_k = max(ks)
    rr = [reciprocal_rank(o.gold, shown(o, top_k, threshold)) for o in scored]
    out["mrr"] = round(sum(rr) / len(rr), 4) if rr else 0.0
    if threshold is not None:
        out["empty_rate"] = empty_rate(outcomes, threshold)
    return out


def empty_rate(outcomes: Sequence[Outcome], threshold: float) -> float:
    """Share of questions (percent) for which no candidate reaches the threshold: the prompt gets no memory."""
    empty = [0.0 if selected(o.ranked, 1, threshold) else 1.0 for o in outcomes]
    return _pct(empty)


def recall_curve(outcomes: Sequence[Outcome], max_k: int) -> list[dict]:
    """recall@k and tokens@k for k = 1..max_k (no threshold): the page's recall-against-k and tokens-against-recall."""
    scored = [o for o in outcomes if o.gold]
    rows = []
    for k in range(1, max_k + 1):
        tops = [shown(o, k) for o in scored]
        rows.append(
            {
                "k": k,
                "recall": _pct([evidence_recall(o.gold, t) for o, t in zip(scored, tops, strict=True)]),
                "tokens": _mean_tokens(scored, tops),
            }
        )
    return rows


def threshold_sweep(outcomes: Sequence[Outcome], ks: Sequence[int], thresholds: Sequence[float] = SWEEP) -> list[dict]:
    """recall@k and empty-rate at each threshold: the data the threshold is chosen from."""
    scored = [o for o in outcomes if o.gold]
    rows = []
    for t in thresholds:
        row: dict = {"threshold": t, "empty_rate": empty_rate(outcomes, t)}
        for k in ks:
            row[f"recall@{k}"] = _pct([evidence_recall(o.gold, shown(o, k, t)) for o in scored])
        rows.append(row)
    return rows


#: the two layers a hit can come from, as the lab and the reports split them: episodes (what was said) and facts (every
#: extracted memory: facts, preferences, events)
LAYERS = ("episodes", "facts")


def in_layer(record: RankedRecord, layer: str | None) -> bool:
    """Whether a record belongs to ``layer`` (None: every layer)."""
    if layer is None:
        return True
    if layer not in LAYERS:
        raise ValueError(f"layer must be one of {', '.join(LAYERS)}, not {layer!r}")
    return (record.type == MemoryType.EPISODE) == (layer == "episodes")


def at_threshold(outcomes: Sequence[Outcome], threshold: float, k: int, layer: str | None = None) -> dict:
    """What the agent would inject at (threshold, k): answerable_hit_rate = % of questions with evidence that get at
    least one evidence memory; foreign_noise_rate = % of questions asked of another conversation's user that get
    anything; mean_injected = memories injected per answerable question. With ``layer`` (:data:`LAYERS`) the same
    selection (every layer competes for the k places, as in recall) counted for that layer's memories only: gold
    injected as an episode / as a fact, foreign noise an episode / a fact brought."""
    own = [o for o in outcomes if o.gold and not o.foreign]
    foreign = [o for o in outcomes if o.foreign]
    tops = [[c for c in shown(o, k, threshold) if in_layer(c, layer)] for o in own]
    noisy = [any(in_layer(c, layer) for c in selected(o.ranked, k, threshold)) for o in foreign]
    return {
        "threshold": round(threshold, 4),
        "k": k,
        "answerable_hit_rate": _pct([hit(o.gold, t) for o, t in zip(own, tops, strict=True)]),
        "foreign_noise_rate": _pct([1.0 if n else 0.0 for n in noisy]) if foreign else None,
        "mean_injected": round(sum(len(t) for t in tops) / len(tops), 2) if tops else 0.0,
        "answerable": len(own),
        "foreign": len(foreign),
    }


def threshold_curves(
    outcomes: Sequence[Outcome], k: int, thresholds: Sequence[float] | None = None, layer: str | None = None
) -> list[dict]:
    """:func:`at_threshold` over a grid of relevance thresholds (default 0.00 .. 1.00 by 0.01)."""
    grid = thresholds if thresholds is not None else [round(i / 100, 2) for i in range(101)]
    return [at_threshold(outcomes, t, k, layer) for t in grid]


def layer_curves(outcomes: Sequence[Outcome], k: int, thresholds: Sequence[float]) -> dict[str, list[dict]]:
    """Gold injected and foreign noise against the threshold, every layer together (``all``) and per layer: what the
    retrieval lab shows for the threshold under its slider."""
    out = {"all": threshold_curves(outcomes, k, thresholds)}
    out.update({layer: threshold_curves(outcomes, k, thresholds, layer) for layer in LAYERS})
    return out


def summarise(
    outcomes: Sequence[Outcome], ks: Sequence[int], threshold: float | None, configured_threshold: float | None = None
) -> dict[str, Any]:
    """The report block of one mode: overall, categories 1-4, per category, curve, threshold sweep."""
    cats = sorted({o.category for o in outcomes})
    block: dict[str, Any] = {
        "overall": aggregate(outcomes, ks, threshold),
        "overall_cat1_4": aggregate([o for o in outcomes if 1 <= o.category <= 4], ks, threshold),
        "by_category": {str(c): aggregate([o for o in outcomes if o.category == c], ks, threshold) for c in cats},
        "curve": recall_curve(outcomes, max(max(ks), 50)),
        "sweep": threshold_sweep(outcomes, ks),
    }
    if configured_threshold is not None:
        block["empty_rate_at_configured"] = empty_rate(outcomes, configured_threshold)
    latencies = sorted(o.latency_ms for o in outcomes)
    if latencies:
        block["latency_ms"] = {
            "p50": round(latencies[len(latencies) // 2], 2),
            "p95": round(latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))], 2),
        }
    return block
