"""Worth keeping as a fact? A small learned decision over what the write path already has (issue 44).

Hand-written rules for "small talk, reactions, evaluations of the moment" were read off two tuning conversations and
stopped carrying over to conversations they were not read on (docs/extraction.md, third round). This is the same
decision learned instead: a logistic regression (L2, plain numpy) over the candidate's e5 passage vector — the one the
write path computes for deduplication and indexing anyway, never a second embedding — and a few cheap flags (whether
a reference was renamed, length, predicate, whether it names a person, a number or a date, hedged / negated). The
label it was fitted on is LoCoMo's own agreement: does the memory agree with an annotator's observation citing its
source turn (``memory.evaluation.facts``, exactly what precision counts). Fitted by ``bench/fit_keep.py`` on the
LoCoMo dev conversations, its keep-threshold (the highest F1) chosen on training folds only, measured
leaving one conversation out; the figures ship inside the file (``memory/write/keeping/<embedder>.json``).

Where it decides (and where it does not):

- only free statements in the speaker's own words (predicate fact / event / plan), said by the user (never the
  assistant's inference, never an explicit "remember this" kept verbatim): a name, a city, a diet is always kept,
  and so is a like — LoCoMo's annotators rarely note a short like ("User likes chess.": p 0.26 in a first fit that
  judged likes), but a user telling the assistant what they like expects it remembered;
- only English: the fit is on English LoCoMo and there is no labelled Chinese to check it on, so Chinese candidates
  keep the hand-written rules (a mood is dropped by ``worth.trivial``) — deciding them with an
  English fit would drop facts nobody measured;
- only with the embedder it was fitted for (e5-small-q4: the settings' embedder is ``e5`` and the vector has the fit's
  dimension): another embedder's vectors mean nothing to the weights, so the hand-written rules decide there too.

It never sees a candidate with a reference nobody could name: ``extractor.standing`` drops those before (resolve or
abstain). For a while the detector's flag was one of the features here and the classifier kept such a candidate when it
read like one LoCoMo's annotators would note (they saw the photos, and agreed with about 60 % of them); a product
person reading the memory alone cannot place it, so the contract won over the agreement. The trivial rules stay hard
rules too: they are right where they fire.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory.write.extract.base import Candidate

if TYPE_CHECKING:
    import numpy as np

    from memory.config import Settings

SHIPPED_DIR = Path(__file__).with_name("keeping")
EMBEDDER = "e5-small-q4"  # the embedder the shipped fit is for (Settings.embedder == "e5")
JUDGED = frozenset({"fact", "event", "plan"})  # free statements in the speaker's own words (not likes: see above)
PREDICATES = ("fact", "likes", "event", "plan")
#: the flags after the passage vector, in the order of the fitted weights
FLAGS = (
    "renamed",
    "log_words",
    "number",
    "date",
    "name",
    "hedged",
    "negated",
    *(f"predicate_{p}" for p in PREDICATES),
)
RENAMED = "renamed"  # Candidate.meta key: "this X" was renamed "a X"

_WORD = re.compile(r"[A-Za-z0-9']+")
_NAME = re.compile(r"\b[A-Z][a-z]+")
_NOT_NAMES = frozenset({"User", "I"})
_NUMBER = re.compile(
    r"\d|\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
    r"seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|dozen)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Fit:
    """The shipped weights: ``p = sigmoid(w · [vector, (flags - mean) / scale] + bias)``; kept when p >= threshold."""

    version: str
    embedder: str
    weights: np.ndarray
    bias: float
    mean: np.ndarray
    scale: np.ndarray
    threshold: float
    dim: int

    def probability(self, vector: Any, flags: list[float]) -> float:
        import numpy as np  # here, not at import: SQL-only commands import the write path and must stay light

        x = np.concatenate([np.asarray(vector, dtype=np.float64), (np.asarray(flags) - self.mean) / self.scale])
        return 1.0 / (1.0 + math.exp(-float(x @ self.weights + self.bias)))


def flags(c: Candidate) -> list[float]:
    """The cheap flags of one candidate (see ``FLAGS``): only what the candidate itself carries."""
    words = _WORD.findall(c.content)
    names = [w for w in _NAME.findall(c.content)[1:] if w not in _NOT_NAMES]
    return [
        float(bool(c.meta.get(RENAMED))),
        math.log1p(len(words)),
        float(bool(_NUMBER.search(c.content))),
        float(bool(re.search(r"\(\d{4}", c.content))),
        float(bool(names)),
        float(c.hedged),
        float(c.negated),
        *(float(c.predicate == p) for p in PREDICATES),
    ]


@lru_cache(maxsize=4)
def load(embedder: str = EMBEDDER) -> Fit | None:
    """The shipped fit for ``embedder`` (read once), or None when there is none."""
    path = SHIPPED_DIR / f"{embedder}.json"
    if not path.exists():
        return None
    import numpy as np  # see Fit.probability

    raw = json.loads(path.read_text(encoding="utf-8"))
    if list(raw["flags"]) != list(FLAGS):
        raise ValueError(f"{path.name}: fitted on flags {raw['flags']}, this code computes {list(FLAGS)}")
    return Fit(
        version=raw["version"],
        embedder=raw["embedder"],
        weights=np.asarray(raw["weights"], dtype=np.float64),
        bias=float(raw["bias"]),
        mean=np.asarray(raw["mean"], dtype=np.float64),
        scale=np.asarray(raw["scale"], dtype=np.float64),
        threshold=float(raw["threshold"]),
        dim=int(raw["dim"]),
    )


def embedder_of(settings: Settings) -> str | None:
    """The name of the embedder ``settings`` make the write path's passage vectors with (None when unknown here)."""
    return EMBEDDER if settings.embedder == "e5" else None


def judged(c: Candidate) -> bool:
    """Whether the learned decision applies to ``c`` (see the module docstring: English own-words user statements)."""
    return (
        c.language == "en"
        and c.predicate in JUDGED
        and c.subject == "user"
        and c.source_type == "user-stated"
        and c.extractor != "verbatim"
    )


def why_not(c: Candidate, embedder: str | None) -> str | None:
    """Why ``c`` is not kept as a fact, or None to keep it. ``embedder``: the name of the embedder that made
    ``c.vector`` (None: no vector)."""
    fit = load(EMBEDDER) if embedder == EMBEDDER else None
    usable = fit is not None and c.vector is not None and len(c.vector) == fit.dim
    if not judged(c) or not usable or fit is None:
        return None
    p = fit.probability(c.vector, flags(c))
    c.meta["keep_probability"] = round(p, 4)
    if p < fit.threshold:
        return f"not worth keeping as a fact (p={p:.2f} < {fit.threshold:.2f}, {fit.version}): the episode keeps it"
    return None
