"""Labelled queries as a regression suite: the retrieval lab's verdicts (and imported ones) say which memories are
relevant to which query; this measures what recall would inject for each under the current settings, and gates a
change on it.

- :func:`evaluate` — each labelled query searched again (the real recall, not logged): precision = labelled-relevant
  among the labelled memories selected; recall = labelled-relevant memories selected over all labelled-relevant.
- :func:`gate` — against a baseline run (the last recorded one, or a file): a change fails when it loses more than
  ``tolerance`` labelled-relevant hits or gains more than ``tolerance`` labelled-wrong ones.
- :func:`parse_labels` — JSON (a list of objects, or ``{"labels": [...]}``) or CSV with the columns ``user_id,
  query, memory_id, relevant``; the service logs each query once and stores the labels as the lab does. Every row
  is checked as live input is (ids and text as :mod:`memory.validate` says, at most :data:`MAX_LABELS` rows, a query
  at most :data:`MAX_QUERY_CHARS`, no two rows judging one memory for one query differently), and anything wrong —
  malformed JSON or CSV, a NUL, a field past the CSV reader's limit, nesting too deep — is one :class:`InvalidInput`
  naming the row, never a crash.

Each recorded run is an ``eval-labels`` row of the audit trail (who ran it, when, the figures and the hits), so the
suite's history needs no table of its own and the Evaluation page reads it from there.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from memory import validate
from memory.errors import InvalidInput
from memory.retrieval.recall import RecallResult
from memory.views.labels import query_key

#: rows one import may carry (each distinct query is searched once: the cost is bounded like a request's)
MAX_LABELS = 5_000
#: the longest labelled query (a question, not a document)
MAX_QUERY_CHARS = 2_000
#: the longest memory id (MemLens's are 32 hex digits)
MAX_MEMORY_ID_CHARS = 64
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


def parse_labels(text: str, fmt: str | None = None, *, limit: int = MAX_LABELS) -> list[Label]:
    """Labels from JSON or CSV text (``fmt`` "json" / "csv"; guessed from the first character when None)."""
    if not isinstance(text, str):
        raise InvalidInput("labels must be text (JSON or CSV)")
    if "\x00" in text:
        raise InvalidInput("labels: the file contains a NUL character")
    fmt = fmt or ("json" if text.lstrip()[:1] in "[{" else "csv")
    items: list[Any]
    if fmt == "json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"labels: not JSON ({exc.msg} at line {exc.lineno})") from exc
        except RecursionError:
            raise InvalidInput("labels: JSON nested too deeply") from None
        found = data.get("labels", []) if isinstance(data, dict) else data
        if not isinstance(found, list):
            raise InvalidInput('labels: expected a list of objects (or {"labels": [...]})')
        items = found
    elif fmt == "csv":
        try:
            items = list(csv.DictReader(io.StringIO(text)))
        except csv.Error as exc:
            raise InvalidInput(f"labels: not CSV ({exc})") from None
    else:
        raise InvalidInput(f"labels format must be json or csv, not {str(fmt)[:20]!r}")
    return labels_from_rows(items, limit=limit)


def labels_from_rows(items: Sequence[Any], *, limit: int = MAX_LABELS) -> list[Label]:
    """Rows already decoded (objects with user_id, query, memory_id, relevant), checked as :func:`parse_labels`
    checks a file's."""
    if len(items) > limit:
        raise InvalidInput(f"labels: {len(items):,} rows; one import takes at most {limit:,}")
    out: list[Label] = []
    seen: dict[tuple[str, str, str], tuple[int, bool]] = {}
    for n, item in enumerate(items, 1):
        label = _row(item, f"label {n}")
        key = (label.user_id, query_key(label.query), label.memory_id)
        if key in seen and seen[key][1] != label.relevant:
            raise InvalidInput(f"label {n}: contradicts label {seen[key][0]} (same user, query and memory)")
        seen.setdefault(key, (n, label.relevant))
        out.append(label)
    if not out:
        raise InvalidInput("no labels in the file")
    return out


def _row(item: Any, where: str) -> Label:
    """One checked row: its fields as live input is checked (a CSV row's extra columns are ignored)."""
    if not isinstance(item, dict):
        raise InvalidInput(f"{where}: expected an object with user_id, query, memory_id, relevant")
    missing = [k for k in ("user_id", "query", "memory_id", "relevant") if item.get(k) in (None, "")]
    if missing:
        raise InvalidInput(f"{where}: missing {', '.join(missing)}")
    for k in ("user_id", "query", "memory_id"):
        if not isinstance(item[k], str):
            raise InvalidInput(f"{where}: {k} must be text")
    user_id = validate.external_id(item["user_id"], f"{where}: user id")
    query = validate.text(item["query"], MAX_QUERY_CHARS, f"{where}: query", "the labels import's query limit")
    memory_id = validate.external_id(item["memory_id"], f"{where}: memory id").strip()
    if len(memory_id) > MAX_MEMORY_ID_CHARS:
        raise InvalidInput(f"{where}: memory id is longer than {MAX_MEMORY_ID_CHARS} characters")
    return Label(user_id, query, memory_id, _truth(item["relevant"], where))
