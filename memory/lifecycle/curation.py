"""A person's corrections to memory — show, edit, supersede, flag, unflag, delete, restore — each ONE function that
the back office, the CLI (and the API) call with the acting :class:`~memory.vocab.Actor`. Each is ``@guarded``: a
role below curator is refused (:class:`~memory.errors.Forbidden`) and every done action lands in the audit trail.

Each correction keeps the history: an edit bumps the version and logs the old text, a supersede writes a new row and
points the old one at it, a flag keeps the row (visible, never injected: recall drops it with ``drop_reason
"flagged"``), a delete can be restored until the row is purged. Whatever a person writes is stored with
``source_type="person-edit"`` and the actor, reason and time (``meta["person"]``), never as the user's own words; every
action is a ``MemoryEvent`` from the closed list :class:`~memory.vocab.EventOp`. The profile field a memory states
follows it (``memory.write.profile_sync``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from sqlmodel import Session as DBSession
from sqlmodel import col, select

from memory import validate
from memory.access import guarded
from memory.errors import Conflict, NotFound
from memory.lifecycle import corrections
from memory.storage import indexing, records
from memory.storage.db import retrying
from memory.storage.models import Memory, MemoryEvent, User, utcnow
from memory.text.privacy import mask_pii, mask_value
from memory.vocab import FLAG_KEY, Actor, AuditAction, EventOp, MemoryStatus, MemoryType, Role, SourceType, is_flagged
from memory.write import links as layers
from memory.write import profile_sync, status
from memory.write.episodes import VERBATIM
from memory.write.extract.base import PREDICATES

if TYPE_CHECKING:
    from memory.storage.db import Database
    from memory.storage.store import Storage

PERSON = SourceType.PERSON_EDIT.value
_PERSON = {"source_type": PERSON}  # the write-log detail of a person's status change


def _clean(store: Storage, text: str) -> str:
    return mask_pii(validate.text(text, store.settings.max_message_chars, "memory"))


def provenance(actor: Actor, reason: str) -> dict[str, Any]:
    """What a person's change records about itself: who, through which door, why, when."""
    return {
        "actor": actor.name,
        "role": str(actor.role),
        "via": actor.via,
        "reason": mask_pii(reason),
        "at": utcnow().isoformat(),
    }


def _event(m: Memory, op: EventOp, reason: str, actor: Actor, **detail: Any) -> MemoryEvent:
    return MemoryEvent(
        user_key=m.user_key,
        agent_id=m.agent_id,
        memory_id=m.id,
        op=op.value,
        reason=mask_pii(reason),
        content=m.content,
        detail=mask_value({"source_type": PERSON, "actor": actor.name, "via": actor.via, **detail}),
    )


def _load(db: DBSession, memory_id: str) -> Memory:
    m = db.get(Memory, memory_id)
    if m is None:
        raise NotFound(f"no memory {memory_id!r}")
    return m


def _active(m: Memory, what: str) -> None:
    if m.status != MemoryStatus.ACTIVE:
        raise Conflict(f"memory {m.id} is {m.status}; only active memories can be {what}")


def _change(
    store: Storage,
    memory_id: str,
    change: Callable[[Memory], dict[str, Any] | None],
    op: EventOp,
    reason: str,
    actor: Actor,
    **detail: Any,
) -> Memory:
    """Read the row, apply ``change(m)`` (raises to refuse), log ``op``; optimistic version, retried on a race."""
    indexing.ready(store)  # opened before the SQL side: its start-up check must not see the edit half done

    @retrying
    def write() -> Memory:
        with store.db() as db:
            m = _load(db, memory_id)
            extra = change(m) or {}
            m.updated_at = utcnow()
            db.add(m)
            db.add(_event(m, op, reason, actor, **detail, **extra))
            db.commit()
            return m

    return write()


# -- the operations --------------------------------------------------------------------------------------------------
def show_memory(store: Database, memory_id: str) -> dict[str, Any]:
    """Content, status, provenance and the full event history of one memory (``memlens memory show``)."""
    with store.db() as db:
        m = _load(db, memory_id)
        events = db.exec(
            select(MemoryEvent).where(MemoryEvent.memory_id == memory_id).order_by(col(MemoryEvent.id))
        ).all()
    user = records.user_by_key(store, m.user_key)
    meta = dict(m.meta or {})
    return {
        **links(store, m),
        "memory_id": m.id,
        "user_id": user.external_id if user else None,
        "agent_id": m.agent_id,
        "content": m.content,
        "type": m.type,
        "subject": m.subject,
        "predicate": m.predicate,
        "object": m.object,
        "status": m.status,
        "flagged": meta.get(FLAG_KEY),
        "superseded_by": m.superseded_by,
        "confidence": m.confidence,
        "importance": m.importance,
        "version": m.version,
        "created_at": m.created_at.isoformat(),
        "updated_at": m.updated_at.isoformat(),
        "provenance": {
            "source_type": m.source_type,
            "source_message_ids": list(m.source_message_ids or []),
            "person": meta.get("person"),
            "supersedes": meta.get("supersedes"),
            "extractor": meta.get("extractor"),
            "evidence": meta.get("evidence"),
        },
        "events": [
            {
                "event_id": e.id,
                "op": e.op,
                "reason": e.reason,
                "content": e.content,
                "at": e.created_at.isoformat(),
                "message_id": e.message_id,
                "turn_id": e.turn_id,
                "detail": e.detail,
            }
            for e in events
        ],
    }


def _link(m: Memory) -> dict[str, Any]:
    return {
        "memory_id": m.id,
        "type": m.type,
        "content": m.content,
        "speaker": m.subject if m.type == MemoryType.EPISODE else None,
        "state": layers.state_words(m),
    }


def links(store: Database, m: Memory) -> dict[str, Any]:
    """Both directions of the two layers, for one memory: the episodes it was read from (``read_from``) and, for an
    episode, what was read from it (``read_into``), each with its state in words; and ``links_text``, the same as
    sentences ("Read from what User said: “I keep a parrot named Kiwi.” (corrected)")."""
    came = layers.sources(store, m)
    went = layers.read_from(store, m)
    lines = [f"Read from what {e.subject or 'someone'} said: “{e.content}” ({layers.state_words(e)})" for e in came]
    lines += [f"Read from it: the {x.type} “{x.content}” ({layers.state_words(x)})" for x in went]
    correction = (m.meta or {}).get("correction")
    if isinstance(correction, dict):
        lines.append(
            f"Corrected by {correction.get('actor')} ({correction.get('reason')}): “{correction.get('text')}”; "
            "the words as said are kept"
        )
    of = (m.meta or {}).get(layers.CORRECTION_OF)
    if of:
        lines.append(f"A person's correction of what was said (episode {str(of)[:8]}); not the user's words")
    return {"read_from": [_link(e) for e in came], "read_into": [_link(x) for x in went], "links_text": lines}


def _restate(m: Memory, content: str) -> None:
    """Subject / predicate / object follow the new text (what the profile and deduplication read)."""
    c = profile_sync.statement(content)
    m.predicate, m.object = (c.predicate, mask_pii(c.object)) if c else (None, None)


@guarded(Role.CURATOR, AuditAction.EDIT, "edit a memory")
def edit_memory(
    store: Storage, memory_id: str, content: str, *, actor: Actor, reason: str = "edited by a person"
) -> Memory:
    """Rewrite an active memory's text in place (same id, version + 1): it becomes the person's words. An episode
    is never rewritten: its edit is recorded as a correction (:func:`correct_episode`)."""
    content = _clean(store, content)
    target = records.get_memory(store, memory_id)
    if target.type == MemoryType.EPISODE and not (target.meta or {}).get(VERBATIM):
        return correct_episode(store, memory_id, content, actor=actor, reason=reason)
    old: dict[str, Any] = {}

    def change(m: Memory) -> dict[str, Any]:
        _active(m, "edited")
        old.update(old_content=m.content, old_source_type=m.source_type)
        was = [m.predicate, m.object]
        m.content, m.source_type, m.indexed = content, PERSON, False
        m.meta = {**(m.meta or {}), "person": provenance(actor, reason)}
        _restate(m, content)
        if was[0] and was[1] and was != [m.predicate, m.object]:  # the old statement no longer holds
            m.meta = {**m.meta, "retracts": [*m.meta.get("retracts", []), was]}
        return dict(old)

    m = _change(store, memory_id, change, EventOp.EDIT, reason, actor)
    m.content = content
    indexing.index_memories(store, [m])
    profile_sync.changed(store, m, actor=actor, why="edited", note=reason)
    if old.get("old_content") != content:
        corrections.rebuild_for(store, [m.id])  # the bridges and summaries that said the old text
    return m


def correct_episode(store: Storage, memory_id: str, content: str, *, actor: Actor, reason: str) -> Memory:
    """A person's correction of what was said. The episode keeps the words as said, marked corrected
    (``meta.correction``: the corrected text, who, when, why) and flagged, so recall leaves it out; what was read only
    from it is flagged with it (``memory.write.cascade``: the facts, their profile values, the bridges); the corrected
    text is stored as the person's own memory (``source_type`` person-edit, ``meta.correction_of`` = the episode),
    and its profile value set. Unflagging the episode takes the whole correction back. Returns the episode."""
    episode = records.get_memory(store, memory_id)
    _active(episode, "corrected")
    if is_flagged(episode.meta):
        raise Conflict(f"memory {memory_id} is already flagged or corrected; unflag it first")
    user = records.user_by_key(store, episode.user_key)
    if user is None:  # erased meanwhile
        raise NotFound(f"no memory {memory_id!r}")
    note = {**provenance(actor, reason), "text": content}

    def mark(m: Memory) -> dict[str, Any]:
        m.meta = {**(m.meta or {}), "correction": note}
        return {"correction": content}

    _change(store, memory_id, mark, EventOp.EDIT, f"correction recorded (the words as said are kept): {reason}", actor)
    corrections.one(
        store,
        status.Change(
            memory_id, EventOp.FLAG, f"corrected by a person: {reason}", detail={**_PERSON, "correction": content}
        ),
        actor=actor,
    )
    said = profile_sync.statement(content)
    new = person_memory(
        store,
        user,
        said.content if said is not None else content,
        actor=actor,
        reason=f"correction of what was said ({memory_id[:8]}): {reason}",
        agent_id=episode.agent_id,
        extra={layers.CORRECTION_OF: memory_id, "corrected_words": episode.content},
    )
    profile_sync.put(store, new, actor=actor, why="corrects what was said", note=reason)
    corrections.rebuild_for(store, [memory_id])
    return records.get_memory(store, memory_id)


def reinforce_from(store: Storage, memory_id: str, others: Sequence[Memory], *, actor: Actor, reason: str) -> Memory:
    """A merge keeps one memory of a fact said several times: it takes the others' source messages and counts their
    repeats (one fact, several sources), before they are superseded by it."""

    def change(m: Memory) -> dict[str, Any]:
        _active(m, "merged into")
        sources = list(m.source_message_ids or [])
        sources += [i for o in others for i in (o.source_message_ids or []) if i not in sources]
        m.source_message_ids = list(dict.fromkeys(sources))
        m.reinforce_count = (m.reinforce_count or 0) + sum((o.reinforce_count or 0) + 1 for o in others)
        return {"merged_from": [o.id for o in others]}

    return _change(store, memory_id, change, EventOp.REINFORCE, reason, actor)


def person_memory(
    store: Storage,
    user: User,
    content: str,
    *,
    actor: Actor,
    reason: str,
    field: str | None = None,
    value: Any = None,
    agent_id: str | None = None,
    type: str | None = None,
    extra: dict[str, Any] | None = None,
) -> Memory:
    """A new memory written by a person (never attributed to the user): ADD event with the actor."""
    c = profile_sync.statement(content) if field is None else None
    predicate = (profile_sync.FIELD_PREDICATES.get(field) or (None,))[0] if field else (c.predicate if c else None)
    obj = str(value) if field else (c.object if c else None)
    new = records.add_memory(
        store,
        user,
        content,
        agent_id=agent_id,
        type=type or PREDICATES.get(predicate or "", ("fact",))[0],
        subject="user",
        predicate=predicate,
        object=obj,
        source_type=PERSON,
        confidence=1.0,
        importance=0.8,
        meta={"person": provenance(actor, reason), **({"field": field} if field else {}), **(extra or {})},
    )
    with store.db() as db:
        db.add(_event(new, EventOp.ADD, reason, actor))
        db.commit()
    return new


@guarded(Role.CURATOR, AuditAction.SUPERSEDE, "supersede a memory")
def supersede_memory(
    store: Storage, memory_id: str, content: str, *, actor: Actor, reason: str = "superseded by a person"
) -> Memory:
    """Store ``content`` as a new (person-edit) memory, mark the old one ``superseded_by`` it; returns the new row."""
    content = _clean(store, content)
    old = records.get_memory(store, memory_id)
    _active(old, "superseded")
    user = records.user_by_key(store, old.user_key)
    if user is None:  # erased meanwhile
        raise NotFound(f"no memory {memory_id!r}")
    new = person_memory(
        store,
        user,
        content,
        actor=actor,
        reason=f"replaces {old.id}: {reason}",
        agent_id=old.agent_id,
        type=old.type,
        extra={"supersedes": old.id},
    )
    profile_sync.put(store, new, actor=actor, why="supersedes the old value", note=reason)  # first: no revert
    corrections.apply(store, [status.Change(old.id, EventOp.SUPERSEDE, reason, new.id, _PERSON)], actor=actor)
    return new


@guarded(Role.CURATOR, AuditAction.FLAG, "flag a memory")
def flag_memory(
    store: Storage, memory_id: str, *, actor: Actor, reason: str = "flagged as wrong by a person"
) -> Memory:
    """Mark a memory as wrong: kept and visible, never injected (recall drops it), confidence lowered; the profile
    value it set is reverted or cleared (``memory.write.status.flag``)."""
    return corrections.one(store, status.Change(memory_id, EventOp.FLAG, reason, detail=_PERSON), actor=actor)


@guarded(Role.CURATOR, AuditAction.UNFLAG, "unflag a memory")
def unflag_memory(store: Storage, memory_id: str, *, actor: Actor, reason: str = "unflagged by a person") -> Memory:
    """Undo a flag: the memory is recalled again with its earlier confidence; an empty profile field it states is
    set again."""
    return corrections.one(store, status.Change(memory_id, EventOp.UNFLAG, reason, detail=_PERSON), actor=actor)


@guarded(Role.CURATOR, AuditAction.DELETE, "delete a memory")
def delete_memory(store: Storage, memory_id: str, *, actor: Actor, reason: str = "deleted by a person") -> Memory:
    """Take a memory out of use (restorable with :func:`restore_memory` until it is purged)."""
    return corrections.one(store, status.Change(memory_id, EventOp.DELETE, reason, detail=_PERSON), actor=actor)


@guarded(Role.CURATOR, AuditAction.RESTORE, "restore a memory")
def restore_memory(store: Storage, memory_id: str, *, actor: Actor, reason: str = "restored by a person") -> Memory:
    """Bring a deleted or archived memory back into use (re-indexed; an empty profile field it states is set)."""
    return corrections.one(store, status.Change(memory_id, EventOp.RESTORE, reason, detail=_PERSON), actor=actor)
