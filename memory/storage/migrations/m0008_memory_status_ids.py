"""0008 — a covering index on memory (status, indexed, id, user_key): start-up compares the (id, owner) pairs of the
active memories with the LanceDB index's, and reads them from this index alone (no row of the table is touched)."""

from __future__ import annotations

from sqlalchemy import Connection, text

NAME = "memory ids by status (covering index for the start-up id check)"


def upgrade(conn: Connection) -> None:
    conn.execute(text('CREATE INDEX "ix_memory_status_indexed_id" ON "memory" (status, indexed, id, user_key)'))
