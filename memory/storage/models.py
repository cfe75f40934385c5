"""SQLModel tables: SQL is the source of truth; the LanceDB index is derived from ``Memory`` rows.

Users are addressed outside by an *external id* (whatever the host application uses, hostile or not) and inside by
a random ``key`` (hex). Only keys ever reach LanceDB filters or file paths.
"""

from __future__ import annotations

import hashlib
import uuid
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, Column, Index, Integer, Text, UniqueConstraint, event, text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Mapper
from sqlmodel import Field, SQLModel

from memory.vocab import MemoryStatus, MemoryType, SessionStatus, SourceType

MEMORY_TYPES = tuple(MemoryType)
SOURCE_TYPES = tuple(SourceType)
STATUSES = tuple(MemoryStatus)


def utcnow() -> datetime:
    """Aware UTC: SQLModel refuses naive datetimes."""
    return datetime.now(UTC)


def new_id() -> str:
    return uuid.uuid4().hex


def stored_id(row_id: int | None, what: str = "row") -> int:
    """The key of a row that has been stored (SQLModel types integer keys Optional until the row is flushed)."""
    if row_id is None:
        raise ValueError(f"the {what} has not been stored")
    return row_id


#: JSON on SQLite, JSONB on PostgreSQL (plain ``json`` there has no equality operator: DISTINCT/GROUP BY would fail)
JSONType = JSON().with_variant(JSONB(), "postgresql")


def id_hash(value: str) -> str:
    """Fixed-size digest of an external id: unique indexes use it (PostgreSQL refuses index rows over ~2.7 kB)."""
    return hashlib.sha256(value.encode("utf-8")).hexdigest()


def _version_column() -> Column:
    """An optimistic-lock counter: the mapper adds ``WHERE version = <read>`` to every ORM UPDATE of the row and
    bumps it, so a concurrent writer's change is never silently overwritten (the loser gets ``StaleDataError``;
    :func:`memory.storage.db.retrying` re-runs its read-modify-write)."""
    return Column("version", Integer, nullable=False, default=1)


def _json(default: Any = None) -> Any:
    factory = (lambda: list(default)) if isinstance(default, list) else (lambda: dict(default or {}))
    return Field(default_factory=factory, sa_column=Column(JSONType, nullable=False))


class User(SQLModel, table=True):
    key: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    external_id: str = Field(sa_column=Column(Text, nullable=False))
    #: sha256 of external_id, filled on insert; look users up by it (see :func:`id_hash`)
    external_hash: str = Field(default="", unique=True, max_length=64)
    display_name: str | None = None
    created_at: datetime = Field(default_factory=utcnow)


_PROFILE_VERSION = _version_column()


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
    #: the memory that states each value: {str(value) or str(item): memory id} (one truth: see memory.steer)
    memory_ids: dict | None = Field(default_factory=dict, sa_column=Column(JSONType, nullable=True))
    updated_at: datetime = Field(default_factory=utcnow)
    version: int = Field(default=1, sa_column=_PROFILE_VERSION)
    __mapper_args__ = {"version_id_col": _PROFILE_VERSION}


class ProfileChange(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    user_key: str = Field(index=True, foreign_key="user.key", max_length=32)
    field: str = Field(max_length=64)
    old_value: Any = Field(default=None, sa_column=Column(JSONType, nullable=True))
    new_value: Any = Field(default=None, sa_column=Column(JSONType, nullable=True))
    source: str = "user-stated"
    source_message_id: int | None = None
    #: the memory whose statement (or whose correction) caused this change
    memory_id: str | None = Field(default=None, max_length=32)
    #: who made it when a person did (name · door), else None
    actor: str | None = None
    reason: str = ""
    at: datetime = Field(default_factory=utcnow)


class Session(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("user_key", "agent_id", "external_hash"),)
    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    user_key: str = Field(index=True, foreign_key="user.key", max_length=32)
    agent_id: str = Field(default="default", max_length=64)
    external_id: str = Field(sa_column=Column(Text, nullable=False))
    #: sha256 of external_id, filled on insert; look sessions up by it (see :func:`id_hash`)
    external_hash: str = Field(default="", max_length=64)
    title: str | None = None
    status: str = SessionStatus.ACTIVE
    started_at: datetime = Field(default_factory=utcnow)
    last_activity_at: datetime = Field(default_factory=utcnow)
    ended_at: datetime | None = None


#: what a message reads once the memory it was the source of is purged (memory.lifecycle.erasure writes it; the
#: source context reads it)
PURGED_MESSAGE = "[removed: its memory was purged]"


class Message(SQLModel, table=True):
    __table_args__ = (
        Index("ix_message_session_id_id", "session_id", "id"),
        UniqueConstraint("user_key", "idempotency_key"),
    )
    id: int | None = Field(default=None, primary_key=True)
    session_id: str = Field(foreign_key="session.id", max_length=32)
    user_key: str = Field(index=True, max_length=32)
    role: str = Field(max_length=16)  # user | assistant | system | tool
    content: str = Field(sa_column=Column(Text, nullable=False))
    tokens: int = 0
    #: unique per user: a repeated key returns the stored message (see MemoryService.add_message)
    idempotency_key: str | None = Field(default=None, max_length=128)
    #: set when a writer takes this message through the write pipeline (one writer per message, see claim_for_write)
    write_claimed_at: datetime | None = None
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


_MEMORY_VERSION = _version_column()


class Memory(SQLModel, table=True):
    __table_args__ = (
        Index("ix_memory_user_agent_status", "user_key", "agent_id", "status"),
        Index("ix_memory_user_created", "user_key", "created_at"),
        Index("ix_memory_status_indexed_id", "status", "indexed", "id", "user_key"),  # the start-up id check
        Index(  # each turn's latest statements (memory.write.profile_sync.retracted_statements)
            "ix_memory_user_statements",
            "user_key",
            "updated_at",
            sqlite_where=text("predicate IS NOT NULL"),
            postgresql_where=text("predicate IS NOT NULL"),
        ),
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
    status: str = Field(default=MemoryStatus.ACTIVE, max_length=16)
    superseded_by: str | None = Field(default=None, max_length=32)
    event_time: datetime | None = None
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    last_accessed_at: datetime | None = None
    access_count: int = 0
    reinforce_count: int = 0
    expires_at: datetime | None = None
    indexed: bool = Field(default=False, index=True)
    version: int = Field(default=1, sa_column=_MEMORY_VERSION)
    meta: dict = _json()
    __mapper_args__ = {"version_id_col": _MEMORY_VERSION}


class MemoryEvent(SQLModel, table=True):
    """The write log: every decision about a memory, with its reason."""

    id: int | None = Field(default=None, primary_key=True)
    user_key: str = Field(index=True, max_length=32)
    agent_id: str = Field(default="default", max_length=64)
    memory_id: str | None = Field(default=None, index=True, max_length=32)
    op: str = Field(max_length=16)  # ADD | REINFORCE | UPDATE | NOOP | EDIT | DELETE | ARCHIVE | FLAG | ...
    reason: str = ""
    content: str = Field(default="", sa_column=Column(Text, nullable=False))
    message_id: int | None = Field(default=None, index=True)  # claim_for_write looks events up by message
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
    relevance: float | None = None
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
    #: of ``used``: tokens of the memories' source context (migration 0009)
    context_used: int = Field(default=0, sa_column_kwargs={"server_default": "0"})


class HitLabel(SQLModel, table=True):
    """A person's verdict on one retrieval hit (relevant or not) — feeds precision/recall in the lab. One label per
    (query, memory, labeller): re-labelling the same query moves and updates it (``query_key``: see
    ``memory.views.query_key``)."""

    __table_args__ = (
        UniqueConstraint("retrieval_id", "memory_id"),
        Index("ux_hitlabel_query_memory_labeller", "user_key", "query_key", "memory_id", "labeled_by", unique=True),
    )
    id: int | None = Field(default=None, primary_key=True)
    user_key: str = Field(index=True, max_length=32)
    retrieval_id: int = Field(index=True)
    memory_id: str = Field(max_length=32)
    relevant: bool
    labeled_by: str = "team"
    query_key: str | None = Field(default=None, max_length=64)
    created_at: datetime = Field(default_factory=utcnow)


class Setting(SQLModel, table=True):
    """Live overrides of Settings fields (see ``memory.config.LIVE_SETTINGS``)."""

    key: str = Field(primary_key=True, max_length=64)
    value: Any = Field(default=None, sa_column=Column(JSONType, nullable=True))
    updated_at: datetime = Field(default_factory=utcnow)


class ApiKey(SQLModel, table=True):
    """A key for the REST / MCP doors: only its SHA-256 is stored; ``users`` empty = any user."""

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True, max_length=64)
    key_hash: str = Field(unique=True, max_length=64)
    prefix: str = Field(max_length=16)  # the first characters, to recognise a key in a list
    users: list = _json([])
    created_at: datetime = Field(default_factory=utcnow)
    revoked_at: datetime | None = None


class ErasureJob(SQLModel, table=True):
    """A user erasure in progress (``memory.lifecycle.erasure``): written before the first row goes, removed after
    the last byte is reclaimed, so a rerun of ``delete-user`` or ``memlens repair`` finishes what a crash cut short.
    It holds only the internal key, the id's hash and the session keys (never the external id)."""

    erased_key: str = Field(primary_key=True, max_length=32)
    user_hash: str = Field(index=True, max_length=64)
    thread_ids: list = _json([])
    step: str = Field(default="rows", max_length=16)
    started_at: datetime = Field(default_factory=utcnow)


class ImportJob(SQLModel, table=True):
    """An import whose rows are committed but not all indexed yet (``memory.lifecycle.export.import_user``):
    written in the rows' transaction, removed once the index has them, so the next start indexes what a killed
    import left (``memory.storage.integrity.finish_imports``). Only the new internal key and the id's hash."""

    imported_key: str = Field(primary_key=True, max_length=32)
    user_hash: str = Field(max_length=64)
    started_at: datetime = Field(default_factory=utcnow)


class SchemaMigration(SQLModel, table=True):
    version: int = Field(primary_key=True)
    name: str
    applied_at: datetime = Field(default_factory=utcnow)


@event.listens_for(User, "before_insert")
@event.listens_for(Session, "before_insert")
def _fill_external_hash(_mapper: Mapper[Any], _conn: Connection, target: User | Session) -> None:
    """Rows created anywhere (service, import, seeds) get their lookup hash without the caller knowing."""
    target.external_hash = id_hash(target.external_id)


#: free-text columns a person's words can reach besides memories (masked by their writers already): masked again on
#: every insert/update so a new code path cannot store raw PII by forgetting to call the masker
_SCRUBBED: dict[type, tuple[str, ...]] = {
    Message: ("content",),
    MemoryEvent: ("reason", "content"),
    ProfileChange: ("reason",),
    Session: ("title",),
    SummaryAnchor: ("text",),
    SessionBridge: ("text",),
    Retrieval: ("query", "retrieval_query"),
    ContextSnapshot: ("prompt",),
}


def _scrub(_mapper: Mapper[Any], _conn: Connection, target: SQLModel) -> None:
    from memory.text.privacy import mask_pii

    for name in _SCRUBBED[type(target)]:
        value = getattr(target, name, None)
        if isinstance(value, str) and value:
            setattr(target, name, mask_pii(value))


for _model in _SCRUBBED:
    event.listen(_model, "before_insert", _scrub)
    event.listen(_model, "before_update", _scrub)
