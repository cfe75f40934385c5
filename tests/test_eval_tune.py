"""Nested cross-validation of the fusion weights: each fold's weights are chosen on the other conversations only."""

from __future__ import annotations

from dataclasses import replace

from memory.config import Settings
from memory.evaluation.tune import Probe, nested, settings_grid
from memory.retrieval.policy import RecallPolicy
from memory.retrieval.recall import MemoryRow, Signals


def row(mid: str, message: int) -> MemoryRow:
    text = f"memory {mid}"
    return MemoryRow(mid, "default", text, "fact", "user-stated", None, None, 1.0, 0.5, [message], {}, None, None)


def probe(conv: str, index: int, lexical: bool) -> Probe:
    """Two candidates: one close in meaning (no BM25), one lexical (low similarity, high BM25); the gold is the
    lexical one when ``lexical`` — a high vector weight ranks the first one first, a low one the second."""
    sig = Signals(
        query="where did she go",
        vec=[("dense", 0.9), ("lexical", 0.7)],
        fts=[("lexical", 5.0)],
        sims={"dense": 0.9, "lexical": 0.7},
        rows=[row("dense", 1), row("lexical", 2)],
    )
    gold = frozenset({"D1:2" if lexical else "D1:1"})
    return Probe(conv, index, 4, gold, sig, {1: "D1:1", 2: "D1:2"})


def test_weights_are_chosen_without_the_left_out_conversation():
    # a, b, c want the vector signal (one question each); d wants BM25 (four questions): the majority of all
    # questions (in-sample) wants BM25, but every fold is tuned on the others only
    probes = [probe(c, 0, False) for c in "abc"] + [probe("d", i, True) for i in range(4)]
    base = replace(RecallPolicy.from_settings(Settings(), threshold=0.0), mode="hybrid", fusion="linear")
    grid = {"vector_weight": (0.1, 0.9)}
    assert len(settings_grid(grid)) == 2
    report = nested(probes, base, embedder="test", k=1, ks=(1,), grid=grid, tune_k=1)
    chosen = {conv: fold["weights"]["vector_weight"] for conv, fold in report["folds"].items()}
    assert chosen == {"a": 0.1, "b": 0.1, "c": 0.1, "d": 0.9}  # a's fold: b, c (dense) vs d's four (lexical)
    assert report["folds"]["d"]["train_recall"] == 100.0  # a, b, c all found at k 1 with the vector weight
    assert report["in_sample"]["weights"] == {"vector_weight": 0.1}
    assert report["recall"]["overall"]["with_evidence"] == 7 and "recall@1" in report["in_sample"]["overall"]
    assert "outcomes" in report and len(report["outcomes"]) == 7


def test_recall_figures_count_the_full_conversations_only():
    """An early store's questions (its user after a few sessions) join the calibration and the threshold's rates,
    never the recall figures: pooled into the left-out recall they set it beside an in-sample figure without them."""
    from memory.evaluation import crossval
    from memory.evaluation.locomo import EARLY

    full = [probe(c, 0, False) for c in "abc"] + [probe("d", i, True) for i in range(4)]
    early = [probe(f"{c}{EARLY}1", 1, c == "d") for c in "abcd"]
    base = replace(RecallPolicy.from_settings(Settings(), threshold=0.0), mode="hybrid", fusion="linear")
    report = nested([*full, *early], base, embedder="test", k=1, ks=(1,), grid={"vector_weight": (0.1, 0.9)}, tune_k=1)
    assert len(report["outcomes"]) == 11  # the early stores are still fitted and scored with their conversation
    for block in (report["recall"], report["in_sample"], report["recall_alone"]):
        assert block["overall"]["with_evidence"] == 7
    assert sum(f["recall@10"]["with_evidence"] for f in report["folds"].values()) == 7
    cv = crossval.loco(report["outcomes"], embedder="test", k=1, ks=(1,))
    assert cv["recall"]["overall"]["with_evidence"] == 7 and cv["recall_alone"]["overall"]["with_evidence"] == 7
    assert sum(f["recall@10"]["with_evidence"] for f in cv["folds"].values()) == 7
