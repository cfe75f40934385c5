"""Numbered schema migrations, applied once each and recorded per database in ``schemamigration``.

Every module here named ``mNNNN_<what>.py`` is one step: a ``NAME`` string and ``upgrade(conn)``. Steps are found by
file name (no shared list to edit, so two people adding tables do not touch the same line) and run in number order,
all in one transaction under a lock: PostgreSQL's advisory lock, SQLite's write lock. ``0001`` is the first release's
schema, frozen; every later schema change is its own step written with frozen Core objects (never the live models,
which keep changing) — see docs/architecture.md, "Adding a migration".
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import sqlalchemy as sa
from sqlalchemy import Connection, inspect, text
from sqlalchemy.schema import CreateColumn

_FILE = re.compile(r"^m(\d{4})_\w+$")
#: arbitrary constant shared by every MemLens process: the key of the PostgreSQL advisory lock
_PG_LOCK_KEY = 727274

_meta = sa.MetaData()
#: frozen like the steps themselves (``models.SchemaMigration`` mirrors it for reading)
SCHEMA_MIGRATION = sa.Table(
    "schemamigration",
    _meta,
    sa.Column("version", sa.Integer(), primary_key=True, nullable=False),
    sa.Column("name", sa.String(), nullable=False),
    sa.Column("applied_at", sa.DateTime(timezone=True), nullable=False),
)


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    upgrade: Callable[[Connection], None]


def discover() -> list[Migration]:
    """Every step in this package, by number; two files with one number is an error (renumber yours on rebase)."""
    found: dict[int, Migration] = {}
    for info in pkgutil.iter_modules(__path__):
        match = _FILE.match(info.name)
        if not match:
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        version = int(match.group(1))
        if version in found:
            raise RuntimeError(f"two migrations numbered {version:04d}: renumber the newer one")
        found[version] = Migration(version, module.NAME, module.upgrade)
    steps = [found[v] for v in sorted(found)]
    if [m.version for m in steps] != list(range(1, len(steps) + 1)):
        raise RuntimeError(f"migration numbers must run 1, 2, 3, … without gaps: {[m.version for m in steps]}")
    return steps


MIGRATIONS: list[Migration] = discover()


def apply_pending(conn: Connection, migrations: list[Migration] | None = None) -> list[int]:
    """Run the steps this database has not recorded yet, inside the caller's transaction; returns their versions."""
    lock(conn)
    SCHEMA_MIGRATION.create(conn, checkfirst=True)
    done = {row[0] for row in conn.execute(sa.select(SCHEMA_MIGRATION.c.version))}
    applied: list[int] = []
    for step in migrations if migrations is not None else MIGRATIONS:
        if step.version in done:
            continue
        step.upgrade(conn)
        conn.execute(
            SCHEMA_MIGRATION.insert().values(version=step.version, name=step.name, applied_at=datetime.now(UTC))
        )
        applied.append(step.version)
    return applied


def lock(conn: Connection) -> None:
    """Serialise migrating processes: an advisory lock on PostgreSQL (released at commit); on SQLite the first
    write takes the database lock and a process that lost the race retries (see ``memory.storage.db.migrate``)."""
    if conn.dialect.name == "postgresql":
        conn.execute(text(f"SELECT pg_advisory_xact_lock({_PG_LOCK_KEY})"))


# -- helpers for steps ----------------------------------------------------------------------------------------
def add_column(conn: Connection, table: str, column: sa.Column) -> None:
    """``ALTER TABLE … ADD COLUMN`` from a Core column (type, nullability and ``server_default`` compiled for this
    database). A NOT NULL column needs a ``server_default`` so existing rows get a value."""
    if not column.nullable and column.server_default is None:
        raise ValueError(f"{table}.{column.name}: a NOT NULL column added to existing rows needs a server_default")
    spec = str(CreateColumn(column).compile(dialect=conn.dialect))
    conn.execute(text(f'ALTER TABLE "{table}" ADD COLUMN {spec}'))


def has_column(conn: Connection, table: str, column: str) -> bool:
    return column in {c["name"] for c in inspect(conn).get_columns(table)}
