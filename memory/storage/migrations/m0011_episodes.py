"""0011 — what was said is an *episode*: the memory type the evaluation stored as ``turn`` is renamed ``episode``
(every message of a conversation now becomes one). The LanceDB index's copy of the type is renamed by the start-up
check (``memory.storage.integrity.startup_repair``), which the migration cannot reach."""

from __future__ import annotations

from sqlalchemy import Connection, text

NAME = "episodes"


def upgrade(conn: Connection) -> None:
    conn.execute(text("UPDATE memory SET type = 'episode' WHERE type = 'turn'"))
