"""0001 — the schema of the first release (commit fd058ec), frozen.

These are Core tables written out column by column, not the live models: a later change to ``models.py`` must come
with its own numbered migration, and this file never changes again.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy import Connection
from sqlalchemy.dialects.postgresql import JSONB

NAME = "initial schema"

JSON_TYPE = sa.JSON().with_variant(JSONB(), "postgresql")
_meta = sa.MetaData()

sa.Table(
    "contextsnapshot",
    _meta,
    sa.Column("id", sa.Integer(), primary_key=True, nullable=False),
    sa.Column("turn_id", sa.Integer(), nullable=True, index=True),
    sa.Column("session_id", sa.String(32), nullable=True, index=True),
    sa.Column("user_key", sa.String(32), nullable=False, index=True),
    sa.Column("total_budget", sa.Integer(), nullable=False),
    sa.Column("total_used", sa.Integer(), nullable=False),
    sa.Column("prompt", sa.Text(), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)

sa.Table(
    "hitlabel",
    _meta,
    sa.Column("id", sa.Integer(), primary_key=True, nullable=False),
    sa.Column("user_key", sa.String(32), nullable=False, index=True),
    sa.Column("retrieval_id", sa.Integer(), nullable=False, index=True),
    sa.Column("memory_id", sa.String(32), nullable=False),
    sa.Column("relevant", sa.Boolean(), nullable=False),
    sa.Column("labeled_by", sa.String(), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.UniqueConstraint("retrieval_id", "memory_id"),
)

sa.Table(
    "memoryevent",
    _meta,
    sa.Column("id", sa.Integer(), primary_key=True, nullable=False),
    sa.Column("user_key", sa.String(32), nullable=False, index=True),
    sa.Column("agent_id", sa.String(64), nullable=False),
    sa.Column("memory_id", sa.String(32), nullable=True, index=True),
    sa.Column("op", sa.String(16), nullable=False),
    sa.Column("reason", sa.String(), nullable=False),
    sa.Column("content", sa.Text(), nullable=False),
    sa.Column("message_id", sa.Integer(), nullable=True, index=True),
    sa.Column("turn_id", sa.Integer(), nullable=True),
    sa.Column("detail", JSON_TYPE, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, index=True),
)

sa.Table(
    "retrieval",
    _meta,
    sa.Column("id", sa.Integer(), primary_key=True, nullable=False),
    sa.Column("user_key", sa.String(32), nullable=False, index=True),
    sa.Column("agent_id", sa.String(64), nullable=False),
    sa.Column("session_id", sa.String(32), nullable=True),
    sa.Column("turn_id", sa.Integer(), nullable=True, index=True),
    sa.Column("query", sa.Text(), nullable=False),
    sa.Column("retrieval_query", sa.Text(), nullable=False),
    sa.Column("mode", sa.String(), nullable=False),
    sa.Column("k", sa.Integer(), nullable=False),
    sa.Column("threshold", sa.Float(), nullable=False),
    sa.Column("params", JSON_TYPE, nullable=False),
    sa.Column("latency_ms", sa.Float(), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, index=True),
)

sa.Table(
    "sessionbridge",
    _meta,
    sa.Column("id", sa.Integer(), primary_key=True, nullable=False),
    sa.Column("user_key", sa.String(32), nullable=False, index=True),
    sa.Column("agent_id", sa.String(64), nullable=False),
    sa.Column("from_session_id", sa.String(32), nullable=False, index=True),
    sa.Column("to_session_id", sa.String(32), nullable=True, index=True),
    sa.Column("text", sa.Text(), nullable=False),
    sa.Column("tokens", sa.Integer(), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("injected_at", sa.DateTime(timezone=True), nullable=True),
)

sa.Table(
    "setting",
    _meta,
    sa.Column("key", sa.String(64), primary_key=True, nullable=False),
    sa.Column("value", JSON_TYPE, nullable=True),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
)

sa.Table(
    "turn",
    _meta,
    sa.Column("id", sa.Integer(), primary_key=True, nullable=False),
    sa.Column("session_id", sa.String(32), nullable=False, index=True),
    sa.Column("user_key", sa.String(32), nullable=False, index=True),
    sa.Column("user_message_id", sa.Integer(), nullable=True),
    sa.Column("reply_message_id", sa.Integer(), nullable=True),
    sa.Column("model", sa.String(), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)

sa.Table(
    "user",
    _meta,
    sa.Column("key", sa.String(32), primary_key=True, nullable=False),
    sa.Column("external_id", sa.Text(), nullable=False),
    sa.Column("external_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("display_name", sa.String(), nullable=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)

sa.Table(
    "contextsection",
    _meta,
    sa.Column("id", sa.Integer(), primary_key=True, nullable=False),
    sa.Column("snapshot_id", sa.Integer(), sa.ForeignKey("contextsnapshot.id"), nullable=False, index=True),
    sa.Column("name", sa.String(32), nullable=False),
    sa.Column("position", sa.Integer(), nullable=False),
    sa.Column("budget", sa.Integer(), nullable=False),
    sa.Column("used", sa.Integer(), nullable=False),
    sa.Column("kept", sa.Integer(), nullable=False),
    sa.Column("dropped", sa.Integer(), nullable=False),
    sa.Column("dropped_items", JSON_TYPE, nullable=False),
)

sa.Table(
    "memory",
    _meta,
    sa.Column("id", sa.String(32), primary_key=True, nullable=False),
    sa.Column("user_key", sa.String(32), sa.ForeignKey("user.key"), nullable=False),
    sa.Column("agent_id", sa.String(64), nullable=False),
    sa.Column("type", sa.String(16), nullable=False),
    sa.Column("subject", sa.String(), nullable=True),
    sa.Column("predicate", sa.String(), nullable=True),
    sa.Column("object", sa.Text(), nullable=True),
    sa.Column("content", sa.Text(), nullable=False),
    sa.Column("source_type", sa.String(16), nullable=False),
    sa.Column("source_message_ids", JSON_TYPE, nullable=False),
    sa.Column("confidence", sa.Float(), nullable=False),
    sa.Column("importance", sa.Float(), nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("superseded_by", sa.String(32), nullable=True),
    sa.Column("event_time", sa.DateTime(timezone=True), nullable=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("last_accessed_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("access_count", sa.Integer(), nullable=False),
    sa.Column("reinforce_count", sa.Integer(), nullable=False),
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("indexed", sa.Boolean(), nullable=False, index=True),
    sa.Column("version", sa.Integer(), nullable=False),
    sa.Column("meta", JSON_TYPE, nullable=False),
    sa.Index("ix_memory_user_agent_status", "user_key", "agent_id", "status"),
    sa.Index("ix_memory_user_created", "user_key", "created_at"),
)

sa.Table(
    "profilechange",
    _meta,
    sa.Column("id", sa.Integer(), primary_key=True, nullable=False),
    sa.Column("user_key", sa.String(32), sa.ForeignKey("user.key"), nullable=False, index=True),
    sa.Column("field", sa.String(64), nullable=False),
    sa.Column("old_value", JSON_TYPE, nullable=True),
    sa.Column("new_value", JSON_TYPE, nullable=True),
    sa.Column("source", sa.String(), nullable=False),
    sa.Column("source_message_id", sa.Integer(), nullable=True),
    sa.Column("reason", sa.String(), nullable=False),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
)

sa.Table(
    "profilefield",
    _meta,
    sa.Column("id", sa.Integer(), primary_key=True, nullable=False),
    sa.Column("user_key", sa.String(32), sa.ForeignKey("user.key"), nullable=False, index=True),
    sa.Column("field", sa.String(64), nullable=False),
    sa.Column("value", JSON_TYPE, nullable=False),
    sa.Column("confidence", sa.Float(), nullable=False),
    sa.Column("source", sa.String(), nullable=False),
    sa.Column("source_message_id", sa.Integer(), nullable=True),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("version", sa.Integer(), nullable=False),
    sa.UniqueConstraint("user_key", "field"),
)

sa.Table(
    "retrievalhit",
    _meta,
    sa.Column("id", sa.Integer(), primary_key=True, nullable=False),
    sa.Column("retrieval_id", sa.Integer(), sa.ForeignKey("retrieval.id"), nullable=False, index=True),
    sa.Column("memory_id", sa.String(32), nullable=False, index=True),
    sa.Column("rank", sa.Integer(), nullable=False),
    sa.Column("similarity", sa.Float(), nullable=True),
    sa.Column("fts_score", sa.Float(), nullable=True),
    sa.Column("fused_score", sa.Float(), nullable=False),
    sa.Column("passed", sa.Boolean(), nullable=False),
    sa.Column("selected", sa.Boolean(), nullable=False),
    sa.Column("injected", sa.Boolean(), nullable=False),
    sa.Column("drop_reason", sa.String(), nullable=True),
)

sa.Table(
    "session",
    _meta,
    sa.Column("id", sa.String(32), primary_key=True, nullable=False),
    sa.Column("user_key", sa.String(32), sa.ForeignKey("user.key"), nullable=False, index=True),
    sa.Column("agent_id", sa.String(64), nullable=False),
    sa.Column("external_id", sa.Text(), nullable=False),
    sa.Column("external_hash", sa.String(64), nullable=False),
    sa.Column("title", sa.String(), nullable=True),
    sa.Column("status", sa.String(), nullable=False),
    sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("last_activity_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
    sa.UniqueConstraint("user_key", "agent_id", "external_hash"),
)

sa.Table(
    "message",
    _meta,
    sa.Column("id", sa.Integer(), primary_key=True, nullable=False),
    sa.Column("session_id", sa.String(32), sa.ForeignKey("session.id"), nullable=False),
    sa.Column("user_key", sa.String(32), nullable=False, index=True),
    sa.Column("role", sa.String(16), nullable=False),
    sa.Column("content", sa.Text(), nullable=False),
    sa.Column("tokens", sa.Integer(), nullable=False),
    sa.Column("idempotency_key", sa.String(128), nullable=True),
    sa.Column("write_claimed_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("meta", JSON_TYPE, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.UniqueConstraint("user_key", "idempotency_key"),
    sa.Index("ix_message_session_id_id", "session_id", "id"),
)

sa.Table(
    "summaryanchor",
    _meta,
    sa.Column("id", sa.Integer(), primary_key=True, nullable=False),
    sa.Column("session_id", sa.String(32), sa.ForeignKey("session.id"), nullable=False, index=True),
    sa.Column("user_key", sa.String(32), nullable=False, index=True),
    sa.Column("from_message_id", sa.Integer(), nullable=False),
    sa.Column("to_message_id", sa.Integer(), nullable=False),
    sa.Column("text", sa.Text(), nullable=False),
    sa.Column("tokens", sa.Integer(), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)


def upgrade(conn: Connection) -> None:
    _meta.create_all(conn)
