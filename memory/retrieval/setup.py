"""The recall set-up a deployment is running: which relevance calibration applies and the validated search
parameters (live settings, then a caller's overrides). Retrieval policy lives here, above the storage floor: the
:class:`memory.storage.store.Storage` only holds the settings these read."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memory.config import Settings
from memory.errors import InvalidInput
from memory.retrieval import relevance
from memory.retrieval.recall import RecallParams
from memory.retrieval.relevance import Calibration
from memory.vocab import SearchMode

if TYPE_CHECKING:
    from memory.storage.store import Storage


def check_live_values(values: dict[str, Any]) -> None:
    """Refuse a live ``relevance_calibration`` that is not one (the ranges are the Settings' own checks)."""
    if values.get("relevance_calibration") is not None:
        try:
            Calibration.from_dict(values["relevance_calibration"])
        except (ValueError, KeyError, TypeError) as exc:
            raise InvalidInput(f"not a relevance calibration: {exc}") from exc


def relevance_model(store: Storage, settings: Settings | None = None) -> Calibration:
    """The deployment's own calibration (fitted from the lab's labels) when it is for this embedder, else the
    shipped one for the embedder, else the raw-similarity fallback (which says so in its ``notice``)."""
    s = settings or store.effective_settings()
    name = getattr(store.embedder, "name", type(store.embedder).__name__)
    if s.relevance_calibration:
        try:
            own = Calibration.from_dict(s.relevance_calibration)
        except (ValueError, KeyError, TypeError):
            own = None
        if own is not None and own.embedder == name:
            return own
    return relevance.shipped(name)


def recall_setup(store: Storage, **overrides: Any) -> tuple[RecallParams, Calibration]:
    """Validated parameters (live settings, then ``overrides``) and the calibration they go with."""
    s = store.effective_settings()
    calibration = relevance_model(store, s)
    threshold = s.relevance_threshold if s.relevance_threshold is not None else calibration.threshold
    params = RecallParams.from_settings(s, threshold=threshold)
    for key, value in overrides.items():
        if value is not None:
            setattr(params, key, value)
    fit_mode = calibration.meta.get("mode")
    if calibration.fitted and fit_mode not in (None, params.mode):  # features mean other things in other modes
        calibration = Calibration(embedder=calibration.embedder, source=f"fitted for {fit_mode} mode only")
        if s.relevance_threshold is None and overrides.get("threshold") is None:
            params.threshold = calibration.threshold
    if overrides.get("order") is None:
        params.order = "relevance" if calibration.fitted else "fused"
    return _checked(params), calibration


def _checked(params: RecallParams) -> RecallParams:
    if params.order not in ("relevance", "fused"):
        raise InvalidInput(f"order must be relevance or fused, not {params.order!r}")
    if params.mode not in set(SearchMode):
        raise InvalidInput(f"mode must be {', '.join(SearchMode)}, not {params.mode!r}")
    if params.k < 1:
        raise InvalidInput("k must be at least 1")
    if not -1.0 <= params.threshold <= 1.0:  # also refuses NaN, which would otherwise reach SQL as NULL
        raise InvalidInput(f"threshold must be between -1 and 1, not {params.threshold}")
    floor = params.similarity_floor
    if floor is not None and not -1.0 <= floor <= 1.0:
        raise InvalidInput(f"similarity floor must be between -1 and 1, not {floor}")
    if params.relative_cut is not None and not params.relative_cut >= 0.0:
        raise InvalidInput(f"relative cut must be 0 or more, not {params.relative_cut}")
    if not 0 <= params.context_span <= 20:
        raise InvalidInput(f"context span must be between 0 and 20, not {params.context_span}")
    params.pool = max(params.pool, params.k)
    return params
