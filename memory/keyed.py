"""Memories as the LangGraph store door sees them: a value put under a key, and (user, agent, kind) namespaces.

Only reads; the door writes through the facade like every other door (``remember_verbatim``, ``set_status``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sqlalchemy import func
from sqlmodel import col, select

from memory.storage.models import Memory, User, id_hash
from memory.vocab import MemoryStatus

if TYPE_CHECKING:
    from memory.storage.db import Database


def by_key(store: Database, user_key: str, agent_id: str, key: str) -> Memory | None:
    """The active memory put under ``key`` for this user and agent, else the row whose id is ``key`` (any state:
    the caller checks it)."""
    query = select(Memory).where(
        Memory.user_key == user_key,
        Memory.agent_id == agent_id,
        Memory.status == MemoryStatus.ACTIVE,
        col(Memory.meta)["store_key"].as_string() == key,
    )
    with store.db() as db:
        return db.exec(query.limit(1)).first() or db.get(Memory, key)


def by_ids(store: Database, ids: Sequence[str]) -> dict[str, Memory]:
    """id → row for the ids that exist."""
    if not ids:
        return {}
    with store.db() as db:
        return {r.id: r for r in db.exec(select(Memory).where(col(Memory.id).in_(list(ids)))).all()}


def namespaces(store: Database, users: Sequence[str] = ()) -> list[tuple[str, str, str]]:
    """Sorted (user id, agent, kind) holding active memories; ``users`` narrows to those user ids (all must match,
    as prefix conditions do)."""
    kind = func.coalesce(col(Memory.meta)["kind"].as_string(), Memory.type)
    query = (
        select(User.external_id, Memory.agent_id, kind)
        .join(User, col(User.key) == col(Memory.user_key))
        .where(Memory.status == MemoryStatus.ACTIVE)
        .distinct()
    )
    for user_id in users:
        query = query.where(User.external_hash == id_hash(user_id), User.external_id == user_id)
    with store.db() as db:
        return sorted({(str(u), str(a), str(k)) for u, a, k in db.exec(query).all()})
