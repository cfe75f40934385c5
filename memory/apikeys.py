"""API keys for the REST and MCP doors: made once (the secret is shown once), stored as a SHA-256, revocable.

A key may be restricted to some user ids; a request about any other user is refused (403 at the door). Keys are
long random tokens, so a plain SHA-256 is enough (no password stretching needed) and lookups stay one indexed read.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select

from memory import audit, validate
from memory.access import check
from memory.errors import Conflict, InvalidInput, NotFound
from memory.storage.models import ApiKey, utcnow
from memory.vocab import Actor, AuditAction, Role

if TYPE_CHECKING:
    from memory.storage.db import Database

PREFIX = "mlk_"
NAME_RE = re.compile(r"^[A-Za-z0-9_.-]{1,64}\Z")


@dataclass(frozen=True)
class KeyInfo:
    """Who a verified key is: its name (provenance ``api:<name>``) and the users it may touch (empty = all)."""

    name: str
    users: tuple[str, ...] = field(default_factory=tuple)

    def allows(self, user_id: str) -> bool:
        return not self.users or user_id in self.users


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def create(store: Database, name: str, users: list[str] | None = None, *, actor: Actor) -> tuple[str, dict[str, Any]]:
    """Make a key (admin; audited, a refusal too); returns (the secret — never stored, show it once, its row)."""
    actor = check(store, actor, Role.ADMIN, "create an API key")
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise InvalidInput("key name must be 1-64 characters of letters, digits, '_', '.' or '-'")
    users = [validate.external_id(u) for u in (users or [])]
    secret = PREFIX + secrets.token_urlsafe(32)
    row = ApiKey(name=name, key_hash=_hash(secret), prefix=secret[:10], users=users)
    with store.db() as db:
        db.add(row)
        try:
            db.commit()
        except IntegrityError:
            raise Conflict(f"an API key named {name!r} exists already") from None
        public = _public(row)
    audit.record(store, actor, AuditAction.API_KEY_CREATE, target_ids=[name], detail={"users": len(users)})
    return secret, public


def list_keys(store: Database) -> list[dict[str, Any]]:
    with store.db() as db:
        return [_public(k) for k in db.exec(select(ApiKey).order_by(col(ApiKey.id))).all()]


def revoke(store: Database, name: str, *, actor: Actor) -> dict[str, Any]:
    """Revoke a key at once (admin; audited, a refusal too)."""
    actor = check(store, actor, Role.ADMIN, "revoke an API key")
    with store.db() as db:
        row = db.exec(select(ApiKey).where(ApiKey.name == name)).first()
        if row is None:
            raise NotFound(f"no API key named {name!r}")
        if row.revoked_at is None:
            row.revoked_at = utcnow()
            db.add(row)
            db.commit()
        public = _public(row)
    audit.record(store, actor, AuditAction.API_KEY_REVOKE, target_ids=[name])
    return public


def verify(store: Database, secret: str | None) -> KeyInfo | None:
    """The key's identity, or None when the secret is missing, unknown or revoked."""
    if not secret or not secret.startswith(PREFIX) or len(secret) > 200:
        return None
    with store.db() as db:
        row = db.exec(select(ApiKey).where(ApiKey.key_hash == _hash(secret))).first()
    if row is None or row.revoked_at is not None:
        return None
    return KeyInfo(name=row.name, users=tuple(row.users or ()))


def _public(k: ApiKey) -> dict[str, Any]:
    return {
        "name": k.name,
        "prefix": k.prefix,
        "users": list(k.users or []),
        "created_at": k.created_at.isoformat(),
        "revoked_at": k.revoked_at.isoformat() if k.revoked_at else None,
    }
