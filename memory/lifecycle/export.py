"""Everything about one user, out and back in, and complete deletion (one memory, one session, one user).

**Which rows belong to a user** is discovered from the schema, so tables added later are covered without edits: the
``user`` row, every table with a ``user_key`` column, and tables hanging off those by a foreign key (retrieval hits,
context sections). Export writes them as JSON (datetimes as ISO-8601 UTC, rows in primary-key order, no timestamp of
the export itself). Import trusts nothing in the file (:mod:`memory.lifecycle.import_check`): it refuses
(``Conflict``) when the user already exists, gives every row a new id and rewrites every reference through the
file's own rows, so export → delete → import → export gives the same rows under new ids; then it re-indexes the
active memories with the current embedder. The LangGraph checkpoints are not exported (they are the agent's
resumable run state, rebuilt from the messages); they are deleted with their session.

**Deletion is complete**: SQL rows, the LanceDB vectors (then ``optimize(cleanup=True)`` so old table versions holding
the text leave the disk), the LangGraph checkpointer rows (tables ``checkpoints``/``writes`` on SQLite,
``checkpoints``/``checkpoint_blobs``/``checkpoint_writes`` on PostgreSQL, keyed by thread_id = ``Session.id``), and on
SQLite a ``VACUUM`` plus a WAL checkpoint so freed pages holding the text are rewritten. Erasure is never refused
because the user just used the product: a turn in flight in another process sees the erasure, writes nothing more
and sweeps what it wrote meanwhile (:func:`sweep_erased`). Deleting a session keeps the memories
learnt in it (they are the user's long-term memory: purge them one by one); their write-log rows lose the link to
the deleted messages and turns.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import ColumnElement, Connection, Table, delete, insert, inspect, select, text, update
from sqlmodel import SQLModel, col

from memory import audit
from memory.errors import Conflict, InvalidInput, NotFound
from memory.lifecycle import erasure, import_check
from memory.lifecycle import retention as lifecycle
from memory.storage import indexing, records, userlock
from memory.storage.db import chunks
from memory.storage.models import (
    ErasureJob,
    HitLabel,
    ImportJob,
    Memory,
    MemoryEvent,
    Retrieval,
    Session,
    SessionBridge,
    User,
    id_hash,
)
from memory.vocab import MemoryStatus
from memory.write import status

if TYPE_CHECKING:
    from memory.storage.db import Database
    from memory.storage.store import Storage

FORMAT = "memlens.user-export"
VERSION = 1
CHECKPOINT_TABLES = ("checkpoints", "writes", "checkpoint_blobs", "checkpoint_writes")


# -- which tables hold a user's rows -----------------------------------------------------------------------------
def user_tables() -> list[tuple[Table, str, Table | None, str | None]]:
    """(table, column, parent, parent column) in insert order; parent None = filter ``column == user key``."""
    out: list[tuple[Table, str, Table | None, str | None]] = []
    scoped: set[str] = set()
    for table in SQLModel.metadata.sorted_tables:
        if table.name == "user":
            out.append((table, "key", None, None))
        elif "user_key" in table.c:
            out.append((table, "user_key", None, None))
        else:
            fk = next((f for f in table.foreign_keys if f.column.table.name in scoped - {"user"}), None)
            if fk is None:
                continue
            out.append((table, fk.parent.name, fk.column.table, fk.column.name))
        scoped.add(table.name)
    return out


def _where(table: Table, column: str, parent: Table | None, parent_col: str | None, key: str) -> ColumnElement[bool]:
    if parent is None or parent_col is None:
        return table.c[column] == key
    return table.c[column].in_(select(parent.c[parent_col]).where(parent.c.user_key == key))


def _encode(value: Any) -> Any:
    if isinstance(value, datetime):
        return lifecycle.aware(value).astimezone(UTC).isoformat()
    return value


# -- export / import ---------------------------------------------------------------------------------------------
def export_user(store: Database, user_id: str) -> dict[str, Any]:
    """Every row about a user, as JSON-ready data (deterministic: same data in, same JSON out)."""
    key = records.get_user(store, user_id).key
    tables: dict[str, list[dict[str, Any]]] = {}
    with store.engine.connect() as conn:
        for table, column, parent, parent_col in user_tables():
            query = select(table).where(_where(table, column, parent, parent_col, key))
            rows = conn.execute(query.order_by(*table.primary_key.columns)).mappings().all()
            tables[table.name] = [{k: _encode(v) for k, v in r.items()} for r in rows]
    user = tables.pop("user")[0]
    return {"format": FORMAT, "version": VERSION, "user": user, "tables": tables}


def import_user(store: Storage, data: dict[str, Any], *, importer: str) -> dict[str, int]:
    """Restore an export as a new user: every value checked, every id remapped, every reference resolved inside the
    file (:mod:`memory.lifecycle.import_check`), relevance labels filed under the ``importer``'s name; all or
    nothing, then the active memories are indexed."""
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("tables"), dict):
        raise InvalidInput(f"not a MemLens user export (expected format {FORMAT!r})")
    if data.get("version") != VERSION:
        raise InvalidInput(f"export version {data.get('version')!r} is not supported (this MemLens reads {VERSION})")
    known = {t.name: t for t, *_ in user_tables()}
    checked = import_check.checked_rows(data, known, max_chars=store.settings.max_message_chars, importer=importer)
    external_id = checked.rows["user"][0]["external_id"]
    user_hash = id_hash(external_id)
    # the user's write lock, held to the end: the start-up check of another process leaves a running import alone
    with userlock.user_writes(store, external_id):
        if erasure.pending_job(store, user_hash) is not None:  # else the erasure's rerun would erase the import too
            raise Conflict(
                "import refused: an erasure of this user was interrupted and is unfinished; finish it first "
                "(`memlens repair`, or delete the user again)"
            )
        with store.engine.begin() as conn:
            if conn.execute(select(col(User.key)).where(col(User.external_hash) == user_hash)).first():
                raise Conflict("import refused: a user with this id already exists; delete it first")
            counts = import_check.insert_all(conn, known, checked, lambda t, rows: _insert(conn, t, rows))
            # the journal, with the rows: killed before the index has them, the next start indexes them
            conn.execute(insert(ImportJob).values(imported_key=checked.key, user_hash=user_hash))
        with store.db() as db:
            active_rows = col(Memory.user_key) == checked.key, col(Memory.status) == MemoryStatus.ACTIVE
            active = list(db.scalars(select(Memory).where(*active_rows)).all())
        indexing.index_memories(store, active)
        with store.engine.begin() as conn:
            conn.execute(delete(ImportJob).where(col(ImportJob.imported_key) == checked.key))
    return counts


def _insert(conn: Connection, table: Table, rows: list[dict[str, Any]]) -> list[Any]:
    """Insert rows and return their primary keys in the rows' order (integer keys come from the database)."""
    pk = next(iter(table.primary_key.columns))
    if table.name == "memory":  # an active row counts as indexed only once LanceDB has it
        rows = [{**r, "indexed": False} if r.get("status") == MemoryStatus.ACTIVE else r for r in rows]
    # rows of one insert must share their keys: fill the columns some rows leave out with their defaults
    names = {k for r in rows for k in r}
    rows = [{**{n: _default(table, n) for n in names - r.keys()}, **r} for r in rows]
    if import_check.text_key(table):
        conn.execute(insert(table), rows)
        return [r[pk.name] for r in rows]
    out: list[Any] = []
    for filled in chunks(rows):
        result = conn.execute(insert(table).returning(pk, sort_by_parameter_order=True), filled)
        out.extend(result.scalars().all())
    return out


def _default(table: Table, name: str) -> Any:
    default = table.c[name].default
    if default is None:
        return None
    arg = getattr(default, "arg", None)
    return arg(None) if callable(arg) else arg


# -- deletion ----------------------------------------------------------------------------------------------------
def delete_user(store: Storage, user_id: str) -> dict[str, int]:
    """Remove every trace of a user: SQL rows, vectors, checkpoints; then reclaim the space holding the text.

    A journaled job (:mod:`memory.lifecycle.erasure`): the job row is written first, each step records its end in
    the same transaction as its work, and a rerun (or ``memlens repair``) after a crash finishes the remaining
    steps — so a user whose rows are gone but whose vectors or freed pages are not is still "in erasure", never
    "no user". Never refused for recent use: a turn still running for this user in another process notices the
    erasure and writes nothing more (``agent.graph``), and sweeps whatever it wrote in between
    (:func:`sweep_erased`)."""
    user_hash = id_hash(user_id)
    job = erasure.pending_job(store, user_hash)
    if job is None:
        user = records.get_user(store, user_id)  # NotFound when there is neither a user nor an unfinished erasure
        sessions = records.list_sessions(store, user)
        job = erasure.open_job(store, user.key, user_hash, [s.id for s in sessions])
    return finish_erasure(store, job)


def finish_erasure(store: Storage, job: ErasureJob) -> dict[str, int]:
    """Run an erasure job's remaining steps: rows (with the audit rows' free text), vectors, reclaim, close."""
    counts: dict[str, int] = {}
    if job.step == erasure.ROWS:
        counts = _delete_user_rows(store, job.erased_key, job.thread_ids, erase_audit_hash=job.user_hash)
    if job.step in (erasure.ROWS, erasure.INDEX):
        store.index.delete_user(job.erased_key)
        erasure.advance(store, job.erased_key, erasure.RECLAIM)
    reclaim(store)
    erasure.close_job(store, job.erased_key)
    return counts


def finish_erasures(store: Storage) -> list[tuple[ErasureJob, str | None]]:
    """Finish every erasure a crash interrupted (``memlens repair``); returns each job with the key of the user
    that holds its id again (written after the erasure began, so not part of it: :func:`recreated`), else None."""
    jobs = erasure.pending_jobs(store)
    out = []
    for job in jobs:
        finish_erasure(store, job)
        out.append((job, recreated(store, job)))
    return out


def recreated(store: Database, job: ErasureJob) -> str | None:
    """The key of a user holding the erased id again: a write for the same id after the erasure's rows step made a
    new user (a new key) — the erasure's job cannot reach it, so whoever finishes the job must say so."""
    with store.engine.connect() as conn:
        key = conn.execute(select(col(User.key)).where(col(User.external_hash) == job.user_hash)).scalar()
    return str(key) if key is not None and key != job.erased_key else None


def _delete_user_rows(
    store: Database, user_key: str, thread_ids: Sequence[str], *, erase_audit_hash: str | None = None
) -> dict[str, int]:
    counts: dict[str, int] = {}
    with store.engine.begin() as conn:
        counts["checkpoints"] = _delete_checkpoints(conn, list(thread_ids))
        for table, column, parent, parent_col in reversed(user_tables()):
            res = conn.execute(delete(table).where(_where(table, column, parent, parent_col, user_key)))
            counts[table.name] = res.rowcount
        conn.execute(delete(ImportJob).where(col(ImportJob.imported_key) == user_key))  # an interrupted import's
        if erase_audit_hash is not None:  # audit rows stay, without the id or free text (same transaction)
            audit.erase_user_hash(conn, erase_audit_hash)
            erasure.advance(conn, user_key, erasure.INDEX)
    return counts


def delete_session(store: Storage, user_id: str, session_id: str, *, agent_id: str | None = None) -> dict[str, int]:
    """Remove one conversation (messages, summaries, bridges from it, turns, retrievals, snapshots, checkpoints);
    never refused for recent use (a running turn writes nothing more, see :func:`delete_user`)."""
    user = records.get_user(store, user_id)
    agent = agent_id or store.settings.default_agent_id
    found = [s for s in records.list_sessions(store, user, agent) if s.external_id == session_id]
    if not found:
        raise NotFound(f"no session {session_id[:80]!r} for this user and agent {agent!r}")
    said = records.messages(store, found[0].id)
    episodes = erasure.episodes_of(store, user.key, [m.id for m in said if m.id is not None])
    purged = status.purge(store, episodes, reasons={e: "its conversation was deleted" for e in episodes})
    with store.engine.begin() as conn:
        counts = _delete_session_rows(conn, found[0].id)
    counts["episodes"] = purged
    reclaim(store, index=bool(episodes))
    return counts


def _delete_session_rows(conn: Connection, session_key: str) -> dict[str, int]:
    counts = {"checkpoints": _delete_checkpoints(conn, [session_key])}
    _unlink_session(conn, session_key)
    retrievals = select(col(Retrieval.id)).where(col(Retrieval.session_id) == session_key)
    counts["hitlabel"] = conn.execute(delete(HitLabel).where(col(HitLabel.retrieval_id).in_(retrievals))).rowcount
    counts["sessionbridge"] = conn.execute(
        delete(SessionBridge).where(col(SessionBridge.from_session_id) == session_key)
    ).rowcount
    conn.execute(
        update(SessionBridge).where(col(SessionBridge.to_session_id) == session_key).values(to_session_id=None)
    )
    for table, _column, parent, parent_col in reversed(user_tables()):
        if "session_id" in table.c:
            where = table.c.session_id == session_key
        elif parent is not None and parent_col is not None and "session_id" in parent.c:
            where = table.c[_column].in_(select(parent.c[parent_col]).where(parent.c.session_id == session_key))
        else:
            continue
        counts[table.name] = conn.execute(delete(table).where(where)).rowcount
    counts["session"] = conn.execute(delete(Session).where(col(Session.id) == session_key)).rowcount
    return counts


def erased(store: Database, user_key: str, session_key: str | None = None) -> bool:
    """Has this user (or this session) been erased since a turn started? (A cheap primary-key read.)"""
    if records.user_by_key(store, user_key) is None:
        return True
    with store.db() as db:
        return session_key is not None and db.get(Session, session_key) is None


def sweep_erased(store: Storage, user_key: str, session_key: str) -> bool:
    """After a turn: if its user (or session) was erased while it ran, delete whatever the turn still wrote —
    rows, the session's checkpoint, vectors — and reclaim the space. Returns True when it swept."""
    if not erased(store, user_key, session_key):
        return False
    if records.user_by_key(store, user_key) is None:
        _delete_user_rows(store, user_key, [session_key])
        store.index.delete_user(user_key)
        reclaim(store)
    else:
        with store.engine.begin() as conn:
            _delete_session_rows(conn, session_key)
        reclaim(store, index=False)
    return True


def _unlink_session(conn: Connection, session_key: str) -> None:
    """Write-log rows outlive the session (their memories stay) but must not point at deleted messages or turns."""
    tables = SQLModel.metadata.tables
    messages = select(tables["message"].c.id).where(tables["message"].c.session_id == session_key)
    turns = select(tables["turn"].c.id).where(tables["turn"].c.session_id == session_key)
    # a decision that made no memory holds a copy of the message itself: it goes with the message
    no_memory = col(MemoryEvent.message_id).in_(messages) & col(MemoryEvent.memory_id).is_(None)
    conn.execute(delete(MemoryEvent).where(no_memory))
    conn.execute(update(MemoryEvent).where(col(MemoryEvent.message_id).in_(messages)).values(message_id=None))
    conn.execute(update(MemoryEvent).where(col(MemoryEvent.turn_id).in_(turns)).values(turn_id=None))


def purge_memory(store: Storage, memory_id: str) -> dict[str, int]:
    """Delete one memory for good (row, write log, hits, labels, vector), leaving a content-free PURGE event."""
    memory = records.get_memory(store, memory_id)  # NotFound if absent
    orphaned = erasure.orphaned_sources(store, memory)  # the words that stated it go too: message and episode
    ids = [memory_id, *(e for e in erasure.episodes_of(store, memory.user_key, orphaned) if e != memory_id)]
    n = status.purge(store, ids, reasons={i: "purged by a person" for i in ids})
    erasure.forget_sources(store, memory, orphaned)
    reclaim(store)
    return {"memory": n}


def _delete_checkpoints(conn: Connection, thread_ids: Sequence[str]) -> int:
    if not thread_ids:
        return 0
    present = set(inspect(conn).get_table_names())
    total = 0
    for name in CHECKPOINT_TABLES:
        if name not in present:
            continue
        for chunk in chunks(list(thread_ids)):
            marks = ", ".join(f":t{i}" for i in range(len(chunk)))
            res = conn.execute(
                text(f'DELETE FROM "{name}" WHERE thread_id IN ({marks})'), {f"t{i}": t for i, t in enumerate(chunk)}
            )
            total += res.rowcount
    return total


def reclaim(store: Storage, *, index: bool = True) -> None:
    """Make deleted text leave the disk: LanceDB old versions, SQLite free pages and WAL."""
    if index:
        with warnings.catch_warnings():  # "removes every version except the latest": exactly the point here
            warnings.filterwarnings("ignore", message=".*cleanup_older_than.*")
            store.index.optimize(cleanup=True)
    if store.engine.dialect.name == "sqlite":
        with store.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(text("VACUUM"))
            conn.execute(text("PRAGMA wal_checkpoint(TRUNCATE)"))
    elif store.engine.dialect.name == "postgresql":
        erasure.vacuum_postgres(store, [t.name for t, *_ in user_tables()])
