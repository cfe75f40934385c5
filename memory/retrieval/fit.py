"""Fitting and checking a relevance calibration: L2-regularised logistic regression (Newton / IRLS in numpy),
Brier score and reliability-diagram data.

Why numpy and not scikit-learn: a dozen features and a few hundred thousand rows converge in ~10 Newton steps; the
whole fit is 30 lines, and the app does not carry a 40 MB dependency for it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from memory.retrieval.relevance import FEATURES, Z_CLIP, Calibration, LayerModel


def fit_logistic(x: np.ndarray, y: np.ndarray, *, l2: float = 1.0, iters: int = 50) -> tuple[np.ndarray, float]:
    """Coefficients and intercept minimising log-loss + l2/2·|w|² (intercept unpenalised) on standardised ``x``."""
    n, d = x.shape
    a = np.column_stack([x, np.ones(n)])
    w = np.zeros(d + 1)
    penalty = np.full(d + 1, l2)
    penalty[-1] = 0.0
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-np.clip(a @ w, -35, 35)))
        grad = a.T @ (p - y) + penalty * w
        hess = (a * (p * (1 - p))[:, None]).T @ a + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    return w[:-1], float(w[-1])


def fit_model(x: np.ndarray, y: np.ndarray, *, l2: float = 1.0) -> LayerModel:
    """One logistic model from raw feature rows (standardised here; mean/scale are kept with it)."""
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    coef, intercept = fit_logistic(np.clip((x - mean) / scale, -Z_CLIP, Z_CLIP), y, l2=l2)
    return LayerModel(
        coef=tuple(round(float(c), 6) for c in coef),
        intercept=round(intercept, 6),
        mean=tuple(round(float(m), 6) for m in mean),
        scale=tuple(round(float(s), 6) for s in scale),
    )


def fit_calibration(
    x: np.ndarray,
    y: np.ndarray,
    *,
    embedder: str,
    threshold: float,
    version: str,
    source: str,
    l2: float = 1.0,
    meta: dict | None = None,
    layered: bool = False,
) -> Calibration:
    """A :class:`Calibration` from raw feature rows. ``layered``: episodes and extracted memories get a model each
    (when both layers have relevant and not-relevant examples; else one model for both)."""
    x = np.asarray(x, dtype=np.float64).reshape(-1, len(FEATURES))
    y = np.asarray(y, dtype=np.float64)
    if len(set(y.tolist())) < 2:
        raise ValueError("a calibration needs both relevant and not-relevant examples")
    said = x[:, FEATURES.index("is_episode")] > 0.5
    apart = layered and all(len(set(y[part].tolist())) == 2 for part in (said, ~said))
    main = fit_model(x[~said], y[~said], l2=l2) if apart else fit_model(x, y, l2=l2)
    return Calibration(
        embedder=embedder,
        coef=main.coef,
        intercept=main.intercept,
        mean=main.mean,
        scale=main.scale,
        threshold=round(float(threshold), 4),
        version=version,
        source=source,
        meta=meta or {},
        episodes=fit_model(x[said], y[said], l2=l2) if apart else None,
    )


def brier(p: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> float:
    """Mean squared error of the probabilities (0 = perfect; always predicting the base rate b gives b(1−b))."""
    p, y = np.asarray(p, dtype=np.float64), np.asarray(y, dtype=np.float64)
    return float(np.mean((p - y) ** 2)) if len(p) else 0.0


def reliability(p: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray, bins: int = 10) -> list[dict]:
    """Reliability-diagram data: per probability bin, how many, the mean prediction and the observed frequency."""
    p, y = np.asarray(p, dtype=np.float64), np.asarray(y, dtype=np.float64)
    idx = np.minimum((p * bins).astype(int), bins - 1)
    out = []
    for b in range(bins):
        mask = idx == b
        n = int(mask.sum())
        out.append(
            {
                "bin": [round(b / bins, 3), round((b + 1) / bins, 3)],
                "n": n,
                "mean_predicted": round(float(p[mask].mean()), 4) if n else None,
                "observed": round(float(y[mask].mean()), 4) if n else None,
            }
        )
    return out


def expected_calibration_error(rel: list[dict]) -> float:
    """Σ n_b/N · |observed − predicted| over the reliability bins."""
    total = sum(r["n"] for r in rel)
    if not total:
        return 0.0
    return round(sum(r["n"] * abs(r["observed"] - r["mean_predicted"]) for r in rel if r["n"]) / total, 4)
