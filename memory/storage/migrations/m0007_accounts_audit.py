"""0007 — back-office accounts (argon2 hashes only) and the audit trail of person actions."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy import Connection
from sqlalchemy.dialects.postgresql import JSONB

NAME = "accounts and audit trail"

_meta = sa.MetaData()
_JSON = sa.JSON().with_variant(JSONB(), "postgresql")
ACCOUNT = sa.Table(
    "account",
    _meta,
    sa.Column("name", sa.String(200), primary_key=True, nullable=False),
    sa.Column("role", sa.String(16), nullable=False),
    sa.Column("password_hash", sa.Text(), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
)
AUDIT_EVENT = sa.Table(
    "auditevent",
    _meta,
    sa.Column("id", sa.Integer(), primary_key=True, nullable=False),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False, index=True),
    sa.Column("actor", sa.String(200), nullable=False, index=True),
    sa.Column("role", sa.String(16), nullable=False),
    sa.Column("via", sa.String(64), nullable=False),
    sa.Column("action", sa.String(32), nullable=False),
    sa.Column("user_hash", sa.String(64), nullable=True, index=True),
    sa.Column("user_id", sa.Text(), nullable=True),
    sa.Column("target_ids", _JSON, nullable=False),
    sa.Column("reason", sa.Text(), nullable=False),
    sa.Column("detail", _JSON, nullable=False),
    sa.Index("ix_auditevent_action_at", "action", "at"),
)


def upgrade(conn: Connection) -> None:
    ACCOUNT.create(conn)
    AUDIT_EVENT.create(conn)
