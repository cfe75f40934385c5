"""Evidence-recall metrics (pure functions, no I/O).

LoCoMo's official retrieval metric: for one question, evidence recall@k = |gold dia_ids covered by the top-k
retrieved records| / |gold dia_ids|, averaged over questions. A record covers the dia_ids of the messages it came
from. The cut mirrors
:func:`memory.retrieval.recall.rank_and_cut`: candidates in fused order, only those whose similarity
passes the threshold are selectable, the first k are selected. So one recall at threshold −1 (every candidate kept,
in rank order) yields the metrics at every threshold and every k without asking again.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

SWEEP = tuple(round(0.70 + i / 100, 2) for i in range(21))  # 0.70 .. 0.90


@dataclass(frozen=True)
class Candidate:
    dia_ids: frozenset[str]
    similarity: float | None
    tokens: int
    type: str = "turn"


@dataclass
class Outcome:
    """One question's retrieval: the gold evidence and every candidate in rank order."""

    sample_id: str
    index: int
    category: int
    gold: frozenset[str]
    ranked: list[Candidate] = field(default_factory=list)
    latency_ms: float = 0.0


def selected(ranked: Sequence[Candidate], k: int, threshold: float | None = None) -> list[Candidate]:
    """The first k candidates whose similarity passes the threshold (None = no threshold)."""
    out = []
    for c in ranked:
        if len(out) >= k:
            break
        if threshold is None or (c.similarity is not None and c.similarity >= threshold):
            out.append(c)
    return out


def covered(top: Iterable[Candidate]) -> set[str]:
    return set().union(*(c.dia_ids for c in top))


def evidence_recall(gold: frozenset[str], top: Sequence[Candidate]) -> float:
    return len(gold & covered(top)) / len(gold) if gold else 0.0


def hit(gold: frozenset[str], top: Sequence[Candidate]) -> float:
    return 1.0 if gold & covered(top) else 0.0


def reciprocal_rank(gold: frozenset[str], top: Sequence[Candidate]) -> float:
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
        tops = [selected(o.ranked, k, threshold) for o in scored]
        out[f"recall@{k}"] = _pct([evidence_recall(o.gold, t) for o, t in zip(scored, tops, strict=True)])
        out[f"hit@{k}"] = _pct([hit(o.gold, t) for o, t in zip(scored, tops, strict=True)])
        out[f"tokens@{k}"] = round(sum(sum(c.tokens for c in t) for t in tops) / len(tops), 1) if tops else 0.0
    top_k = max(ks)
    rr = [reciprocal_rank(o.gold, selected(o.ranked, top_k, threshold)) for o in scored]
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
        tops = [o.ranked[:k] for o in scored]
        rows.append(
            {
                "k": k,
                "recall": _pct([evidence_recall(o.gold, t) for o, t in zip(scored, tops, strict=True)]),
                "tokens": round(sum(sum(c.tokens for c in t) for t in tops) / max(len(tops), 1), 1),
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
            row[f"recall@{k}"] = _pct([evidence_recall(o.gold, selected(o.ranked, k, t)) for o in scored])
        rows.append(row)
    return rows


def summarise(
    outcomes: Sequence[Outcome], ks: Sequence[int], threshold: float | None, configured_threshold: float | None = None
) -> dict:
    """The report block of one mode: overall, categories 1-4, per category, curve, threshold sweep."""
    cats = sorted({o.category for o in outcomes})
    block = {
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
