"""0012 — the import journal: an import killed between its SQL commit and its indexing is indexed at the next start."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy import Connection

NAME = "import jobs"

_meta = sa.MetaData()
IMPORT_JOB = sa.Table(
    "importjob",
    _meta,
    sa.Column("imported_key", sa.String(32), primary_key=True, nullable=False),
    sa.Column("user_hash", sa.String(64), nullable=False),
    sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
)


def upgrade(conn: Connection) -> None:
    IMPORT_JOB.create(conn, checkfirst=True)
