"""Conversation context for raw-turn memories: a turn is judged with its neighbours, and turns from the day the
best candidates come from are lifted.

Why: a dialogue turn often means little alone ("Look at this!" answered by "Wow, is that your new puppy?"); the
question matches the exchange, not one line. Measured on LoCoMo (dev split, e5 + BM25): smoothing each turn's
signals with its neighbours' (±2 turns) and a same-day boost raise evidence recall@10 of hybrid search from 66.5
(best plain fusion) to about 75, and adversarial (speaker-swapped) questions from 66 to 83. Pure functions over the
candidates already fetched: no extra query, so recall latency stays flat.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import date


def neighbour_weights(weight: float, span: int) -> list[tuple[int, float]]:
    """(offset, weight) pairs: ``weight`` for the adjacent turns, halving with each further step."""
    out = []
    for step in range(1, span + 1):
        w = weight / (2 ** (step - 1))
        out += [(-step, w), (step, w)]
    return out


def smooth(
    scores: Mapping[str, float],
    turn_of: Mapping[str, int],
    by_turn: Mapping[int, str],
    weights: Sequence[tuple[int, float]],
    floor: float,
) -> dict[str, float]:
    """score' = score + Σ w · score(neighbour); a neighbour that is not a candidate counts as ``floor``.

    ``turn_of`` maps a memory to the message it came from (its place in the conversation); ``by_turn`` maps message
    ids to the raw-turn candidates (neighbours are the turns just before and after). Memories missing from
    ``turn_of`` keep their score.
    """
    out = dict(scores)
    for mid, msg in turn_of.items():
        if mid not in scores:
            continue
        extra = 0.0
        for offset, w in weights:
            other = by_turn.get(msg + offset)
            extra += w * (scores.get(other, floor) if other is not None else floor)
        out[mid] = scores[mid] + extra
    return out


def day_boost(fused: Mapping[str, float], day_of: Mapping[str, date], boost: float, top: int = 10) -> dict[str, float]:
    """Lift turns from the days the current top ``top`` candidates come from, in proportion to their share.

    The lift is scaled to the spread of the fused scores (a third of it at most), so it reorders near-ties but
    never buries a clear winner.
    """
    if not fused or boost <= 0 or not day_of:
        return dict(fused)
    best = sorted(fused, key=lambda i: -fused[i])[:top]
    share = Counter(day_of[i] for i in best if i in day_of)
    spread = (max(fused.values()) - min(fused.values())) / 3
    return {i: s + boost * spread * share.get(day_of[i], 0) / top if i in day_of else s for i, s in fused.items()}
