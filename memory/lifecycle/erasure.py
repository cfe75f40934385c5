"""What complete erasure needs beyond deleting rows: the erasure journal, blanking a purged memory's sources, and
rewriting PostgreSQL's table files.

- **The journal** (:class:`memory.storage.models.ErasureJob`): deleting a user is a job with steps ``rows`` (SQL
  rows, checkpoints and the audit rows' free text, in one transaction that also records the next step), ``index``
  (the LanceDB vectors), ``reclaim`` (old LanceDB versions, SQLite ``VACUUM``, PostgreSQL ``VACUUM FULL``), then
  the job row is deleted (and, on PostgreSQL, its table rewritten too). Killed anywhere, a rerun of
  ``delete-user`` finds the job by the id's hash and finishes it, and ``memlens repair`` finishes every open job.

- A purged memory's source messages: when no other memory was learnt from a message, its text is replaced by a
  placeholder (the row stays, so the conversation keeps its order) and the write log's and context snapshots'
  copies of it go too.
- PostgreSQL keeps deleted rows' bytes in the table files until the table is rewritten: ``VACUUM FULL`` of every
  table that held anything of the user (each user table, the audit trail, the checkpoints, the journal) rewrites
  them and unlinks the old files. Cost: each table is copied whole under an exclusive lock (readers and writers of
  that table wait), so an erasure costs about one full copy of those tables — seconds for a few hundred MB; on a
  large deployment schedule erasures off-peak. What stays until it rotates: the write-ahead log (``max_wal_size``
  / ``wal_keep_size``, plus any WAL archive) and backups — see docs/lifecycle.md's erasure section.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, delete, insert, text, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select

from memory.prompts import fence_line
from memory.storage.models import (
    PURGED_MESSAGE,
    ContextSnapshot,
    ErasureJob,
    Memory,
    MemoryEvent,
    Message,
    SessionBridge,
    SummaryAnchor,
)
from memory.text.language import has_cjk
from memory.text.sentences import clause, sentences
from memory.vocab import WORDS_TYPES

if TYPE_CHECKING:
    from memory.storage.db import Database

log = logging.getLogger(__name__)

ROWS, INDEX, RECLAIM = "rows", "index", "reclaim"

PLACEHOLDER = PURGED_MESSAGE
#: tables beyond the user's own that hold something of them (rewritten after an erasure on PostgreSQL)
OTHER_TABLES = ("auditevent", "checkpoints", "checkpoint_blobs", "checkpoint_writes", "writes", "erasurejob")


# -- the journal -------------------------------------------------------------------------------------------------
def pending_job(store: Database, user_hash: str) -> ErasureJob | None:
    with store.db() as db:
        return db.exec(select(ErasureJob).where(ErasureJob.user_hash == user_hash)).first()


def pending_jobs(store: Database) -> list[ErasureJob]:
    with store.db() as db:
        return list(db.exec(select(ErasureJob).order_by(col(ErasureJob.started_at))).all())


def open_job(store: Database, user_key: str, user_hash: str, thread_ids: Sequence[str]) -> ErasureJob:
    """Record the erasure before anything is deleted (committed on return)."""
    job = ErasureJob(erased_key=user_key, user_hash=user_hash, thread_ids=list(thread_ids), step=ROWS)
    try:
        with store.engine.begin() as conn:
            conn.execute(insert(ErasureJob).values(**job.model_dump()))
    except IntegrityError:  # another process opened the same erasure a moment ago: finish that one
        return pending_job(store, user_hash) or job
    return job


def advance(target: Database | Connection, user_key: str, step: str) -> None:
    """Record that a job reached ``step`` (inside the caller's transaction when given a connection)."""
    stmt = update(ErasureJob).where(col(ErasureJob.erased_key) == user_key).values(step=step)
    if isinstance(target, Connection):
        target.execute(stmt)
        return
    with target.engine.begin() as conn:
        conn.execute(stmt)


def close_job(store: Database, user_key: str) -> None:
    """The erasure is complete: drop its journal row, overwriting its bytes (SQLite: ``secure_delete`` zeroes the
    freed cells, then the WAL is checkpointed; PostgreSQL: the journal's table is rewritten)."""
    forget = delete(ErasureJob).where(col(ErasureJob.erased_key) == user_key)
    if store.engine.dialect.name != "sqlite":
        with store.engine.begin() as conn:
            conn.execute(forget)
        vacuum_postgres(store, ["erasurejob"])
        return
    with store.engine.connect() as conn:  # one pooled connection: the pragma is per connection
        conn.execute(text("PRAGMA secure_delete = ON"))
        conn.execute(forget)
        conn.commit()
        conn.execute(text("PRAGMA secure_delete = OFF"))
        conn.commit()
    with store.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text("PRAGMA wal_checkpoint(TRUNCATE)"))


def episodes_of(store: Database, user_key: str, message_ids: Iterable[int]) -> list[str]:
    """The ids of the user's episodes kept of these messages, and of the summaries folded from them (what was
    said goes with the message)."""
    wanted = {int(i) for i in message_ids}
    if not wanted:
        return []
    query = select(Memory.id, Memory.source_message_ids).where(
        Memory.user_key == user_key, col(Memory.type).in_(WORDS_TYPES)
    )
    with store.db() as db:
        rows = db.exec(query).all()
    return [mid for mid, src in rows if any(int(i) in wanted for i in src or [] if str(i).isdigit())]


def orphaned_sources(store: Database, memory: Memory) -> list[int]:
    """The source messages of ``memory`` that no other memory of the semantic layer was learnt from (their
    episodes and folded summaries do not count: they go with the message)."""
    ids = [int(i) for i in (memory.source_message_ids or []) if isinstance(i, int) or str(i).isdigit()]
    if not ids:
        return []
    query = select(Memory.source_message_ids).where(
        Memory.user_key == memory.user_key, col(Memory.type).not_in(WORDS_TYPES), Memory.id != memory.id
    )
    with store.db() as db:
        still = {int(i) for row in db.exec(query).all() for i in row or [] if str(i).isdigit()}
    return [i for i in ids if i not in still]


def forget_sources(store: Database, memory: Memory, orphaned: list[int] | None = None) -> int:
    """Blank the source messages of a purged memory that no remaining memory refers to; returns how many."""
    orphaned = orphaned_sources(store, memory) if orphaned is None else orphaned
    with store.db() as db:
        messages = db.exec(select(Message).where(col(Message.id).in_(orphaned))).all() if orphaned else []
    if not messages:
        return 0
    with store.engine.begin() as conn:
        for m in messages:
            conn.execute(update(Message).where(col(Message.id) == m.id).values(content=PLACEHOLDER))
            conn.execute(
                update(MemoryEvent).where(col(MemoryEvent.message_id) == m.id).values(content="", message_id=None)
            )
            # as stored, as fenced, and its clauses as a bridge or summary says them back ("you mentioned that …")
            shown = [t for t in dict.fromkeys((m.content, fence_line(m.content), *said_back(m.content))) if t]
            _scrub(conn, ContextSnapshot, ContextSnapshot.prompt, ContextSnapshot.user_key == m.user_key, shown)
            _scrub(conn, SessionBridge, SessionBridge.text, SessionBridge.user_key == m.user_key, shown)
            _scrub(conn, SummaryAnchor, SummaryAnchor.text, SummaryAnchor.session_id == m.session_id, shown)
    return len(messages)


#: the shortest clause of a purged message looked for in what was written from it (shorter ones are too common)
_MIN_CLAUSE_CHARS = 12


def said_back(content: str) -> list[str]:
    """The clauses of a message as the offline bridges and summaries repeat them: as said, and in the second
    person (:func:`memory.text.voice.said_to_you`), longest first so a long clause is replaced before its parts."""
    from memory.text.voice import said_to_you

    lang = "zh" if has_cjk(content) else "en"
    clauses = [c for c in map(clause, sentences(content)) if len(c) >= _MIN_CLAUSE_CHARS]
    out = {v for c in clauses for v in (c, said_to_you(c, lang))}
    return sorted(out, key=len, reverse=True)


def _scrub(conn: Connection, table: Any, column: Any, where: Any, shown: list[str]) -> None:
    """Replace every copy of ``shown`` in one text column of the rows ``where`` selects with the placeholder."""
    key = table.__table__.c.id
    for rid, value in conn.execute(select(key, column).where(where)).all():
        if isinstance(value, str) and any(t in value for t in shown):
            for t in shown:
                value = value.replace(t, PLACEHOLDER)
            conn.execute(update(table.__table__).where(key == rid).values({column.key: value}))


#: how long an erasure's rewrite waits, in all, for older snapshots to end before it leaves the rest to a warning
OLDER_TRANSACTIONS_WAIT_S = 30.0

#: other backends of this database whose snapshot or transaction predates ours: while one runs, ``VACUUM FULL`` must
#: copy the erased rows along ("recently dead" to it), e.g. the backend of a process killed mid-erasure that the
#: server has not yet reaped, or an autovacuum ``ANALYZE``
_OLDER = text(
    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() "
    "AND (backend_xid IS NOT NULL OR backend_xmin IS NOT NULL) AND xact_start < now()"
)
#: what ``VACUUM (FULL, VERBOSE)`` says of the deleted rows it had to copy along (PostgreSQL's English messages)
_KEPT = re.compile(r"(\d+) dead row versions cannot be removed yet")


def _wait_for_older_transactions(conn: Connection, deadline: float) -> int:
    """Wait (until ``deadline``) while a transaction of this database older than ours can still see the erased
    rows; returns how many were still open when the wait gave up (0: none)."""
    while (open_ := int(conn.execute(_OLDER).scalar_one())) and time.monotonic() < deadline:
        time.sleep(0.2)
    return open_


def _rewrite(conn: Connection, name: str, deadline: float) -> int:
    """``VACUUM FULL`` one table, again (until ``deadline``) while it reports deleted rows it could not drop yet — a
    snapshot the wait above cannot see (another database's, a replication slot's) keeps them; returns how many were
    still kept."""
    said: list[str] = []
    raw = conn.connection.driver_connection
    if raw is None:  # no driver connection to hear the server's notices: one rewrite, as before
        conn.execute(text(f'VACUUM FULL "{name}"'))
        return 0
    handler = lambda diag: said.append(f"{diag.message_primary} {diag.message_detail}")  # noqa: E731
    raw.add_notice_handler(handler)
    try:
        while True:
            said.clear()
            conn.execute(text(f'VACUUM (FULL, VERBOSE) "{name}"'))
            kept = sum(int(n) for line in said for n in _KEPT.findall(line))
            if not kept or time.monotonic() >= deadline:
                return kept
            time.sleep(0.5)
    finally:
        raw.remove_notice_handler(handler)


def vacuum_postgres(store: Database, tables: Sequence[str]) -> None:
    """Rewrite ``tables`` (and :data:`OTHER_TABLES`), so the erased rows' bytes leave the table files. A rewrite
    copies every deleted row some snapshot may still see, so older transactions are waited for first and a table
    that still kept deleted rows is rewritten again, within :data:`OLDER_TRANSACTIONS_WAIT_S` in all."""
    deadline = time.monotonic() + OLDER_TRANSACTIONS_WAIT_S
    with store.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        if still := _wait_for_older_transactions(conn, deadline):
            log.warning("erasure: %d older transaction(s) still open; their snapshots may keep erased rows", still)
        present: set[str] = set(
            conn.execute(text("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")).scalars()
        )
        for name in dict.fromkeys([*tables, *OTHER_TABLES]):
            if name in present and (kept := _rewrite(conn, name, deadline)):
                log.warning("erasure: %s kept %d deleted row version(s) an open snapshot still sees", name, kept)
