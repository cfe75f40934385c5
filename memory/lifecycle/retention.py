"""Memory lifecycle: access tracking, forgetting (expiry, decay, caps, retention) and compaction.

A memory that only grows becomes noise, so every rule here is explicit, configurable and explained per memory:

- **Access tracking** (``memory.retrieval.log.touch``, the retrieval log's writer): each recall bumps
  ``last_accessed_at`` / ``access_count`` of the selected hits in one batched UPDATE (no ``version`` bump: reading
  is not an edit, and it must not break optimistic edits).
- **Value** of an active memory = decayed importance × confidence × (1 + ``reinforce_boost`` · ln(1 + reinforcements)),
  where decayed importance = importance · 0.5^(days since last access, else creation / ``decay_half_life_days``).
- **Forgetting** (``forget``), per user, in this order:
  1. *expired*: ``expires_at`` has passed; when unset, a type listed in ``expire_after_days`` expires that many days
     after its ``event_time`` (else ``created_at``). Types not listed (e.g. turns, summaries) never expire.
  2. *faded*: value below ``archive_below_value``.
  3. *cap*: more than ``max_active_memories`` active memories left → the lowest-value ones are archived first
     (ties: least recently used, then oldest). Episodes (what was said) have a cap of their own,
     ``max_active_episodes``, beyond which the least recently recalled go first, and never fade by value: an old
     conversation stays recallable, and the session's summaries and bridges outlive an archived episode. The
     episodes a run archives this way are folded into one summary memory per session, in their own words
     (:mod:`memory.lifecycle.fold`).
  4. *retention*: archived more than ``archive_retention_days`` ago (``updated_at`` of the archived row) → purged
     for good (row, its write log and retrieval hits; a content-free ``PURGE`` event records why).
  Archiving removes the vector from LanceDB; SQL keeps the row, so an archived memory can still be read and restored.
  A profile value that an archived or purged memory stated follows it (``memory.write.profile_sync.forgotten``): it
  moves to another active memory stating the same value, else it is dropped with a change-log entry giving the rule.
- **Compaction** lives in :mod:`memory.lifecycle.compact` (near-duplicate
  / same-topic memories merge, keeping provenance).

Every function takes ``now`` explicitly (default: the wall clock) so tests and replays are deterministic.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, overload

from sqlalchemy import String, select, type_coerce
from sqlmodel import SQLModel, col

from memory.config import Settings
from memory.lifecycle.fold import FOLDED, Folded, fold, folded_summaries
from memory.storage.db import chunks
from memory.storage.models import Memory, MemoryEvent, utcnow
from memory.vocab import Actor, EventOp, MemoryStatus, MemoryType
from memory.write import status

if TYPE_CHECKING:
    from memory.storage.db import Database
    from memory.storage.store import Storage

_TIMES = ("event_time", "created_at", "updated_at", "last_accessed_at", "expires_at")
_RULE_COLUMNS = (
    "id",
    "user_key",
    "agent_id",
    "type",
    "content",
    "confidence",
    "importance",
    "status",
    "access_count",
    "reinforce_count",
    *_TIMES,
)
_ALL_COLUMNS = (
    *_RULE_COLUMNS,
    "subject",
    "predicate",
    "object",
    "source_type",
    "source_message_ids",
    "meta",
    "indexed",
)


@overload
def aware(dt: datetime) -> datetime: ...
@overload
def aware(dt: None) -> None: ...
def aware(dt: datetime | None) -> datetime | None:
    """SQLite hands datetimes back naive; they were stored as UTC."""
    return dt.replace(tzinfo=UTC) if dt is not None and dt.tzinfo is None else dt


# -- value -------------------------------------------------------------------------------------------------------
@dataclass(slots=True)
class MemInfo:
    """The columns the lifecycle rules need, loaded without ORM overhead (times aware UTC)."""

    id: str
    user_key: str
    agent_id: str
    type: str
    content: str
    confidence: float
    importance: float
    status: str
    access_count: int
    reinforce_count: int
    event_time: datetime | None
    created_at: datetime
    updated_at: datetime
    last_accessed_at: datetime | None
    expires_at: datetime | None
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None
    source_type: str = "user-stated"
    source_message_ids: list[Any] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    indexed: bool = False


def _time(value: Any) -> datetime | None:
    """Raw column value → aware datetime (SQLite gives ISO text, PostgreSQL datetimes)."""
    if value is None or isinstance(value, datetime):
        return aware(value)
    return aware(datetime.fromisoformat(value))


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str | bytes) else value


def load(store: Database, *, user_key: str | None, statuses: Sequence[str], full: bool = True) -> list[MemInfo]:
    """Memories in the given states; ``full=False`` skips the columns only compaction needs.

    Times and JSON are read raw and parsed here: SQLAlchemy's per-value processors dominate at 100k rows.
    """
    names = _ALL_COLUMNS if full else _RULE_COLUMNS
    table = SQLModel.metadata.tables[str(Memory.__tablename__)]
    cols = [
        type_coerce(table.c[n], String) if n in _TIMES or n in ("meta", "source_message_ids") else table.c[n]
        for n in names
    ]
    query = select(*cols).where(table.c.status.in_(list(statuses)))
    if user_key is not None:
        query = query.where(table.c.user_key == user_key)
    out = []
    with store.engine.connect() as conn:
        for row in conn.execute(query.order_by(table.c.user_key, table.c.id)):
            values: dict[str, Any] = dict(zip(names, row, strict=True))  # raw column values, parsed below
            for n in _TIMES:
                values[n] = _time(values[n])
            if full:
                values["source_message_ids"] = list(_json(values["source_message_ids"]) or [])
                values["meta"] = dict(_json(values["meta"]) or {})
            out.append(MemInfo(**values))
    return out


def decayed_importance(m: MemInfo, now: datetime, s: Settings) -> float:
    ref = m.last_accessed_at or m.created_at
    days = max(0.0, (now - ref).total_seconds() / 86400)
    return m.importance * math.pow(0.5, days / s.decay_half_life_days)


def value(m: MemInfo, now: datetime, s: Settings) -> float:
    """How much a memory is worth keeping now (see the module docstring)."""
    boost = 1.0 + s.reinforce_boost * math.log1p(max(0, m.reinforce_count))
    return decayed_importance(m, now, s) * m.confidence * boost


def expiry(m: MemInfo, s: Settings) -> tuple[datetime | None, str]:
    """When a memory expires, and why (explicit ``expires_at`` wins over the per-type rule)."""
    if m.expires_at is not None:
        return m.expires_at, "its own expiry date"
    days = s.expire_after_days.get(m.type)
    if days is None:
        return None, f"type {m.type!r} never expires"
    base, what = (m.event_time, "event time") if m.event_time else (m.created_at, "creation")
    return base + timedelta(days=days), f"{m.type} memories expire {days:g} days after their {what}"


# -- forgetting --------------------------------------------------------------------------------------------------
@dataclass
class Action:
    memory_id: str
    user_key: str
    action: str  # archive | delete
    rule: str  # expired | faded | cap | retention
    reason: str
    value: float
    type: str
    content: str
    agent_id: str = "default"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class ForgetReport:
    now: datetime
    dry_run: bool
    actions: list[Action] = field(default_factory=list)
    folded: list[Folded] = field(default_factory=list)  # summaries written for the episodes archived by the cap

    def count(self, action: str) -> int:
        return sum(a.action == action for a in self.actions)

    def to_dict(self) -> dict[str, Any]:
        by_rule: dict[str, int] = defaultdict(int)
        for a in self.actions:
            by_rule[a.rule] += 1
        return {
            "now": self.now.isoformat(),
            "dry_run": self.dry_run,
            "archived": self.count("archive"),
            "deleted": self.count("delete"),
            "by_rule": dict(by_rule),
            "actions": [a.to_dict() for a in self.actions],
            "folded": [f.to_dict() for f in self.folded],
        }


def _act(m: MemInfo, action: str, rule: str, reason: str, v: float) -> Action:
    return Action(m.id, m.user_key, action, rule, reason, round(v, 6), m.type, m.content[:200], m.agent_id)


def plan_forget(rows: Sequence[MemInfo], s: Settings, now: datetime) -> list[Action]:
    """Pure: which memories to archive or delete, and why (rows of any number of users)."""
    by_user: dict[str, list[MemInfo]] = defaultdict(list)
    for m in rows:
        by_user[m.user_key].append(m)
    actions: list[Action] = []
    for members in by_user.values():
        keep: list[tuple[float, MemInfo]] = []
        episodes: list[MemInfo] = []
        for m in members:
            v = value(m, now, s) if m.status == MemoryStatus.ACTIVE else 0.0
            act = _retire(m, s, now, v)
            if act is not None:
                actions.append(act)
            elif m.status == MemoryStatus.ARCHIVED:
                continue
            elif m.type == MemoryType.EPISODE:
                episodes.append(m)
            else:
                keep.append((v, m))
        actions += _over_cap(keep, s)
        actions += _episodes_over_cap(episodes, s)
    return actions


def _retire(m: MemInfo, s: Settings, now: datetime, v: float) -> Action | None:
    """One memory on its own: an archived one past retention is deleted; an expired or faded one is archived."""
    if m.status == MemoryStatus.ARCHIVED:
        if now - m.updated_at < timedelta(days=s.archive_retention_days):
            return None
        kept = f"kept {s.archive_retention_days:g} days (MEMLENS_ARCHIVE_RETENTION_DAYS)"
        return _act(m, "delete", "retention", f"archived on {m.updated_at:%Y-%m-%d}, {kept}", 0.0)
    when, why = expiry(m, s)
    if when is not None and when <= now:
        return _act(m, "archive", "expired", f"expired on {when:%Y-%m-%d}: {why}", v)
    if v < s.archive_below_value and m.type != MemoryType.EPISODE:  # episodes have a cap of their own, no fading
        idle = (now - (m.last_accessed_at or m.created_at)).days
        faded = f"importance {m.importance:g} decayed over {idle} days without use"
        return _act(m, "archive", "faded", f"value {v:.4f} < {s.archive_below_value:g}: {faded}", v)
    return None


def _over_cap(keep: list[tuple[float, MemInfo]], s: Settings) -> list[Action]:
    """One user's kept memories beyond the active cap, lowest value (then least recently used) first, archived."""
    over = len(keep) - s.max_active_memories
    if over <= 0:
        return []
    keep = sorted(keep, key=lambda p: (p[0], p[1].last_accessed_at or p[1].created_at, p[1].created_at, p[1].id))
    cap = f"over the cap of {s.max_active_memories} active memories (MEMLENS_MAX_ACTIVE_MEMORIES)"
    return [_act(m, "archive", "cap", f"{cap}; value {v:.4f} is among the {over} lowest", v) for v, m in keep[:over]]


def _episodes_over_cap(episodes: list[MemInfo], s: Settings) -> list[Action]:
    """One user's active episodes beyond their cap, least recently recalled (then oldest) first, archived."""
    over = len(episodes) - s.max_active_episodes
    if over <= 0:
        return []
    episodes = sorted(episodes, key=lambda m: (m.last_accessed_at or m.created_at, m.created_at, m.id))
    cap = f"over the cap of {s.max_active_episodes} active episodes (MEMLENS_MAX_ACTIVE_EPISODES)"
    why = f"{cap}; among the {over} least recently recalled; {FOLDED}"
    return [_act(m, "archive", "cap", why, 0.0) for m in episodes[:over]]


def forget(
    store: Storage,
    *,
    user_key: str | None = None,
    dry_run: bool = False,
    now: datetime | None = None,
    actor: Actor | None = None,
) -> ForgetReport:
    """Plan and (unless ``dry_run``) apply the forgetting rules for one user or everyone; the profile follows."""
    now = now or utcnow()
    rows = load(store, user_key=user_key, statuses=(MemoryStatus.ACTIVE, MemoryStatus.ARCHIVED), full=False)
    report = ForgetReport(now=now, dry_run=dry_run, actions=plan_forget(rows, store.settings, now))
    if not dry_run and report.actions:
        who = actor or status.MAINTENANCE
        archive = [a for a in report.actions if a.action == "archive"]
        status.archive(
            store,
            {a.memory_id: a.reason for a in archive},
            actor=who,
            details={a.memory_id: {"rule": a.rule, "value": a.value} for a in archive},
            now=now,
        )
        capped = [a.memory_id for a in archive if a.type == MemoryType.EPISODE and a.rule == "cap"]
        report.folded = fold(store, capped)
        gone = [a for a in report.actions if a.action == "delete"]
        status.purge(
            store, [a.memory_id for a in gone], reasons={a.memory_id: a.reason for a in gone}, now=now, actor=who
        )
    return report


# -- what the lifecycle view shows -------------------------------------------------------------------------------
def overview(store: Storage, *, user_key: str, now: datetime | None = None, limit: int = 200) -> dict[str, Any]:
    """Archived memories (why, purge date) and active ones with an expiry (when, why), soonest first."""
    now, s = now or utcnow(), store.settings
    rows = load(store, user_key=user_key, statuses=(MemoryStatus.ACTIVE, MemoryStatus.ARCHIVED), full=False)
    archived = sorted((m for m in rows if m.status == MemoryStatus.ARCHIVED), key=lambda m: m.updated_at, reverse=True)[
        :limit
    ]
    reasons: dict[str, str] = {}
    with store.engine.connect() as conn:
        for chunk in chunks([m.id for m in archived]):
            query = (
                select(col(MemoryEvent.memory_id), col(MemoryEvent.reason))
                .where(col(MemoryEvent.memory_id).in_(chunk), col(MemoryEvent.op) == EventOp.ARCHIVE)
                .order_by(col(MemoryEvent.id))
            )
            # the latest archive decision wins (the filter on memory_id leaves no event without one)
            reasons.update((mid, why) for mid, why in conn.execute(query) if mid is not None)
    retention = timedelta(days=s.archive_retention_days)
    expiring: list[dict[str, Any]] = []  # one row of the view each (heterogeneous values, as the view shows them)
    for m in rows:
        when, why = expiry(m, s) if m.status == MemoryStatus.ACTIVE else (None, "")
        if when is not None:
            expiring.append(
                {
                    "memory_id": m.id,
                    "type": m.type,
                    "content": m.content[:200],
                    "expires_at": when,
                    "why": why,
                    "value": round(value(m, now, s), 4),
                }
            )
    expiring.sort(key=lambda e: e["expires_at"])
    return {
        "now": now,
        "archived": [
            {
                "memory_id": m.id,
                "type": m.type,
                "content": m.content[:200],
                "archived_at": m.updated_at,
                "purge_at": m.updated_at + retention,
                "why": reasons.get(m.id, "archived"),
            }
            for m in archived
        ],
        "expiring": expiring[:limit],
        "active": sum(m.status == MemoryStatus.ACTIVE and m.type != MemoryType.EPISODE for m in rows),
        "cap": s.max_active_memories,
        "active_episodes": sum(m.status == MemoryStatus.ACTIVE and m.type == MemoryType.EPISODE for m in rows),
        "episode_cap": s.max_active_episodes,
        "folded": folded_summaries(store, user_key, limit),
    }
