"""The recall policy: every knob of one search (mode, k, threshold, fusion weights, neighbours, context) and the
relevance calibration it goes with, as one frozen, typed value.

It is built once from the live settings (:func:`resolve`, ``MemoryService.recall_policy``) and passed whole through
the service, the agent's graph and the doors; a change is a new value (:meth:`RecallPolicy.replace`), and a name
that is not a knob (``treshold``) is refused, never silently ignored.

What ``threshold`` and each hit's ``relevance`` mean depends on the calibration, and the policy says which
(:attr:`RecallPolicy.relevance`): a calibrated *probability* of being relevant when a fitted calibration applies,
else the raw cosine *similarity* (clipped to [0, 1]; :mod:`memory.retrieval.relevance`).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from dataclasses import replace as _replace
from enum import StrEnum
from typing import Any, TypedDict

from memory.config import Settings
from memory.errors import InvalidInput
from memory.retrieval.relevance import Calibration
from memory.vocab import SearchMode


class RelevanceScale(StrEnum):
    """What a hit's ``relevance`` (and so the policy's ``threshold``) holds."""

    #: an estimated probability that the memory is relevant (a fitted calibration applies)
    PROBABILITY = "probability"
    #: the raw cosine similarity clipped to [0, 1] (no fit for this embedder, or the fit is for another mode)
    SIMILARITY = "similarity"


def _fallback() -> Calibration:
    return Calibration(embedder="unknown")


@dataclass(frozen=True)
class RecallPolicy:
    """One search's knobs and calibration (frozen: change one with :meth:`replace`)."""

    mode: str
    k: int
    threshold: float  # on relevance (see ``relevance`` for its scale)
    similarity_floor: float | None  # optional second knob, on raw similarity
    relative_cut: float | None
    fusion: str
    vector_weight: float
    rrf_k: int
    pool: int
    neighbor_weight: float
    neighbor_weight_fts: float
    neighbor_span: int
    day_boost: float
    #: also search the full-text index with the query's words in the other language (:mod:`.crosslingual`)
    crosslingual: bool = True
    include_flagged: bool = False
    #: "relevance" when a fitted calibration applies (it ranks better on left-out LoCoMo conversations), else "fused"
    order: str = "fused"
    #: source context: turns within this many positions of a selected memory's source message (0 = off)
    context_span: int = 2
    #: pass over a candidate within this cosine of a better-ranked selected one (0 = off): what the agent injects
    #: does; a door's search does not (``MemoryService.door_search``), it returns every match it promises
    near_duplicate_cosine: float = 0.0
    #: the relevance model the threshold is on (not a knob: it follows the mode, see :func:`resolve`)
    calibration: Calibration = field(default_factory=_fallback, compare=False, repr=False)

    def __post_init__(self) -> None:
        _check(self)
        object.__setattr__(self, "pool", max(self.pool, self.k))

    @property
    def relevance(self) -> RelevanceScale:
        """What ``threshold`` and each hit's ``relevance`` hold: a calibrated probability or a raw similarity."""
        return RelevanceScale.PROBABILITY if self.calibration.fitted else RelevanceScale.SIMILARITY

    def replace(self, **changes: Any) -> RecallPolicy:
        """This policy with some knobs changed; a name that is not a knob raises :class:`InvalidInput` (with the
        closest knob's name), and the new values are checked like the settings'."""
        unknown = sorted(set(changes) - KNOBS)
        if unknown:
            raise InvalidInput("; ".join(_unknown(name) for name in unknown))
        return _replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """The knobs as plain values, with the relevance scale and the calibration's version (the retrieval log's
        ``params``, the CLI's JSON)."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "calibration"}
        out["relevance"] = str(self.relevance)
        out["calibration"] = self.calibration.version
        return out

    @classmethod
    def from_settings(cls, s: Settings, *, threshold: float, calibration: Calibration | None = None) -> RecallPolicy:
        """``threshold`` is the relevance cut in force (the setting, or the calibration's own when unset)."""
        return cls(
            mode=s.search_mode,
            k=s.top_k,
            threshold=threshold,
            similarity_floor=s.similarity_floor,
            relative_cut=s.relative_cut,
            fusion=s.fusion,
            vector_weight=s.vector_weight,
            rrf_k=s.rrf_k,
            pool=s.candidate_pool,
            neighbor_weight=s.neighbor_weight,
            neighbor_weight_fts=s.neighbor_weight_fts,
            neighbor_span=s.neighbor_span,
            day_boost=s.day_boost,
            crosslingual=s.crosslingual_lexicon,
            context_span=s.context_span,
            near_duplicate_cosine=s.near_duplicate_cosine,
            calibration=calibration or _fallback(),
        )


class PolicyChanges(TypedDict, total=False):
    """The knobs a caller may change (``MemoryService.recall_policy(**changes)``): typed for the checker, and
    checked again at run time. None = not given (the setting holds), as a door passes an option left out."""

    mode: str | None
    k: int | None
    threshold: float | None
    similarity_floor: float | None
    relative_cut: float | None
    fusion: str | None
    vector_weight: float | None
    rrf_k: int | None
    pool: int | None
    neighbor_weight: float | None
    neighbor_weight_fts: float | None
    neighbor_span: int | None
    day_boost: float | None
    crosslingual: bool | None
    include_flagged: bool | None
    order: str | None
    context_span: int | None
    near_duplicate_cosine: float | None


#: every name :meth:`RecallPolicy.replace` accepts
KNOBS = frozenset(PolicyChanges.__annotations__)


def _unknown(name: str) -> str:
    close = difflib.get_close_matches(name, sorted(KNOBS), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"{name!r} is not a recall setting{hint}; the settings are {', '.join(sorted(KNOBS))}"


def _check(p: RecallPolicy) -> None:
    if p.order not in ("relevance", "fused"):
        raise InvalidInput(f"order must be relevance or fused, not {p.order!r}")
    if p.mode not in set(SearchMode):
        raise InvalidInput(f"mode must be {', '.join(SearchMode)}, not {p.mode!r}")
    if isinstance(p.k, bool) or not isinstance(p.k, int) or p.k < 1:
        raise InvalidInput(f"k must be a whole number of at least 1, not {p.k!r}")
    if not -1.0 <= p.threshold <= 1.0:  # also refuses NaN, which would otherwise reach SQL as NULL
        raise InvalidInput(f"threshold must be between -1 and 1, not {p.threshold}")
    floor = p.similarity_floor
    if floor is not None and not -1.0 <= floor <= 1.0:
        raise InvalidInput(f"similarity floor must be between -1 and 1, not {floor}")
    if p.relative_cut is not None and not p.relative_cut >= 0.0:
        raise InvalidInput(f"relative cut must be 0 or more, not {p.relative_cut}")
    if not 0 <= p.context_span <= 20:
        raise InvalidInput(f"context span must be between 0 and 20, not {p.context_span}")
    if not 0.0 <= p.near_duplicate_cosine <= 1.0:
        raise InvalidInput(f"near-duplicate cosine must be between 0 and 1 (0 = off), not {p.near_duplicate_cosine}")
    fit_mode = p.calibration.meta.get("mode")
    if p.calibration.fitted and fit_mode not in (None, p.mode):  # features mean other things in other modes
        raise InvalidInput(
            f"the relevance calibration was fitted for {fit_mode} mode: ask for a {p.mode} policy "
            f"(MemoryService.recall_policy(mode={p.mode!r})), which takes the calibration that holds for it"
        )


def calibration_for(calibration: Calibration, mode: str) -> Calibration:
    """``calibration`` when it holds for ``mode``, else the raw-similarity fallback saying why (the features of a fit
    mean other things in other modes)."""
    fit_mode = calibration.meta.get("mode")
    if calibration.fitted and fit_mode not in (None, mode):
        return Calibration(embedder=calibration.embedder, source=f"fitted for {fit_mode} mode only")
    return calibration


def resolve(settings: Settings, calibration: Calibration, changes: Mapping[str, Any] | None = None) -> RecallPolicy:
    """The policy in force: the live ``settings`` with ``changes`` on top (None values = not given), on
    ``calibration`` when it holds for the mode, else on raw similarity. The threshold is the setting, else the
    calibration's own; the order is by relevance when a fit applies, unless ``changes`` say otherwise."""
    given = {k: v for k, v in (changes or {}).items() if v is not None}
    unknown = sorted(set(given) - KNOBS)
    if unknown:
        raise InvalidInput("; ".join(_unknown(name) for name in unknown))
    mode = given.get("mode", settings.search_mode)
    calibration = calibration_for(calibration, mode)
    threshold = settings.relevance_threshold if settings.relevance_threshold is not None else calibration.threshold
    base = RecallPolicy.from_settings(
        settings.model_copy(update={"search_mode": mode}) if mode in set(SearchMode) else settings,
        threshold=threshold,
        calibration=calibration,
    )
    order = "relevance" if calibration.fitted else "fused"
    return base.replace(**{"order": order, **given})
