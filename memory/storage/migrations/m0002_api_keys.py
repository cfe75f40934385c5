"""0002 — API keys for the REST and MCP doors (only a SHA-256 of each key is stored)."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy import Connection
from sqlalchemy.dialects.postgresql import JSONB

NAME = "api keys"

_meta = sa.MetaData()
API_KEY = sa.Table(
    "apikey",
    _meta,
    sa.Column("id", sa.Integer(), primary_key=True, nullable=False),
    sa.Column("name", sa.String(64), nullable=False, unique=True),
    sa.Column("key_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("prefix", sa.String(16), nullable=False),
    sa.Column("users", sa.JSON().with_variant(JSONB(), "postgresql"), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
)


def upgrade(conn: Connection) -> None:
    API_KEY.create(conn)
