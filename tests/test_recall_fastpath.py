"""Recall's hot path is tuned for speed (cross-lingual concepts cached per text, per-candidate arithmetic
vectorised); these pin that it still computes exactly what it did: every feature value, relevance, score, order and
verdict on fixed candidate sets (tests/rank_reference.py recorded them), and the cached concept overlap against the
uncached matcher. Pure, no model, no I/O besides reading the reference."""

from __future__ import annotations

import json

import pytest
from rank_reference import REFERENCE, ranked

from memory.retrieval import crosslingual
from memory.retrieval.relevance import FEATURES

DATA = json.loads(REFERENCE.read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", DATA["cases"], ids=[c["query"][:24] for c in DATA["cases"]])
def test_ranking_a_fixed_candidate_set_gives_the_recorded_features_order_and_verdicts(case):
    want, got = case["expected"], ranked(case, DATA["texts"], DATA["coef"])
    shared = [name for name in want["features"] if name in FEATURES]
    assert len(shared) >= 10, "the reference no longer covers the features: re-record it (tests/rank_reference.py)"
    assert got["order"] == want["order"]
    for name in shared:  # exact: a speed-up must not move a value, not even in the sixth decimal
        assert got["features"][name] == want["features"][name], name
    assert (got["score"], got["relevance"], got["verdict"]) == (want["score"], want["relevance"], want["verdict"])


def test_the_reference_exercises_what_the_fast_path_touches():
    feats = [c["expected"]["features"] for c in DATA["cases"]]
    assert any(v > 0 for f in feats for v in f["overlap"])  # concepts and terms found
    assert any(v > 0 for f in feats for v in f["names_missing"])
    assert any(v > 0 for f in feats for v in f["names_here"])
    assert any(v != 0 for f in feats for v in f["neighbour"])
    assert {c["params"]["fusion"] for c in DATA["cases"]} == {"linear", "rrf"}
    assert {c["params"]["crosslingual"] for c in DATA["cases"]} == {True, False}
    assert any(c["params"]["mode"] == "vector" for c in DATA["cases"])


def _uncached_overlap(query: str, texts: list[str], lex: crosslingual.Lexicon) -> list[float]:
    en_q, zh_q = crosslingual.english_groups(query, lex), crosslingual.chinese_groups(query, lex)
    total = len(en_q | zh_q)
    return [
        len((en_q & crosslingual.chinese_groups(t, lex)) | (zh_q & crosslingual.english_groups(t, lex))) / total
        if total
        else 0.0
        for t in texts
    ]


def test_cached_concept_overlap_equals_the_matcher_and_never_crosses_lexicons():
    texts = DATA["texts"]
    queries = [c["query"] for c in DATA["cases"]] + ["用户骑自行车上班吗？", "Does the user ride a bicycle to work?"]
    shipped = crosslingual.lexicon()
    for q in queries:
        assert crosslingual.overlap(q, texts) == _uncached_overlap(q, texts, shipped)
        assert crosslingual.overlap(q, texts) == _uncached_overlap(q, texts, shipped)  # second time from the cache
    tiny = crosslingual.parse("diet | spicy | 辣\nplace | live | 住\n")  # another lexicon: its own answers
    assert crosslingual.overlap("Does the user eat spicy food?", ["用户不吃辣", "用户住在杭州"], tiny) == [1.0, 0.0]
    assert crosslingual.overlap("用户住在哪里？", ["I live in Hangzhou", "I like spicy food"], tiny) == [1.0, 0.0]
