"""Engine factory and numbered schema migrations.

Nothing here runs at import time. ``migrate`` applies each numbered migration once, in order, records it in
``schemamigration``, and holds a lock while doing so (an advisory lock on PostgreSQL; on SQLite a lost race is retried)
so several processes starting together do not race.

Adding a migration: append ``(version, name, fn)`` to ``MIGRATIONS``; ``fn(conn)`` must be idempotent with respect to
the tables ``0001`` creates from the current models (use :func:`add_column_if_missing`), because a fresh database
gets the current models from ``0001`` and then runs every later step.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from sqlalchemy import Connection, Engine, create_engine, event, inspect, text
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlmodel import SQLModel

from memory import models
from memory.config import Settings

MigrationFn = Callable[[Connection], None]


def make_engine(settings: Settings) -> Engine:
    url = settings.resolved_database_url()
    if url.startswith("sqlite"):
        if url.startswith("sqlite:///") and ":memory:" not in url:
            Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, echo=settings.sql_echo, connect_args={"check_same_thread": False, "timeout": 30})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(url, echo=settings.sql_echo, pool_pre_ping=True, pool_size=5, max_overflow=5)


def _sqlite_pragmas(dbapi_conn, _record) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA busy_timeout=30000")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()


def add_column_if_missing(conn: Connection, table: str, column: str, ddl_type: str) -> None:
    if column not in {c["name"] for c in inspect(conn).get_columns(table)}:
        conn.execute(text(f'ALTER TABLE "{table}" ADD COLUMN "{column}" {ddl_type}'))


def _m0001_initial(conn: Connection) -> None:
    tables = [t for name, t in SQLModel.metadata.tables.items() if name != "schemamigration"]
    SQLModel.metadata.create_all(conn, tables=tables)


MIGRATIONS: list[tuple[int, str, MigrationFn]] = [
    (1, "initial schema", _m0001_initial),
]


def migrate(engine: Engine) -> list[int]:
    """Apply pending migrations; returns the versions applied now.

    Two SQLite processes may race here (SQLite has no advisory lock); the loser's insert fails and it simply
    re-reads what the winner recorded.
    """
    try:
        return _migrate_once(engine)
    except (IntegrityError, OperationalError):
        return _migrate_once(engine)


def _migrate_once(engine: Engine) -> list[int]:
    applied_now: list[int] = []
    with engine.begin() as conn:
        _lock(conn)
        models.SchemaMigration.__table__.create(conn, checkfirst=True)
        done = {row[0] for row in conn.execute(text("SELECT version FROM schemamigration"))}
        for version, name, fn in MIGRATIONS:
            if version in done:
                continue
            fn(conn)
            conn.execute(
                models.SchemaMigration.__table__.insert().values(version=version, name=name, applied_at=models.utcnow())
            )
            applied_now.append(version)
    return applied_now


def _lock(conn: Connection) -> None:
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(727274)"))
