"""0009 — a context allocation records the tokens its memories' source context took (part of ``used``), so the
back office's budget view shows how much of the memories section is the conversation around them."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy import Connection

NAME = "context sections record their source-context tokens"


def upgrade(conn: Connection) -> None:
    from memory.storage.migrations import add_column, has_column  # the package imports this module first

    if not has_column(conn, "contextsection", "context_used"):
        add_column(conn, "contextsection", sa.Column("context_used", sa.Integer(), nullable=False, server_default="0"))
