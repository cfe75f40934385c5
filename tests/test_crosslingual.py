"""Cross-lingual ranking: a query in one language, the direct answer stated in the other among same-topic
distractors in that language; both directions, in a tuning half and a held-out half (tests/data). The lexicon's
unit behaviour is checked without a model; the ranking with the real e5 embedder (measured by
bench/crosslingual.py)."""

from __future__ import annotations

import pytest

from bench.crosslingual import DATA, answer_ranks, direction, store_texts, summary
from memory.retrieval import crosslingual
from memory.text.language import has_cjk

#: measured on the held-out half with the lexicon (e5-small-q4, hybrid, calibration e5-small-q4-locomo-20261204c):
#: 19 of 26, 9 and 10 of 13 (without it: 19 of 26; bench/results/crosslingual.json); a drop below these floors is a
#: regression. It was 20 of 26 while the full-text index dropped "man" as a stop word (the "married" pair now ranks
#: the answer second both ways, behind "… parents have been married for thirty years"), 18 with the fit of 4 December,
#: and a free refit on today's store fell to 15: its fact model weighed absolute BM25 against normalised BM25, and
#: the direct answer, first by BM25, fell behind distractors found by neither (memory.retrieval.fit.EVIDENCE_SIGNS;
#: held to those signs with term overlap clipped it was 19 but lost the spicy-food pair: relevance.UNCLIPPED)
HELD_FLOOR = 0.73  # 19 / 26, as the summary rounds it (0.731)
DIRECTION_FLOOR = 0.69  # 9 / 13


def test_the_pair_file_has_both_directions_in_both_halves_and_topics_never_cross_the_split():
    pairs = DATA["pairs"]
    assert len(pairs) >= 30
    for split in ("tune", "held"):
        dirs = [direction(p["query"]) for p in pairs if p["split"] == split]
        assert dirs.count("en→zh") == dirs.count("zh→en") >= 8
    topics = {split: {p["topic"] for p in pairs if p["split"] == split} for split in ("tune", "held")}
    assert not topics["tune"] & topics["held"]
    for p in pairs:  # every store holds the answer and same-topic distractors, all in the other language
        texts = store_texts(p)
        assert len(p["distractors"]) >= 2 and len(set(texts)) == len(texts)
        assert all(has_cjk(t) != has_cjk(p["query"]) for t in texts)


def test_the_lexicon_turns_a_query_into_the_other_languages_words():
    assert set(crosslingual.expand("Does the user eat spicy food?").split()) >= {"辣", "吃"}
    assert {"spicy", "chili"} <= set(crosslingual.expand("用户能吃辣吗？").split())
    assert "bicycle" in crosslingual.expand("用户骑自行车") and "car" not in crosslingual.expand("用户骑自行车")
    assert "live" in crosslingual.expand("用户住在哪里？")  # 住 → live, lives, …
    assert crosslingual.expand("When did Caroline go to the LGBTQ support group?") == ""


def test_overlap_counts_only_concepts_stated_in_the_other_language():
    texts = ["用户不吃辣", "用户喜欢清淡的菜", "The user eats spicy food", "用户上个月换了新电脑"]
    direct, light, same_language, unrelated = crosslingual.overlap("Does the user eat spicy food?", texts)
    assert direct == 1.0 and 0 < light < direct  # 不吃辣 states both concepts, negated or not
    assert same_language == 0.0 and unrelated == 0.0
    assert crosslingual.overlap("用户喝咖啡吗？", ["The user does not drink coffee, only tea"]) == [1.0]
    assert crosslingual.overlap("What about that?", ["用户不吃辣"]) == [0.0]


def test_a_malformed_lexicon_line_is_named():
    with pytest.raises(ValueError, match="line 2"):
        crosslingual.parse("# diet\ndiet | spicy\n")
    with pytest.raises(ValueError, match="line 1"):
        crosslingual.parse("diet | 辣 | spicy\n")


def test_same_language_ranking_is_untouched_by_the_lexicon(plumbing_svc):
    user = plumbing_svc.ensure_user("en-only")
    for text in ("I don't eat spicy food", "I love light dishes", "My cat is called Miso", "I live in Hangzhou"):
        plumbing_svc.add_memory(user, text, type="fact")
    for query in ("Does the user eat spicy food?", "Where does the user live?", "What pet?"):
        on, off = (
            plumbing_svc.recall(user.external_id, query, threshold=-1.0, log=False, crosslingual=flag).hits
            for flag in (True, False)
        )
        assert [(h.memory_id, h.relevance, h.fts_score) for h in on] == [
            (h.memory_id, h.relevance, h.fts_score) for h in off
        ]


@pytest.mark.slow
def test_the_direct_answer_in_the_other_language_is_first(svc):
    """The held-out half (never looked at while the lexicon was written), plus the issue's own pair both ways."""
    ranks = answer_ranks(svc, {"after": True}, keep=lambda p: p["split"] == "held" or p["topic"] == "spice")["after"]
    held = summary([r for r in ranks if r["split"] == "held"])["held"]
    assert held["both"]["rate"] >= HELD_FLOOR, held
    assert all(held[d]["rate"] >= DIRECTION_FLOOR for d in ("en→zh", "zh→en")), held
    spicy = [r["rank"] for r in ranks if r["topic"] == "spice"]
    assert spicy == [1, 1]  # "spicy food" → 用户不吃辣 first, and 用户能吃辣吗 → "The user cannot eat spicy food"


def test_a_translation_never_outscores_the_best_direct_full_text_match():
    direct = [("zh", 2.0, None), ("both", 1.0, None)]
    translated = [("en", 8.0, None), ("both", 4.0, None)]
    merged = crosslingual.best_of(direct, translated)
    assert [m[0] for m in merged] == ["zh", "en", "both"]  # "en" held to 0.9 × the best direct score
    assert merged[1][1] == pytest.approx(crosslingual.TRANSLATED_SHARE * 2.0)
    assert crosslingual.best_of([], translated) == sorted(translated, key=lambda r: -r[1])  # nothing direct: as found
    assert crosslingual.best_of(direct, []) is direct
