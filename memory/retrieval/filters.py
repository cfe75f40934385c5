"""Recall filters (memory type, source type, agent, event-time window) and the ``as_of`` reference time.

Every value is validated against its vocabulary before it goes anywhere: memory types and source types must be
members of their enums (the *canonical* constant is used, never the caller's string), times must be ISO-8601 or
datetimes. The memory-type filter becomes a LanceDB prefilter (``type IN (...)`` built from the canonical
constants), the agent filter goes through the index's own quoting; source type and the event-time window are not
columns of the index, so they apply to the rows the SQL join returns for every candidate anyway, with a larger
candidate pool so a narrow filter still finds enough.

``as_of`` resolves relative date words in the query ("last week", "上周", "3 days ago") with
:func:`memory.text.dates.resolve`; candidates whose event time falls in that period are lifted in the ranking (like
the same-day boost: a share of the fused scores' spread, so a clear winner stays first).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from memory.errors import InvalidInput
from memory.storage.models import MEMORY_TYPES
from memory.text.dates import DateMatch, resolve
from memory.vocab import SourceType

_WEEK_WORDS = ("week", "周", "星期", "礼拜")
#: candidates fetched per signal when a SQL-side filter may discard many
FILTERED_POOL_FACTOR = 4
#: candidates per signal (before that factor) when a door's own filters narrow a search: 1,000 rows, as many as the
#: doors searched before their filters moved before the cut
DOOR_POOL = 250


def parse_time(value: datetime | str | None, name: str) -> datetime | None:
    """An aware UTC datetime from a datetime or an ISO-8601 string (naive = UTC); a clear error otherwise."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip())
        except ValueError as exc:
            raise InvalidInput(f"{name} must be an ISO-8601 time such as 2026-11-24 or 2026-11-24T09:00:00Z") from exc
    if not isinstance(value, datetime):
        raise InvalidInput(f"{name} must be a time")
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _members(values: Iterable[str] | str | None, allowed: Iterable[str], name: str) -> tuple[str, ...]:
    if values is None:
        return ()
    items = [values] if isinstance(values, str) else list(values)
    canon = {a.lower(): a for a in allowed}
    out = []
    for v in items:
        key = str(v).strip().lower()
        if key not in canon:
            raise InvalidInput(f"unknown {name} {str(v)[:40]!r}; one of: {', '.join(sorted(canon.values()))}")
        out.append(canon[key])
    return tuple(dict.fromkeys(out))


@dataclass(frozen=True)
class RecallFilters:
    """Validated filters; build with :meth:`build` (never from raw strings directly)."""

    types: tuple[str, ...] = ()
    source_types: tuple[str, ...] = ()
    since: datetime | None = None
    until: datetime | None = None
    as_of: datetime | None = None
    #: messages the prompt already shows (the session's recent turns): their episodes are not recalled again
    shown_messages: frozenset[str] = frozenset()
    #: a door's own filters (mem0's metadata filters and ``run_id``, a LangGraph namespace prefix and value filter),
    #: as a test on each candidate's stored row (``memory.retrieval.recall.MemoryRow``): applied before the cut, so
    #: the top k, the same-source twins and every other verdict are made among the memories the door may return
    rows: Callable[[Any], bool] | None = field(default=None, compare=False)
    #: what ``rows`` tests, as the door was given it (for the retrieval log)
    rows_label: Any = None

    @classmethod
    def build(
        cls,
        *,
        types: Iterable[str] | str | None = None,
        source_types: Iterable[str] | str | None = None,
        since: datetime | str | None = None,
        until: datetime | str | None = None,
        as_of: datetime | str | None = None,
        shown_messages: Iterable[int] = (),
    ) -> RecallFilters:
        out = cls(
            types=_members(types, MEMORY_TYPES, "memory type"),
            source_types=_members(source_types, [s.value for s in SourceType], "source type"),
            since=parse_time(since, "since"),
            until=parse_time(until, "until"),
            as_of=parse_time(as_of, "as_of"),
            shown_messages=frozenset(str(int(i)) for i in shown_messages),
        )
        if out.since and out.until and out.since > out.until:
            raise InvalidInput("since must not be after until")
        return out

    @property
    def sql_side(self) -> bool:
        """Filters the index cannot apply (they narrow the candidates after the search)."""
        return bool(self.source_types or self.since or self.until or self.rows is not None)

    def index_clause(self) -> str | None:
        """The LanceDB prefilter for memory types, from the canonical constants only."""
        if not self.types:
            return None
        assert all(t in MEMORY_TYPES for t in self.types)  # canonical by construction
        return "type IN (" + ", ".join(f"'{t}'" for t in self.types) + ")"

    def keeps_row(self, row: Any) -> bool:
        """The SQL-side filters for one candidate's stored row: :meth:`keeps`, then the door's own test."""
        return self.keeps(row.source_type, row.event_time) and (self.rows is None or bool(self.rows(row)))

    def keeps(self, source_type: str, event_time: datetime | None) -> bool:
        """The SQL-side filters for one candidate (event time missing = outside any window)."""
        if self.source_types and source_type not in self.source_types:
            return False
        if self.since or self.until:
            if event_time is None:
                return False
            at = event_time.replace(tzinfo=UTC) if event_time.tzinfo is None else event_time
            if (self.since and at < self.since) or (self.until and at > self.until):
                return False
        return True

    def to_dict(self) -> dict:
        iso = {k: getattr(self, k).isoformat() if getattr(self, k) else None for k in ("since", "until", "as_of")}
        out = {"types": list(self.types), "source_types": list(self.source_types), **iso}
        if self.shown_messages:
            out["shown_messages"] = sorted(self.shown_messages, key=int)
        if self.rows is not None:
            out["door"] = self.rows_label
        return out


def period(query: str, as_of: datetime) -> tuple[DateMatch, datetime, datetime] | None:
    """The date phrase of the query resolved against ``as_of`` and the period it names: [start, end)."""
    found = resolve(query, as_of, prefer="past")
    if found is None:
        return None
    when = found.when if found.when.tzinfo else found.when.replace(tzinfo=UTC)
    start = when.replace(hour=0, minute=0, second=0, microsecond=0)
    if found.granularity == "year":
        end = start.replace(year=start.year + 1)
    elif found.granularity == "month":
        end = (start.replace(day=28) + timedelta(days=4)).replace(day=1)
    elif any(w in found.phrase.lower() for w in _WEEK_WORDS):  # the calendar week (Monday..Sunday) it falls in
        start -= timedelta(days=start.weekday())
        end = start + timedelta(days=7)
    else:
        end = start + timedelta(days=1)
    return found, start, end


def time_boost(
    fused: Mapping[str, float], event_of: Mapping[str, datetime | None], window: tuple[datetime, datetime], lift: float
) -> dict[str, float]:
    """Lift candidates whose event time falls in ``window`` by ``lift`` × a third of the fused scores' spread."""
    if not fused or lift <= 0:
        return dict(fused)
    spread = (max(fused.values()) - min(fused.values())) / 3 or 1.0
    start, end = window
    out = {}
    for i, s in fused.items():
        at = event_of.get(i)
        if at is not None and at.tzinfo is None:
            at = at.replace(tzinfo=UTC)
        out[i] = s + lift * spread if at is not None and start <= at < end else s
    return out
