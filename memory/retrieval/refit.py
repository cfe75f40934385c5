"""Refit the relevance calibration from a deployment's own labels (the retrieval lab's "fit from my labels").

Each labelled query is searched again (not logged) to recover its candidates' features; the labelled ones become
the examples. The result is shown against the calibration shipped for the embedder — Brier on the labels and
precision / recall / F1 at each one's threshold — before anyone applies it. The own fit is judged
leave-one-query-out (a fit scored on its own few labels would flatter itself), with a stronger L2 penalty because
labels are few.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from memory.retrieval import relevance, tuning
from memory.retrieval.fit import brier, fit_calibration

MIN_EACH = 5  # relevant and not-relevant labels needed at least
L2 = 5.0

if TYPE_CHECKING:
    from memory.retrieval.recall import RecallResult

#: searches one labelled query again, unlogged, at threshold -1 (every candidate comes back with its features)
Replay = Callable[[dict[str, Any]], "RecallResult"]


def _examples(labelled: Iterable[dict[str, Any]], replay: Replay) -> tuple[list[list[float]], list[float], list[int]]:
    rows: list[list[float]] = []
    labels: list[float] = []
    groups: list[int] = []
    for entry in labelled:
        res = replay(entry)
        by_id = {h.memory_id: h for h in res.hits}
        for memory_id, relevant in entry["labels"].items():
            if memory_id in by_id and by_id[memory_id].features:
                rows.append(by_id[memory_id].features)
                labels.append(1.0 if relevant else 0.0)
                groups.append(entry["retrieval_id"])
    return rows, labels, groups


def _judge(probs: np.ndarray, y: np.ndarray, threshold: float) -> dict:
    pairs = list(zip(probs.tolist(), (y > 0.5).tolist(), strict=True))
    here = tuning.point_at(pairs, threshold)
    return {
        "brier": round(brier(probs, y), 4),
        "threshold": round(threshold, 3),
        "precision": here.precision,
        "recall": here.recall,
        "f1": here.f1,
    }


def _held_out(x: np.ndarray, y: np.ndarray, groups: np.ndarray, embedder: str) -> np.ndarray:
    """Leave-one-query-out probabilities of the own fit (a query whose fold lacks both classes keeps the base rate)."""
    out = np.full(len(y), y.mean())
    for g in np.unique(groups):
        train = groups != g
        if len(set(y[train].tolist())) < 2:
            continue
        cal = fit_calibration(x[train], y[train], embedder=embedder, threshold=0.5, version="", source="", l2=L2)
        out[~train] = cal.predict(x[~train])
    return out


def fit_from_labels(labelled: Iterable[dict[str, Any]], replay: Replay, embedder: str) -> dict:
    """{examples, positives, shipped: {...}, own: {...}, calibration: dict | None, reason: str | None}.

    ``MemoryService.refit_relevance`` passes the lab's labelled queries (``memory.views.labelled_queries``), its own
    unlogged recall and the embedder's name."""
    name = embedder
    rows, labels, groups = _examples(labelled, replay)
    y = np.asarray(labels)
    pos, neg = int(y.sum()), int(len(y) - y.sum())
    out: dict = {"examples": len(y), "positives": pos, "calibration": None, "reason": None}
    if pos < MIN_EACH or neg < MIN_EACH:
        out["reason"] = f"need at least {MIN_EACH} relevant and {MIN_EACH} not-relevant labels (have {pos} / {neg})"
        return out
    x = np.asarray(rows, dtype=np.float64)
    shipped = relevance.shipped(name)
    out["shipped"] = _judge(shipped.predict(x), y, shipped.threshold)
    held = _held_out(x, y, np.asarray(groups), name)
    best = tuning.suggest_threshold(tuning.pr_curve(list(zip(held.tolist(), (y > 0.5).tolist(), strict=True))))
    threshold = best.threshold if best else 0.5
    out["own"] = _judge(held, y, threshold)
    own = fit_calibration(
        x, y, embedder=name, threshold=threshold, version=f"{name}-labels-{len(y)}", source="own labels", l2=L2
    )
    out["calibration"] = own.to_dict()
    return out
