"""Engine factory, the migration entry point and the retry policy for concurrent writers.

Nothing here runs at import time. The numbered steps themselves live in :mod:`memory.storage.migrations`.
"""

from __future__ import annotations

import functools
import os
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar
from urllib.parse import quote

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import ExceptionContext
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from sqlalchemy.orm.exc import StaleDataError
from sqlalchemy.pool import ConnectionPoolEntry
from sqlmodel import Session as DBSession
from tenacity import RetryError, Retrying, retry_if_exception, stop_after_attempt, wait_random_exponential

from memory.config import Settings
from memory.errors import ConfigError, Conflict, ReadOnlyData
from memory.storage import scrub
from memory.storage.migrations import apply_pending

if TYPE_CHECKING:
    from memory.storage.embed import Embedder
    from memory.storage.vectors import VectorIndex

T = TypeVar("T")


class Database(Protocol):
    """What a module that only reads and writes SQL receives (a :class:`~memory.storage.store.Storage` is one):
    ORM sessions and the engine, nothing of the index, the embedder or the settings."""

    @property
    def engine(self) -> Engine: ...

    def db(self) -> DBSession: ...


class Indexed(Database, Protocol):
    """What keeping SQL and the index in step needs (``indexing``, ``integrity``): the SQL side, the index, the
    embedder and the settings. The :class:`~memory.storage.store.Storage` is one; typing with this rather than the
    class keeps those modules below the storage object that calls them (no import circle, not even for a type)."""

    settings: Settings

    @property
    def index(self) -> VectorIndex: ...

    @property
    def embedder(self) -> Embedder: ...

    @property
    def read_only(self) -> str | None: ...


#: ids bound in one ``IN (...)`` list: below SQLite's default limit on bound parameters (32,766; PostgreSQL 65,535)
IN_LIST = 900


def chunks(items: Sequence[Any], size: int = IN_LIST) -> Iterator[Sequence[Any]]:
    """``items`` in slices of at most ``size``: each slice is one bounded statement, whatever the number of ids."""
    for start in range(0, len(items), size):
        yield items[start : start + size]


#: PostgreSQL SQLSTATEs worth a retry: serialization failure, deadlock, lock not available
_PG_TRANSIENT = {"40001", "40P01", "55P03"}


def make_engine(settings: Settings) -> Engine:
    """The engine for the configured database. A SQLite data folder this process cannot write (its owner or mode,
    a read-only mount) is opened read-only: reads work, and a write is refused with :class:`ReadOnlyData` saying
    why, never a bare ``OperationalError``; the engine's ``memlens_read_only`` names the reason (None when
    writable). A data folder that cannot be created, or a read-only one with no database yet, is a
    :class:`ConfigError`. Bound values never appear in an error's text (``hide_parameters``): a traceback in the
    server's log would otherwise keep a user's key, ids and words after the user is erased."""
    url = settings.resolved_database_url()
    reason: str | None = None
    if url.startswith("sqlite"):
        args: dict[str, Any] = {"check_same_thread": False, "timeout": 30}
        if url.startswith("sqlite:///") and ":memory:" not in url:
            path = Path(url.removeprefix("sqlite:///"))
            reason = read_only_reason(path)
            if reason is None:
                try:
                    private_file(path)
                except PermissionError as exc:
                    raise ConfigError(
                        f"cannot create the data folder or database {path}: {exc.strerror or exc}"
                    ) from None
            elif not path.exists():
                raise ConfigError(f"{reason}, and it holds no database yet: nothing to open. {READ_ONLY_FIX}")
            else:
                url = _read_only_url(path)
        engine = create_engine(url, echo=settings.sql_echo, connect_args=args, hide_parameters=True)
        event.listen(engine, "connect", _sqlite_read_only_pragmas if reason else _sqlite_pragmas)
    else:
        engine = create_engine(
            url, echo=settings.sql_echo, pool_pre_ping=True, pool_size=5, max_overflow=5, hide_parameters=True
        )
    engine.memlens_read_only = reason  # type: ignore[attr-defined]
    event.listen(engine, "handle_error", functools.partial(_refused_write, reason))
    scrub.install(engine)  # the masking choke point: no INSERT/UPDATE stores unmasked text
    return engine


#: what to do about a data folder MemLens may not write
READ_ONLY_FIX = (
    "Give this user write access to the folder (owner or mode), or point MEMLENS_DATA_DIR at a folder it can write"
)


def read_only_reason(path: Path) -> str | None:
    """Why the SQLite file at ``path`` (and its folder: SQLite writes its journal files beside it) cannot be written
    by this process, or None when it can. Tried, not inferred from mode bits: root, ACLs and read-only mounts all
    answer for themselves."""
    folder = path.parent
    if not folder.exists():
        return None  # created (private) on first open; a parent that refuses is reported then
    who = f"user id {os.getuid()}" if hasattr(os, "getuid") else "this user"
    try:
        fd, probe = tempfile.mkstemp(prefix=".memlens-write-check-", dir=folder)
    except OSError:
        return f"the data folder {folder} cannot be written by this process ({who})"
    os.close(fd)
    os.unlink(probe)
    if path.exists():
        try:
            os.close(os.open(path, os.O_RDWR))
        except OSError:
            return f"the database {path} cannot be written by this process ({who})"
    return None


def _read_only_url(path: Path) -> str:
    """A read-only SQLite URI for ``path``. A WAL database needs its ``-shm`` file, which a read-only folder cannot
    get unless a writer has it open: then it is opened as immutable (a snapshot: what another process writes
    meanwhile is seen after a restart)."""
    import sqlite3

    uri = f"file:{quote(str(path))}?mode=ro"
    try:
        probe = sqlite3.connect(uri, uri=True)
        try:
            probe.execute("SELECT count(*) FROM sqlite_master").fetchone()
        finally:
            probe.close()
    except sqlite3.Error:
        uri += "&immutable=1"
    return f"sqlite:///{uri}&uri=true"


def _sqlite_read_only_pragmas(dbapi_conn: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA query_only=ON")
    cur.execute("PRAGMA busy_timeout=30000")
    cur.close()


def _refused_write(reason: str | None, ctx: ExceptionContext) -> None:
    """A write SQLite refuses as read-only becomes one clear :class:`ReadOnlyData` (also for a file made read-only
    after the service started)."""
    said = str(ctx.original_exception).lower()
    if "readonly database" in said or "read-only" in said or "query_only" in said:
        why = reason or "the database file or its folder is not writable by this process"
        raise ReadOnlyData(f"read-only: {why}; MemLens can show what it holds but not change it. {READ_ONLY_FIX}.")


def private_dir(folder: Path) -> None:
    """Create a data folder readable by its owner only (0700): what it holds is people's words. An existing folder
    is left as its owner set it."""
    if not folder.exists():
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        folder.chmod(0o700)  # mkdir's mode is filtered by the umask


def private_file(path: Path) -> None:
    """Create the SQLite file owner-only (0600) in a private folder before SQLite opens it; its ``-wal`` and ``-shm``
    files take the same permissions."""
    private_dir(path.parent)
    if not path.exists():
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
        path.chmod(0o600)


def _sqlite_pragmas(dbapi_conn: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA busy_timeout=30000")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()


def migrate(engine: Engine) -> list[int]:
    """Apply pending migrations (:mod:`memory.storage.migrations`); returns the versions applied now.

    Two SQLite processes may race here (SQLite has no advisory lock); the loser's insert fails and it simply
    re-reads what the winner recorded. On PostgreSQL a concurrent ``CREATE TABLE`` outside our lock (e.g. the
    checkpointer's) can still collide in the catalog, which a retry also settles.
    """
    for attempt in Retrying(
        retry=retry_if_exception(lambda e: isinstance(e, IntegrityError | OperationalError | DBAPIError)),
        stop=stop_after_attempt(5),
        wait=wait_random_exponential(multiplier=0.05, max=1.0),
        reraise=True,
    ):
        with attempt:
            return _migrate_once(engine)
    raise AssertionError("unreachable")  # pragma: no cover


def _migrate_once(engine: Engine) -> list[int]:
    with engine.begin() as conn:
        return apply_pending(conn)


# -- concurrency ------------------------------------------------------------------------------------------------
def is_transient(exc: BaseException, *, integrity: bool = False) -> bool:
    """True for errors a re-run of the whole read-modify-write can fix: a lost optimistic-version race, a busy
    SQLite file, a PostgreSQL serialization failure or deadlock (and, when asked, a lost insert race)."""
    if isinstance(exc, StaleDataError):
        return True
    if integrity and isinstance(exc, IntegrityError):
        return True
    if isinstance(exc, OperationalError) and any(w in str(exc).lower() for w in ("database is locked", "busy")):
        return True
    code = getattr(getattr(exc, "orig", None), "sqlstate", None)
    return isinstance(exc, DBAPIError) and code in _PG_TRANSIENT


def retrying(fn: Callable[..., T] | None = None, *, attempts: int = 6, integrity: bool = False) -> Any:
    """Decorator: re-run ``fn`` (which must read, change and commit in its own transaction) when a concurrent writer
    won; after ``attempts`` it raises :class:`memory.errors.Conflict`. Usable as ``@retrying`` or
    ``@retrying(integrity=True)`` (also retry a unique-constraint race, for get-or-create followed by an update)."""

    def wrap(f: Callable[..., T]) -> Callable[..., T]:
        @functools.wraps(f)
        def run(*args: Any, **kwargs: Any) -> T:
            try:
                for attempt in Retrying(
                    retry=retry_if_exception(lambda e: is_transient(e, integrity=integrity)),
                    stop=stop_after_attempt(attempts),
                    wait=wait_random_exponential(multiplier=0.01, max=0.5),
                ):
                    with attempt:
                        return f(*args, **kwargs)
            except RetryError as exc:
                last = exc.last_attempt.exception()
                msg = f"{f.__name__}: a concurrent change kept winning ({attempts} tries); try again"
                raise Conflict(msg) from last
            raise AssertionError("unreachable")  # pragma: no cover

        return run

    return wrap(fn) if fn is not None else wrap
