"""Threshold tuning from people's labels, and replay diffs: the pure arithmetic behind the retrieval lab.

Nothing here touches a database; the lab page feeds it rows and draws what comes back, so every number on that page
has a unit test.

A *labelled hit* is (similarity, relevant). At threshold ``t`` the retriever keeps every hit with similarity ≥ t
(see docs/retrieval.md), so ``precision(t)`` = relevant kept / kept and ``recall(t)`` = relevant kept / all relevant
labelled. Recall is relative to what the team labelled (the only ground truth there is), not to every memory in the
store.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class CurvePoint:
    threshold: float
    kept: int
    true_pos: int
    false_pos: int
    false_neg: int
    precision: float | None
    recall: float | None
    f1: float | None

    def to_dict(self) -> dict:
        return asdict(self)


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def point_at(labelled: Sequence[tuple[float, bool]], threshold: float) -> CurvePoint:
    """Precision, recall and F1 of keeping hits with similarity ≥ ``threshold``."""
    tp = sum(1 for s, rel in labelled if rel and s >= threshold)
    fp = sum(1 for s, rel in labelled if not rel and s >= threshold)
    positives = sum(1 for _, rel in labelled if rel)
    fn = positives - tp
    precision, recall = _ratio(tp, tp + fp), _ratio(tp, positives)
    f1 = None
    if precision is not None and recall is not None:
        f1 = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
    return CurvePoint(round(threshold, 6), tp + fp, tp, fp, fn, precision, recall, f1)


def candidate_thresholds(labelled: Iterable[tuple[float, bool]]) -> list[float]:
    """Every distinct labelled similarity: the only places where precision or recall can change."""
    return sorted({round(float(s), 6) for s, _ in labelled})


def pr_curve(labelled: Sequence[tuple[float, bool]], thresholds: Iterable[float] | None = None) -> list[CurvePoint]:
    """One point per threshold (default: every distinct labelled similarity), ascending."""
    clean = [(float(s), bool(r)) for s, r in labelled if s is not None]
    grid = sorted(set(thresholds)) if thresholds is not None else candidate_thresholds(clean)
    return [point_at(clean, t) for t in grid]


def suggest_threshold(curve: Sequence[CurvePoint]) -> CurvePoint | None:
    """The point of highest F1; ties go to the higher threshold (fewer memories injected for the same quality).

    None when no point has an F1 (no relevant label yet).
    """
    scored = [p for p in curve if p.f1 is not None]
    if not scored:
        return None
    return max(scored, key=lambda p: (p.f1, p.threshold))


@dataclass(frozen=True)
class ReplayDiff:
    gained: list[str]
    lost: list[str]
    kept: list[str]

    @property
    def changed(self) -> bool:
        return bool(self.gained or self.lost)


def replay_diff(selected_then: Iterable[str], selected_now: Iterable[str]) -> ReplayDiff:
    """Memories a replayed query selects now but did not then (gained), the reverse (lost), and both (kept).

    Order follows ``selected_now`` for gained/kept and ``selected_then`` for lost, so tables read best-first.
    """
    then = list(dict.fromkeys(selected_then))
    now = list(dict.fromkeys(selected_now))
    then_set, now_set = set(then), set(now)
    return ReplayDiff(
        gained=[i for i in now if i not in then_set],
        lost=[i for i in then if i not in now_set],
        kept=[i for i in now if i in then_set],
    )
