"""The core profile: a few explicit fields per user, changed only by explicit statements or a person's edit.

Every change is logged as a ``ProfileChange`` (field, old, new, source, source message, reason). Hedged statements
("maybe I'll move to Beijing", "我可能会搬到北京") never change a value: they only lower the confidence of the field
they cast doubt on. The assistant's inferences never reach the profile. Each ``ProfileField`` row carries a
``version``; an edit with ``expected_version`` fails with ``Conflict`` when someone else changed the field first
(compare-and-set in one UPDATE statement, so it holds across processes).

The write pipeline decides and writes its profile changes inside its own transaction
(:mod:`memory.write.profile_step`): this module knows the fields and the edit, nothing of extraction or write plans.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlalchemy import CursorResult, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session as DBSession
from sqlmodel import col, select

from memory.errors import Conflict, InvalidInput
from memory.storage.models import ProfileChange, ProfileField, User, utcnow
from memory.text.privacy import mask_value

if TYPE_CHECKING:
    from memory.storage.db import Database


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
            reason=reason,  # masked on the way in (memory.storage.scrub)
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
