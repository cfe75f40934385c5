"""The core profile as the Profile page shows it: the stated fields and their change log."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlmodel import col, select

from memory.storage.models import (
    ProfileChange,
    ProfileField,
)

if TYPE_CHECKING:
    from memory.storage.db import Database


def profile_fields(store: Database, user_key: str) -> list[dict[str, Any]]:
    with store.db() as db:
        rows = db.exec(select(ProfileField).where(ProfileField.user_key == user_key).order_by(ProfileField.field)).all()
    return [
        {
            "field": r.field,
            "value": r.value,
            "confidence": r.confidence,
            "source": r.source,
            "updated_at": r.updated_at,
            "version": r.version,
            "said": said_in(store, list((r.memory_ids or {}).values())),
        }
        for r in rows
    ]


def said_in(store: Database, memory_ids: list[str]) -> str:
    """Where a profile value came from, in words: what the user said (the episodes its memories were read from,
    with their state when not in force), or that a person set it."""
    from memory.keyed import by_ids
    from memory.write.links import sources, state_words

    found = by_ids(store, memory_ids)  # one read, in the field's order
    rows = [found[i] for i in memory_ids if i in found]
    said = []
    for m in rows:
        eps = [m] if m.type == "episode" else sources(store, m)
        if not eps and m.source_type == "person-edit":
            said.append("set by a person")
        for e in eps:
            state = state_words(e)
            said.append(f"“{e.content}”" + ("" if state == "in force" else f" ({state})"))
    return "; ".join(dict.fromkeys(said))


def profile_changes(store: Database, user_key: str, limit: int = 200) -> list[dict[str, Any]]:
    with store.db() as db:
        rows = db.exec(
            select(ProfileChange)
            .where(ProfileChange.user_key == user_key)
            .order_by(col(ProfileChange.id).desc())
            .limit(limit)
        ).all()
    return [
        {
            "at": r.at,
            "field": r.field,
            "old": r.old_value,
            "new": r.new_value,
            "source": r.source,
            "reason": r.reason,
            "by": r.actor,  # the person (name · door) when a person made the change
            "message_id": r.source_message_id,
        }
        for r in rows
    ]
