"""Offline extraction quality on tests/data/extraction_labelled.json: precision / recall per language and split.

    python bench/extraction_quality.py [--misses]

Precision = predicted candidates that match an expected one / all predicted; recall = expected ones found / all
expected. A match needs the same predicate and object (normal form), negation, hedge and source type, and — where the
label gives them — the same subject (a person the user mentions), relation, attribute, currency and resolved date.
Writes bench/results/extraction_quality.json.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memory.write.extract.extractor import classify, extract_rules  # noqa: E402
from memory.write.plan import objects_match  # noqa: E402

DATA_PATH = Path(__file__).resolve().parent.parent / "tests" / "data" / "extraction_labelled.json"
AT = datetime(2025, 5, 1, 9, 0, tzinfo=UTC)  # a Thursday: every relative date in the set resolves against it


def load() -> list[dict[str, Any]]:
    return json.loads(DATA_PATH.read_text(encoding="utf-8"))["items"]


def lang_of(item: dict[str, Any]) -> str:
    return "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in item["text"]) else "en"


def predict(item: dict[str, Any]) -> list:
    ok, _ = classify(item["text"], item["role"])
    return extract_rules(item["text"], role=item["role"], at=AT) if ok else []


def _same(a: str | None, b: str | None) -> bool:
    return (a or "").strip().lower() == (b or "").strip().lower() or objects_match(a, b)


def matches(c, e: dict[str, Any]) -> bool:
    ok = (
        c.predicate == e["predicate"]
        and objects_match(c.object, e["object"])
        and c.negated == e.get("negated", False)
        and c.hedged == e.get("hedged", False)
        and c.source_type == e.get("source_type", "user-stated")
        and _same(c.subject, e.get("subject", "user"))
    )
    for key in ("relation", "attribute", "currency"):
        if ok and key in e:
            ok = _same(c.meta.get(key), e[key])
    if ok and "date" in e:
        got = c.event_time.date().isoformat() if c.event_time else None
        ok = got == e["date"]
    return ok


def _show(c) -> tuple:
    when = c.event_time.date().isoformat() if c.event_time else None
    return (c.subject, c.predicate, c.object, c.negated, c.hedged, when)


def score(items: list[dict[str, Any]]) -> tuple[float, float, list[str]]:
    tp_pred = n_pred = tp_exp = n_exp = 0
    misses: list[str] = []
    for item in items:
        got, want = predict(item), item["expected"]
        n_pred += len(got)
        n_exp += len(want)
        hit_pred = sum(any(matches(c, e) for e in want) for c in got)
        hit_exp = sum(any(matches(c, e) for c in got) for e in want)
        tp_pred += hit_pred
        tp_exp += hit_exp
        if hit_pred < len(got) or hit_exp < len(want):
            misses.append(f"{item['text']!r}: got {[_show(c) for c in got]}")
    return tp_pred / max(1, n_pred), tp_exp / max(1, n_exp), misses


def report(items: list[dict[str, Any]]) -> dict[str, Any]:
    """{part: {lang: {n, precision, recall}}} for the whole set and the frozen held-out part."""
    out: dict[str, Any] = {}
    parts = {"whole": items, "frozen": [i for i in items if i["split"] == "frozen"]}
    for part, subset in parts.items():
        out[part] = {}
        for lang in ("en", "zh", "all"):
            sel = [i for i in subset if lang in ("all", lang_of(i))]
            p, r, _ = score(sel)
            out[part][lang] = {"n": len(sel), "precision": round(p, 3), "recall": round(r, 3)}
    return out


def main() -> None:
    items = load()
    result = report(items)
    for part, langs in result.items():
        for lang, m in langs.items():
            print(f"{part:7} {lang:4} n={m['n']:4}  precision {m['precision']:.3f}  recall {m['recall']:.3f}")
    if "--misses" in sys.argv:
        for m in score(items)[2]:
            print("  miss:", m)
    path = Path(__file__).resolve().parent / "results" / "extraction_quality.json"
    path.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
