"""A person edits a profile field: the memories stating the old value are retired and one stating the new value is
written, then the field is set and linked to them; the retired memories go through the one correction function
(:func:`memory.lifecycle.corrections.apply`), so the replies restating them, the bridges and summaries follow exactly
as they do for a flag or delete on the Memories page, and restoring a deleted one brings its value back.

Above both :mod:`memory.lifecycle.curation` (memory operations) and :mod:`memory.write.profile_sync` (keeping the
profile in step with memories), so neither has to import the other's caller.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memory import profile
from memory.errors import Conflict, InvalidInput
from memory.lifecycle import corrections, curation
from memory.storage.models import Memory, ProfileField, User
from memory.text.privacy import mask_value
from memory.vocab import Actor, EventOp, SourceType
from memory.write import profile_sync, status

if TYPE_CHECKING:
    from memory.storage.store import Storage


def _new_memory(store: Storage, user: User, field: str, value: Any, *, actor: Actor, reason: str, agent_id: str | None):
    return curation.person_memory(
        store,
        user,
        profile_sync.memory_text(field, value),
        field=field,
        value=value,
        actor=actor,
        reason=reason,
        agent_id=agent_id,
    )


def _retire(store: Storage, olds: list[Memory], by: str | None, *, actor: Actor, reason: str) -> None:
    """The memories the person's edit replaces (``by``: superseded) or removes (deleted, restorable): the one
    correction function — the other layer and the bridges follow — with the field left to this edit (written first)."""
    if not olds:
        return
    detail = {"source_type": SourceType.PERSON_EDIT.value}
    op = EventOp.SUPERSEDE if by else EventOp.DELETE
    changes = [status.Change(m.id, op, reason, by, detail) for m in olds]
    corrections.apply(store, changes, actor=actor, profile=False)


def edit_field(
    store: Storage,
    user: User,
    field: str,
    value: Any,
    *,
    actor: Actor,
    reason: str,
    expected_version: int | None = None,
) -> ProfileField:
    """A person sets a profile field: the memories stating the old value are superseded by one stating the new one
    (list fields: per item — removed items' memories are deleted, added items get a memory), then the field is
    written, linked to them. ``value`` None clears the field and deletes its memories (restorable)."""
    if field not in profile.FIELDS:
        raise InvalidInput(f"profile field must be one of {', '.join(profile.FIELDS)}")
    row = profile_sync._row(store, user.key, field)
    if expected_version is not None and expected_version != (row.version if row else 0):
        raise Conflict(f"profile field {field!r} changed since it was read: reload and retry")
    reason = reason or "edited by a person"
    olds = profile_sync.stating(store, user.key, field)
    agent = olds[0].agent_id if olds else None
    if field in profile.LIST_FIELDS:
        return _edit_list(store, user, field, list(value or []), olds, actor=actor, reason=reason, agent_id=agent)
    links: dict[str, str] = {}
    new_id = None
    if value not in (None, "", []):
        new = _new_memory(store, user, field, value, actor=actor, reason=reason, agent_id=agent)
        links, new_id = {str(mask_value(value)): new.id}, new.id
    written = profile.set_field(
        store,
        user,
        field,
        value if value not in ("", []) else None,
        source=SourceType.PERSON_EDIT.value,
        reason=reason,
        links=links,
        memory_id=new_id,
        actor=profile_sync.label(actor),
    )
    why = f"profile {field} edited: {reason}"
    _retire(store, [m for m in olds if m.id != new_id], new_id, actor=actor, reason=why)
    return written


def _edit_list(store: Storage, user: User, field: str, items: list, olds: list[Memory], **kw: Any) -> ProfileField:
    actor, reason = kw["actor"], kw["reason"]
    row = profile_sync._row(store, user.key, field)
    links = dict(row.memory_ids or {}) if row else {}
    current = list(row.value or []) if row else []
    removed = [i for i in current if not any(profile_sync._same(field, i, n) for n in items)]
    added = [n for n in items if not any(profile_sync._same(field, n, o) for o in current)]
    retired = []
    for m in olds:
        c = profile_sync.statement(m.content)
        gone_item = any(links.get(str(i)) == m.id for i in removed)
        gone_stmt = c is not None and any(profile_sync._same(field, profile_sync._display(c), i) for i in removed)
        if gone_item or gone_stmt:
            retired.append(m)
    links = {k: v for k, v in links.items() if not any(profile_sync._same(field, k, i) for i in removed)}
    for item in added:
        links[str(mask_value(item))] = _new_memory(store, user, field, item, **kw).id
    written = profile.set_field(
        store,
        user,
        field,
        items or None,
        source=SourceType.PERSON_EDIT.value,
        reason=reason,
        links=links,
        memory_id=None,
        actor=profile_sync.label(actor),
    )
    _retire(store, retired, None, actor=actor, reason=f"profile {field} edited: {reason}")
    return written
