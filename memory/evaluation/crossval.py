"""Leave-one-conversation-out: the relevance calibration and retrieval figures measured on conversations the fit
never saw, beside the in-sample ones (so tuning cannot fool us).

Input is the evaluation's own outcomes — every candidate of every question, with its features — for each
conversation's questions asked of its own user and of the next conversation's user (``asked_of``: nothing there is
relevant). Pure: no I/O, no recall; a fit is a few Newton steps, so the five folds take seconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from memory.evaluation import metrics
from memory.evaluation.metrics import Outcome
from memory.retrieval.fit import brier, expected_calibration_error, fit_calibration, reliability
from memory.retrieval.relevance import FEATURES, Calibration

TARGET_HIT, TARGET_NOISE = 70.0, 10.0
_FUSED_Z = FEATURES.index("fused_z")  # monotone in the fused score within one query


def examples(outcomes: Sequence[Outcome]) -> tuple[np.ndarray, np.ndarray]:
    """Feature rows and labels: a candidate is positive when it covers the question's evidence (never when foreign)."""
    rows, labels = [], []
    for o in outcomes:
        for c in o.ranked:
            if len(c.features) != len(FEATURES):
                continue
            rows.append(c.features)
            labels.append(0.0 if o.foreign else float(bool(c.dia_ids & o.gold)))
    return np.asarray(rows, dtype=np.float64).reshape(-1, len(FEATURES)), np.asarray(labels)


def rescored(outcomes: Sequence[Outcome], cal: Calibration, *, reorder: bool | None = None) -> list[Outcome]:
    """Copies whose candidates carry ``cal``'s relevance, ordered as recall would order them: by relevance when the
    calibration is fitted (``reorder`` default), else in the given (fused) order."""
    reorder = cal.fitted if reorder is None else reorder
    out = []
    for o in outcomes:
        probs = cal.predict([c.features for c in o.ranked]) if o.ranked else []
        ranked = [replace(c, relevance=round(float(p), 6)) for c, p in zip(o.ranked, probs, strict=True)]
        ranked.sort(key=lambda c: -c.features[_FUSED_Z] if len(c.features) == len(FEATURES) else 0.0)  # fused order
        if reorder:
            ranked.sort(key=lambda c: -(c.relevance or 0.0))  # stable: ties keep the fused order
        out.append(replace(o, ranked=ranked))
    return out


def choose_threshold(curve: Sequence[dict]) -> dict:
    """The lowest-noise point meeting both targets with the best hit rate; else the best hit − noise."""
    ok = [p for p in curve if p["answerable_hit_rate"] >= TARGET_HIT and (p["foreign_noise_rate"] or 0) <= TARGET_NOISE]
    if ok:
        return max(ok, key=lambda p: (p["answerable_hit_rate"], -(p["foreign_noise_rate"] or 0), p["threshold"]))
    return max(curve, key=lambda p: (p["answerable_hit_rate"] - (p["foreign_noise_rate"] or 0), p["threshold"]))


def calibration_block(outcomes: Sequence[Outcome], top: int = 10) -> dict:
    """Brier (all candidates and the top ``top`` per question, beside the base-rate forecast) and reliability data."""
    x, y = examples(outcomes)
    p = np.asarray([c.relevance for o in outcomes for c in o.ranked if len(c.features) == len(FEATURES)])
    head = [
        (c.relevance, 0.0 if o.foreign else float(bool(c.dia_ids & o.gold))) for o in outcomes for c in o.ranked[:top]
    ]
    hp, hy = (np.asarray(v) for v in zip(*head, strict=True)) if head else (np.zeros(0), np.zeros(0))
    rel = reliability(p, y)
    return {
        "candidates": int(len(y)),
        "positives": int(y.sum()),
        "brier": round(brier(p, y), 5),
        "brier_base_rate": round(brier(np.full(len(y), y.mean()), y), 5) if len(y) else None,
        f"brier_top{top}": round(brier(hp, hy), 5),
        f"brier_top{top}_base_rate": round(brier(np.full(len(hy), hy.mean()), hy), 5) if len(hy) else None,
        "ece": expected_calibration_error(rel),
        "reliability": rel,
    }


def _fold(train: Sequence[Outcome], *, embedder: str, l2: float) -> Calibration:
    x, y = examples(train)
    return fit_calibration(x, y, embedder=embedder, threshold=0.5, version="cv", source="cv fold", l2=l2)


def loco(outcomes: Sequence[Outcome], *, embedder: str, k: int, ks: Sequence[int], l2: float = 1.0) -> dict:
    """Leave-one-conversation-out: fit on the others (excluding any question *or* user of the left-out one), score
    the left-out conversation's own and foreign questions (ranked by that relevance, as recall ranks them), and pool
    the left-out predictions."""
    convs = sorted({o.sample_id for o in outcomes})
    held: list[Outcome] = []
    folds = {}
    for conv in convs:
        train = [o for o in outcomes if o.sample_id != conv and o.asked_of != conv]
        test = [o for o in outcomes if o.sample_id == conv]
        cal = _fold(train, embedder=embedder, l2=l2)
        scored = rescored(test, cal)
        held += scored
        own = [o for o in scored if not o.foreign]
        folds[conv] = {"brier": calibration_block(scored)["brier"], "recall@10": metrics.aggregate(own, [10])}
    curve = metrics.threshold_curves(held, k)
    chosen = choose_threshold(curve)
    own = [o for o in held if not o.foreign]
    return {
        "folds": folds,
        "calibration": calibration_block(held),
        "curve": curve,
        "chosen": chosen,
        "recall": _by_category(own, ks),
        "outcomes": held,
    }


def _by_category(outcomes: Sequence[Outcome], ks: Sequence[int]) -> dict:
    cats = sorted({o.category for o in outcomes})
    return {
        "overall": metrics.aggregate(outcomes, ks),
        "by_category": {str(c): metrics.aggregate([o for o in outcomes if o.category == c], ks) for c in cats},
    }


def fit_all(outcomes: Sequence[Outcome], *, embedder: str, threshold: float, version: str, meta: dict) -> Calibration:
    """The shipped fit: every conversation, with the threshold chosen on the left-out ones."""
    x, y = examples(outcomes)
    return fit_calibration(
        x, y, embedder=embedder, threshold=threshold, version=version, source="LoCoMo dev, all", meta=meta
    )
