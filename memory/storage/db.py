"""Engine factory, the migration entry point and the retry policy for concurrent writers.

Nothing here runs at import time. The numbered steps themselves live in :mod:`memory.storage.migrations`.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from sqlalchemy.orm.exc import StaleDataError
from sqlalchemy.pool import ConnectionPoolEntry
from sqlmodel import Session as DBSession
from tenacity import RetryError, Retrying, retry_if_exception, stop_after_attempt, wait_random_exponential

from memory.config import Settings
from memory.errors import Conflict
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


#: PostgreSQL SQLSTATEs worth a retry: serialization failure, deadlock, lock not available
_PG_TRANSIENT = {"40001", "40P01", "55P03"}


def make_engine(settings: Settings) -> Engine:
    url = settings.resolved_database_url()
    if url.startswith("sqlite"):
        if url.startswith("sqlite:///") and ":memory:" not in url:
            private_file(Path(url.removeprefix("sqlite:///")))
        engine = create_engine(url, echo=settings.sql_echo, connect_args={"check_same_thread": False, "timeout": 30})
        event.listen(engine, "connect", _sqlite_pragmas)
    else:
        engine = create_engine(url, echo=settings.sql_echo, pool_pre_ping=True, pool_size=5, max_overflow=5)
    scrub.install(engine)  # the masking choke point: no INSERT/UPDATE stores unmasked text
    return engine


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
