"""The people side of the facade: back-office accounts and sign-in, API keys for the doors, and the audit trail.

``MemoryService.people`` is one of these; the sign-in gate (pages/gate.py), the Audit page, the doors' key check
(agent/serve) and ``memlens account`` / ``memlens apikey`` call it instead of the storage. Each method delegates to
:mod:`memory.accounts`, :mod:`memory.apikeys` or :mod:`memory.audit`, which take only the SQL side of the storage.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from memory import accounts, apikeys, audit
from memory.accounts import AccountInfo
from memory.apikeys import KeyInfo
from memory.storage.people import Account, AuditEvent
from memory.vocab import Actor, AuditAction, Role

if TYPE_CHECKING:
    from memory.storage.store import Storage


class People:
    """Accounts, sign-in, API keys and the audit trail over one storage object."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    # -- accounts and sign-in ------------------------------------------------------------------------------------
    def count(self) -> int:
        """How many back-office accounts exist (the gate's mode depends on it)."""
        return accounts.count(self.storage)

    def role_of(self, name: str) -> Role | None:
        """The account's stored role (re-read on every page run: a changed role takes effect at once); None = gone."""
        with self.storage.db() as db:
            row = db.get(Account, name)
        return Role(row.role) if row is not None else None

    def sign_in(self, name: str, password: str, *, via: str = "ui") -> Actor:
        """The actor for a correct name and password (throttled per name: MEMLENS_SIGNIN_ATTEMPTS_PER_MINUTE)."""
        per_minute = self.storage.settings.signin_attempts_per_minute
        return accounts.sign_in(self.storage, name, password, per_minute=per_minute, via=via)

    def signed_in(self, actor: Actor) -> None:
        """Audit a sign-in made elsewhere (OIDC: the provider checked the password)."""
        audit.record(self.storage, actor, AuditAction.SIGN_IN)

    def signed_out(self, actor: Actor) -> None:
        audit.record(self.storage, actor, AuditAction.SIGN_OUT)

    def list_accounts(self) -> list[AccountInfo]:
        return accounts.list_accounts(self.storage)

    def add_account(self, name: str, role: Role | str, password: str, *, actor: Actor) -> AccountInfo:
        """Create an account (admin)."""
        return accounts.add(self.storage, name, role, password, actor=actor)

    def set_password(self, name: str, password: str, *, actor: Actor) -> None:
        accounts.set_password(self.storage, name, password, actor=actor)

    def remove_account(self, name: str, *, actor: Actor) -> None:
        accounts.remove(self.storage, name, actor=actor)

    # -- API keys for the doors ------------------------------------------------------------------------------------
    def create_key(self, name: str, users: list[str] | None = None, *, actor: Actor) -> tuple[str, dict[str, Any]]:
        """(the secret — shown once, never stored — and the key's row); admin, audited."""
        return apikeys.create(self.storage, name, users, actor=actor)

    def keys(self) -> list[dict[str, Any]]:
        return apikeys.list_keys(self.storage)

    def revoke_key(self, name: str, *, actor: Actor) -> dict[str, Any]:
        """Revoke a key (admin, audited)."""
        return apikeys.revoke(self.storage, name, actor=actor)

    def verify_key(self, secret: str | None) -> KeyInfo | None:
        """The key's identity, or None when the secret is missing, unknown or revoked."""
        return apikeys.verify(self.storage, secret)

    # -- the audit trail -------------------------------------------------------------------------------------------
    def audit_events(
        self,
        *,
        actor: str | None = None,
        action: AuditAction | str | None = None,
        user_id: str | None = None,
        since: datetime | None = None,
        limit: int = 500,
    ) -> list[AuditEvent]:
        """Newest first, filtered (``user_id`` also finds an erased user's rows, through its hash)."""
        return audit.events(self.storage, actor=actor, action=action, user_id=user_id, since=since, limit=limit)

    def audit_actors(self) -> list[str]:
        return audit.actors(self.storage)
