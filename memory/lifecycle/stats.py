"""Statistics derived from a user's history — plain Python, deterministic, no model.

- counts of sessions (by status) and memories (by status and type);
- most frequent **interests** (items added to the profile's ``interests`` field, and memories whose predicate says
  "likes / interested in / 喜欢 …") and **topics** (a memory's ``meta.topic(s)``, else its predicate). An occurrence
  is counted once per source message: repeating "photography" twice in one message, or a profile change and a memory
  taken from the same message, counts once. Ties are broken by the most recent occurrence (stable sorts);
- **typical budget** = the median of the budgets stated (profile ``budget`` changes and ``budget`` memories), so one
  exceptional trip does not drag it the way a mean would.

Old or corrupted rows (JSON columns holding garbage, unparseable dates or amounts) are read as raw text, skipped by
the statistics and listed in ``problems`` — the detail view — so a bad row never crashes a page.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from statistics import median
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Text, cast, func, select
from sqlmodel import col

from memory.storage import records
from memory.storage.models import Memory, ProfileChange, Session
from memory.text.numerals import find_amount
from memory.vocab import MemoryStatus

if TYPE_CHECKING:
    from memory.storage.db import Database

INTEREST_PREDICATES = frozenset(
    {
        "like",
        "likes",
        "love",
        "loves",
        "enjoy",
        "enjoys",
        "interest",
        "interests",
        "interested_in",
        "hobby",
        "hobbies",
        "喜欢",
        "爱好",
        "兴趣",
        "热爱",
    }
)
BUDGET_PREDICATES = frozenset({"budget", "typical_budget", "预算"})
_SPLIT = re.compile(r"[,，、;；/]")


@dataclass(frozen=True)
class Occurrence:
    value: str  # as displayed
    unit: tuple[str, Any]  # the source message (or row) it came from: counted once per unit
    at: datetime


class BadRow(ValueError):
    """A stored value that cannot be read as what its column promises."""


def _json(raw: str | None, what: str) -> Any:
    if raw is None:
        return None
    try:
        return json.loads(raw)
    except (TypeError, ValueError):
        raise BadRow(f"{what} is not valid JSON: {str(raw)[:60]!r}") from None


def _time(raw: str | None, what: str) -> datetime:
    try:
        dt = datetime.fromisoformat(str(raw).strip())
    except (TypeError, ValueError):
        raise BadRow(f"{what} is not a date: {str(raw)[:60]!r}") from None
    return dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt


def parse_amount(value: Any) -> float:
    """5000, "5,000", "¥5000 元", "5k", "1.5万" → a number; anything else raises BadRow."""
    if isinstance(value, bool):
        raise BadRow(f"budget {value!r} is not an amount")
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, dict):
        for key in ("amount", "value", "max"):
            if key in value:
                return parse_amount(value[key])
    if isinstance(value, str):
        found = find_amount(value)  # the extractors' parser: '1,500 dollars', '2.5k', '3.5万', '一百零五', '五千块'
        if found:
            return found.value
    raise BadRow(f"budget {str(value)[:60]!r} is not an amount")


def _items(value: Any) -> list[str]:
    """A list field's items; a legacy comma-separated string is accepted, anything else is a bad row."""
    if value is None:
        return []
    if isinstance(value, str):
        return [p.strip() for p in _SPLIT.split(value) if p.strip()]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return [v.strip() for v in value if v.strip()]
    raise BadRow(f"expected a list of text, got {str(value)[:60]!r}")


def rank(occurrences: Iterable[Occurrence], limit: int = 10) -> list[dict[str, Any]]:
    """Most frequent first; ties → most recent first; one count per (value, source message)."""
    seen: set[tuple[str, tuple[str, Any]]] = set()
    counts: Counter[str] = Counter()
    recent: dict[str, datetime] = {}
    shown: dict[str, str] = {}
    for occ in sorted(occurrences, key=lambda o: o.at):
        key = " ".join(occ.value.casefold().split())
        if not key or (key, occ.unit) in seen:
            continue
        seen.add((key, occ.unit))
        counts[key] += 1
        recent[key] = occ.at
        shown[key] = occ.value  # the latest spelling
    ordered = sorted(counts, key=lambda k: (-counts[k], -recent[k].timestamp(), k))
    return [{"value": shown[k], "count": counts[k], "last_seen": recent[k].isoformat()} for k in ordered[:limit]]


def _units(raw_sources: Any, fallback: tuple[str, Any]) -> list[tuple[str, Any]]:
    if raw_sources is None:
        return [fallback]
    if not isinstance(raw_sources, list):
        raise BadRow(f"source_message_ids is not a list: {str(raw_sources)[:60]!r}")
    return [("message", int(s)) for s in raw_sources if isinstance(s, int | str) and str(s).isdigit()] or [fallback]


@dataclass
class _Found:
    """What one row contributes; added to the totals only when the whole row was readable."""

    interests: list[Occurrence] = field(default_factory=list)
    topics: list[Occurrence] = field(default_factory=list)
    budgets: list[tuple[tuple[str, Any], float]] = field(default_factory=list)

    def add(self, other: _Found) -> None:
        self.interests += other.interests
        self.topics += other.topics
        self.budgets += other.budgets


def from_profile_change(row: Any) -> _Found:
    found, at = _Found(), _time(row.at, "at")
    unit = ("message", int(row.source_message_id)) if row.source_message_id else ("change", row.id)
    if row.field == "interests":
        old = {v.casefold() for v in _items(_json(row.old_value, "old_value"))}
        for item in dict.fromkeys(_items(_json(row.new_value, "new_value"))):
            if item.casefold() not in old:
                found.interests.append(Occurrence(item, unit, at))
    elif row.field == "budget":
        new = _json(row.new_value, "new_value")
        if new is not None:
            found.budgets.append((unit, parse_amount(new)))
    return found


def from_memory(row: Any) -> _Found:
    found, at = _Found(), _time(row.created_at, "created_at")
    units = _units(_json(row.source_message_ids, "source_message_ids"), ("memory", row.id))
    meta = _json(row.meta, "meta") or {}
    if not isinstance(meta, dict):
        raise BadRow(f"meta is not an object: {str(meta)[:60]!r}")
    predicate = "_".join((row.predicate or "").casefold().replace("_", " ").split())
    topics = _items(meta.get("topics") or meta.get("topic") or predicate.replace("_", " ") or None)
    interests = _items(row.object) if predicate in INTEREST_PREDICATES else []
    for unit in units:
        found.topics += [Occurrence(t, unit, at) for t in topics]
        found.interests += [Occurrence(i, unit, at) for i in interests]
    if predicate in BUDGET_PREDICATES and row.object:
        found.budgets.append((units[0], parse_amount(row.object)))
    return found


def _typical(budgets: list[tuple[tuple[str, Any], float]]) -> float | int | None:
    values = list({unit: amount for unit, amount in budgets}.values())  # one per source message
    if not values:
        return None
    mid = median(values)
    return int(mid) if float(mid).is_integer() else round(mid, 2)


def user_stats(store: Database, user_id: str) -> dict[str, Any]:
    """Counts, top interests and topics, typical budget, and the rows that had to be skipped (``problems``)."""
    key = records.get_user(store, user_id).key
    with store.engine.connect() as conn:
        sessions, by_status, by_type = _counts(conn, key)
        total, problems = _read_history(conn, key)
    return {
        "sessions": {"total": sum(sessions.values()), **{str(k): v for k, v in sessions.items()}},
        "memories": {"total": sum(by_status.values()), **{str(k): v for k, v in by_status.items()}},
        "active_by_type": {str(k): v for k, v in by_type.items()},
        "interests": rank(total.interests),
        "topics": rank(total.topics),
        "typical_budget": _typical(total.budgets),
        "budget_samples": len({u for u, _ in total.budgets}),
        "skipped_rows": len({(p["table"], p["id"]) for p in problems}),
        "problems": problems,
    }


def _grouped(conn: Connection, column: Any, *where: Any) -> dict[Any, int]:
    """value of ``column`` → number of rows, for the rows matching ``where``."""
    return dict(conn.execute(select(column, func.count()).where(*where).group_by(column)).all())


def _counts(conn: Connection, key: str) -> tuple[dict[Any, int], dict[Any, int], dict[Any, int]]:
    """Sessions by status, memories by status, active memories by type."""
    return (
        _grouped(conn, Session.status, Session.user_key == key),
        _grouped(conn, Memory.status, Memory.user_key == key),
        _grouped(conn, Memory.type, Memory.user_key == key, Memory.status == MemoryStatus.ACTIVE),
    )


def _read_history(conn: Connection, key: str) -> tuple[_Found, list[dict[str, Any]]]:
    """Interests, topics and budgets from the profile changes and memories; each unreadable row in ``problems``.

    JSON and date columns are read as raw text, so one corrupted value fails only its own row."""
    changes = conn.execute(
        select(
            col(ProfileChange.id),
            col(ProfileChange.field),
            cast(ProfileChange.old_value, Text).label("old_value"),
            cast(ProfileChange.new_value, Text).label("new_value"),
            col(ProfileChange.source_message_id),
            cast(ProfileChange.at, Text).label("at"),
        ).where(col(ProfileChange.user_key) == key, col(ProfileChange.field).in_(["interests", "budget"]))
    ).all()
    memories = conn.execute(
        select(
            col(Memory.id),
            col(Memory.predicate),
            col(Memory.object),
            cast(col(Memory.source_message_ids), Text).label("source_message_ids"),
            cast(Memory.meta, Text).label("meta"),
            cast(Memory.created_at, Text).label("created_at"),
        ).where(
            col(Memory.user_key) == key,
            col(Memory.status).in_([MemoryStatus.ACTIVE, MemoryStatus.SUPERSEDED, MemoryStatus.ARCHIVED]),
        )
    ).all()
    total, problems = _Found(), []
    for table, rows, read in (("profilechange", changes, from_profile_change), ("memory", memories, from_memory)):
        for row in rows:
            try:
                total.add(read(row))
            except (BadRow, TypeError, ValueError, AttributeError) as exc:  # one bad row never sinks the page
                problems.append({"table": table, "id": row.id, "problem": str(exc)})
    return total, problems
