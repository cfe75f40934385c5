"""Extraction quality on a labelled set of English and Chinese utterances (tests/data/extraction_labelled.json).

Precision = predicted candidates that match an expected one / all predicted; recall = expected ones found / all
expected. A match needs the same predicate, a matching object (normal form), and the same negation, hedge and source
type. Both are printed (run with -s) and held to a floor.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memory.write.extract import classify, extract_rules
from memory.write.plan import objects_match

DATA = json.loads((Path(__file__).parent / "data" / "extraction_labelled.json").read_text(encoding="utf-8"))["items"]
AT = datetime(2025, 5, 1, 9, 0, tzinfo=UTC)
FLOOR = 0.85


def _predict(item):
    ok, _ = classify(item["text"], item["role"])
    return extract_rules(item["text"], role=item["role"], at=AT) if ok else []


def _matches(c, e) -> bool:
    return (
        c.predicate == e["predicate"]
        and objects_match(c.object, e["object"])
        and c.negated == e.get("negated", False)
        and c.hedged == e.get("hedged", False)
        and c.source_type == e.get("source_type", "user-stated")
    )


def score(items) -> tuple[float, float, list[str]]:
    tp_pred = n_pred = tp_exp = n_exp = 0
    misses: list[str] = []
    for item in items:
        got, want = _predict(item), item["expected"]
        n_pred += len(got)
        n_exp += len(want)
        hit_pred = sum(any(_matches(c, e) for e in want) for c in got)
        hit_exp = sum(any(_matches(c, e) for c in got) for e in want)
        tp_pred += hit_pred
        tp_exp += hit_exp
        if hit_pred < len(got) or hit_exp < len(want):
            misses.append(f"{item['text']!r}: got {[(c.predicate, c.object, c.negated, c.hedged) for c in got]}")
    return tp_pred / max(1, n_pred), tp_exp / max(1, n_exp), misses


def test_labelled_set_is_big_and_mixed():
    langs = {"zh" if any("\u4e00" <= ch <= "\u9fff" for ch in i["text"]) else "en" for i in DATA}
    assert len(DATA) >= 80 and langs == {"en", "zh"}
    kinds = {
        "hedged": any(e.get("hedged") for i in DATA for e in i["expected"]),
        "negated": any(e.get("negated") for i in DATA for e in i["expected"]),
        "nothing": any(not i["expected"] for i in DATA),
        "assistant": any(i["role"] == "assistant" for i in DATA),
    }
    assert all(kinds.values()), kinds


def test_precision_and_recall_floors(capsys):
    precision, recall, misses = score(DATA)
    with capsys.disabled():
        print(f"\nextraction on {len(DATA)} labelled utterances: precision {precision:.3f}  recall {recall:.3f}")
        for m in misses:
            print("  miss:", m)
    assert precision >= FLOOR and recall >= FLOOR, (precision, recall, misses)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_floors_hold_per_language(lang):
    subset = [i for i in DATA if (any("\u4e00" <= ch <= "\u9fff" for ch in i["text"])) == (lang == "zh")]
    precision, recall, _ = score(subset)
    assert precision >= 0.8 and recall >= 0.8, (lang, precision, recall)


def test_small_talk_and_questions_yield_nothing():
    quiet = [i for i in DATA if not i["expected"]]
    assert all(_predict(i) == [] for i in quiet), [i["text"] for i in quiet if _predict(i)]


def test_assistant_text_yields_only_low_confidence_inferences():
    for item in (i for i in DATA if i["role"] == "assistant"):
        for c in _predict(item):
            assert c.source_type == "inferred" and c.confidence <= 0.3


def test_hedges_lower_confidence_and_intensity_raises_explicitness():
    plain = extract_rules("I like sushi.", at=AT)[0]
    hedged = extract_rules("Maybe I like sushi.", at=AT)[0]
    strong = extract_rules("I really like sushi.", at=AT)[0]
    assert hedged.confidence < plain.confidence and hedged.hedged and not plain.hedged
    assert strong.explicitness > plain.explicitness > hedged.explicitness


def test_dates_resolve_against_the_message_time():
    (en,) = extract_rules("I have a dentist appointment next Friday.", at=AT)  # AT is a Thursday
    (zh,) = extract_rules("我下周五有个面试。", at=AT)
    assert en.type == zh.type == "event"
    assert en.event_time.date().isoformat() == zh.event_time.date().isoformat() == "2025-05-09"
