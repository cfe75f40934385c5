"""Crash and concurrency safety: make SQL and LanceDB agree, and let one writer at a time take a message.

SQL is the truth. A memory row is committed (``indexed = False``) before its vector is written and is marked indexed
after, so a process killed in between leaves an unindexed row, never a lost one; a delete commits the status first and
removes the vector after, so a crash there leaves a vector without an active row. :func:`repair` fixes both.
:func:`startup_repair` is its cheap form, run when a service first opens the index: the unindexed rows, then the
(id, owner) pairs of the active memories against the index's — equal counts do not prove equal contents (a vector
lost and an orphan left behind, or a row filed under another user) — and the full repair only when they differ. The
pairs come from a covering SQL index and two narrow LanceDB columns (``bench/startup_check.py``: ~10 ms at 10,000
memories). What it cannot see: a row whose id and owner are right but whose text or vector is not (``memlens
reindex`` rebuilds those).
"""

from __future__ import annotations

import contextlib
import logging
from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import delete, func, or_, text, update
from sqlmodel import col, select

from memory.errors import ConfigError
from memory.storage.indexing import index_memories, reindex
from memory.storage.models import ImportJob, Memory, MemoryEvent, Message, utcnow
from memory.vocab import MemoryStatus, MemoryType

if TYPE_CHECKING:
    from memory.storage.db import Database, Indexed

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


def readable(store: Indexed) -> bool:
    """True when every file of the index can be read: the id column of every fragment is scanned."""
    try:
        store.index.id_list()
        return True
    except INDEX_DAMAGE as exc:
        if isinstance(exc, PermissionError) or "permission denied" in str(exc).lower():
            # not damage: rebuilding would change nothing (or destroy a good index); say what is wrong
            raise ConfigError(
                f"cannot read the index at {store.settings.resolved_lancedb_uri()}: permission denied — check the "
                "data folder's owner and permissions (nothing was changed)"
            ) from None
        log.warning("the LanceDB index is damaged (%s): rebuilding it from SQL", str(exc)[:200])
        return False


def repair(store: Indexed, *, grace: timedelta | None = None) -> dict[str, int]:
    """A damaged index (a data file or the version folder gone) is rebuilt from SQL; otherwise :func:`settle`.
    Either way the journal of interrupted imports is closed (:func:`finish_imports`)."""
    if not readable(store):
        report = {"indexed": reindex(store), "orphans_removed": 0, "rebuilt": 1}
        finish_imports(store)
        return report
    imported = finish_imports(store)
    report = settle(store, grace=grace)
    return {**report, "indexed": report["indexed"] + imported}


def _sql_owners(store: Indexed) -> tuple[dict[str, str], set[str]]:
    """({id: user key} of the active memories, ids of those marked indexed), read from the covering index
    ``ix_memory_status_indexed_id`` through a plain DB-API cursor (at 100,000 ids SQLAlchemy's row handling costs
    more than the query itself)."""
    active: dict[str, str] = {}
    indexed: set[str] = set()
    query = f"SELECT id, user_key, indexed FROM memory WHERE status = '{MemoryStatus.ACTIVE.value}'"
    with store.engine.connect() as conn:
        cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
        try:
            cursor.execute(query)
            for mid, user_key, is_indexed in cursor.fetchall():
                active[mid] = user_key
                if is_indexed:
                    indexed.add(mid)
        finally:
            cursor.close()
    return active, indexed


@dataclass
class IndexDiff:
    """How the index differs from SQL; all empty when they agree."""

    missing: set[str] = field(default_factory=set)  # marked indexed in SQL, absent from the index
    orphans: set[str] = field(default_factory=set)  # in the index, no active row
    doubles: set[str] = field(default_factory=set)  # in the index twice
    misfiled: set[str] = field(default_factory=set)  # in the index under another user than its row's

    def counts(self) -> dict[str, int]:
        return {k: len(v) for k, v in vars(self).items()}

    def __bool__(self) -> bool:
        return any(vars(self).values())


def compare(store: Indexed) -> tuple[IndexDiff, dict[str, str]]:
    """The index's (id, owner) pairs against SQL's active memories: (the difference, SQL's {id: owner}).

    The index is read BEFORE SQL: a vector present at that moment had its row committed earlier, so a writer running
    concurrently can never have its fresh vector mistaken for an orphan."""
    pairs = store.index.owners()
    active, indexed = _sql_owners(store)
    owner = dict(pairs)
    diff = IndexDiff(
        missing=indexed - owner.keys(),
        orphans=owner.keys() - active.keys(),
        doubles={i for i, n in Counter(i for i, _ in pairs).items() if n > 1},
        misfiled={i for i, u in pairs if i in active and active[i] != u},
    )
    return diff, active


#: a memory id and its user's key: 32 hex characters each (``uuid4().hex``), so one record is 64 bytes
RECORD = 64


def _sql_records(store: Indexed) -> Any:
    """The active, indexed memories' id + user key records (numpy ``S64``, unordered); None when some id or key is
    not 32 characters. The database joins them into one string (a scan of the covering index
    ``ix_memory_status_indexed_id``, in C): no Python object per row."""
    import numpy as np

    concat = "string_agg(k, '')" if store.engine.dialect.name == "postgresql" else "group_concat(k, '')"
    query = text(
        f"SELECT count(*), {concat} FROM (SELECT id || user_key AS k FROM memory "
        f"WHERE status = '{MemoryStatus.ACTIVE.value}' AND indexed = TRUE) AS active"
    )
    with store.engine.connect() as conn:
        n, joined = cast("tuple[int, str | None]", tuple(conn.execute(query).one()))
    raw = (joined or "").encode("utf-8")
    if len(raw) != n * RECORD:
        return None
    return np.frombuffer(raw, dtype=f"S{RECORD}")


def digest(records: Any) -> tuple[int, int]:
    """(count, order-free 64-bit digest) of fixed-width records: each record's eight 64-bit words are mixed (the
    splitmix64 finaliser) and the mixes summed, so equal sets give equal digests whatever the order, and a changed,
    missing or extra record changes it (but for a 2⁻⁶⁴ chance) — in numpy, O(n), no sort."""
    import numpy as np

    words = np.frombuffer(records.tobytes(), dtype="<u8").reshape(len(records), RECORD // 8)
    with np.errstate(over="ignore"):
        h = (words * np.array(_WEIGHTS, dtype=np.uint64)).sum(axis=1, dtype=np.uint64)
        h ^= h >> np.uint64(30)
        h *= np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(27)
        h *= np.uint64(0x94D049BB133111EB)
        h ^= h >> np.uint64(31)
        return len(records), int(h.sum(dtype=np.uint64))


#: one odd multiplier per 64-bit word of a record (so the same id under another user, or shifted, mixes differently)
_WEIGHTS = (
    0x9E3779B97F4A7C15,
    0xC2B2AE3D27D4EB4F,
    0x165667B19E3779F9,
    0xD6E8FEB86659FD93,
    0xA0761D6478BD642F,
    0xE7037ED1A0B428DB,
    0x8EBC6AF09C88C6E3,
    0x589965CC75374CC3,
)


def agrees(store: Indexed) -> bool:
    """Does the index hold exactly the active, indexed memories, each under its own user? Fast path: both sides as
    fixed-width records, compared by count and :func:`digest` (``bench/startup_check.py``); ids of another shape fall
    back to :func:`compare`. Raises ``INDEX_DAMAGE`` when the index cannot be read."""
    ours, theirs = store.index.records(RECORD), _sql_records(store)
    if ours is None or theirs is None:
        return not compare(store)[0]
    return digest(ours) == digest(theirs)


def settle(store: Indexed, *, grace: timedelta | None = None) -> dict[str, int]:
    """Index what is unindexed (or marked indexed but missing), drop vectors without an active row, doubles and
    vectors filed under the wrong user (those are indexed again from SQL). ``grace`` leaves unindexed rows younger
    than that to the writer still busy with them."""
    diff, active = compare(store)
    redo = diff.doubles | diff.misfiled
    store.index.delete(sorted(redo))  # re-indexed below from SQL, once, under the right user
    pending = {m.id: m for m in _pending(store, grace=grace)}
    missing = (diff.missing - set(pending)) | (redo & active.keys())
    if missing:
        with store.db() as db:
            ids = sorted(missing)
            for start in range(0, len(ids), 500):
                found = db.exec(select(Memory).where(col(Memory.id).in_(ids[start : start + 500]))).all()
                pending.update({m.id: m for m in found if m.status == MemoryStatus.ACTIVE})
    todo = list(pending.values())
    for start in range(0, len(todo), 256):
        index_memories(store, todo[start : start + 256])
    orphans = sorted(diff.orphans)
    store.index.delete(orphans)
    return {"indexed": len(todo), "orphans_removed": len(orphans)}


def finish_imports(store: Indexed) -> int:
    """Index every memory of each import a crash interrupted between its SQL commit and its indexing (the import
    journal, :class:`memory.storage.models.ImportJob`), then close its job; returns how many memories. An import
    still running (its user's write lock is held, in any process) is left to finish itself."""
    from memory.storage.userlock import idle_user

    with store.db() as db:
        jobs = list(db.exec(select(ImportJob)).all())
    total = 0
    for job in jobs:
        with idle_user(store, job.user_hash) as idle:
            if not idle:
                continue
            while rows := _unindexed_of(store, job.imported_key, 256):
                index_memories(store, rows)
                total += len(rows)
            with store.engine.begin() as conn:
                conn.execute(delete(ImportJob).where(col(ImportJob.imported_key) == job.imported_key))
    return total


def _unindexed_of(store: Database, user_key: str, limit: int) -> list[Memory]:
    query = select(Memory).where(
        Memory.user_key == user_key,
        col(Memory.indexed).is_(False),
        Memory.status == MemoryStatus.ACTIVE,
    )
    with store.db() as db:
        return list(db.exec(query.order_by(Memory.id).limit(limit)).all())


def startup_repair(store: Indexed) -> dict[str, Any]:
    """The cheap check run when a process first opens the index: bounded work unless something is wrong — or an
    import was killed before its memories reached the index (all of them are indexed now, however many)."""
    with contextlib.suppress(*INDEX_DAMAGE):  # an unreadable index is found and rebuilt below
        store.index.retype("turn", MemoryType.EPISODE)  # migration 0011 renamed the type in SQL
        store.index.refresh_text_index()  # built with ICU's default stop words (before memory/text/stopwords.py)
    imported = finish_imports(store)
    if imported:
        log.warning("start-up check: indexed %d memories an interrupted import left unindexed", imported)
    pending = _pending(store, STARTUP_LIMIT + 1, STARTUP_GRACE)
    if len(pending) > STARTUP_LIMIT:
        log.warning("more than %d unindexed memories: run `memlens repair`", STARTUP_LIMIT)
        index_memories(store, pending[:STARTUP_LIMIT])
        return {"indexed": STARTUP_LIMIT, "orphans_removed": 0, "full": False}
    if pending:
        index_memories(store, pending)
    try:
        if agrees(store):
            return {"indexed": len(pending), "orphans_removed": 0, "full": False}
        found = compare(store)[0].counts()
    except INDEX_DAMAGE:  # a data file of the index is gone or unreadable: repair rebuilds it
        found = {"unreadable": 1}
    if not any(found.values()):  # the quick digest saw a write in flight (a row indexed, not yet marked): nothing
        log.debug("start-up check: a write was in flight; the index agrees with SQL")
        return {"indexed": len(pending), "orphans_removed": 0, "full": False}
    log.warning("start-up check: the index disagrees with SQL (%s): repairing it", found)
    report = repair(store, grace=STARTUP_GRACE)
    return {
        "indexed": len(pending) + report["indexed"],
        "orphans_removed": report["orphans_removed"],
        "full": True,
        "found": found,
    }


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
