"""Memories as the LangGraph store door sees them: a value put under a key in a namespace.

Only reads; the door writes through the facade like every other door (``remember_verbatim``, ``set_status``). A put
keeps ``store_key`` (the key; masked when it holds personal data, then found by ``store_key_digest``), ``store_ns``
(the namespace as a JSON list: labels may hold any character but ".") and ``value`` in the memory's ``meta``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

from sqlmodel import col, select

from memory.storage.models import Memory, User
from memory.text.privacy import mask_pii
from memory.vocab import MemoryStatus

if TYPE_CHECKING:
    from memory.storage.db import Database


def stored_key(user_key: str, key: str) -> dict[str, str]:
    """How a store key is kept in a memory's metadata: as given, or — when it holds personal data (an e-mail, a
    phone number) — masked like any text, with a digest of the user and the key to find it by (the key itself is
    never stored)."""
    masked = mask_pii(key)
    if masked == key:
        return {"store_key": key}
    return {"store_key": masked, "store_key_digest": _digest(user_key, key)}


#: hex digits written as letters: a digest with a run of digits read as a phone number and was masked in ``meta``
#: like any personal data (so the key could no longer be found: one put in a few, by the random user key)
_LETTERS = str.maketrans("0123456789abcdef", "ghijklmnopabcdef")


def _digest(user_key: str, key: str) -> str:
    """The user and the key, hashed, in letters only (nothing in it looks like personal data)."""
    return _hex_digest(user_key, key).translate(_LETTERS)


def _hex_digest(user_key: str, key: str) -> str:
    """The digest as stores written before the letters form keep it (still found: :func:`by_key`)."""
    return hashlib.sha256(f"{user_key}\x1f{key}".encode()).hexdigest()


def by_key(store: Database, user_key: str, key: str, namespace: str) -> Memory | None:
    """The active memory put under ``key`` in ``namespace`` (its JSON form) for this user."""
    kept = stored_key(user_key, key)
    if "store_key_digest" in kept:
        match = (
            col(Memory.meta)["store_key_digest"].as_string().in_([kept["store_key_digest"], _hex_digest(user_key, key)])
        )
    else:
        match = col(Memory.meta)["store_key"].as_string() == key
    query = select(Memory).where(
        Memory.user_key == user_key,
        Memory.status == MemoryStatus.ACTIVE,
        match,
        col(Memory.meta)["store_ns"].as_string() == namespace,
    )
    with store.db() as db:
        return db.exec(query.order_by(col(Memory.created_at).desc()).limit(1)).first()


def by_id(store: Database, memory_id: str) -> Memory | None:
    with store.db() as db:
        return db.get(Memory, memory_id)


def by_ids(store: Database, ids: Sequence[str]) -> dict[str, Memory]:
    """id → row for the ids that exist."""
    if not ids:
        return {}
    with store.db() as db:
        return {r.id: r for r in db.exec(select(Memory).where(col(Memory.id).in_(list(ids)))).all()}


def active_rows(store: Database, user_keys: Sequence[str] | None = None) -> list[tuple[Memory, str]]:
    """(row, user id) of the active memories of these users (every user when None), most recently changed first:
    the candidates a store search or namespace listing filters by namespace and value."""
    query = (
        select(Memory, User.external_id)
        .join(User, col(User.key) == col(Memory.user_key))
        .where(Memory.status == MemoryStatus.ACTIVE)
    )
    if user_keys is not None:
        if not user_keys:
            return []
        query = query.where(col(Memory.user_key).in_(list(user_keys)))
    query = query.order_by(col(Memory.updated_at).desc(), col(Memory.created_at).desc(), Memory.id)
    with store.db() as db:
        return [(m, str(u)) for m, u in db.exec(query).all()]


def set_meta(store: Database, memory_id: str, **values: object) -> None:
    """Add door bookkeeping to a memory's ``meta`` (the mem0 door's stable id after the pipeline replaced a row)."""
    with store.db() as db:
        row = db.get(Memory, memory_id)
        if row is None:
            return
        row.meta = {**(row.meta or {}), **values}
        db.add(row)
        db.commit()


def by_stable_id(store: Database, stable_id: str, user_key: str | None = None) -> Memory | None:
    """The active memory that carries ``stable_id`` (the id mem0 callers hold after an UPDATE replaced the row),
    among ``user_key``'s memories when given."""
    query = select(Memory).where(
        Memory.status == MemoryStatus.ACTIVE, col(Memory.meta)["stable_id"].as_string() == stable_id
    )
    if user_key is not None:
        query = query.where(Memory.user_key == user_key)
    with store.db() as db:
        return db.exec(query.order_by(col(Memory.created_at).desc()).limit(1)).first()


def chain(store: Database, stable_id: str, user_key: str) -> list[Memory]:
    """Every row of ``user_key`` that was the memory ``stable_id`` over time (the first row and the ones that
    replaced it; another user's row never joins the chain, whatever its ``meta`` says)."""
    query = select(Memory).where(
        Memory.user_key == user_key,
        (col(Memory.id) == stable_id) | (col(Memory.meta)["stable_id"].as_string() == stable_id),
    )
    with store.db() as db:
        return sorted(db.exec(query).all(), key=lambda m: m.created_at)
