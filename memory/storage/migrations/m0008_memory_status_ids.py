"""0008 — two memory indexes for reads made on every start and every turn:

- (status, indexed, id, user_key), covering: start-up compares the (id, owner) records of the active memories with
  the LanceDB index's and reads them from this index alone (no row of the table is touched);
- (user_key, updated_at) over the rows that state something (predicate set), partial: each turn reads the user's
  latest statements to leave retracted ones out of older summaries (14 ms → 0.3 ms at 10,000 memories)."""

from __future__ import annotations

from sqlalchemy import Connection, text

NAME = "memory indexes: ids by status (start-up check), statements by user and time (each turn)"


def upgrade(conn: Connection) -> None:
    conn.execute(text('CREATE INDEX "ix_memory_status_indexed_id" ON "memory" (status, indexed, id, user_key)'))
    conn.execute(
        text('CREATE INDEX "ix_memory_user_statements" ON "memory" (user_key, updated_at) WHERE predicate IS NOT NULL')
    )
