"""Evaluation metrics and the LoCoMo loader on hand-checkable cases (pure: no store, no model)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from memory.errors import InvalidInput
from memory.evaluation import locomo, metrics
from memory.evaluation.metrics import Outcome, RankedRecord
from memory.evaluation.runner import EvalOptions, assemble

TINY = Path(__file__).parent / "data" / "tiny_locomo_format.json"


def cand(dia: set[str], rel: float, tokens: int = 10) -> RankedRecord:
    """A candidate whose relevance is ``rel`` (similarity set apart, to show the cut ignores it)."""
    return RankedRecord(dia_ids=frozenset(dia), similarity=rel - 0.5, tokens=tokens, relevance=rel)


RANKED = [cand({"D1:9"}, 0.90), cand({"D1:1"}, 0.85), cand({"D2:4"}, 0.82), cand({"D1:2"}, 0.75)]
GOLD = frozenset({"D1:1", "D1:2"})


def test_evidence_recall_hit_and_reciprocal_rank_by_hand():
    assert metrics.evidence_recall(GOLD, RANKED[:1]) == 0.0
    assert metrics.evidence_recall(GOLD, RANKED[:2]) == 0.5
    assert metrics.evidence_recall(GOLD, RANKED[:4]) == 1.0
    assert metrics.hit(GOLD, RANKED[:1]) == 0.0 and metrics.hit(GOLD, RANKED[:2]) == 1.0
    assert metrics.reciprocal_rank(GOLD, RANKED) == 0.5


def test_threshold_cut_mirrors_rank_and_cut():
    # at 0.80 the 0.75 candidate can never be selected, whatever k
    assert [c.relevance for c in metrics.selected(RANKED, 10, 0.80)] == [0.90, 0.85, 0.82]
    assert metrics.evidence_recall(GOLD, metrics.selected(RANKED, 10, 0.80)) == 0.5
    assert metrics.selected(RANKED, 2, None) == RANKED[:2]


def test_aggregate_sweep_curve_and_empty_rate():
    empty = Outcome("s", 1, 4, frozenset({"D3:3"}), [cand({"D3:3"}, 0.71)])
    no_gold = Outcome("s", 2, 3, frozenset(), [cand({"D1:1"}, 0.99)])
    outs = [Outcome("s", 0, 1, GOLD, RANKED), empty, no_gold]
    agg = metrics.aggregate(outs, (1, 2, 4), threshold=None)
    assert agg["questions"] == 3 and agg["with_evidence"] == 2
    assert agg["recall@1"] == 50.0  # (0 + 1) / 2
    assert agg["recall@2"] == 75.0  # (0.5 + 1) / 2
    assert agg["hit@1"] == 50.0 and agg["tokens@2"] == 15.0  # (20 + 10) / 2
    assert agg["mrr"] == 0.75  # (1/2 + 1) / 2
    assert metrics.empty_rate(outs, 0.80) == pytest.approx(100 / 3, abs=0.01)
    sweep = {row["threshold"]: row for row in metrics.threshold_sweep(outs, (4,))}
    assert list(sweep)[0] == 0.0 and list(sweep)[-1] == 1.0 and len(sweep) == 21
    assert sweep[0.7]["recall@4"] == 100.0 and sweep[0.8]["recall@4"] == 25.0  # (0.5 + 0) / 2
    assert sweep[0.80]["empty_rate"] == pytest.approx(33.33)
    curve = metrics.recall_curve(outs, 3)
    assert [row["recall"] for row in curve] == [50.0, 75.0, 75.0]


def test_report_shape_holds_numbers_only():
    outs = [Outcome("s", 0, 1, GOLD, RANKED), Outcome("s", 1, 4, frozenset({"D1:9"}), RANKED)]
    opts = EvalOptions(ks=(1, 2), mode="hybrid")
    report = assemble(
        {"hybrid": outs, "fulltext": outs},
        opts,
        configured_threshold=0.8,
        settings={"ks": [1, 2]},
        ingest={},
        samples=["s"],
        source="x.json",
    )
    assert set(report["overall"]) >= {"recall@1", "recall@2", "hit@2", "mrr", "tokens@2"}
    assert set(report["by_category"]) == {"1", "4"}
    assert report["by_category"]["4"]["recall@1"] == 100.0
    assert set(report["runs"]) == {"hybrid", "fulltext"}
    assert report["runs"]["hybrid"]["empty_rate_at_configured"] == 0.0
    assert "at_threshold" not in report  # no foreign outcomes asked


def test_answerable_and_foreign_rates_by_hand():
    own = Outcome("a", 0, 1, GOLD, RANKED)  # gold at relevance 0.85 (rank 2) and 0.75 (rank 4)
    own_miss = Outcome("a", 1, 4, frozenset({"D9:9"}), RANKED)
    foreign = Outcome("a", 0, 1, frozenset(), [cand({"D1:1"}, 0.83), cand({"D1:2"}, 0.4)], asked_of="b")
    quiet = Outcome("a", 1, 4, frozenset(), [cand({"D1:1"}, 0.3)], asked_of="b")
    outs = [own, own_miss, foreign, quiet]
    at = metrics.at_threshold(outs, 0.80, 1)
    assert (at["answerable_hit_rate"], at["foreign_noise_rate"], at["mean_injected"]) == (0.0, 50.0, 1.0)
    at = metrics.at_threshold(outs, 0.80, 2)  # rank 2 (0.85) is gold
    assert (at["answerable_hit_rate"], at["foreign_noise_rate"], at["mean_injected"]) == (50.0, 50.0, 2.0)
    at = metrics.at_threshold(outs, 0.84, 5)  # the foreign 0.83 is now cut
    assert (at["answerable_hit_rate"], at["foreign_noise_rate"], at["mean_injected"]) == (50.0, 0.0, 2.0)
    curve = metrics.threshold_curves(outs, 5)
    assert curve[0]["threshold"] == 0.0 and curve[-1]["threshold"] == 1.0
    noise = [p["foreign_noise_rate"] for p in curve]
    assert noise == sorted(noise, reverse=True) and noise[0] == 100.0 and noise[-1] == 0.0


def test_gold_injected_and_foreign_noise_are_counted_per_layer():
    """The same selection (every layer competes for the k places), counted for episodes and for facts apart."""
    ep, fact = "episode", "fact"
    own = Outcome(
        "a",
        0,
        1,
        GOLD,
        [
            replace(cand({"D1:1"}, 0.9), type=fact),  # gold, as a fact
            replace(cand({"D5:5"}, 0.8), type=ep),
            replace(cand({"D1:2"}, 0.7), type=ep),  # gold, as an episode, but third
        ],
    )
    only_episode = Outcome("a", 1, 1, GOLD, [replace(cand({"D1:2"}, 0.9), type=ep)])
    foreign_ep = Outcome("a", 0, 1, frozenset(), [replace(cand({"D7:1"}, 0.6), type=ep)], asked_of="b")
    foreign_fact = Outcome("a", 1, 1, frozenset(), [replace(cand({"D7:2"}, 0.5), type=fact)], asked_of="b")
    outs = [own, only_episode, foreign_ep, foreign_fact]
    every = metrics.at_threshold(outs, 0.45, 2)
    episodes = metrics.at_threshold(outs, 0.45, 2, "episodes")
    facts = metrics.at_threshold(outs, 0.45, 2, "facts")
    assert (every["answerable_hit_rate"], every["foreign_noise_rate"]) == (100.0, 100.0)
    assert (episodes["answerable_hit_rate"], episodes["foreign_noise_rate"]) == (50.0, 50.0)  # k 2 leaves D1:2 out
    assert (facts["answerable_hit_rate"], facts["foreign_noise_rate"]) == (50.0, 50.0)
    assert metrics.at_threshold(outs, 0.45, 3, "episodes")["answerable_hit_rate"] == 100.0
    assert metrics.at_threshold(outs, 0.55, 2, "facts")["foreign_noise_rate"] == 0.0
    curves = metrics.layer_curves(outs, 2, [0.0, 0.55, 0.95])
    assert set(curves) == {"all", "episodes", "facts"}
    assert [p["foreign_noise_rate"] for p in curves["episodes"]] == [50.0, 50.0, 0.0]
    with pytest.raises(ValueError, match="layer"):
        metrics.at_threshold(outs, 0.5, 2, "profile")


def test_loader_repairs_or_drops_malformed_evidence_and_skips_empty_sessions():
    samples = locomo.load(TINY)
    first, second = samples
    assert first.user_id == "locomo:tiny-1" and first.turn_count == 7
    assert [s.number for s in first.sessions] == [1, 2]  # session 3 has a date but no turns
    by_q = {q.index: q for q in first.questions}
    assert by_q[2].evidence == {"D2:1", "D1:2"}  # "D2:1; D1:2" split
    assert by_q[3].evidence == {"D1:4"} and by_q[3].dropped_evidence == 1  # D9:99 names no turn
    assert second.questions[0].evidence == {"D1:1"}  # "D:1:1" repaired
    turn = first.sessions[0].turns[3]
    assert turn.passage() == (
        "Bob (3 March 2023): Look at the cake I baked for my sister. "
        "[shares a photo of a chocolate cake with strawberries]"
    )
    assert first.sessions[1].turns[0].at > first.sessions[0].turns[-1].at


def test_loader_rejects_what_is_not_locomo(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "a list"}')
    with pytest.raises(InvalidInput):
        locomo.load(bad)
    with pytest.raises(InvalidInput):
        locomo.parse_date("yesterday-ish")


def test_an_asked_cache_from_before_probes_is_read_and_set_aside(tmp_path):
    """Caches written before (ranked outcomes, under the old class name ``metrics.Candidate``) load without error
    and are not reused: the evaluation now caches probes (raw signals) and asks again."""
    import pickle

    from memory.evaluation import runner

    opts = runner.EvalOptions(cache=tmp_path / "asked.pkl", limit=3)
    record = cand({"D1:1"}, 0.7)
    outcome = Outcome("conv-1", 0, 1, frozenset({"D1:1"}), ranked=[record])
    data = {"key": [opts.modes, opts.limit, opts.foreign], "outcomes": {"hybrid": [outcome]}, "foreign": []}
    blob = pickle.dumps(data, protocol=0).replace(b"\nRankedRecord\n", b"\nCandidate\n")  # as written before
    assert b"Candidate" in blob and not hasattr(metrics, "Candidate")
    opts.cache.write_bytes(blob)
    assert runner._cached(opts) is None
