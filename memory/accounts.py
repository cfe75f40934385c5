"""Back-office accounts: add, list, change password, remove, and sign in (with a throttle that outlives processes).

Passwords are hashed with argon2 (argon2-cffi's defaults, RFC 9106's low-memory profile) and never stored, logged
or returned. Every change is an admin action in the audit trail; every sign-in and failed sign-in is too, and the
failures are what the throttle counts, so it holds across reruns, processes and restarts — atomically: each password
check first takes a slot in the same transaction that counts the minute's failures (:func:`_reserve`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlmodel import col, select

from memory import audit, validate
from memory.access import check
from memory.errors import Conflict, InvalidInput, NotFound, SignInFailed
from memory.storage.models import utcnow
from memory.storage.people import Account, AuditEvent
from memory.vocab import Actor, AuditAction, Role

if TYPE_CHECKING:
    from memory.storage.db import Database

MAX_NAME_CHARS = 200
MIN_PASSWORD_CHARS = 8
MAX_PASSWORD_CHARS = 1024
#: the one message for every refused sign-in (unknown name, wrong password): it must not tell them apart
GENERIC_FAILURE = "Sign-in failed: wrong username or password."
THROTTLED = "Too many failed sign-ins for this name. Wait a minute and try again."
#: the audit reasons of a reserved password check and of a refusal by the throttle (which checked nothing)
CHECKING, THROTTLED_REASON = "checking", "throttled"

_hasher = PasswordHasher()


@dataclass(frozen=True)
class AccountInfo:
    """An account as shown to people: never the hash."""

    name: str
    role: Role
    created_at: datetime
    updated_at: datetime


def check_name(name: object) -> str:
    """Account names follow the user-id rules (any printable text), trimmed, at most 200 characters."""
    name = validate.external_id(name, "account name").strip()
    if len(name) > MAX_NAME_CHARS:
        raise InvalidInput(f"account name is {len(name):,} characters long; the limit is {MAX_NAME_CHARS}")
    return name


def check_password(password: object) -> str:
    if not isinstance(password, str):
        raise InvalidInput("password must be text")
    if not MIN_PASSWORD_CHARS <= len(password) <= MAX_PASSWORD_CHARS:
        raise InvalidInput(f"password must be {MIN_PASSWORD_CHARS}-{MAX_PASSWORD_CHARS} characters long")
    return password


def count(store: Database) -> int:
    from sqlalchemy import func

    with store.db() as db:
        return int(db.exec(select(func.count()).select_from(Account)).one())


def list_accounts(store: Database) -> list[AccountInfo]:
    with store.db() as db:
        rows = db.exec(select(Account).order_by(col(Account.name))).all()
    return [AccountInfo(r.name, Role(r.role), r.created_at, r.updated_at) for r in rows]


def add(store: Database, name: str, role: Role | str, password: str, *, actor: Actor) -> AccountInfo:
    """Create an account (admin only); refuses an existing name."""
    actor = check(store, actor, Role.ADMIN, "add an account")  # a refusal is audited
    name, password = check_name(name), check_password(password)
    try:
        role = Role(role)
    except ValueError:
        raise InvalidInput(f"role must be one of {', '.join(Role)}") from None
    with store.db() as db:
        if db.get(Account, name) is not None:
            raise Conflict(f"account {name!r} already exists (change its password with `memlens account passwd`)")
        row = Account(name=name, role=str(role), password_hash=_hasher.hash(password))
        db.add(row)
        db.commit()
        db.refresh(row)
    audit.record(store, actor, AuditAction.ACCOUNT_ADD, target_ids=[name], detail={"role": str(role)})
    return AccountInfo(row.name, Role(row.role), row.created_at, row.updated_at)


def set_password(store: Database, name: str, password: str, *, actor: Actor) -> None:
    """Replace an account's password (admin only)."""
    actor = check(store, actor, Role.ADMIN, "change a password")  # a refusal is audited
    name, password = check_name(name), check_password(password)
    with store.db() as db:
        row = db.get(Account, name)
        if row is None:
            raise NotFound(f"no account {name!r}")
        row.password_hash, row.updated_at = _hasher.hash(password), utcnow()
        db.add(row)
        db.commit()
    audit.record(store, actor, AuditAction.ACCOUNT_PASSWORD, target_ids=[name])


def remove(store: Database, name: str, *, actor: Actor) -> None:
    """Delete an account (admin only); its audit rows stay."""
    actor = check(store, actor, Role.ADMIN, "remove an account")  # a refusal is audited
    name = check_name(name)
    with store.db() as db:
        row = db.get(Account, name)
        if row is None:
            raise NotFound(f"no account {name!r}")
        db.delete(row)
        db.commit()
    audit.record(store, actor, AuditAction.ACCOUNT_REMOVE, target_ids=[name])


def sign_in(store: Database, name: str, password: str, *, per_minute: int = 5, via: str = "ui") -> Actor:
    """The :class:`Actor` for a correct name and password; otherwise :class:`SignInFailed` with one generic message
    (or the throttle's, after ``per_minute`` failures for that name within a minute). Both outcomes are audited."""
    try:
        name = check_name(name)
    except InvalidInput:
        raise SignInFailed(GENERIC_FAILURE) from None
    failed = Actor(name=name, role=Role.VIEWER, via=via)
    slot = _reserve(store, failed, per_minute)
    if slot is None:
        audit.record(store, failed, AuditAction.SIGN_IN_FAILED, reason=THROTTLED_REASON)
        raise SignInFailed(THROTTLED)
    with store.db() as db:
        row = db.get(Account, name)
    if row is None:
        _verify(_dummy_hash(), password)  # same work as for a real name: timing must not reveal which names exist
    if row is None or not _verify(row.password_hash, password):
        _settle(store, slot, reason="wrong username or password")
        raise SignInFailed(GENERIC_FAILURE)
    actor = Actor(name=row.name, role=Role(row.role), via=via, account=True)
    _settle(store, slot, success=actor)
    return actor


def _reserve(store: Database, failed: Actor, per_minute: int) -> int | None:
    """Take one of the name's ``per_minute`` password checks, atomically across threads and processes: the slot is
    an audit row written as a failure ("checking") in the same transaction that counts the minute's failures, under
    the database's write lock (SQLite: the insert takes it; PostgreSQL: a transaction advisory lock on the name). So
    40 simultaneous attempts get at most ``per_minute`` checks. Returns the row's id, or None when throttled."""
    from sqlalchemy import func, insert, text

    with store.engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(hashtextextended(:n, 30))"), {"n": failed.name})
        row = {
            "actor": failed.name,
            "role": str(failed.role),
            "via": failed.via,
            "action": str(AuditAction.SIGN_IN_FAILED),
        }
        stmt = insert(AuditEvent).values(**row, at=utcnow(), target_ids=[], reason=CHECKING, detail={})
        slot = int(conn.execute(stmt.returning(col(AuditEvent.id))).scalar_one() or 0)
        since = audit.cutoff(60)
        query = select(func.count()).where(
            AuditEvent.actor == failed.name,
            AuditEvent.action == str(AuditAction.SIGN_IN_FAILED),
            col(AuditEvent.at) >= since,
            col(AuditEvent.reason) != THROTTLED_REASON,
        )
        if int(conn.execute(query).scalar_one()) > per_minute:
            conn.rollback()
            return None
    return slot


def _settle(store: Database, slot: int, *, reason: str = "", success: Actor | None = None) -> None:
    """Turn a reserved slot into what happened: a failure with its reason, or the sign-in (which does not count)."""
    from sqlalchemy import update

    values: dict[str, object] = {"reason": reason}
    if success is not None:
        values = {"action": str(AuditAction.SIGN_IN), "role": str(success.role), "reason": ""}
    with store.engine.begin() as conn:
        conn.execute(update(AuditEvent).where(col(AuditEvent.id) == slot).values(**values))


@functools.cache
def _dummy_hash() -> str:
    return _hasher.hash("no such account")


def _verify(password_hash: str, password: object) -> bool:
    if not isinstance(password, str) or not password:
        return False
    try:
        return _hasher.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False
