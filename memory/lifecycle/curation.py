"""A person's corrections to memory: edit, supersede, flag as wrong (delete is ``MemoryService.delete_memory``).

Each correction keeps the history: an edit bumps the version and logs the old text, a supersede writes a new row and
points the old one at it (never silently lost, DESIGN.md §3), a flag lowers confidence and marks the row so the
team can find it again. Every action is a ``MemoryEvent`` with the person's reason.
"""

from __future__ import annotations

from memory import validate
from memory.errors import Conflict, NotFound
from memory.storage.models import Memory, MemoryEvent, User, utcnow
from memory.text.privacy import mask_pii

FLAGGED_CONFIDENCE = 0.2
PERSON = "person-edit"


def _clean(store, text: str) -> str:
    return mask_pii(validate.text(text, store.settings.max_message_chars, "memory"))


def edit_memory(store, memory_id: str, content: str, *, reason: str = "edited by a person") -> Memory:
    """Rewrite an active memory's text in place (same id, version + 1) and re-embed it."""
    content = _clean(store, content)
    with store.db() as db:
        m = db.get(Memory, memory_id)
        if m is None:
            raise NotFound(f"no memory {memory_id!r}")
        if m.status != "active":
            raise Conflict(f"memory {memory_id} is {m.status}; only active memories can be edited")
        old = m.content
        m.content, m.updated_at, m.version, m.indexed = content, utcnow(), m.version + 1, False
        m.meta = {**(m.meta or {}), "edited_by": PERSON}
        db.add(m)
        db.add(
            MemoryEvent(
                user_key=m.user_key,
                agent_id=m.agent_id,
                memory_id=m.id,
                op="EDIT",
                reason=reason,
                content=content,
                detail={"old_content": old, "source_type": PERSON},
            )
        )
        db.commit()
    store.index_memories([m])
    return m


def supersede_memory(store, memory_id: str, content: str, *, reason: str = "superseded by a person") -> Memory:
    """Store ``content`` as a new memory and mark the old one ``superseded_by`` it; returns the new row."""
    content = _clean(store, content)
    old = store.get_memory(memory_id)
    if old.status != "active":
        raise Conflict(f"memory {memory_id} is {old.status}; only active memories can be superseded")
    user = _user_of(store, old)
    new = store.add_memory(
        user,
        content,
        agent_id=old.agent_id,
        type=old.type,
        subject=old.subject,
        predicate=old.predicate,
        source_type="user-stated",
        confidence=1.0,
        importance=old.importance,
        source_message_ids=list(old.source_message_ids or []),
        meta={"supersedes": old.id, "by": PERSON},
    )
    with store.db() as db:
        db.add(
            MemoryEvent(
                user_key=new.user_key,
                agent_id=new.agent_id,
                memory_id=new.id,
                op="ADD",
                reason=f"replaces {old.id}: {reason}",
                content=new.content,
                detail={"source_type": PERSON},
            )
        )
        db.commit()
    store.set_status(old.id, "superseded", reason=reason, superseded_by=new.id, op="SUPERSEDE")
    return new


def flag_memory(store, memory_id: str, *, reason: str = "flagged as wrong by a person") -> Memory:
    """Mark a memory as wrong: confidence drops to 0.2 and the row carries the flag until someone acts on it."""
    with store.db() as db:
        m = db.get(Memory, memory_id)
        if m is None:
            raise NotFound(f"no memory {memory_id!r}")
        m.meta = {**(m.meta or {}), "flagged": reason, "confidence_before_flag": m.confidence}
        m.confidence = min(m.confidence, FLAGGED_CONFIDENCE)
        m.updated_at, m.version = utcnow(), m.version + 1
        db.add(m)
        db.add(
            MemoryEvent(
                user_key=m.user_key, agent_id=m.agent_id, memory_id=m.id, op="FLAG", reason=reason, content=m.content
            )
        )
        db.commit()
    return m


def _user_of(store, memory: Memory):
    with store.db() as db:
        user = db.get(User, memory.user_key)
    if user is None:
        raise NotFound(f"memory {memory.id} has no user")
    return user
