"""The one function every correction goes through — flag, unflag, delete, restore, whoever asks (the pages, the CLI,
the Python, LangGraph, MCP and REST doors, the hygiene queue): :func:`apply`.

A person's replacement of a fact (a profile edit, ``memlens memory supersede``: op SUPERSEDE) comes here too: the
replies restating the replaced claim are flagged and the bridges rebuilt (it has no undo of its own: setting the value
back states it again).

It is the one status change (:func:`memory.write.status.change`: SQL, index, profile, write log) followed by the
other layer (:func:`memory.write.cascade.plan` decides the steps: an episode's withdrawal takes what was read only
from it, a fact's the replies that restated it, an undo the steps cascaded before), each step applied through the
same status change (so its profile value and index entry follow), and then the summaries and bridges of every session
involved rebuilt from what is still in force (:func:`memory.sessions.summary.rebuild`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from sqlmodel import col, select

from memory.sessions import summary
from memory.storage import records
from memory.storage.models import Memory, Message
from memory.vocab import Actor, AuditAction
from memory.write import cascade, status

if TYPE_CHECKING:
    from memory.storage.store import Storage


def apply(
    store: Storage,
    changes: Sequence[status.Change],
    *,
    actor: Actor,
    audit: AuditAction | None = None,
    profile: bool = True,
) -> list[status.Done]:
    """Apply a person's status changes and carry them across both layers and the bridges (module docstring).
    ``profile=False`` only for a person's profile edit, which writes the field itself (the cascaded steps still move
    their own values). Returns the changes asked for, as applied; the cascaded ones are in the write log
    (``cascade_from``)."""
    done = status.change(store, changes, actor=actor, audit=audit, profile=profile)
    touched = [d.change.memory_id for d in done]
    frontier = list(done)
    for _ in range(cascade.DEPTH):
        steps = cascade.plan(
            store, [cascade.Applied(d.change.memory_id, d.change.op, d.type, d.change.reason) for d in frontier]
        )
        if not steps:
            break
        follow = [
            status.Change(s.memory_id, s.op, s.reason, detail={cascade.CASCADE_KEY: s.because, "cascade": True})
            for s in steps
        ]
        frontier = status.change(store, follow, actor=actor, strict=False)
        touched += [d.change.memory_id for d in frontier]
    if any(d.change.op in cascade.TRIGGERS or d.change.op == cascade.REPLACE for d in done):
        rebuild_for(store, touched)
    return done


def one(store: Storage, change: status.Change, *, actor: Actor, audit: AuditAction | None = None) -> Memory:
    """:func:`apply` of one change (strict), returning the memory as it is now."""
    apply(store, [change], actor=actor, audit=audit)
    return records.get_memory(store, change.memory_id)  # NotFound when erased meanwhile


def rebuild_for(store: Storage, memory_ids: Iterable[str]) -> None:
    """Rebuild the summaries and bridges of the sessions holding the messages these memories came from."""
    ids = list(dict.fromkeys(memory_ids))
    if not ids:
        return
    msgs: dict[str, set[int]] = {}
    with store.db() as db:
        rows = db.exec(select(Memory.user_key, Memory.source_message_ids).where(col(Memory.id).in_(ids))).all()
        for user_key, src in rows:
            msgs.setdefault(user_key, set()).update(int(i) for i in src or [] if str(i).isdigit())
        touched = {
            user_key: set(db.exec(select(Message.session_id).where(col(Message.id).in_(sorted(mids)))).all())
            for user_key, mids in msgs.items()
            if mids
        }
    for user_key, sessions in touched.items():
        summary.rebuild(store, user_key, sessions)
