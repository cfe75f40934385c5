"""Calibrated relevance: an estimate, in [0, 1], of the probability that a candidate is relevant to the query.

Why: raw e5 cosine crowds into 0.73–0.90 whatever the query, so no threshold on it separates "relevant" from
"nothing fits". A logistic model over signals the search already has — the similarity, its standing among this
query's candidates, normalised and absolute BM25, neighbour evidence, rank, memory type, and how good the best
candidate is — is fitted offline on LoCoMo (positives: evidence memories; negatives: the other candidates and every
candidate retrieved for the question from another conversation's user) and shipped as a small versioned JSON per
embedder (``memory/retrieval/calibration/<embedder>.json``). An embedder without a fit falls back to
``relevance = clip(similarity, 0, 1)`` and says so (:attr:`Calibration.notice`).

Pure numpy, no I/O besides reading the shipped file.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from memory.retrieval.crosslingual import overlap as other_language_overlap
from memory.text.language import CJK
from memory.vocab import MemoryType

log = logging.getLogger(__name__)

#: 2: the ``names_here`` feature, and an optional model of its own for episodes (``episodes``)
FORMAT_VERSION = 2
#: standardised features are clipped to ±this: a store unlike the fit's (a few facts, no conversation turns, so no
#: neighbours) must not be pushed far outside the range the coefficients were fitted on
Z_CLIP = 3.0
SHIPPED_DIR = Path(__file__).with_name("calibration")
#: the fallback's threshold on raw similarity (the pre-calibration default, tuned for e5)
FALLBACK_THRESHOLD = 0.80

FEATURES = (
    "sim",  # raw similarity
    "sim_z",  # (sim - mean) / sd over this query's candidates
    "sim_gap",  # best similarity - sim
    "bm25_norm",  # BM25 / best BM25 among the candidates (0 when not found by full text)
    "bm25_log",  # log(1 + raw BM25): absolute lexical evidence
    "fused_z",  # (fused - mean) / sd over the candidates
    "fused_gap",  # (best fused - fused) / sd
    "log_rank",  # log(rank by fused score)
    "neighbour",  # neighbour-smoothed similarity - raw (hybrid over turns; 0 otherwise)
    "is_episode",  # an episode, what was said (1), or an extracted memory (0)
    "top_sim",  # best similarity of the query: is anything close at all?
    "top_bm25_log",  # log(1 + best BM25) of the query
    "overlap",  # share of the query's content terms found in this candidate (or of its concepts, across languages)
    "top_overlap",  # best overlap among the top candidates (query-level)
    "names_missing",  # share of the query's names found in none of the candidates (query-level; 0 without names)
    "names_here",  # share of the query's names this candidate states (0 without names)
)
#: features left unclipped: a share of the query's terms is bounded (0–1) by what it counts, so it cannot run off
#: like BM25 or neighbour evidence on an unlike store; clipped, it saturated — term overlap among LoCoMo's fact
#: candidates has mean 0.04 and sd 0.09, so a memory stating every concept of the query (1.0) and one stating half
#: (0.5) stood at the same +3 sd, and "Does the user eat spicy food?" ranked 用户爱吃甜食 above 用户不吃辣
UNCLIPPED = frozenset({"overlap"})


def z_clip() -> tuple[float, ...]:
    """The clip of each standardised feature, in :data:`FEATURES` order (:data:`Z_CLIP`, or none: :data:`UNCLIPPED`)."""
    return tuple(math.inf if name in UNCLIPPED else Z_CLIP for name in FEATURES)


_IS_EPISODE = FEATURES.index("is_episode")
_TOP = 20  # query-level overlap looks at the first candidates by fused score
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]+|\d+|[\u3400-\u9fff]+")
_STOP_WORDS = """the and for are was were did does what when where which who whom why how with from that this have has
had about into after before their they them his her she him you your our its any some many much than then there been
being would could should will can not but also just like doing done"""
_NOT_NAME_WORDS = "what when where which who whom why how did does do is are was were the a an i in on"
_STOP = frozenset(_STOP_WORDS.split())
_POSSESSIVE = re.compile(r"['’]s$")
_NOT_NAMES = frozenset(_NOT_NAME_WORDS.split())


@dataclass(frozen=True)
class Scored:
    """One candidate's inputs to the features (raw signals, as the search produced them)."""

    memory_id: str
    similarity: float | None
    bm25: float | None
    fused: float
    smoothed: float | None = None
    type: str = MemoryType.EPISODE
    text: str = ""
    place: int | None = None  # the message it came from (its place in the conversation), when exactly one
    day: int | None = None  # the day it was said (proleptic ordinal)
    subject: str | None = None


@lru_cache(maxsize=50_000)
def terms(text: str) -> frozenset[str]:
    """Content terms: lower-cased words of 3+ letters minus stop words, numbers, and CJK character bigrams.
    Cached: the same memories come back as candidates query after query."""
    out: set[str] = set()
    for tok in _WORD.findall(text):
        if CJK.match(tok[0]):
            out.update(tok[i : i + 2] for i in range(max(1, len(tok) - 1)))
        elif (low := tok.lower()) not in _STOP and (len(low) >= 3 or low.isdigit()):
            out.add(low)
    return frozenset(out)


@lru_cache(maxsize=50_000)
def _words(text: str) -> frozenset[str]:
    """Every word of a text, lower-cased, without a possessive 's (for the names-missing feature)."""
    return frozenset(_POSSESSIVE.sub("", w.lower()) for w in _WORD.findall(text))


def names(query: str) -> set[str]:
    """Capitalised words of the query after its first word (people, places): lower-cased."""
    words = _WORD.findall(query)[1:]
    return {_POSSESSIVE.sub("", w.lower()) for w in words if w[:1].isupper() and w.lower() not in _NOT_NAMES}


def _lexical(query: str, cands: Sequence[Scored], order, crosslingual: bool):
    """Per-candidate overlap with the query's terms (or, when larger, with its concepts stated in the other language),
    the best overlap among the top ones, the names missing, and each candidate's share of the query's names (None
    without names)."""
    import numpy as np

    wanted = terms(query)
    bags = [terms(c.text) for c in cands]
    overlap = np.array([len(wanted & b) / len(wanted) if wanted else 0.0 for b in bags])
    if crosslingual:
        overlap = np.maximum(overlap, np.array(other_language_overlap(query, [c.text for c in cands])))
    top = float(overlap[order[:_TOP]].max()) if len(order) else 0.0
    wanted_names = names(query)
    each = [_words(c.text) for c in cands] if wanted_names else []
    words = frozenset().union(*each) if wanted_names else frozenset()
    missing = len(wanted_names - words)  # whole words: "Tim" is not found in "time"
    here = np.array([len(wanted_names & w) / len(wanted_names) for w in each]) if wanted_names else None
    return overlap, top, missing / len(wanted_names) if wanted_names else 0.0, here


def _z(values):
    sd = values.std()
    return (values - values.mean()) / (sd if sd > 1e-9 else 1.0)


def features(cands: Sequence[Scored], query: str = "", *, crosslingual: bool = True) -> dict[str, list[float]]:
    """memory id -> feature vector (order of :data:`FEATURES`), computed over one query's candidate set.
    ``crosslingual``: the overlap feature also counts the query's concepts a candidate states in the other language
    (:mod:`memory.retrieval.crosslingual`)."""
    import numpy as np  # on use: SQL-only commands start without it

    if not cands:
        return {}
    sim = np.array([c.similarity if c.similarity is not None else 0.0 for c in cands], dtype=np.float64)
    bm = np.array([c.bm25 or 0.0 for c in cands], dtype=np.float64)
    fused = np.array([c.fused for c in cands], dtype=np.float64)
    smooth = np.array([c.smoothed if c.smoothed is not None else s for c, s in zip(cands, sim, strict=True)])
    order = np.argsort(-fused, kind="stable")
    rank = np.empty(len(cands))
    rank[order] = np.arange(1, len(cands) + 1)
    top_bm = bm.max()
    fsd = fused.std() if fused.std() > 1e-9 else 1.0
    overlap, top_overlap, missing, here = _lexical(query, cands, order, crosslingual)
    cols = [
        sim,
        _z(sim),
        sim.max() - sim,
        bm / top_bm if top_bm > 0 else np.zeros_like(bm),
        np.log1p(np.maximum(bm, 0.0)),
        _z(fused),
        (fused.max() - fused) / fsd,
        np.log(rank),
        smooth - sim,
        np.array([1.0 if c.type == MemoryType.EPISODE else 0.0 for c in cands]),
        np.full(len(cands), sim.max()),
        np.full(len(cands), math.log1p(max(top_bm, 0.0))),
        overlap,
        np.full(len(cands), top_overlap),
        np.full(len(cands), missing),
        here if here is not None else np.zeros(len(cands)),
    ]
    rows = np.column_stack(cols).tolist()  # Python floats: round() on them is the same value, several times faster
    return {c.memory_id: [round(v, 6) for v in row] for c, row in zip(cands, rows, strict=True)}


@dataclass(frozen=True)
class LayerModel:
    """One logistic model: standardisation and coefficients (rows in :data:`FEATURES` order)."""

    coef: tuple[float, ...]
    intercept: float
    mean: tuple[float, ...]
    scale: tuple[float, ...]

    def predict(self, x):
        import numpy as np

        clip = np.asarray(z_clip())
        z = np.clip((x - np.asarray(self.mean)) / np.asarray(self.scale), -clip, clip)
        return 1.0 / (1.0 + np.exp(-(z @ np.asarray(self.coef) + self.intercept)))

    def to_dict(self) -> dict:
        return {
            "mean": list(self.mean),
            "scale": list(self.scale),
            "coef": list(self.coef),
            "intercept": self.intercept,
        }

    @classmethod
    def from_dict(cls, data: Mapping) -> LayerModel:
        n = len(FEATURES)
        coef, mean, scale = (tuple(float(v) for v in data[k]) for k in ("coef", "mean", "scale"))
        if not (len(coef) == len(mean) == len(scale) == n) or min(scale) <= 0:
            raise ValueError("calibration file has malformed coefficients")
        return cls(coef, float(data["intercept"]), mean, scale)


@dataclass(frozen=True)
class Calibration:
    """A fitted logistic model for one embedder, or the raw-similarity fallback (``coef`` empty).

    With ``episodes`` the two layers have curves of their own: episodes (what was said, one per message, many and
    short) and extracted memories (few, rewritten) stand differently among the candidates, and one model for both
    let a stranger's chit-chat through while cutting real facts. ``coef``/``mean``/... are then the extracted
    memories' model and ``episodes`` the episodes'; each hit's relevance comes from its own layer's model, and that
    one number is what the threshold compares and what every page shows."""

    embedder: str
    coef: tuple[float, ...] = ()
    intercept: float = 0.0
    mean: tuple[float, ...] = ()
    scale: tuple[float, ...] = ()
    threshold: float = FALLBACK_THRESHOLD
    version: str = "fallback"
    source: str = "raw similarity"
    meta: dict = field(default_factory=dict, compare=False, hash=False)
    episodes: LayerModel | None = None

    @property
    def fitted(self) -> bool:
        return bool(self.coef)

    @property
    def notice(self) -> str | None:
        """Why relevance is raw similarity here (None when a fit applies)."""
        if self.fitted:
            return None
        why = f" ({self.source})" if self.source != "raw similarity" else ""
        return (
            f"no relevance calibration for embedder {self.embedder!r}{why}: relevance = raw similarity "
            f"(threshold {self.threshold:.2f}); fit one from LoCoMo or from the lab's labels"
        )

    def predict(self, rows):
        """Probabilities for a feature matrix (rows in :data:`FEATURES` order): a numpy array."""
        import numpy as np

        x = np.asarray(rows, dtype=np.float64).reshape(-1, len(FEATURES))
        if not self.fitted:
            return np.clip(x[:, 0], 0.0, 1.0)
        out = LayerModel(self.coef, self.intercept, self.mean, self.scale).predict(x)
        if self.episodes is not None:
            said = x[:, _IS_EPISODE] > 0.5
            out[said] = self.episodes.predict(x[said])
        return out

    def score(self, feats: Mapping[str, Sequence[float]]) -> dict[str, float]:
        """memory id -> relevance, rounded for display and logging."""
        if not feats:
            return {}
        ids = list(feats)
        probs = self.predict([feats[i] for i in ids])
        return {i: round(float(p), 6) for i, p in zip(ids, probs, strict=True)}

    def measured_at(self, threshold: float) -> dict | None:
        """What this calibration measured at ``threshold`` on conversations left out of its fit (``meta.measured``,
        written by ``memlens eval calibrate``): the share of answerable questions with a gold memory injected and of
        questions asked of another user's store that inject anything, every layer together and per layer, at the
        largest measured threshold not above ``threshold`` (so never a flattering neighbour). None when the file
        measured nothing (the fallback, an own fit from labels)."""
        m = self.meta.get("measured")
        if not isinstance(m, dict) or not m.get("thresholds"):
            return None
        grid = [float(t) for t in m["thresholds"]]
        at = max((i for i, t in enumerate(grid) if t <= threshold + 1e-9), default=0)
        layers = {
            name: {key: m[name][key][at] for key in ("gold_injected", "foreign_noise")}
            for name in ("all", "episodes", "facts")
            if isinstance(m.get(name), dict)
        }
        return {"threshold": grid[at], "k": m.get("k"), "source": m.get("source", ""), **layers}

    def to_dict(self) -> dict:
        return {
            "format": FORMAT_VERSION,
            "version": self.version,
            "embedder": self.embedder,
            "features": list(FEATURES),
            "mean": list(self.mean),
            "scale": list(self.scale),
            "coef": list(self.coef),
            "intercept": self.intercept,
            "threshold": self.threshold,
            "source": self.source,
            **({"episodes": self.episodes.to_dict()} if self.episodes is not None else {}),
            "meta": self.meta,
        }

    @classmethod
    def from_dict(cls, data: Mapping) -> Calibration:
        """Refuses a file for other features or another format (a stale fit must not score silently)."""
        if data.get("format") != FORMAT_VERSION or list(data.get("features", [])) != list(FEATURES):
            raise ValueError("calibration file is for another format or feature set")
        main = LayerModel.from_dict(data)
        return cls(
            embedder=str(data["embedder"]),
            coef=main.coef,
            intercept=main.intercept,
            mean=main.mean,
            scale=main.scale,
            threshold=float(data["threshold"]),
            version=str(data.get("version", "?")),
            source=str(data.get("source", "")),
            meta=dict(data.get("meta") or {}),
            episodes=LayerModel.from_dict(data["episodes"]) if data.get("episodes") is not None else None,
        )


def shipped_path(embedder: str) -> Path:
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in embedder)
    return SHIPPED_DIR / f"{safe}.json"


@lru_cache(maxsize=16)
def shipped(embedder: str) -> Calibration:
    """The shipped fit for ``embedder``, or the fallback (logged once) when there is none or it is unreadable."""
    path = shipped_path(embedder)
    try:
        cal = Calibration.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        cal = Calibration(embedder=embedder)
    except (ValueError, KeyError, TypeError, json.JSONDecodeError) as exc:
        log.warning("ignoring calibration %s: %s", path.name, exc)
        cal = Calibration(embedder=embedder)
    if cal.fitted and cal.embedder != embedder:
        cal = Calibration(embedder=embedder)
    if not cal.fitted:
        log.warning(cal.notice)
    return cal
