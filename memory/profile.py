"""The core profile: a few explicit fields per user, changed only by explicit statements or a person's edit.

Every change is logged as a ``ProfileChange`` (field, old, new, source, source message, reason). Hedged statements
("maybe I'll move to Beijing", "我可能会搬到北京") never change a value: they only lower the confidence of the field
they cast doubt on. The assistant's inferences never reach the profile. Each ``ProfileField`` row carries a
``version``; an edit with ``expected_version`` fails with ``Conflict`` when someone else changed the field first
(compare-and-set in one UPDATE statement, so it holds across processes).

The write pipeline decides and writes its profile changes inside its own transaction (:func:`apply_in`): the fields
are read once per batch, each message's changes are decided in order on that state (pure: :func:`plan_changes`),
and every write is a compare-and-set, so a concurrent writer makes the whole transaction re-read and decide again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import Connection, CursorResult, insert, update
from sqlalchemy import select as core_select  # Core statements over table columns (sqlmodel's takes ≤ 4)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm.exc import StaleDataError
from sqlmodel import Session as DBSession
from sqlmodel import SQLModel, col, select

from memory.errors import Conflict, InvalidInput
from memory.storage.models import Message, ProfileChange, ProfileField, User, stored_id, utcnow
from memory.text.privacy import mask_value
from memory.vocab import EventOp, SourceType

if TYPE_CHECKING:
    from memory.storage.db import Database
    from memory.write.extract.base import Candidate
    from memory.write.plan import Operation


def norm_object(obj: str) -> str:
    """The extractor's comparable form, imported on first use: reading a profile (`memlens profile`, the Profile
    page) must not load the extraction rules (~0.2 s of CPU)."""
    from memory.write.extract.base import norm_object as norm

    return norm(obj)


FIELDS = (
    "display_name",
    "preferred_name",
    "city",
    "language",
    "communication_style",
    "budget",
    "interests",
    "dietary",
    "occupation",
    "notes",
)
LIST_FIELDS = frozenset({"interests", "dietary"})
WEAK_FACTOR, WEAK_FLOOR = 0.8, 0.3


def fields(store: Database, user: User) -> dict[str, ProfileField]:
    with store.db() as db:
        return {f.field: f for f in db.exec(select(ProfileField).where(ProfileField.user_key == user.key)).all()}


def get_profile(store: Database, user: User) -> dict[str, Any]:
    return {name: f.value for name, f in fields(store, user).items()}


def history(store: Database, user: User) -> list[ProfileChange]:
    query = select(ProfileChange).where(col(ProfileChange.user_key) == user.key).order_by(col(ProfileChange.id))
    with store.db() as db:
        return list(db.exec(query).all())


def set_field(
    store: Database,
    user: User,
    name: str,
    value: Any,
    *,
    source: str,
    reason: str,
    confidence: float = 1.0,
    source_message_id: int | None = None,
    expected_version: int | None = None,
    links: dict[str, str] | None = None,
    memory_id: str | None = None,
    actor: str | None = None,
) -> ProfileField:
    """Write one field (compare-and-set on ``version``) and log the change; ``links`` = the memory of each value
    (None: keep the links of values that stay)."""
    if name not in FIELDS:
        raise InvalidInput(f"profile field must be one of {', '.join(FIELDS)}")
    with store.db() as db:
        row = db.exec(select(ProfileField).where(ProfileField.user_key == user.key, ProfileField.field == name)).first()
        current = row.version if row else 0
        if expected_version is not None and expected_version != current:
            raise Conflict(f"profile field {name!r} is at version {current}, not {expected_version}: reload and retry")
        return _write(
            db,
            user,
            name,
            value,
            row,
            source=source,
            reason=reason,
            confidence=confidence,
            source_message_id=source_message_id,
            links=links,
            memory_id=memory_id,
            actor=actor,
        )


def _write(
    db: DBSession,
    user: User,
    name: str,
    value: Any,
    row: ProfileField | None,
    *,
    source: str,
    reason: str,
    confidence: float,
    source_message_id: int | None,
    links: dict[str, str] | None = None,
    memory_id: str | None = None,
    actor: str | None = None,
) -> ProfileField:
    """Compare-and-set ``name`` from the state ``row`` (None = not set yet), log the change, commit; returns the
    field as now stored (no re-read: the compare-and-set proves nobody changed it in between)."""
    value = mask_value(value)
    old = row.value if row else None
    links = links_for(value, row.memory_ids if row else None, None) if links is None else links
    stated = {
        "value": value,
        "confidence": confidence,
        "source": source,
        "source_message_id": source_message_id,
        "memory_ids": links,
    }
    new = _compare_and_set(db, user, name, row, stated)
    db.add(
        ProfileChange(
            user_key=user.key,
            field=name,
            old_value=old,
            new_value=value,
            source=source,
            source_message_id=source_message_id,
            memory_id=memory_id,
            actor=actor,
            reason=mask_value(reason),
        )
    )
    try:
        db.commit()
    except IntegrityError:
        raise Conflict(f"profile field {name!r} was created concurrently: reload and retry") from None
    return new


def _compare_and_set(
    db: DBSession, user: User, name: str, row: ProfileField | None, stated: dict[str, Any]
) -> ProfileField:
    """Insert the field, or update it only if its version is still ``row``'s; returns the field as now stored."""
    if row is None:
        new = ProfileField(user_key=user.key, field=name, **stated)
        db.add(new)
        return new
    now, version = utcnow(), row.version  # read first: the UPDATE below also refreshes a session-bound ``row``
    done = db.execute(
        update(ProfileField)
        .where(col(ProfileField.id) == row.id, col(ProfileField.version) == version)
        .values(**stated, updated_at=now, version=version + 1)
    )
    assert isinstance(done, CursorResult)  # a DML statement's result: it has a row count
    if done.rowcount != 1:
        raise Conflict(f"profile field {name!r} changed concurrently: reload and retry")
    return ProfileField(id=row.id, user_key=user.key, field=name, **stated, updated_at=now, version=version + 1)


def _item(c: Candidate) -> str:
    """List entry for interests / dietary: the object for likes, the statement itself for diets."""
    if c.predicate == "likes":
        return c.object
    if norm_object(c.object) == "vegetarian":
        return "vegetarian"
    text = c.content.rstrip("。.")
    for prefix in ("User is ", "User ", "用户"):
        if text.startswith(prefix):
            return text[len(prefix) :]
    return text


def _target(c: Candidate, current: Any) -> Any:
    """The value the field should have after an explicit statement (``current`` when nothing changes)."""
    display = c.meta.get("display") or c.object
    if c.profile_field in LIST_FIELDS:
        items = list(current or [])
        if c.negated:
            return [i for i in items if norm_object(c.object) not in norm_object(i)]
        item = _item(c)
        return items if any(norm_object(i) == norm_object(item) for i in items) else [*items, item]
    if c.negated:
        return None if current is not None and norm_object(str(current)) == norm_object(c.object) else current
    if current is not None and norm_object(str(current)) == norm_object(str(display)):
        return current
    if c.predicate == "budget" and current is not None:
        from memory.text.numerals import amount_key

        if amount_key(str(current)) == c.object:
            return current
    return display


@dataclass
class FieldState:
    """A profile field as the write pipeline's transaction sees it (``version`` 0: not stored yet)."""

    value: Any
    confidence: float
    version: int = 0
    id: int | None = None
    links: dict[str, str] | None = None  # value item → the memory stating it


@dataclass
class Change:
    """One decided profile change; ``version`` is the field's version it was decided on (compare-and-set)."""

    field: str
    old: Any
    new: Any
    confidence: float
    reason: str
    source_message_id: int | None
    version: int
    memory_id: str | None = None
    links: dict[str, str] | None = None

    def public(self) -> dict[str, Any]:
        return {
            "field": self.field,
            "old": self.old,
            "new": self.new,
            "confidence": self.confidence,
            "reason": self.reason,
            "source_message_id": self.source_message_id,
            "memory_id": self.memory_id,
        }


def links_for(value: Any, old_links: dict[str, str] | None, memory_id: str | None) -> dict[str, str]:
    """Which memory states each value item after a change: items kept keep their memory, new ones get ``memory_id``."""
    old_links = old_links or {}
    if value is None:
        return {}
    items = [str(i) for i in value] if isinstance(value, list | tuple) else [str(value)]
    out = {}
    for item in items:
        mid = old_links.get(item) or memory_id
        if mid:
            out[item] = mid
    return out


_PF, _PC, _MSG = (SQLModel.metadata.tables[str(m.__tablename__)] for m in (ProfileField, ProfileChange, Message))


def touches(ops: Sequence[Operation]) -> bool:
    """Can this plan change the profile at all? (Spares the read when it cannot.)"""
    return any(
        op.candidate is not None
        and op.candidate.source_type == "user-stated"
        and op.op != EventOp.NOOP
        and (op.candidate.hedged or op.candidate.meta.get("weak_field") or op.candidate.profile_field in FIELDS)
        for op in ops
    )


def read_states(conn: Connection, user_key: str) -> dict[str, FieldState]:
    query = core_select(_PF.c.field, _PF.c.value, _PF.c.confidence, _PF.c.version, _PF.c.id, _PF.c.memory_ids)
    query = query.where(_PF.c.user_key == user_key)
    return {
        r.field: FieldState(r.value, r.confidence, r.version, r.id, dict(r.memory_ids or {}))
        for r in conn.execute(query)
    }


def plan_changes(ops: Sequence[Operation], rows: dict[str, FieldState], source_message_id: int | None) -> list[Change]:
    """Pure: the profile changes an applied write plan makes, in order; ``rows`` follows each change."""
    changes: list[Change] = []
    for op in ops:
        c: Candidate | None = op.candidate
        if c is None or c.source_type != SourceType.USER_STATED or op.op == EventOp.NOOP:
            continue
        weak = c.meta.get("weak_field")
        if c.hedged or weak:
            change = _weaken(c, rows, weak, source_message_id)
        elif (name := c.profile_field) and name in FIELDS:
            change = _explicit(c, name, rows, source_message_id)
        else:
            continue
        if change:
            before = rows.get(change.field)
            old_links = before.links if before else None
            if not (c.hedged or weak) and (change.new != change.old or not old_links):
                change.memory_id = op.memory_id or next(iter(op.target_ids), None)
            change.links = (
                links_for(mask_value(change.new), old_links, change.memory_id) if not (c.hedged or weak) else old_links
            )
            rows[change.field] = FieldState(
                mask_value(change.new),
                change.confidence,
                change.version + 1,
                before.id if before else None,
                change.links,
            )
            changes.append(change)
    return changes


def write_changes(conn: Connection, user_key: str, changes: list[Change], ids: dict[str, int | None]) -> None:
    """Compare-and-set each change in order (``StaleDataError`` when another writer changed the field since it was
    read: the caller's ``retrying`` re-reads and decides again) and log them."""
    if not changes:
        return
    now = utcnow()
    said = _said_at(conn, [ch.source_message_id for ch in changes])
    for ch in changes:
        values = {
            "value": mask_value(ch.new),
            "confidence": ch.confidence,
            "source": "user-stated",
            "source_message_id": ch.source_message_id,
            "memory_ids": ch.links or {},
            "updated_at": said.get(ch.source_message_id, now),
            "version": ch.version + 1,
        }
        if ch.version == 0:
            done = conn.execute(insert(_PF).values(user_key=user_key, field=ch.field, **values))
            ids[ch.field] = stored_id(done.inserted_primary_key[0] if done.inserted_primary_key else None)
            continue
        done = conn.execute(update(_PF).where(_PF.c.id == ids[ch.field], _PF.c.version == ch.version).values(values))
        if done.rowcount != 1:
            raise StaleDataError(f"profile field {ch.field!r} changed concurrently")
    conn.execute(
        insert(_PC),
        [
            {
                "user_key": user_key,
                "field": ch.field,
                "old_value": ch.old,
                "new_value": mask_value(ch.new),
                "source": "user-stated",
                "source_message_id": ch.source_message_id,
                "memory_id": ch.memory_id,
                "reason": mask_value(ch.reason),
                "at": said.get(ch.source_message_id, now),
            }
            for ch in changes
        ],
    )


def _said_at(conn: Connection, message_ids: Sequence[int | None]) -> dict[int | None, Any]:
    """When each message was said: a stated value is dated by its message (one notion of time: "you told me on …",
    the change log's chart), not by when its write ran (an import, a catch-up, a write set aside and retried)."""
    ids = sorted({i for i in message_ids if i is not None})
    if not ids:
        return {}
    rows = conn.execute(core_select(_MSG.c.id, _MSG.c.created_at).where(_MSG.c.id.in_(ids))).all()
    out: dict[int | None, Any] = {}
    for message_id, at in rows:
        if at is not None:
            out[cast(int, message_id)] = at
    return out


def apply_in(
    conn: Connection, user_key: str, plans: list[tuple[list[Operation], int | None]]
) -> list[list[dict[str, Any]]]:
    """Inside the caller's transaction: read the fields once, decide each message's changes in order, write them."""
    if not any(touches(ops) for ops, _ in plans):
        return [[] for _ in plans]
    rows = read_states(conn, user_key)
    ids = {name: st.id for name, st in rows.items()}
    out, changes = [], []
    for ops, msg in plans:
        mine = plan_changes(ops, rows, msg)
        changes += mine
        out.append([c.public() for c in mine])
    write_changes(conn, user_key, changes, ids)
    return out


def _explicit(c: Candidate, name: str, rows: dict[str, FieldState], msg: int | None) -> Change | None:
    row = rows.get(name)
    current = row.value if row else None
    new = _target(c, current)
    conf = max(c.confidence, row.confidence if row and new == current else 0.0)
    if row is not None and new == current and abs(conf - row.confidence) < 1e-9:
        return None
    if row is None and new is None:
        return None
    verb = "takes back" if c.negated else "states"
    reason = f"user {verb}: {c.evidence!r}" if new != current else f"user confirms: {c.evidence!r}"
    return Change(name, current, new, conf, reason, msg, row.version if row else 0)


def _weaken(c: Candidate, rows: dict[str, FieldState], weak: Sequence[Any] | None, msg: int | None) -> Change | None:
    name, value = (weak[0], weak[1]) if weak else (c.profile_field, c.meta.get("display") or c.object)
    row = rows.get(name) if name else None
    if not name or row is None or name in LIST_FIELDS or norm_object(str(row.value)) == norm_object(str(value)):
        return None
    conf = round(max(WEAK_FLOOR, row.confidence * WEAK_FACTOR), 4)
    if conf >= row.confidence:
        return None
    reason = (
        f"weak signal ({c.meta.get('hedge') or 'planned'}: {c.evidence!r}) doubts {row.value!r}: "
        f"confidence {row.confidence:.2f} → {conf:.2f}, value unchanged"
    )
    return Change(name, row.value, row.value, conf, reason, msg, row.version)
