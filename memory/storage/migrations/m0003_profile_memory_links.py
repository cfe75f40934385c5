"""0003 — one truth per fact: each profile value records the memory that states it, each change its memory and the
person who made it."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy import Connection
from sqlalchemy.dialects.postgresql import JSONB

NAME = "profile fields linked to their memories"

_COLUMNS = (
    ("profilefield", sa.Column("memory_ids", sa.JSON().with_variant(JSONB(), "postgresql"), nullable=True)),
    ("profilechange", sa.Column("memory_id", sa.String(32), nullable=True)),
    ("profilechange", sa.Column("actor", sa.String(), nullable=True)),
)


def upgrade(conn: Connection) -> None:
    for table, column in _COLUMNS:
        ddl = column.type.compile(dialect=conn.dialect)
        conn.execute(sa.text(f'ALTER TABLE "{table}" ADD COLUMN "{column.name}" {ddl}'))
