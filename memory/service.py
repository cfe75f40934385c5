"""MemoryService: the one facade that agent/, pages/ and the CLI call.

It owns the settings, the SQL engine, the LanceDB index and the embedder, each created on first use (constructing a
service connects to nothing). Domain logic lives in small modules (recall, write, lifecycle, ...) that take the
service as their *store*; this class keeps the common plumbing: users, sessions, messages, memory rows and the
SQL-then-index write order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import func
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session as DBSession
from sqlmodel import col, select

from memory import validate
from memory.config import LIVE_SETTINGS, Settings
from memory.db import make_engine, migrate
from memory.embed import Embedder, make_embedder
from memory.errors import InvalidInput, NotFound
from memory.models import MEMORY_TYPES, SOURCE_TYPES, Memory, MemoryEvent, Message, Session, Setting, User, utcnow
from memory.recall import RecallParams, RecallResult, log_retrieval, timed_search
from memory.tokens import count_tokens
from memory.vectors import IndexRow, VectorIndex


@dataclass
class MemoryDraft:
    """A memory about to be stored (content already validated and masked by the caller's pipeline)."""

    content: str
    type: str = "fact"
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None
    source_type: str = "user-stated"
    source_message_ids: list[int] = field(default_factory=list)
    confidence: float = 1.0
    importance: float = 0.5
    event_time: datetime | None = None
    created_at: datetime | None = None
    expires_at: datetime | None = None
    meta: dict[str, Any] = field(default_factory=dict)


class MemoryService:
    def __init__(self, settings: Settings | None = None, *, embedder: Embedder | None = None) -> None:
        self.settings = settings or Settings()
        self._engine = None
        self._index: VectorIndex | None = None
        self._embedder = embedder

    # -- components (lazy) -----------------------------------------------------------------------------------
    @property
    def engine(self):
        if self._engine is None:
            self._engine = make_engine(self.settings)
            migrate(self._engine)
        return self._engine

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = make_embedder(self.settings)
        return self._embedder

    @property
    def index(self) -> VectorIndex:
        if self._index is None:
            self._index = VectorIndex(self.settings.resolved_lancedb_uri(), self.embedder.dim)
        return self._index

    def db(self) -> DBSession:
        return DBSession(self.engine, expire_on_commit=False)

    def close(self) -> None:
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None
        self._index = None

    # -- live settings ---------------------------------------------------------------------------------------
    def effective_settings(self) -> Settings:
        """Settings with the back office's live overrides applied (read fresh: another process may have changed them)."""
        with self.db() as db:
            overrides = {s.key: s.value for s in db.exec(select(Setting)).all() if s.key in LIVE_SETTINGS}
        return self.settings.model_copy(update=overrides) if overrides else self.settings

    def set_live_settings(self, values: dict[str, Any]) -> Settings:
        unknown = set(values) - set(LIVE_SETTINGS)
        if unknown:
            raise InvalidInput(f"not a live setting: {', '.join(sorted(unknown))}")
        checked = Settings.model_validate({**self.settings.model_dump(), **values})  # validates ranges
        with self.db() as db:
            for key in values:
                row = db.get(Setting, key) or Setting(key=key)
                row.value = getattr(checked, key)
                row.updated_at = utcnow()
                db.add(row)
            db.commit()
        return self.effective_settings()

    def recall_params(self, **overrides: Any) -> RecallParams:
        s = self.effective_settings()
        params = RecallParams(
            mode=s.search_mode, k=s.top_k, threshold=s.similarity_threshold, relative_cut=s.relative_cut,
            fusion=s.fusion, vector_weight=s.vector_weight, rrf_k=s.rrf_k, pool=s.candidate_pool,
        )
        for key, value in overrides.items():
            if value is not None:
                setattr(params, key, value)
        if params.mode not in ("vector", "fulltext", "hybrid"):
            raise InvalidInput(f"mode must be vector, fulltext or hybrid, not {params.mode!r}")
        if params.k < 1:
            raise InvalidInput("k must be at least 1")
        params.pool = max(params.pool, params.k)
        return params

    # -- users and sessions ----------------------------------------------------------------------------------
    def ensure_user(self, external_id: str) -> User:
        external_id = validate.external_id(external_id)
        with self.db() as db:
            user = db.exec(select(User).where(User.external_id == external_id)).first()
            if user:
                return user
            user = User(external_id=external_id)
            db.add(user)
            try:
                db.commit()
            except IntegrityError:  # another process created it first
                db.rollback()
                return db.exec(select(User).where(User.external_id == external_id)).one()
            return user

    def get_user(self, external_id: str) -> User:
        external_id = validate.external_id(external_id)
        with self.db() as db:
            user = db.exec(select(User).where(User.external_id == external_id)).first()
        if user is None:
            raise NotFound(f"no user {external_id[:80]!r}")
        return user

    def list_users(self) -> list[dict[str, Any]]:
        with self.db() as db:
            counts = dict(
                db.exec(
                    select(Memory.user_key, func.count()).where(Memory.status == "active").group_by(Memory.user_key)
                ).all()
            )
            users = db.exec(select(User).order_by(User.created_at)).all()
        return [
            {"user_id": u.external_id, "key": u.key, "created_at": u.created_at.isoformat(),
             "active_memories": counts.get(u.key, 0)}
            for u in users
        ]

    def ensure_session(self, user: User, external_id: str, agent_id: str | None = None) -> Session:
        external_id = validate.external_id(external_id, "session id")
        agent = validate.agent_id(agent_id, self.settings.default_agent_id)
        query = select(Session).where(
            Session.user_key == user.key, Session.agent_id == agent, Session.external_id == external_id
        )
        with self.db() as db:
            session = db.exec(query).first()
            if session:
                return session
            session = Session(user_key=user.key, agent_id=agent, external_id=external_id)
            db.add(session)
            try:
                db.commit()
            except IntegrityError:
                db.rollback()
                return db.exec(query).one()
            return session

    def list_sessions(self, user: User, agent_id: str | None = None) -> list[Session]:
        query = select(Session).where(Session.user_key == user.key)
        if agent_id:
            query = query.where(Session.agent_id == agent_id)
        with self.db() as db:
            return list(db.exec(query.order_by(Session.started_at)).all())

    # -- messages --------------------------------------------------------------------------------------------
    def add_message(self, session: Session, role: str, content: str, *, created_at: datetime | None = None,
                    idempotency_key: str | None = None, meta: dict | None = None, masker=None) -> Message:
        """Store one message; a repeated ``idempotency_key`` returns the first stored message instead of a copy."""
        content = validate.text(content, self.settings.max_message_chars)
        if masker is not None:
            content = masker(content)
        with self.db() as db:
            if idempotency_key:
                found = db.exec(select(Message).where(Message.idempotency_key == idempotency_key)).first()
                if found:
                    return found
            msg = Message(session_id=session.id, user_key=session.user_key, role=role, content=content,
                          tokens=count_tokens(content), idempotency_key=idempotency_key, meta=meta or {},
                          created_at=created_at or utcnow())
            db.add(msg)
            s = db.get(Session, session.id)
            if s is not None:
                s.last_activity_at = max(s.last_activity_at, msg.created_at)
                db.add(s)
            try:
                db.commit()
            except IntegrityError:
                db.rollback()
                if idempotency_key:
                    return db.exec(select(Message).where(Message.idempotency_key == idempotency_key)).one()
                raise
            return msg

    def messages(self, session_id: str, *, after_id: int = 0, limit: int | None = None) -> list[Message]:
        query = select(Message).where(Message.session_id == session_id, Message.id > after_id).order_by(Message.id)
        with self.db() as db:
            return list(db.exec(query.limit(limit) if limit else query).all())

    # -- memory rows -----------------------------------------------------------------------------------------
    def add_memories(self, user: User, drafts: Sequence[MemoryDraft], *, agent_id: str | None = None) -> list[Memory]:
        """Write order that survives a crash: SQL rows (unindexed) → LanceDB → mark indexed."""
        agent = validate.agent_id(agent_id, self.settings.default_agent_id)
        rows = [self._row(user, agent, d) for d in drafts]
        if not rows:
            return []
        with self.db() as db:
            db.add_all(rows)
            db.commit()
        self.index_memories(rows)
        return rows

    def add_memory(self, user: User, content: str, *, agent_id: str | None = None, **fields: Any) -> Memory:
        return self.add_memories(user, [MemoryDraft(content=content, **fields)], agent_id=agent_id)[0]

    def _row(self, user: User, agent: str, d: MemoryDraft) -> Memory:
        content = validate.text(d.content, self.settings.max_message_chars, "memory")
        if d.type not in MEMORY_TYPES:
            raise InvalidInput(f"memory type must be one of {', '.join(MEMORY_TYPES)}")
        if d.source_type not in SOURCE_TYPES:
            raise InvalidInput(f"source type must be one of {', '.join(SOURCE_TYPES)}")
        now = utcnow()
        return Memory(
            user_key=user.key, agent_id=agent, type=d.type, subject=d.subject, predicate=d.predicate,
            object=d.object, content=content, source_type=d.source_type,
            source_message_ids=list(d.source_message_ids), confidence=float(d.confidence),
            importance=float(d.importance), event_time=d.event_time, created_at=d.created_at or now,
            updated_at=now, expires_at=d.expires_at, meta=dict(d.meta),
        )

    def index_memories(self, rows: Sequence[Memory]) -> None:
        """Embed and index active rows, then mark them indexed; safe to repeat (upsert by id)."""
        active = [m for m in rows if m.status == "active"]
        if not active:
            return
        vectors = self.embedder.embed_passages([m.content for m in active])
        self.index.upsert([
            IndexRow(id=m.id, user_key=m.user_key, agent_id=m.agent_id, text=m.content, vector=v, type=m.type,
                     created_at=m.created_at)
            for m, v in zip(active, vectors, strict=True)
        ])
        self._mark_indexed([m.id for m in active])

    def _mark_indexed(self, ids: Iterable[str]) -> None:
        ids = list(ids)
        with self.db() as db:
            for start in range(0, len(ids), 500):
                for m in db.exec(select(Memory).where(col(Memory.id).in_(ids[start : start + 500]))).all():
                    m.indexed = True
                    db.add(m)
            db.commit()

    def get_memory(self, memory_id: str) -> Memory:
        with self.db() as db:
            m = db.get(Memory, memory_id)
        if m is None:
            raise NotFound(f"no memory {memory_id!r}")
        return m

    def list_memories(self, user: User, *, statuses: Sequence[str] = ("active",), agent_id: str | None = None,
                      limit: int | None = None, offset: int = 0) -> list[Memory]:
        query = select(Memory).where(Memory.user_key == user.key)
        if statuses:
            query = query.where(col(Memory.status).in_(list(statuses)))
        if agent_id:
            query = query.where(Memory.agent_id == agent_id)
        query = query.order_by(col(Memory.created_at).desc(), Memory.id).offset(offset)
        with self.db() as db:
            return list(db.exec(query.limit(limit) if limit else query).all())

    def set_status(self, memory_id: str, status: str, *, reason: str, superseded_by: str | None = None,
                   op: str | None = None) -> Memory:
        """Change a memory's lifecycle state; anything not active leaves the index (SQL keeps the history)."""
        with self.db() as db:
            m = db.get(Memory, memory_id)
            if m is None:
                raise NotFound(f"no memory {memory_id!r}")
            m.status, m.superseded_by, m.updated_at = status, superseded_by or m.superseded_by, utcnow()
            m.version += 1
            db.add(m)
            db.add(MemoryEvent(user_key=m.user_key, agent_id=m.agent_id, memory_id=m.id, op=op or status.upper(),
                               reason=reason, content=m.content))
            db.commit()
        if status != "active":
            self.index.delete([memory_id])
        else:
            self.index_memories([m])
        return m

    def delete_memory(self, memory_id: str, *, reason: str = "deleted by a person") -> Memory:
        return self.set_status(memory_id, "deleted", reason=reason, op="DELETE")

    # -- recall ----------------------------------------------------------------------------------------------
    def recall(self, user_id: str, query: str, *, agent_id: str | None = None, session_id: str | None = None,
               turn_id: int | None = None, retrieval_query: str | None = None, log: bool = True,
               **overrides: Any) -> RecallResult:
        """Search a user's active memories; every candidate comes back with its scores and verdict."""
        query = validate.text(query, self.settings.max_message_chars, "query")
        user = self.get_user(user_id)
        agent = validate.agent_id(agent_id, self.settings.default_agent_id)
        params = self.recall_params(**overrides)
        rq = retrieval_query or query
        hits, ms = timed_search(self, user_key=user.key, agent_id=agent, query=rq, params=params)
        result = RecallResult(query=query, retrieval_query=rq, params=params, hits=hits, latency_ms=ms)
        if log:
            result.retrieval_id = log_retrieval(self, result, user_key=user.key, agent_id=agent,
                                                session_id=session_id, turn_id=turn_id)
        return result

    # -- index maintenance -----------------------------------------------------------------------------------
    def reindex(self, batch: int = 256, progress=None) -> int:
        """Drop the LanceDB table and rebuild it from the active SQL rows."""
        self.index.drop()
        total = 0
        last = ""
        while True:
            with self.db() as db:
                rows = db.exec(
                    select(Memory).where(Memory.status == "active", Memory.id > last).order_by(Memory.id).limit(batch)
                ).all()
            if not rows:
                break
            self.index_memories(rows)
            total += len(rows)
            last = rows[-1].id
            if progress:
                progress(len(rows))
        self.index.optimize()
        return total

    def repair(self) -> dict[str, int]:
        """Make SQL and LanceDB agree after a crash: index what is unindexed, drop vectors without an active row."""
        with self.db() as db:
            pending = db.exec(select(Memory).where(Memory.indexed == False, Memory.status == "active")).all()  # noqa: E712
            active = set(db.exec(select(Memory.id).where(Memory.status == "active")).all())
        self.index_memories(pending)
        orphans = sorted(self.index.ids() - active)
        self.index.delete(orphans)
        return {"indexed": len(pending), "orphans_removed": len(orphans)}

