"""The audit trail: every person action (sign-in, edit, flag, delete, export, erase, settings, accounts) as one row.

Rows hold who (name, role, door), what, when, on which user and ids, and the person's reason — never a memory's
text. A user is referred to by the hash of their id (plus the id itself, for display, until they are erased), so
"what happened to user X" stays answerable after erasure without keeping X's id or anything they said.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, update
from sqlmodel import col, func, select

from memory.storage import records
from memory.storage.models import id_hash, utcnow
from memory.storage.people import AuditEvent
from memory.vocab import Actor, AuditAction

if TYPE_CHECKING:
    from memory.storage.db import Database

ERASED = "[erased with the user]"


def record(
    store: Database,
    actor: Actor,
    action: AuditAction | str,
    *,
    user_id: str | None = None,
    user_hash: str | None = None,
    target_ids: Iterable[Any] = (),
    reason: str = "",
    detail: dict[str, Any] | None = None,
) -> AuditEvent:
    """Append one row (its own transaction: the action it records has already committed). ``user_hash`` alone
    names a user without their id (the row recording an erasure)."""
    row = AuditEvent(
        actor=str(actor.name)[:200],
        role=str(actor.role),
        via=str(actor.via)[:64],
        action=str(AuditAction(action)),
        user_hash=id_hash(user_id) if user_id is not None else user_hash,
        user_id=user_id,
        target_ids=[str(t) for t in target_ids],
        reason=(reason or "")[:2000],  # may quote a phone number: masked on the way in (memory.storage.scrub)
        detail=detail or {},
    )
    with store.db() as db:
        db.add(row)
        db.commit()
        db.refresh(row)
    return row


def events(
    store: Database,
    *,
    actor: str | None = None,
    action: AuditAction | str | None = None,
    user_id: str | None = None,
    since: datetime | None = None,
    limit: int = 500,
) -> list[AuditEvent]:
    """Newest first, filtered. ``user_id`` is matched through its hash, so it also finds an erased user's rows."""
    query = select(AuditEvent)
    if actor:
        query = query.where(AuditEvent.actor == actor)
    if action:
        query = query.where(AuditEvent.action == str(AuditAction(action)))
    if user_id:
        query = query.where(AuditEvent.user_hash == id_hash(user_id))
    if since is not None:
        query = query.where(col(AuditEvent.at) >= since)
    with store.db() as db:
        return list(db.exec(query.order_by(col(AuditEvent.at).desc(), col(AuditEvent.id).desc()).limit(limit)).all())


def count_since(store: Database, *, actor: str, action: AuditAction, since: datetime) -> int:
    """How many ``action`` rows ``actor`` has since ``since`` (the sign-in throttle reads this)."""
    query = select(func.count()).where(
        AuditEvent.actor == actor, AuditEvent.action == str(action), col(AuditEvent.at) >= since
    )
    with store.db() as db:
        return int(db.exec(query).one())


def actors(store: Database) -> list[str]:
    """Every name that appears in the trail (for the Audit page's filter)."""
    with store.db() as db:
        return sorted(db.exec(select(AuditEvent.actor).distinct()).all())


def erase_user(conn: Connection, user_id: str) -> int:
    """Keep the user's audit rows but not their id or any free text that may quote them; returns rows changed.

    Runs on the connection of the erasure itself (``memory.lifecycle.export.delete_user``): both happen or neither,
    and before the space holding the old text is reclaimed."""
    return erase_user_hash(conn, id_hash(user_id))


def erase_user_hash(conn: Connection, user_hash: str) -> int:
    """:func:`erase_user` by the id's hash (an erasure job keeps only the hash). The target ids go too: they name
    rows erased with the user, and an id is as distinctive in a table file as a name."""
    stmt = update(AuditEvent).where(col(AuditEvent.user_hash) == user_hash)
    return int(conn.execute(stmt.values(user_id=None, reason=ERASED, detail={}, target_ids=[])).rowcount or 0)


def user_id_of(store: Database, user_key: str | None) -> str | None:
    """The external id behind an internal user key (None when unknown or already erased)."""
    user = records.user_by_key(store, user_key) if user_key else None
    return user.external_id if user is not None else None


def to_dict(row: AuditEvent) -> dict[str, Any]:
    return {
        "id": row.id,
        "at": row.at.isoformat() if row.at else None,
        "actor": row.actor,
        "role": row.role,
        "via": row.via,
        "action": row.action,
        "user_id": row.user_id,
        "user_hash": row.user_hash,
        "target_ids": list(row.target_ids or []),
        "reason": row.reason,
        "detail": row.detail or {},
    }


def cutoff(seconds: float) -> datetime:
    return utcnow() - timedelta(seconds=seconds)
