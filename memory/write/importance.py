"""Importance of a memory: how much it should count when recalled and kept.

    importance = 0.5 · explicitness + 0.2 · repetition + 0.3 · impact        (clamped to 0..1)

- explicitness: 1.0 emphatic ("really", "never", "一定", "再也不"), 0.85 plain statement, 0.5 hedged ("maybe",
  "可能", "还没决定"), at most 0.3 for the assistant's inferences.
- repetition: 1 − 1 / (1 + times reinforced): 0 when first said, 0.5 after one repeat, 0.67 after two …
- impact: how much the fact steers later decisions, per predicate (memory.write.extract.base.PREDICATES): diet and names
  0.9, city and budget 0.8, plans 0.7, likes 0.5 … ("我下周到北京出差" outweighs "我喜欢蓝色").
"""

from __future__ import annotations

W_EXPLICIT, W_REPEAT, W_IMPACT = 0.5, 0.2, 0.3


def repetition(reinforce_count: int) -> float:
    return 1.0 - 1.0 / (1.0 + max(0, reinforce_count))


def score(explicitness: float, impact: float, reinforce_count: int = 0) -> float:
    value = W_EXPLICIT * explicitness + W_REPEAT * repetition(reinforce_count) + W_IMPACT * impact
    return round(min(1.0, max(0.0, value)), 4)


def reinforced_confidence(current: float, incoming: float) -> float:
    """Each repeat closes a third of the gap to certainty, never past 0.99."""
    base = max(current, incoming)
    return round(min(0.99, base + (1.0 - base) / 3.0), 4)
