"""The recall set-up a deployment is running: which relevance calibration applies, and the check of a live one.
It lives here, above the storage floor (:class:`memory.storage.store.Storage` only holds the settings these read);
the knobs of one search are :mod:`memory.retrieval.policy`'s."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memory.config import Settings
from memory.errors import InvalidInput
from memory.retrieval import relevance
from memory.retrieval.relevance import Calibration

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
