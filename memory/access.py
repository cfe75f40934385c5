"""Who may do what, said once: the role guard every person's change and every heavy run calls, and the rules of the
sign-in gate.

The back office hides buttons a role may not use, but the rule lives here, in the engine: a call that reaches
:class:`memory.service.MemoryService` (or its ``people``) without an :class:`Actor` whose role allows it raises
:class:`Forbidden` and leaves a ``denied`` audit row (:func:`check`), whatever door it came through (page, CLI, API, a
forged request). Heavy means work in bulk a person starts: replaying logged or labelled queries, re-embedding messages
into shadow stores, fitting a calibration. One question's read (a recall, an explanation, a list) needs no role.
"""

from __future__ import annotations

import fnmatch
import functools
import getpass
import inspect
import ipaddress
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from memory.errors import Forbidden
from memory.vocab import Actor, AuditAction, Role

if TYPE_CHECKING:
    from memory.storage.db import Database

F = TypeVar("F", bound=Callable[..., Any])

AuthMode = Literal["local", "oidc", "none"]


def require(actor: object, role: Role, action: str = "do this") -> Actor:
    """Return ``actor`` when its role includes ``role``; else raise :class:`Forbidden` saying who wanted what."""
    if not isinstance(actor, Actor):
        raise Forbidden(f"refused: to {action} a signed-in person is needed (no actor was given)")
    try:
        have = Role(actor.role)
    except ValueError:
        raise Forbidden(f"refused: {actor.name!r} has no valid role ({actor.role!r})") from None
    if not have.allows(role):
        raise Forbidden(f"refused: {actor.name!r} is a {have}; to {action} the {Role(role)} role is needed")
    return actor


def current(store: Database, actor: object) -> object:
    """``actor`` as it stands now: a person signed in with an account gets the account's role read at this call
    (:class:`Forbidden` when the account was removed meanwhile); other actors (CLI, API keys, OIDC, the agent) as
    given. The page's copy of who signed in may be one click old; this is not."""
    if not (isinstance(actor, Actor) and actor.account):
        return actor
    from memory.storage.people import Account

    with store.db() as db:
        row = db.get(Account, actor.name)
    if row is None:
        raise Forbidden(f"refused: the account {actor.name!r} no longer exists")
    return replace(actor, role=Role(row.role))


def check(store: Database, actor: object, role: Role, action: str) -> Actor:
    """:func:`require` on the actor as it stands now (:func:`current`), and a ``denied`` row in the audit trail when
    it refuses (who tried what, with the role they have now). Returns the current actor: audit with it."""
    from memory import audit

    try:
        actor = current(store, actor)
        return require(actor, role, action)
    except Forbidden as exc:
        who = actor if isinstance(actor, Actor) else Actor(name="(no actor)", role=Role.VIEWER, via="unknown")
        audit.record(store, who, AuditAction.DENIED, reason=str(exc), detail={"needs": str(role)})
        raise


def guarded(role: Role, action: AuditAction, what: str) -> Callable[[F], F]:
    """Decorate a person operation ``fn(store, memory_id, …, *, actor, reason=…) -> Memory``: the role is checked
    first, and the done action is audited with the memory's user, the ids touched and the person's reason."""

    def wrap(fn: F) -> F:
        default_reason = inspect.signature(fn).parameters["reason"].default

        @functools.wraps(fn)
        def run(store: Database, memory_id: str, *args: Any, actor: Actor, **kwargs: Any) -> Any:
            from memory import audit

            actor = check(store, actor, role, what)  # the role now, not the one the page remembered
            result = fn(store, memory_id, *args, actor=actor, **kwargs)
            ids = list(dict.fromkeys([memory_id, result.id]))
            user = audit.user_id_of(store, result.user_key)
            reason = kwargs.get("reason") or default_reason
            audit.record(store, actor, action, user_id=user, target_ids=ids, reason=reason)
            return result

        return run  # type: ignore[return-value]

    return wrap


# -- the sign-in gate ----------------------------------------------------------------------------------------------
def is_loopback(address: str | None) -> bool:
    """True when the server listens only on this machine. Unset or empty means every interface (not loopback)."""
    if not address:
        return False
    if address.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(address.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class Gate:
    """What the app does before showing anything: ``local`` / ``oidc`` sign-in, ``open`` (no sign-in, loopback
    only) or ``refuse`` (serve no data; ``reason`` says why and what to do)."""

    mode: Literal["local", "oidc", "open", "refuse"]
    reason: str = ""


ADD_ACCOUNT_HINT = "add an account on the server: `memlens account add NAME --role admin`, then reload"


def decide_gate(auth: AuthMode | None, accounts: int, address: str | None) -> Gate:
    """The gate for a configured mode (None = ``local`` once an account exists, else ``none``), the number of
    accounts and the address the server listens on."""
    mode = auth or ("local" if accounts else "none")
    if mode == "oidc":
        return Gate("oidc")
    if mode == "local":
        if accounts:
            return Gate("local")
        return Gate("refuse", f"Sign-in is on (MEMLENS_AUTH=local) but there is no account yet: {ADD_ACCOUNT_HINT}.")
    if is_loopback(address):
        return Gate("open")
    where = address or "every network interface"
    return Gate(
        "refuse",
        f"This server listens on {where}, and MemLens without sign-in (MEMLENS_AUTH=none) only runs on "
        f"localhost. To serve it on a network, {ADD_ACCOUNT_HINT}. To stay local, start it with "
        "`--server.address localhost`.",
    )


def open_actor() -> Actor:
    """Who acts when sign-in is off (loopback only): the developer on their own machine, with every right."""
    try:
        name = getpass.getuser()
    except (KeyError, OSError):  # no passwd entry (some containers)
        name = "local"
    return Actor(name=f"{name} (local)", role=Role.ADMIN, via="ui")


# -- OIDC: e-mail → role ---------------------------------------------------------------------------------------------
def oidc_role(email: str | None, mapping: dict[str, str]) -> Role | None:
    """The role for a signed-in e-mail: an exact entry wins, then the most specific pattern (``*@example.com``,
    shell-style, case-insensitive); None = no role (refuse). An e-mail matching nothing gets nothing."""
    if not email or "@" not in email:
        return None
    email = email.strip().lower()
    table = {k.strip().lower(): v for k, v in mapping.items()}
    if email in table:
        return _role(table[email])
    patterns = [(p, r) for p, r in table.items() if any(c in p for c in "*?[") and fnmatch.fnmatchcase(email, p)]
    if not patterns:
        return None
    _, best = max(patterns, key=lambda pr: len(pr[0].replace("*", "")))  # the most literal characters wins
    return _role(best)


def _role(value: str) -> Role | None:
    try:
        return Role(value.strip().lower())
    except ValueError:
        return None
