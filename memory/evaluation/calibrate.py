"""Fit the relevance calibration for the service's embedder on LoCoMo-format data and report how it holds up on
conversations left out of the fit (``memlens eval calibrate``; ``python bench/calibrate.py``).

The threshold shipped with the fit is chosen on every full conversation's left-out predictions by the rule of
:func:`memory.evaluation.crossval.choose_threshold` (foreign noise capped at 5 %, then the best answerable hit rate), at
the configured k. The fit is named and dated (``<embedder>-locomo-<yyyymmdd>``) and carries what it measured left out
(``meta.measured``: gold injected and foreign noise against the threshold, per layer) for the retrieval lab. The same
rule, applied inside each fold to the training conversations' own left-out predictions, gives the honest left-out
figures (``left_out.nested``): there no threshold has seen the conversation it is scored on.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from memory.evaluation import crossval, metrics
from memory.evaluation.locomo import CATEGORIES
from memory.evaluation.runner import EvalOptions, gather
from memory.retrieval import relevance
from memory.retrieval.relevance import Calibration
from memory.service import MemoryService
from memory.storage.models import utcnow

Progress = Callable[[int], None]


def dated_version(embedder: str, shipped: str | None) -> str:
    """``<embedder>-locomo-<yyyymmdd>``, with a letter (``b``, ``c`` …) after the date when the shipped fit already
    carries that name: two fits of one day must not share a name, since reports and pages name the fit in use."""
    base = f"{embedder}-locomo-{utcnow():%Y%m%d}"
    if not shipped or not shipped.startswith(base):
        return base
    suffix = shipped[len(base) :]
    if suffix == "":
        return base + "b"
    if len(suffix) == 1 and "b" <= suffix < "z":
        return base + chr(ord(suffix) + 1)
    return f"{base}-{utcnow():%H%M}"


def measured(held: list, k: int) -> dict:
    """Gold injected and foreign noise against the threshold, every layer together and per layer, on the full
    conversations' left-out predictions: shipped in the calibration's ``meta`` so the retrieval lab can show both for
    the threshold under its slider (:meth:`memory.retrieval.relevance.Calibration.measured_at`)."""
    full = [o for o in held if crossval.store_of(o) == "full"]
    grid = list(crossval.CHOICE_GRID)
    curves = metrics.layer_curves(full, k, grid)
    return {
        "k": k,
        "source": "LoCoMo dev, each conversation left out of the fit",
        "thresholds": grid,
        **{
            layer: {
                "gold_injected": [p["answerable_hit_rate"] for p in rows],
                "foreign_noise": [p["foreign_noise_rate"] for p in rows],
            }
            for layer, rows in curves.items()
        },
    }


#: the k the recall goals are stated at (evidence recall@10, tokens@10)
RECALL_K = 10


def recall_left_out(held: list) -> dict:
    """Evidence recall@10 and tokens@10 on the full conversations' left-out rankings, overall and per LoCoMo
    category: shipped in the calibration's ``meta`` beside :func:`measured`, so the Evaluation page names them with
    the calibration."""
    own = [o for o in held if crossval.store_of(o) == "full" and not o.foreign]
    overall = metrics.aggregate(own, [RECALL_K])
    cats = sorted({o.category for o in own})
    return {
        "k": RECALL_K,
        "recall": overall[f"recall@{RECALL_K}"],
        "tokens": overall[f"tokens@{RECALL_K}"],
        "by_category": {
            CATEGORIES.get(c, str(c)): metrics.aggregate([o for o in own if o.category == c], [RECALL_K])[
                f"recall@{RECALL_K}"
            ]
            for c in cats
        },
    }


def full_figures(outcomes: list, threshold: float, k: int, ks: tuple[int, ...]) -> dict:
    """On the full conversations: gold injected and foreign noise at the threshold (every layer and per layer) and
    evidence recall by category, ranked by this calibration's relevance (as recall ranks)."""
    full = [o for o in outcomes if crossval.store_of(o) == "full"]
    own = [o for o in full if not o.foreign]
    return {
        "at_threshold": metrics.at_threshold(full, threshold, k),
        "by_layer": {layer: metrics.at_threshold(full, threshold, k, layer) for layer in metrics.LAYERS},
        "recall": {
            "overall": metrics.aggregate(own, ks),
            "by_category": {
                str(c): metrics.aggregate([o for o in own if o.category == c], ks)
                for c in sorted({o.category for o in own})
            },
        },
    }


def calibrate(
    svc: MemoryService, path: str | Path, opts: EvalOptions, *, bar: Callable[[str, int], Progress] | None = None
) -> tuple[dict, Calibration]:
    """(report, fitted calibration): leave-one-conversation-out first, then one fit on every conversation."""
    samples, _stats, asked = gather(svc, path, opts, bar)
    if len(samples) < 2:
        raise ValueError("calibration needs at least two conversations (one is asked of the other's user)")
    both = [*asked.outcomes[opts.mode], *asked.foreign]
    embedder = svc.embedder_name
    k = svc.recall_policy().k
    cv = crossval.loco(both, embedder=embedder, k=k, ks=opts.ks)
    held = cv.pop("outcomes")
    chosen = cv["chosen"]
    version = dated_version(embedder, relevance.shipped(embedder).version)
    meta = {
        "samples": [s.sample_id for s in samples],
        "k": k,
        "cv_at_threshold": chosen,
        "cv_nested_at_threshold": (cv.get("nested") or {}).get("at_threshold"),
        # the goals' own protocol: full conversations, each question asked of the next conversation's user
        "cv_nested_full": ((cv.get("nested") or {}).get("by_store") or {}).get("full"),
        "cv_nested_full_by_layer": (cv.get("nested") or {}).get("full_by_layer"),
        "cv_brier": cv["calibration"]["brier"],
        "mode": opts.mode,
    }
    meta["measured"] = measured(held, k)
    meta["recall_left_out"] = recall_left_out(held)
    cal = crossval.fit_all(both, embedder=embedder, threshold=chosen["threshold"], version=version, meta=meta)
    in_sample = crossval.rescored(both, cal)
    raw = crossval.rescored(both, Calibration(embedder="raw"))
    report = {
        "benchmark": "locomo-calibration",
        "dataset": Path(path).name,
        "created_at": utcnow().isoformat(),
        "embedder": embedder,
        "version": version,
        "k": k,
        "samples": meta["samples"],
        "left_out": {**cv, "folds": cv["folds"]},
        "in_sample": {
            "calibration": crossval.calibration_block(in_sample),
            "at_threshold": metrics.at_threshold(in_sample, chosen["threshold"], k),
        },
        "before_raw_similarity_0.80": metrics.at_threshold(raw, 0.80, k),
        "left_out_at_shipped_threshold": metrics.at_threshold(held, chosen["threshold"], k),
        # the same cut per store size: full conversations and early stores (a new user's few memories)
        "left_out_at_shipped_threshold_by_store": crossval.at_threshold_by_store(held, chosen["threshold"], k),
        "in_sample_at_shipped_threshold_by_store": crossval.at_threshold_by_store(in_sample, chosen["threshold"], k),
        # the goals' protocol: full conversations' questions, each also asked of the next conversation's user
        "left_out_full": full_figures(held, chosen["threshold"], k, opts.ks),
        "in_sample_full": full_figures(in_sample, chosen["threshold"], k, opts.ks),
        "coefficients": cal.to_dict(),
    }
    return report, cal
