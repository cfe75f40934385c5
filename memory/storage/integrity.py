"""Crash and concurrency safety: make SQL and LanceDB agree, and let one writer at a time take a message.

SQL is the truth. A memory row is committed (``indexed = False``) before its vector is written and is marked indexed
after, so a process killed in between leaves an unindexed row, never a lost one; a delete commits the status first and
removes the vector after, so a crash there leaves a vector without an active row. :func:`repair` fixes both.
:func:`startup_repair` is its cheap form, run when a service first opens the index: a count of unindexed rows and a
comparison of two counts, with the full id diff only when the counts disagree.
"""

from __future__ import annotations

import logging
from collections import Counter
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, or_, update
from sqlmodel import col, select

from memory.storage.indexing import index_memories, reindex
from memory.storage.models import Memory, MemoryEvent, Message, utcnow
from memory.vocab import MemoryStatus

if TYPE_CHECKING:
    from memory.storage.db import Database
    from memory.storage.store import Storage

log = logging.getLogger(__name__)

#: rows indexed at start-up at most (a large backlog is left to ``memlens repair`` rather than stall the first request)
STARTUP_LIMIT = 256
#: start-up leaves younger unindexed rows to the process writing them: two processes upserting one id at the same
#: moment can both insert it into LanceDB (the explicit ``repair`` indexes everything, and also removes such doubles)
STARTUP_GRACE = timedelta(seconds=60)
#: a claim on a message older than this is considered abandoned (its writer died) and can be taken again
CLAIM_LEASE = timedelta(minutes=5)


def _pending(store: Database, limit: int | None = None, grace: timedelta | None = None) -> list[Memory]:
    query = select(Memory).where(Memory.indexed == False, Memory.status == MemoryStatus.ACTIVE).order_by(Memory.id)  # noqa: E712
    if grace:
        query = query.where(Memory.updated_at < utcnow() - grace)
    with store.db() as db:
        return list(db.exec(query.limit(limit) if limit else query).all())


#: what LanceDB raises when a file of the table is gone or unreadable (a data file deleted, the version folder lost)
INDEX_DAMAGE = (OSError, RuntimeError, ValueError)


def readable(store: Storage) -> bool:
    """True when every file of the index can be read: the id column of every fragment is scanned."""
    try:
        store.index.id_list()
        return True
    except INDEX_DAMAGE as exc:
        log.warning("the LanceDB index is damaged (%s): rebuilding it from SQL", str(exc)[:200])
        return False


def repair(store: Storage, *, grace: timedelta | None = None) -> dict[str, int]:
    """A damaged index (a data file or the version folder gone) is rebuilt from SQL; otherwise :func:`settle`."""
    if not readable(store):
        return {"indexed": reindex(store), "orphans_removed": 0, "rebuilt": 1}
    return settle(store, grace=grace)


def settle(store: Storage, *, grace: timedelta | None = None) -> dict[str, int]:
    """Index what is unindexed (or marked indexed but missing), drop vectors without an active row and doubles.

    The index ids are read BEFORE the SQL ids: a vector present at that moment had its row committed earlier, so a
    writer running concurrently can never have its fresh vector mistaken for an orphan. ``grace`` leaves unindexed
    rows younger than that to the writer still busy with them.
    """
    listed = store.index.id_list()
    in_index = set(listed)
    with store.db() as db:
        rows = db.exec(select(Memory.id, Memory.indexed).where(Memory.status == MemoryStatus.ACTIVE)).all()
    active = {i for i, _ in rows}
    marked = {i for i, indexed in rows if indexed}
    doubles = sorted(i for i, n in Counter(listed).items() if n > 1)
    store.index.delete(doubles)  # re-indexed below from SQL, once
    pending = {m.id: m for m in _pending(store, grace=grace)}
    missing = (marked - in_index - set(pending)) | (set(doubles) & active)
    if missing:
        with store.db() as db:
            ids = sorted(missing)
            for start in range(0, len(ids), 500):
                found = db.exec(select(Memory).where(col(Memory.id).in_(ids[start : start + 500]))).all()
                pending.update({m.id: m for m in found if m.status == MemoryStatus.ACTIVE})
    todo = list(pending.values())
    for start in range(0, len(todo), 256):
        index_memories(store, todo[start : start + 256])
    orphans = sorted(in_index - active)
    store.index.delete(orphans)
    return {"indexed": len(todo), "orphans_removed": len(orphans)}


def startup_repair(store: Storage) -> dict[str, Any]:
    """The cheap check run when a process first opens the index: bounded work unless something is wrong."""
    pending = _pending(store, STARTUP_LIMIT + 1, STARTUP_GRACE)
    if len(pending) > STARTUP_LIMIT:
        log.warning("more than %d unindexed memories: run `memlens repair`", STARTUP_LIMIT)
        index_memories(store, pending[:STARTUP_LIMIT])
        return {"indexed": STARTUP_LIMIT, "orphans_removed": 0, "full": False}
    if pending:
        index_memories(store, pending)
    with store.db() as db:
        sql_count = db.exec(
            select(func.count()).select_from(Memory).where(Memory.status == MemoryStatus.ACTIVE, Memory.indexed == True)  # noqa: E712
        ).one()
    if store.index.count() == sql_count:
        return {"indexed": len(pending), "orphans_removed": 0, "full": False}
    report = repair(store, grace=STARTUP_GRACE)
    return {"indexed": len(pending) + report["indexed"], "orphans_removed": report["orphans_removed"], "full": True}


def claim_for_write(store: Database, message_id: int, *, lease: timedelta = CLAIM_LEASE) -> bool:
    """Take a message through the write pipeline at most once, even when several processes retry the same turn.

    True when this caller now owns the message: no write-log event exists for it yet and nobody holds a live claim.
    The claim is one conditional UPDATE (atomic on SQLite and PostgreSQL); a claim older than ``lease`` is treated as
    abandoned by a crashed writer and can be taken over.
    """
    now = utcnow()
    with store.engine.begin() as conn:
        done = conn.execute(
            select(func.count()).select_from(MemoryEvent).where(MemoryEvent.message_id == message_id)
        ).scalar_one()
        if done:
            return False
        claimed = conn.execute(
            update(Message)
            .where(
                col(Message.id) == message_id,
                or_(col(Message.write_claimed_at).is_(None), col(Message.write_claimed_at) < now - lease),
            )
            .values(write_claimed_at=now)
        )
        return claimed.rowcount == 1
