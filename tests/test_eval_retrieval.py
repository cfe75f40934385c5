"""Retrieval-quality helpers: neighbour smoothing and the same-day lift (pure), and their effect in real recall."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from memory.config import Settings
from memory.retrieval import neighbours as context
from memory.retrieval.policy import RecallPolicy
from memory.retrieval.recall import fuse
from memory.service import MemoryDraft


def test_neighbour_weights_halve_with_distance():
    assert context.neighbour_weights(0.5, 2) == [(-1, 0.5), (1, 0.5), (-2, 0.25), (2, 0.25)]


def test_smooth_adds_neighbours_and_floors_missing_ones():
    scores = {"a": 1.0, "b": 0.5, "f": 0.9}  # a, b are turns 10 and 11; f is an extracted fact
    turn_of = {"a": 10, "b": 11}
    out = context.smooth(scores, turn_of, {10: "a", 11: "b"}, [(-1, 0.5), (1, 0.5)], floor=0.2)
    assert out["a"] == pytest.approx(1.0 + 0.5 * 0.2 + 0.5 * 0.5)  # no turn 9 (floor), turn 11 = b
    assert out["b"] == pytest.approx(0.5 + 0.5 * 1.0 + 0.5 * 0.2)
    assert out["f"] == 0.9  # not a turn: untouched


def test_day_boost_lifts_turns_from_the_top_days_only():
    fused = {"x": 3.0, "y": 2.0, "z": 1.9, "fact": 1.95}
    days = {"x": date(2023, 5, 1), "y": date(2023, 5, 1), "z": date(2023, 6, 1)}
    out = context.day_boost(fused, days, boost=1.0, top=2)
    assert out["z"] == 1.9 and out["fact"] == 1.95  # z's day has no top candidate; facts are not lifted
    assert out["y"] > fused["y"] and out["y"] - fused["y"] <= (3.0 - 1.9) / 3 + 1e-9
    assert context.day_boost(fused, days, boost=0.0) == fused


def test_linear_fusion_standardises_similarity():
    vec = [("a", 0.1), ("b", 0.2)]
    params = RecallPolicy.from_settings(Settings(fusion="linear", vector_weight=1.0), threshold=0.5)
    fused = fuse(vec, [], {"a": 0.86, "b": 0.84}, params)
    assert fused["a"] == pytest.approx(1.0) and fused["b"] == pytest.approx(-1.0)


@pytest.mark.slow
def test_neighbours_lift_an_answer_that_means_little_alone(svc):
    user = svc.ensure_user("ctx")
    session = svc.ensure_session(user, "s1")
    start = datetime(2023, 5, 8, 13, 0, tzinfo=UTC)
    lines = [
        ("Ann", "Did you finally adopt the golden retriever puppy from the shelter?"),
        ("Bob", "Yes! We brought him home last Sunday, the kids are thrilled."),
        ("Ann", "I went hiking in the mountains with my cousin."),
        ("Bob", "I repaired my bicycle and cleaned the garage."),
        ("Ann", "The weather was lovely for our picnic by the river."),
        ("Bob", "I am reading a novel about sailors in the Arctic."),
    ]
    drafts = []
    for n, (who, text) in enumerate(lines):
        at = start + timedelta(days=0 if n < 2 else 30 * n, seconds=n)
        msg = svc.add_message(session, "user", text, created_at=at)
        drafts.append(
            MemoryDraft(
                content=f"{who} ({at:%d %B %Y}): {text}",
                type="episode",
                subject=who,
                source_message_ids=[msg.id],
                created_at=at,
            )
        )
    answer = svc.add_memories(user, drafts)[1].id
    query = "When did Bob adopt the puppy?"
    plain = svc.recall(
        "ctx", query, threshold=-1.0, log=False, neighbor_weight=0.0, neighbor_weight_fts=0.0, day_boost=0.0
    )
    ctx = svc.recall("ctx", query, threshold=-1.0, log=False)
    rank = {h.memory_id: h.rank for h in ctx.hits}
    assert rank[answer] <= {h.memory_id: h.rank for h in plain.hits}[answer]
    assert rank[answer] <= 2
    # the shown similarity stays the raw one: context changes the order, never the threshold's meaning
    assert {h.memory_id: h.similarity for h in ctx.hits} == {h.memory_id: h.similarity for h in plain.hits}
