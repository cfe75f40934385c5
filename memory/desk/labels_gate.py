"""Labelled queries as a regression suite: the retrieval lab's verdicts (and imported ones) say which memories are
relevant to which query; this measures what recall would inject for each under the current settings, and gates a
change on it.

- :func:`evaluate` — each labelled query searched again (the real recall, not logged): precision = labelled-relevant
  among the labelled memories selected; recall = labelled-relevant memories selected over all labelled-relevant.
- :func:`gate` — against a baseline run (the last recorded one, or a file): a change fails when it loses more than
  ``tolerance`` labelled-relevant hits or gains more than ``tolerance`` labelled-wrong ones.
- :func:`parse_labels` — JSON (a list of objects, or ``{"labels": [...]}``) or CSV with the columns ``user_id,
  query, memory_id, relevant``; the service logs each query once and stores the labels as the lab does.

Each recorded run is an ``eval-labels`` row of the audit trail (who ran it, when, the figures and the hits), so the
suite's history needs no table of its own and the Evaluation page reads it from there.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from memory.errors import InvalidInput
from memory.retrieval.recall import RecallResult
from memory.views.labels import query_key

TRUE_WORDS = {"1", "true", "yes", "y", "relevant", "t"}
FALSE_WORDS = {"0", "false", "no", "n", "not relevant", "irrelevant", "wrong", "f"}


@dataclass(frozen=True)
class Label:
    user_id: str
    query: str
    memory_id: str
    relevant: bool


def _pair(query: str, memory_id: str) -> str:
    return f"{query_key(query)[:16]}|{memory_id}"


def evaluate(suite: Sequence[dict[str, Any]], search: Callable[[dict[str, Any]], RecallResult]) -> dict[str, Any]:
    """Precision / recall of the selected memories over the labelled queries (``search`` = the real recall)."""
    rows, rel_hits, wrong_hits, relevant_total = [], [], [], 0
    for entry in suite:
        labels: dict[str, bool] = entry["labels"]
        result = search(entry)
        chosen = {h.memory_id for h in result.selected}
        relevant = {m for m, v in labels.items() if v}
        wrong = {m for m, v in labels.items() if not v}
        got, bad = sorted(chosen & relevant), sorted(chosen & wrong)
        relevant_total += len(relevant)
        rel_hits += [_pair(entry["retrieval_query"], m) for m in got]
        wrong_hits += [_pair(entry["retrieval_query"], m) for m in bad]
        rows.append(
            {
                "retrieval_id": entry.get("retrieval_id"),
                "user_id": entry["user_id"],
                "query": entry["retrieval_query"],
                "relevant_selected": got,
                "wrong_selected": bad,
                "relevant_missed": sorted(relevant - chosen),
                "labelled": len(labels),
            }
        )
    judged = len(rel_hits) + len(wrong_hits)
    return {
        "queries": len(rows),
        "labels": sum(r["labelled"] for r in rows),
        "precision": round(len(rel_hits) / judged, 4) if judged else None,
        "recall": round(len(rel_hits) / relevant_total, 4) if relevant_total else None,
        "relevant_selected": len(rel_hits),
        "wrong_selected": len(wrong_hits),
        "relevant_total": relevant_total,
        "hits": {"relevant": rel_hits, "wrong": wrong_hits},
        "per_query": rows,
    }


def gate(run: dict[str, Any], baseline: dict[str, Any] | None, tolerance: int = 0) -> dict[str, Any]:
    """Did this run lose labelled-relevant hits or gain labelled-wrong ones beyond ``tolerance``, against the
    baseline's? (No baseline: it passes, and becomes the baseline once recorded.)"""
    if baseline is None:
        return {"passed": True, "lost": [], "gained_wrong": [], "tolerance": tolerance, "baseline": None}
    then = baseline.get("hits") or {}
    lost = sorted(set(then.get("relevant", [])) - set(run["hits"]["relevant"]))
    gained = sorted(set(run["hits"]["wrong"]) - set(then.get("wrong", [])))
    return {
        "passed": len(lost) <= tolerance and len(gained) <= tolerance,
        "lost": lost,
        "gained_wrong": gained,
        "tolerance": tolerance,
        "baseline": {k: baseline.get(k) for k in ("at", "precision", "recall", "settings")},
    }


def _truth(value: Any, where: str) -> bool:
    if isinstance(value, bool):
        return value
    word = str(value).strip().casefold()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise InvalidInput(f"{where}: relevant must be true or false, not {str(value)[:40]!r}")


def parse_labels(text: str, fmt: str | None = None) -> list[Label]:
    """Labels from JSON or CSV text (``fmt`` "json" / "csv"; guessed from the first character when None)."""
    fmt = fmt or ("json" if text.lstrip()[:1] in "[{" else "csv")
    if fmt == "json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"labels: not JSON ({exc.msg} at line {exc.lineno})") from exc
        items: Iterable[Any] = data.get("labels", []) if isinstance(data, dict) else data
    elif fmt == "csv":
        items = list(csv.DictReader(io.StringIO(text)))
    else:
        raise InvalidInput(f"labels format must be json or csv, not {fmt!r}")
    out = []
    for n, item in enumerate(items, 1):
        where = f"label {n}"
        if not isinstance(item, dict):
            raise InvalidInput(f"{where}: expected an object with user_id, query, memory_id, relevant")
        missing = [k for k in ("user_id", "query", "memory_id", "relevant") if item.get(k) in (None, "")]
        if missing:
            raise InvalidInput(f"{where}: missing {', '.join(missing)}")
        out.append(
            Label(str(item["user_id"]), str(item["query"]), str(item["memory_id"]), _truth(item["relevant"], where))
        )
    if not out:
        raise InvalidInput("no labels in the file")
    return out
