"""The one status change: supersede, merge, flag, unflag, archive, delete, restore and purge, with the same side
effects whoever asks — the write pipeline, compaction, forgetting, a person's curation, the hygiene queue, the doors.

A change runs in the order that survives a crash, like every write:

1. **SQL, one transaction** (:func:`stage`): the rows are read, checked (a change only applies from the states in
   :data:`FROM`), updated under their optimistic ``version`` (bumped by one; a lost race raises ``StaleDataError`` and
   the caller's ``retrying`` re-reads) and one ``MemoryEvent`` is logged per row (content, reason, the actor and door).
2. **the index** (:func:`follow`): a row that left use leaves LanceDB; a restored row is embedded again. A flag keeps
   the row indexed and visible (recall drops it with ``drop_reason "flagged"``).
3. **the profile** (:func:`follow`): the values a memory stated follow it — :data:`PROFILE_RULE` says how per op
   (dropped, moved to a merged record, moved to another memory stating the same value, set again if empty).
4. **the audit trail**: when the caller names an :class:`~memory.vocab.AuditAction` (a person's curation is audited by
   its ``@guarded`` door, which checks the role first).

"Flagged" is a state of its own, orthogonal to the status: :func:`memory.vocab.is_flagged` is the one reader,
:func:`flag` / :func:`unflag` (ops ``FLAG`` / ``UNFLAG`` here) the one writer.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import Connection, bindparam, delete, insert, select, update
from sqlalchemy.orm.exc import StaleDataError

from memory import provenance
from memory.errors import Conflict, NotFound
from memory.storage import indexing
from memory.storage.db import retrying
from memory.storage.models import HitLabel, Memory, MemoryEvent, RetrievalHit, utcnow
from memory.text.privacy import mask_pii, mask_value
from memory.vocab import FLAG_KEY, Actor, AuditAction, EventOp, MemoryStatus, SourceType, is_flagged
from memory.write import profile_sync

if TYPE_CHECKING:
    from memory.storage.db import Database
    from memory.storage.store import Storage

_M = cast(Any, Memory).__table__
_E = cast(Any, MemoryEvent).__table__
_CHUNK = 500

#: the status each op leaves a memory in (None: the status stays, only the flag changes)
TARGET: dict[EventOp, MemoryStatus | None] = {
    EventOp.SUPERSEDE: MemoryStatus.SUPERSEDED,
    EventOp.MERGE: MemoryStatus.SUPERSEDED,
    EventOp.ARCHIVE: MemoryStatus.ARCHIVED,
    EventOp.DELETE: MemoryStatus.DELETED,
    EventOp.RESTORE: MemoryStatus.ACTIVE,
    EventOp.FLAG: None,
    EventOp.UNFLAG: None,
}
_ALL = frozenset(MemoryStatus)
#: the states each op applies from (anything else is a Conflict, or skipped in a lenient batch)
FROM: dict[EventOp, frozenset[MemoryStatus]] = {
    EventOp.SUPERSEDE: frozenset({MemoryStatus.ACTIVE}),
    EventOp.MERGE: frozenset({MemoryStatus.ACTIVE}),
    EventOp.ARCHIVE: frozenset({MemoryStatus.ACTIVE}),
    EventOp.DELETE: frozenset({MemoryStatus.ACTIVE}),
    EventOp.RESTORE: frozenset({MemoryStatus.DELETED, MemoryStatus.ARCHIVED}),
    EventOp.FLAG: _ALL,
    EventOp.UNFLAG: _ALL,
}
#: what the profile does when a memory changes state: ``drop`` its values (a single-valued field reverts to the last
#: value still held), ``relink`` them to the merged record, ``forgotten`` (moved to another memory stating the same
#: value, else dropped), ``put`` them back when the field is empty
PROFILE_RULE: dict[EventOp, str] = {
    EventOp.SUPERSEDE: "drop",
    EventOp.DELETE: "drop",
    EventOp.FLAG: "drop",
    EventOp.MERGE: "relink",
    EventOp.ARCHIVE: "forgotten",
    EventOp.PURGE: "forgotten",
    EventOp.RESTORE: "put",
    EventOp.UNFLAG: "put",
}
#: the audit action a door's status change is recorded as
AUDIT: dict[EventOp, AuditAction] = {
    EventOp.SUPERSEDE: AuditAction.SUPERSEDE,
    EventOp.MERGE: AuditAction.MERGE,
    EventOp.ARCHIVE: AuditAction.FORGET,
    EventOp.DELETE: AuditAction.DELETE,
    EventOp.RESTORE: AuditAction.RESTORE,
    EventOp.FLAG: AuditAction.FLAG,
    EventOp.UNFLAG: AuditAction.UNFLAG,
}
#: how the profile's change log words each op
_WHY = {
    EventOp.SUPERSEDE: "superseded",
    EventOp.DELETE: "deleted",
    EventOp.FLAG: "flagged as wrong",
    EventOp.RESTORE: "restored",
    EventOp.UNFLAG: "unflagged",
}
#: the confidence a flagged memory keeps at most (restored by unflag)
FLAGGED_CONFIDENCE = 0.2
#: who a status change acts as when no person asked for it (the write pipeline, a scheduled run)
MAINTENANCE = profile_sync.MAINTENANCE
#: who the write pipeline acts as when an UPDATE supersedes a stored memory
PIPELINE = Actor(name="write-pipeline", via="agent")
#: the engine's own actors: the profile's change log names the system as the source of what they change
_ENGINE = (MAINTENANCE, PIPELINE)


def new_lifecycle(now: datetime) -> dict[str, Any]:
    """The lifecycle columns of a memory row written just now (active, unindexed, never recalled, version 1): where
    every state change starts (the write pipeline's facts, the episodes, a compaction's merged record)."""
    return {
        "status": MemoryStatus.ACTIVE,
        "superseded_by": None,
        "updated_at": now,
        "last_accessed_at": None,
        "access_count": 0,
        "reinforce_count": 0,
        "expires_at": None,
        "indexed": False,
        "version": 1,
    }


@dataclass(frozen=True, slots=True)
class Change:
    """One status change of one memory: ``op`` (a key of :data:`TARGET`), the reason logged, the row that replaces
    it (supersede, merge) and extra detail for its write-log event."""

    memory_id: str
    op: EventOp
    reason: str
    superseded_by: str | None = None
    detail: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.op not in TARGET:
            raise ValueError(f"{self.op} is not a status change")
        if self.op in (EventOp.SUPERSEDE, EventOp.MERGE) and not self.superseded_by:
            raise ValueError(f"{self.op} needs the id of the memory that replaces {self.memory_id}")


@dataclass(frozen=True, slots=True)
class Done:
    """A change as applied: the row before (``was``) and the values written."""

    change: Change
    user_key: str
    agent_id: str
    content: str
    was: MemoryStatus
    status: MemoryStatus
    meta: dict[str, Any]
    #: the memory's type (an episode's correction cascades to what was read from it: memory.write.cascade)
    type: str = ""


def _actor_detail(actor: Actor) -> dict[str, Any]:
    return {"actor": actor.name, "via": actor.via}


def flag_meta(meta: Mapping[str, Any] | None, confidence: float, actor: Actor, reason: str) -> dict[str, Any]:
    """The meta a flag writes: why, who (the person's provenance) and the confidence to give back on unflag."""
    return {
        **(meta or {}),
        FLAG_KEY: mask_pii(reason) or "flagged",
        "flag": {
            "actor": actor.name,
            "role": str(actor.role),
            "via": actor.via,
            "reason": mask_pii(reason),
            "at": utcnow().isoformat(),
        },
        "confidence_before_flag": confidence,
    }


def values(change: Change, row: Mapping[str, Any], actor: Actor, now: datetime | None = None) -> dict[str, Any]:
    """The column values ``change`` writes over ``row`` (a stored row's mapping, or one about to be inserted):
    status, replacement, time and version + 1; a flag also its meta and lowered confidence."""
    out: dict[str, Any] = {"updated_at": now or utcnow(), "version": int(row["version"]) + 1}
    target = TARGET[change.op]
    if target is not None:
        out["status"] = target
    if change.superseded_by:
        out["superseded_by"] = change.superseded_by
    if change.op == EventOp.RESTORE:
        out["indexed"] = False
    if change.op == EventOp.FLAG:
        out["meta"] = flag_meta(row["meta"], float(row["confidence"]), actor, change.reason)
        out["confidence"] = min(float(row["confidence"]), FLAGGED_CONFIDENCE)
    elif change.op == EventOp.UNFLAG:
        meta = dict(row["meta"] or {})
        out["confidence"] = float(meta.pop("confidence_before_flag", row["confidence"]))
        meta.pop(FLAG_KEY, None)
        meta.pop("flag", None)
        meta.pop("correction", None)  # an episode's correction taken back (memory.lifecycle.curation)
        out["meta"] = meta
    return out


def event(
    change: Change, row: Mapping[str, Any], actor: Actor, *, content: str | None = None, now: datetime | None = None
) -> dict[str, Any]:
    """The write-log line of a change: the memory's text, the masked reason, who and through which door."""
    was = row.get("status")
    detail = {**mask_value(dict(change.detail)), **_actor_detail(actor)}
    if was is not None and TARGET[change.op] is not None:
        detail["from_status"] = str(was)
    if change.superseded_by:
        detail["superseded_by"] = change.superseded_by
    return {
        "user_key": row["user_key"],
        "agent_id": row["agent_id"],
        "memory_id": change.memory_id,
        "op": change.op,
        "reason": mask_pii(change.reason),
        "content": row["content"] if content is None else content,
        "detail": provenance.stamp_detail(detail),
        "created_at": now or utcnow(),
        "turn_id": None,
        "message_id": None,
    }


def _refuse(change: Change, row: Mapping[str, Any] | None) -> str | None:
    """Why ``change`` cannot apply to ``row`` (None when it can)."""
    if row is None:
        return f"no memory {change.memory_id!r}"
    status = MemoryStatus(row["status"])
    if status not in FROM[change.op]:
        allowed = " or ".join(sorted(FROM[change.op]))
        return f"memory {change.memory_id} is {status}; only {allowed} memories can take {change.op}"
    if change.op == EventOp.FLAG and is_flagged(row["meta"]):
        return f"memory {change.memory_id} is already flagged"
    if change.op == EventOp.UNFLAG and not is_flagged(row["meta"]):
        return f"memory {change.memory_id} is not flagged"
    return None


def stage(
    conn: Connection,
    changes: Sequence[Change],
    *,
    actor: Actor,
    strict: bool = True,
    log: bool = True,
    now: datetime | None = None,
) -> list[Done]:
    """The SQL side of a batch of changes, inside the caller's transaction: read, check, update (version-guarded),
    and (``log``) one event each. ``strict``: a change that does not apply raises (NotFound / Conflict); else it is
    skipped (a batch whose rows a person changed meanwhile). Returns the changes applied."""
    now = now or utcnow()
    ids = list(dict.fromkeys(c.memory_id for c in changes))
    cols = [
        _M.c.id,
        _M.c.user_key,
        _M.c.agent_id,
        _M.c.content,
        _M.c.status,
        _M.c.version,
        _M.c.meta,
        _M.c.confidence,
        _M.c.type,
    ]
    rows: dict[str, dict[str, Any]] = {}
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        rows.update({r.id: dict(r._mapping) for r in conn.execute(select(*cols).where(_M.c.id.in_(chunk)))})
    done: list[Done] = []
    updates: list[dict[str, Any]] = []
    events: list[dict[str, Any]] = []
    for c in changes:
        row = rows.get(c.memory_id)
        why = _refuse(c, row)
        if why is not None:
            if strict:
                raise (NotFound if row is None else Conflict)(why)
            continue
        assert row is not None
        new = values(c, row, actor, now)
        updates.append({"b_id": c.memory_id, "b_version": row["version"], **new})
        if log:
            events.append(event(c, row, actor, now=now))
        was = MemoryStatus(row["status"])
        row.update(new)  # a second change of the same row in this batch sees the first
        done.append(
            Done(
                c,
                row["user_key"],
                row["agent_id"],
                row["content"],
                was,
                MemoryStatus(row["status"]),
                row["meta"],
                str(row["type"] or ""),
            )
        )
    for u in updates:  # one statement per row: each is guarded by the version it was read at
        params = {k: v for k, v in u.items() if not k.startswith("b_")}
        result = conn.execute(
            update(_M).where(_M.c.id == bindparam("b_id"), _M.c.version == bindparam("b_version")).values(params),
            {"b_id": u["b_id"], "b_version": u["b_version"]},
        )
        if result.rowcount != 1:
            raise StaleDataError(f"memory {u['b_id']} changed concurrently")
    if events:
        conn.execute(insert(_E), events)
    return done


def follow(store: Storage, done: Sequence[Done], *, actor: Actor, note: str = "", profile: bool = True) -> None:
    """After the SQL commit: the index, then the profile (:data:`PROFILE_RULE`), for the changes applied."""
    gone = [d.change.memory_id for d in done if d.status != MemoryStatus.ACTIVE and d.was == MemoryStatus.ACTIVE]
    if gone:
        store.index.delete(gone)
    back = [d.change.memory_id for d in done if d.change.op == EventOp.RESTORE]
    if back:
        with store.db() as db:
            rows = [m for i in back if (m := db.get(Memory, i)) is not None]
        indexing.index_memories(store, rows)
    if profile:
        _profile(store, done, actor=actor, note=note)


def _profile(store: Database, done: Sequence[Done], *, actor: Actor, note: str) -> None:
    moves = {d.change.memory_id: d.change.superseded_by for d in done if PROFILE_RULE[d.change.op] == "relink"}
    if moves:
        owners = {d.change.memory_id: d.user_key for d in done if d.change.memory_id in moves}
        profile_sync.merged(store, {k: v for k, v in moves.items() if v}, owners)
    forgotten = [d for d in done if PROFILE_RULE[d.change.op] == "forgotten"]
    if forgotten:
        profile_sync.forgotten(
            store,
            {d.change.memory_id: d.user_key for d in forgotten},
            {d.change.memory_id: d.change.reason for d in forgotten},
            actor=None if actor == MAINTENANCE else actor,
        )
    for d in done:
        rule = PROFILE_RULE[d.change.op]
        m = Memory(id=d.change.memory_id, user_key=d.user_key, agent_id=d.agent_id, content=d.content)
        if rule == "drop":
            why = _WHY[d.change.op]
            if d.change.superseded_by:
                why = f"{why} by {d.change.superseded_by[:8]}"
            source = SourceType.SYSTEM.value if actor in _ENGINE else ""
            profile_sync.drop(store, m, actor=actor, why=why, note=note or d.change.reason, source=source)
        elif rule == "put" and d.status == MemoryStatus.ACTIVE and not is_flagged(d.meta) and d.type != "episode":
            # an episode's meaning reaches the profile through what was read from it (restored with it), never as
            # the episode's own words
            why = _WHY[d.change.op]
            profile_sync.put(store, m, actor=actor, why=why, note=note or d.change.reason, only_if_empty=True)


def change(
    store: Storage,
    changes: Sequence[Change] | Change,
    *,
    actor: Actor = MAINTENANCE,
    strict: bool = True,
    note: str = "",
    audit: AuditAction | None = None,
    profile: bool = True,
    now: datetime | None = None,
) -> list[Done]:
    """Apply status changes: SQL (one transaction, retried on a lost race), the index, the profile (``profile=False``
    only for a person's profile edit, which writes the field itself) and an audit row when ``audit`` names the action
    (a person's curation passes None: its ``@guarded`` door audits). A person's correction goes through
    :func:`memory.lifecycle.corrections.apply`, which carries it to the other layer and the bridges."""
    batch = [changes] if isinstance(changes, Change) else list(changes)
    if not batch:
        return []
    indexing.ready(store)

    @retrying
    def write() -> list[Done]:
        with store.engine.begin() as conn:
            return stage(conn, batch, actor=actor, strict=strict, now=now)

    done = write()
    follow(store, done, actor=actor, note=note, profile=profile)
    if audit is not None and done:
        from memory import audit as trail

        user = trail.user_id_of(store, done[0].user_key)
        ids = [d.change.memory_id for d in done] + [d.change.superseded_by or "" for d in done]
        trail.record(
            store,
            actor,
            audit,
            user_id=user,
            target_ids=[i for i in dict.fromkeys(ids) if i],
            reason=note or batch[0].reason,
        )
    return done


def one(
    store: Storage,
    change_: Change,
    *,
    actor: Actor = MAINTENANCE,
    audit: AuditAction | None = None,
    profile: bool = True,
) -> Memory:
    """:func:`change` of one memory (strict), returning the row as it is now."""
    change(store, change_, actor=actor, audit=audit, profile=profile)
    with store.db() as db:
        m = db.get(Memory, change_.memory_id)
    if m is None:  # erased meanwhile
        raise NotFound(f"no memory {change_.memory_id!r}")
    return m


# -- the verbs ---------------------------------------------------------------------------------------------------------
def supersede(
    store: Storage,
    memory_id: str,
    by: str,
    *,
    reason: str,
    actor: Actor = MAINTENANCE,
    detail: Mapping[str, Any] | None = None,
    audit: AuditAction | None = None,
    profile: bool = True,
) -> Memory:
    """``memory_id`` is replaced by ``by``: out of the index, its profile values dropped (put the new one's first)."""
    c = Change(memory_id, EventOp.SUPERSEDE, reason, by, detail or {})
    return one(store, c, actor=actor, audit=audit, profile=profile)


def delete_(
    store: Storage,
    memory_id: str,
    *,
    reason: str,
    actor: Actor = MAINTENANCE,
    detail: Mapping[str, Any] | None = None,
    audit: AuditAction | None = None,
    profile: bool = True,
) -> Memory:
    """Take a memory out of use (restorable until purged): out of the index, its profile values dropped."""
    c = Change(memory_id, EventOp.DELETE, reason, detail=detail or {})
    return one(store, c, actor=actor, audit=audit, profile=profile)


def restore(
    store: Storage,
    memory_id: str,
    *,
    reason: str,
    actor: Actor = MAINTENANCE,
    detail: Mapping[str, Any] | None = None,
    audit: AuditAction | None = None,
) -> Memory:
    """Bring a deleted or archived memory back: indexed again, an empty profile field it states set again."""
    return one(store, Change(memory_id, EventOp.RESTORE, reason, detail=detail or {}), actor=actor, audit=audit)


def flag(
    store: Storage,
    memory_id: str,
    *,
    reason: str,
    actor: Actor,
    detail: Mapping[str, Any] | None = None,
    audit: AuditAction | None = None,
) -> Memory:
    """Mark a memory as wrong: kept and visible, never injected, confidence lowered, its profile value dropped."""
    return one(store, Change(memory_id, EventOp.FLAG, reason, detail=detail or {}), actor=actor, audit=audit)


def unflag(
    store: Storage,
    memory_id: str,
    *,
    reason: str,
    actor: Actor,
    detail: Mapping[str, Any] | None = None,
    audit: AuditAction | None = None,
) -> Memory:
    """Undo a flag: the earlier confidence back, an empty profile field it states set again."""
    return one(store, Change(memory_id, EventOp.UNFLAG, reason, detail=detail or {}), actor=actor, audit=audit)


def archive(
    store: Storage,
    reasons: Mapping[str, str],
    *,
    actor: Actor = MAINTENANCE,
    details: Mapping[str, Mapping[str, Any]] | None = None,
    now: datetime | None = None,
) -> list[Done]:
    """Archive active memories (id → reason; skipped when no longer active): out of the index, restorable until
    purged; the profile values they stated move to another memory stating them, else are dropped."""
    rows = [Change(i, EventOp.ARCHIVE, why, detail=(details or {}).get(i, {})) for i, why in reasons.items()]
    return change(store, rows, actor=actor, strict=False, now=now)


def purge(
    store: Storage,
    ids: Iterable[str],
    *,
    reasons: Mapping[str, str] | None = None,
    now: datetime | None = None,
    actor: Actor = MAINTENANCE,
    profile: bool = True,
) -> int:
    """Delete memories for good from SQL (row, write log, hits, labels) and the index, leaving a content-free PURGE
    event; the profile values they stated move to another memory stating them, else are dropped."""
    ids = list(dict.fromkeys(ids))
    if not ids:
        return 0
    indexing.ready(store)
    now = now or utcnow()
    owners: list[Any] = []
    with store.engine.begin() as conn:
        for start in range(0, len(ids), _CHUNK):
            chunk = ids[start : start + _CHUNK]
            who = select(_M.c.id, _M.c.user_key, _M.c.agent_id).where(_M.c.id.in_(chunk))
            owners += conn.execute(who).all()
            conn.execute(delete(_E).where(_E.c.memory_id.in_(chunk)))
            for table in (RetrievalHit, HitLabel):
                t = cast(Any, table).__table__
                conn.execute(delete(t).where(t.c.memory_id.in_(chunk)))
            conn.execute(update(_M).where(_M.c.superseded_by.in_(chunk)).values(superseded_by=None))
            conn.execute(delete(_M).where(_M.c.id.in_(chunk)))
        if owners:
            conn.execute(
                insert(_E),
                [
                    {
                        "user_key": uk,
                        "agent_id": ag,
                        "memory_id": mid,
                        "op": EventOp.PURGE,
                        "content": "",
                        "created_at": now,
                        "reason": mask_pii((reasons or {}).get(mid, "purged")),
                        "detail": provenance.stamp_detail(_actor_detail(actor)),
                        "turn_id": None,
                        "message_id": None,
                    }
                    for mid, uk, ag in owners
                ],
            )
    if owners:
        store.index.delete([mid for mid, _uk, _ag in owners])
        if profile:
            profile_sync.forgotten(
                store,
                {mid: uk for mid, uk, _ag in owners},
                {mid: (reasons or {}).get(mid, "purged") for mid, _uk, _ag in owners},
                actor=None if actor == MAINTENANCE else actor,
            )
    return len(owners)
