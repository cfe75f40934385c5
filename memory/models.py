"""SQLModel tables: SQL is the source of truth; the LanceDB index is derived from ``Memory`` rows.

Users are addressed outside by an *external id* (whatever the host application uses, hostile or not) and inside by
a random ``key`` (hex). Only keys ever reach LanceDB filters or file paths.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, Column, Index, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

MEMORY_TYPES = ("fact", "preference", "event", "summary", "turn")
SOURCE_TYPES = ("user-stated", "inferred", "tool", "system")
STATUSES = ("active", "superseded", "archived", "deleted")


def utcnow() -> datetime:
    """Aware UTC: SQLModel refuses naive datetimes."""
    return datetime.now(UTC)


def new_id() -> str:
    return uuid.uuid4().hex


def _json(default: Any = None) -> Any:
    factory = (lambda: list(default)) if isinstance(default, list) else (lambda: dict(default or {}))
    return Field(default_factory=factory, sa_column=Column(JSON, nullable=False))


class User(SQLModel, table=True):
    key: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    external_id: str = Field(sa_column=Column(Text, nullable=False, unique=True))
    display_name: str | None = None
    created_at: datetime = Field(default_factory=utcnow)


class ProfileField(SQLModel, table=True):
    """One explicit core-profile field of a user; ``version`` guards concurrent edits."""

    __table_args__ = (UniqueConstraint("user_key", "field"),)
    id: int | None = Field(default=None, primary_key=True)
    user_key: str = Field(index=True, foreign_key="user.key", max_length=32)
    field: str = Field(max_length=64)
    value: Any = _json()
    confidence: float = 1.0
    source: str = "user-stated"
    source_message_id: int | None = None
    updated_at: datetime = Field(default_factory=utcnow)
    version: int = 1


class ProfileChange(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    user_key: str = Field(index=True, foreign_key="user.key", max_length=32)
    field: str = Field(max_length=64)
    old_value: Any = Field(default=None, sa_column=Column(JSON, nullable=True))
    new_value: Any = Field(default=None, sa_column=Column(JSON, nullable=True))
    source: str = "user-stated"
    source_message_id: int | None = None
    reason: str = ""
    at: datetime = Field(default_factory=utcnow)


class Session(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("user_key", "agent_id", "external_id"),)
    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    user_key: str = Field(index=True, foreign_key="user.key", max_length=32)
    agent_id: str = Field(default="default", max_length=64)
    external_id: str = Field(sa_column=Column(Text, nullable=False))
    title: str | None = None
    status: str = "active"  # active | ended
    started_at: datetime = Field(default_factory=utcnow)
    last_activity_at: datetime = Field(default_factory=utcnow)
    ended_at: datetime | None = None


class Message(SQLModel, table=True):
    __table_args__ = (Index("ix_message_session_id_id", "session_id", "id"),)
    id: int | None = Field(default=None, primary_key=True)
    session_id: str = Field(foreign_key="session.id", max_length=32)
    user_key: str = Field(index=True, max_length=32)
    role: str = Field(max_length=16)  # user | assistant | system | tool
    content: str = Field(sa_column=Column(Text, nullable=False))
    tokens: int = 0
    idempotency_key: str | None = Field(default=None, unique=True, max_length=128)
    meta: dict = _json()
    created_at: datetime = Field(default_factory=utcnow)


class SummaryAnchor(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    session_id: str = Field(index=True, foreign_key="session.id", max_length=32)
    user_key: str = Field(index=True, max_length=32)
    from_message_id: int
    to_message_id: int
    text: str = Field(sa_column=Column(Text, nullable=False))
    tokens: int = 0
    created_at: datetime = Field(default_factory=utcnow)


class SessionBridge(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    user_key: str = Field(index=True, max_length=32)
    agent_id: str = Field(default="default", max_length=64)
    from_session_id: str = Field(index=True, max_length=32)
    to_session_id: str | None = Field(default=None, index=True, max_length=32)
    text: str = Field(sa_column=Column(Text, nullable=False))
    tokens: int = 0
    created_at: datetime = Field(default_factory=utcnow)
    injected_at: datetime | None = None


class Memory(SQLModel, table=True):
    __table_args__ = (
        Index("ix_memory_user_agent_status", "user_key", "agent_id", "status"),
        Index("ix_memory_user_created", "user_key", "created_at"),
    )
    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    user_key: str = Field(foreign_key="user.key", max_length=32)
    agent_id: str = Field(default="default", max_length=64)
    type: str = Field(default="fact", max_length=16)
    subject: str | None = None
    predicate: str | None = None
    object: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    content: str = Field(sa_column=Column(Text, nullable=False))
    source_type: str = Field(default="user-stated", max_length=16)
    source_message_ids: list = _json([])
    confidence: float = 1.0
    importance: float = 0.5
    status: str = Field(default="active", max_length=16)
    superseded_by: str | None = Field(default=None, max_length=32)
    event_time: datetime | None = None
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    last_accessed_at: datetime | None = None
    access_count: int = 0
    reinforce_count: int = 0
    expires_at: datetime | None = None
    indexed: bool = Field(default=False, index=True)
    version: int = 1
    meta: dict = _json()


class MemoryEvent(SQLModel, table=True):
    """The write log: every decision about a memory, with its reason."""

    id: int | None = Field(default=None, primary_key=True)
    user_key: str = Field(index=True, max_length=32)
    agent_id: str = Field(default="default", max_length=64)
    memory_id: str | None = Field(default=None, index=True, max_length=32)
    op: str = Field(max_length=16)  # ADD | REINFORCE | UPDATE | NOOP | EDIT | DELETE | ARCHIVE | FLAG | ...
    reason: str = ""
    content: str = Field(default="", sa_column=Column(Text, nullable=False))
    message_id: int | None = None
    turn_id: int | None = None
    detail: dict = _json()
    created_at: datetime = Field(default_factory=utcnow, index=True)


class Turn(SQLModel, table=True):
    """One pass of the agent loop; ties the retrieval, the context snapshot and the writes together."""

    id: int | None = Field(default=None, primary_key=True)
    session_id: str = Field(index=True, max_length=32)
    user_key: str = Field(index=True, max_length=32)
    user_message_id: int | None = None
    reply_message_id: int | None = None
    model: str = ""
    created_at: datetime = Field(default_factory=utcnow)


class Retrieval(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    user_key: str = Field(index=True, max_length=32)
    agent_id: str = Field(default="default", max_length=64)
    session_id: str | None = Field(default=None, max_length=32)
    turn_id: int | None = Field(default=None, index=True)
    query: str = Field(sa_column=Column(Text, nullable=False))
    retrieval_query: str = Field(sa_column=Column(Text, nullable=False))
    mode: str = "hybrid"
    k: int = 5
    threshold: float = 0.0
    params: dict = _json()
    latency_ms: float = 0.0
    created_at: datetime = Field(default_factory=utcnow, index=True)


class RetrievalHit(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    retrieval_id: int = Field(index=True, foreign_key="retrieval.id")
    memory_id: str = Field(index=True, max_length=32)
    rank: int
    similarity: float | None = None
    fts_score: float | None = None
    fused_score: float = 0.0
    passed: bool = False
    selected: bool = False
    injected: bool = False
    drop_reason: str | None = None


class ContextSnapshot(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    turn_id: int | None = Field(default=None, index=True)
    session_id: str | None = Field(default=None, index=True, max_length=32)
    user_key: str = Field(index=True, max_length=32)
    total_budget: int
    total_used: int
    prompt: str = Field(default="", sa_column=Column(Text, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)


class ContextSection(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    snapshot_id: int = Field(index=True, foreign_key="contextsnapshot.id")
    name: str = Field(max_length=32)
    position: int = 0
    budget: int
    used: int
    kept: int = 0
    dropped: int = 0
    dropped_items: list = _json([])


class HitLabel(SQLModel, table=True):
    """A person's verdict on one retrieval hit (relevant or not) — feeds precision/recall in the lab."""

    __table_args__ = (UniqueConstraint("retrieval_id", "memory_id"),)
    id: int | None = Field(default=None, primary_key=True)
    user_key: str = Field(index=True, max_length=32)
    retrieval_id: int = Field(index=True)
    memory_id: str = Field(max_length=32)
    relevant: bool
    labeled_by: str = "team"
    created_at: datetime = Field(default_factory=utcnow)


class Setting(SQLModel, table=True):
    """Live overrides of Settings fields (see ``memory.config.LIVE_SETTINGS``)."""

    key: str = Field(primary_key=True, max_length=64)
    value: Any = Field(default=None, sa_column=Column(JSON, nullable=True))
    updated_at: datetime = Field(default_factory=utcnow)


class SchemaMigration(SQLModel, table=True):
    version: int = Field(primary_key=True)
    name: str
    applied_at: datetime = Field(default_factory=utcnow)
