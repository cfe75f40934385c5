"""0010 — the erasure journal: a user erasure is a job that a rerun or ``memlens repair`` finishes after a crash."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy import Connection
from sqlalchemy.dialects.postgresql import JSONB

NAME = "erasure jobs"

_meta = sa.MetaData()
ERASURE_JOB = sa.Table(
    "erasurejob",
    _meta,
    sa.Column("erased_key", sa.String(32), primary_key=True, nullable=False),
    sa.Column("user_hash", sa.String(64), nullable=False, index=True),
    sa.Column("thread_ids", sa.JSON().with_variant(JSONB(), "postgresql"), nullable=False),
    sa.Column("step", sa.String(16), nullable=False),
    sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
)


def upgrade(conn: Connection) -> None:
    ERASURE_JOB.create(conn, checkfirst=True)
