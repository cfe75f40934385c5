"""The retrieval lab's arithmetic: precision/recall/F1 against the threshold, the suggested threshold, replay diffs."""

from __future__ import annotations

import pytest

from memory.retrieval.tuning import (
    candidate_thresholds,
    point_at,
    pr_curve,
    replay_diff,
    suggest_threshold,
)

LABELLED = [(0.91, True), (0.88, True), (0.86, False), (0.84, True), (0.82, False), (0.79, False)]


def test_point_counts_hits_at_or_above_the_threshold():
    p = point_at(LABELLED, 0.84)
    assert (p.kept, p.true_pos, p.false_pos, p.false_neg) == (4, 3, 1, 0)
    assert p.precision == pytest.approx(0.75)
    assert p.recall == pytest.approx(1.0)
    assert p.f1 == pytest.approx(2 * 0.75 / 1.75)


def test_threshold_above_every_hit_keeps_nothing():
    p = point_at(LABELLED, 0.95)
    assert p.kept == 0 and p.precision is None and p.recall == 0.0 and p.f1 is None


def test_curve_has_one_point_per_distinct_similarity_and_recall_never_rises():
    curve = pr_curve(LABELLED + [(0.84, False)])
    assert [p.threshold for p in curve] == candidate_thresholds(LABELLED)
    recalls = [p.recall for p in curve]
    assert recalls == sorted(recalls, reverse=True)


def test_suggestion_is_the_max_f1_and_prefers_the_higher_threshold_on_ties():
    best = suggest_threshold(pr_curve(LABELLED))
    assert best is not None and best.threshold == pytest.approx(0.84)
    tie = suggest_threshold(pr_curve([(0.9, True), (0.8, True)], thresholds=[0.8, 0.85]))
    assert tie.threshold == 0.8  # 0.85 keeps only one of two relevant: lower F1
    same = suggest_threshold(pr_curve([(0.9, True), (0.7, False)], thresholds=[0.75, 0.8, 0.9]))
    assert same.threshold == 0.9 and same.f1 == 1.0


def test_no_relevant_label_means_no_suggestion():
    assert suggest_threshold(pr_curve([(0.9, False), (0.8, False)])) is None
    assert suggest_threshold(pr_curve([])) is None


def test_replay_diff_reports_gained_lost_and_kept_in_reading_order():
    diff = replay_diff(["a", "b", "c"], ["d", "b", "a", "e"])
    assert diff.gained == ["d", "e"] and diff.lost == ["c"] and diff.kept == ["b", "a"]
    assert diff.changed
    assert not replay_diff(["x"], ["x", "x"]).changed
