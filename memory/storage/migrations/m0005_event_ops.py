"""0005 — one name per write-log operation: the pipeline logged a replaced memory as ``SUPERSEDED`` and
``set_status`` logged status names (``ARCHIVED``, ``DELETED``, ``ACTIVE``); they become the ``EventOp`` values
a person's own change already used (``SUPERSEDE``, ``ARCHIVE``, ``DELETE``, ``RESTORE``)."""

from __future__ import annotations

from sqlalchemy import Connection, text

NAME = "event ops unified"

#: frozen here (not read from memory.vocab, which may grow)
_RENAMED = {"SUPERSEDED": "SUPERSEDE", "ARCHIVED": "ARCHIVE", "DELETED": "DELETE", "ACTIVE": "RESTORE"}


def upgrade(conn: Connection) -> None:
    for old, new in _RENAMED.items():
        conn.execute(text("UPDATE memoryevent SET op = :new WHERE op = :old"), {"old": old, "new": new})
