"""MemoryService: the one facade that agent/, pages/ and the CLI call.

It owns the settings, the SQL engine, the LanceDB index and the embedder, each created on first use (constructing a
service connects to nothing). Domain logic lives in small modules (recall, write, lifecycle, ...) that take the
service as their *store*; this class keeps the common plumbing: users, sessions, messages, memory rows and the
SQL-then-index write order.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import func, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session as DBSession
from sqlmodel import col, select

from memory import integrity, lifecycle, validate
from memory.config import LIVE_SETTINGS, Settings
from memory.db import make_engine, migrate, retrying
from memory.embed import Embedder, make_embedder
from memory.errors import ConfigError, InvalidInput, NotFound
from memory.models import (
    MEMORY_TYPES,
    SOURCE_TYPES,
    Memory,
    MemoryEvent,
    Message,
    Session,
    Setting,
    User,
    id_hash,
    utcnow,
)
from memory.privacy import mask_pii
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


def _user_query(external_id: str):
    """Look a user up by the indexed hash of the id (and the id itself, so a hash collision cannot mix users)."""
    return select(User).where(User.external_hash == id_hash(external_id), User.external_id == external_id)


class MemoryService:
    def __init__(self, settings: Settings | None = None, *, embedder: Embedder | None = None) -> None:
        self.settings = settings or Settings()
        self._engine = None
        self._index: VectorIndex | None = None
        self._embedder = embedder
        self._pool: ThreadPoolExecutor | None = None
        self._init_lock = threading.RLock()  # one service is shared by threads (Streamlit, bench/load.py)

    # -- components (lazy) -----------------------------------------------------------------------------------
    @property
    def engine(self):
        if self._engine is None:
            with self._init_lock:
                if self._engine is None:
                    engine = make_engine(self.settings)
                    migrate(engine)  # published only once migrated: other threads must not see a bare schema
                    self._engine = engine
        return self._engine

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            with self._init_lock:
                if self._embedder is None:
                    self._embedder = make_embedder(self.settings)
        return self._embedder

    @property
    def pool(self) -> ThreadPoolExecutor:
        """Two worker threads for I/O that can overlap (full-text search beside the query embedding)."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="memlens")
        return self._pool

    @property
    def index(self) -> VectorIndex:
        if self._index is None:
            with self._init_lock:
                if self._index is None:
                    self._index = VectorIndex(self.settings.resolved_lancedb_uri(), self.embedder.dim)
                    if self.settings.repair_on_start:
                        self._startup_repair()
        return self._index

    def _startup_repair(self) -> None:
        """A crash may have left rows unindexed or vectors orphaned: settle that cheaply before first use."""
        # ConfigError: the embedder changed under the index; `memlens reindex` is the fix, and it needs the index
        with contextlib.suppress(ConfigError):
            integrity.startup_repair(self)

    def db(self) -> DBSession:
        return DBSession(self.engine, expire_on_commit=False)

    def close(self) -> None:
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None
        self._index = None
        if self._pool is not None:
            self._pool.shutdown(wait=False)
            self._pool = None

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
            user = db.exec(_user_query(external_id)).first()
            if user:
                return user
            user = User(external_id=external_id)
            db.add(user)
            try:
                db.commit()
            except IntegrityError:  # another process created it first
                db.rollback()
                return db.exec(_user_query(external_id)).one()
            return user

    def get_user(self, external_id: str) -> User:
        external_id = validate.external_id(external_id)
        with self.db() as db:
            user = db.exec(_user_query(external_id)).first()
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
            Session.user_key == user.key, Session.agent_id == agent, Session.external_hash == id_hash(external_id),
            Session.external_id == external_id,
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
        role, idempotency_key = validate.role(role), validate.idempotency_key(idempotency_key)
        content = (masker or mask_pii)(content)  # PII never reaches SQL, the index or the logs
        repeat = select(Message).where(Message.user_key == session.user_key, Message.idempotency_key == idempotency_key)
        with self.db() as db:
            if idempotency_key:
                found = db.exec(repeat).first()
                if found:
                    return found
            msg = Message(session_id=session.id, user_key=session.user_key, role=role, content=content,
                          tokens=count_tokens(content), idempotency_key=idempotency_key, meta=meta or {},
                          created_at=created_at or utcnow())
            s = db.get(Session, session.id)  # before add(msg): an autoflush here would escape the except below
            db.add(msg)
            if s is not None:
                s.last_activity_at = max(s.last_activity_at, msg.created_at)
                db.add(s)
            try:
                db.commit()
            except IntegrityError:
                db.rollback()
                if idempotency_key:
                    return db.exec(repeat).one()
                raise
            return msg

    def messages(self, session_id: str, *, after_id: int = 0, limit: int | None = None) -> list[Message]:
        query = select(Message).where(Message.session_id == session_id, Message.id > after_id).order_by(Message.id)
        with self.db() as db:
            return list(db.exec(query.limit(limit) if limit else query).all())

    # -- memory rows -----------------------------------------------------------------------------------------
    def add_memories(self, user: User, drafts: Sequence[MemoryDraft], *, agent_id: str | None = None,
                     vectors: Any = None) -> list[Memory]:
        """Write order that survives a crash: SQL rows (unindexed) → LanceDB → mark indexed.

        ``vectors`` (one per draft, of the masked content) saves a second embedding when the caller has them.
        """
        agent = validate.agent_id(agent_id, self.settings.default_agent_id)
        rows = [self._row(user, agent, d) for d in drafts]
        if not rows:
            return []
        with self.db() as db:
            db.add_all(rows)
            db.commit()
        self.index_memories(rows, vectors=vectors, fresh=True)
        return rows

    def add_memory(self, user: User, content: str, *, agent_id: str | None = None, **fields: Any) -> Memory:
        return self.add_memories(user, [MemoryDraft(content=content, **fields)], agent_id=agent_id)[0]

    def _row(self, user: User, agent: str, d: MemoryDraft) -> Memory:
        content = mask_pii(validate.text(d.content, self.settings.max_message_chars, "memory"))
        if d.type not in MEMORY_TYPES:
            raise InvalidInput(f"memory type must be one of {', '.join(MEMORY_TYPES)}")
        if d.source_type not in SOURCE_TYPES:
            raise InvalidInput(f"source type must be one of {', '.join(SOURCE_TYPES)}")
        now = utcnow()
        return Memory(
            user_key=user.key, agent_id=agent, type=d.type, subject=d.subject, predicate=d.predicate,
            object=mask_pii(d.object) if d.object else d.object, content=content, source_type=d.source_type,
            source_message_ids=list(d.source_message_ids), confidence=float(d.confidence),
            importance=float(d.importance), event_time=d.event_time, created_at=d.created_at or now,
            updated_at=now, expires_at=d.expires_at, meta=dict(d.meta),
        )

    def index_memories(self, rows: Sequence[Memory], *, vectors: Any = None, fresh: bool = False) -> None:
        """Embed and index active rows, then mark them indexed; safe to repeat (upsert by id).

        ``fresh`` rows were created just now with new ids, so a plain append is enough.
        """
        if vectors is not None and len(vectors) == len(rows):
            keep = [i for i, m in enumerate(rows) if m.status == "active"]
            active, vectors = [rows[i] for i in keep], [vectors[i] for i in keep]
        else:
            active, vectors = [m for m in rows if m.status == "active"], None
        if not active:
            return
        if vectors is None:
            vectors = self.embedder.embed_passages([m.content for m in active])
        (self.index.add if fresh else self.index.upsert)([
            IndexRow(id=m.id, user_key=m.user_key, agent_id=m.agent_id, text=m.content, vector=v, type=m.type,
                     created_at=m.created_at)
            for m, v in zip(active, vectors, strict=True)
        ])
        self._mark_indexed([m.id for m in active])

    def _mark_indexed(self, ids: Iterable[str]) -> None:
        """A plain UPDATE: the flag is idempotent, so it neither reads the rows nor bumps their optimistic version."""
        ids = list(ids)
        with self.engine.begin() as conn:
            for start in range(0, len(ids), 500):
                conn.execute(update(Memory).where(col(Memory.id).in_(ids[start : start + 500])).values(indexed=True))

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
        """Change a memory's lifecycle state; anything not active leaves the index (SQL keeps the history).

        Optimistic: the row's version guards the UPDATE, and a lost race re-reads and re-applies (``retrying``)."""

        @retrying
        def write() -> Memory:
            with self.db() as db:
                m = db.get(Memory, memory_id)
                if m is None:
                    raise NotFound(f"no memory {memory_id!r}")
                m.status, m.superseded_by, m.updated_at = status, superseded_by or m.superseded_by, utcnow()
                db.add(m)
                db.add(MemoryEvent(user_key=m.user_key, agent_id=m.agent_id, memory_id=m.id, op=op or status.upper(),
                                   reason=reason, content=m.content))
                db.commit()
                return m

        m = write()
        if status != "active":
            self.index.delete([memory_id])
        else:
            self.index_memories([m])
        return m

    def delete_memory(self, memory_id: str, *, reason: str = "deleted by a person") -> Memory:
        return self.set_status(memory_id, "deleted", reason=reason, op="DELETE")

    # -- write pipeline and profile (memory.write, memory.profile) ------------------------------------------
    #: a langchain chat model for structured extraction (set by the agent when one is configured); None = rules
    extraction_model: Any = None

    def _user(self, user: User | str) -> User:
        return user if isinstance(user, User) else self.get_user(user)

    def write_from_message(self, user: User | str, session: Session, message: Message | int, *,
                           agent_id: str | None = None, turn_id: int | None = None, model: Any = None,
                           keep_unparsed: bool = False):
        """Run the write pipeline on one stored message; returns a ``memory.write.WriteReport``.

        ``keep_unparsed`` stores a user message no extractor understood as a free-text fact (explicit requests)."""
        from memory.write import run

        user = self._user(user)
        if not isinstance(message, Message):
            with self.db() as db:
                found = db.get(Message, message)
            if found is None:
                raise NotFound(f"no message {message!r}")
            message = found
        if message.user_key != user.key:
            raise InvalidInput("the message belongs to another user")
        agent = validate.agent_id(agent_id or session.agent_id, self.settings.default_agent_id)
        if not self.claim_for_write(message.id):  # a retried or concurrent write of this message: it runs once
            from memory.write import WriteReport

            return WriteReport(message.id, message.role, False, "already written (repeated message)")
        return run(self, user, session, message, agent_id=agent, turn_id=turn_id,
                   model=model if model is not None else self.extraction_model, keep_unparsed=keep_unparsed)

    def write_from_messages(self, user: User | str, session: Session, messages: Sequence[Message | int], *,
                            agent_id: str | None = None, turn_id: int | None = None, model: Any = None,
                            keep_unparsed: bool = False) -> list:
        """The write pipeline on many stored messages at once (long-conversation ingest: one embedding call, one
        transaction, one index append), with the same decisions as ``write_from_message`` on each in order."""
        from memory.write.batch import write_messages

        return write_messages(self, user, session, messages, agent_id=agent_id, turn_id=turn_id, model=model,
                              keep_unparsed=keep_unparsed)

    def remember(self, user_id: str, text: str, *, session_id: str = "cli", agent_id: str | None = None):
        """Store ``text`` as a user message in that session and run the write pipeline on it (an explicit request:
        text no rule understands is still kept, as a free-text fact)."""
        user = self.ensure_user(user_id)
        session = self.ensure_session(user, session_id, agent_id)
        message = self.add_message(session, "user", text)
        return self.write_from_message(user, session, message, agent_id=agent_id, keep_unparsed=True)

    def get_profile(self, user: User | str) -> dict[str, Any]:
        from memory import profile

        return profile.get_profile(self, self._user(user))

    def profile_fields(self, user: User | str) -> dict[str, Any]:
        """field → ProfileField (value, confidence, version, source, updated_at)."""
        from memory import profile

        return profile.fields(self, self._user(user))

    def update_profile(self, user: User | str, field: str, value: Any, *, source: str = "person-edit",
                       reason: str = "", source_message_id: int | None = None, expected_version: int | None = None):
        """A person's (or a caller's) edit of one profile field; logged; ``Conflict`` on a stale expected_version."""
        from memory import profile

        return profile.set_field(self, self._user(user), field, value, source=source, reason=reason or "edited",
                                 source_message_id=source_message_id, expected_version=expected_version)

    def profile_history(self, user: User | str) -> list:
        from memory import profile

        return profile.history(self, self._user(user))

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
            lifecycle.touch(self, [h.memory_id for h in result.selected])  # access tracking (one batched UPDATE)
        return result

    # -- sessions: summaries and bridges (memory/summary.py) ------------------------------------------------
    def end_session(self, user_id: str, session_id: str, agent_id: str | None = None):
        """End a session and write its bridge (extractive; the agent passes its LLM summariser when it has one)."""
        from memory import summary

        return summary.end_session(self, user_id, session_id, agent_id)

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
        return integrity.repair(self)

    def claim_for_write(self, message_id: int) -> bool:
        """True when the caller may run the write pipeline on this message (nobody did or is doing it already)."""
        return integrity.claim_for_write(self, message_id)

    # -- lifecycle (memory/lifecycle.py, memory/compact.py, memory/export.py, memory/stats.py) -------------------
    def _user_key(self, user_id: str | None) -> str | None:
        return None if user_id is None else self.get_user(user_id).key

    def forget(self, user_id: str | None = None, *, dry_run: bool = False, now: datetime | None = None):
        """Expire, fade, cap and purge (rules in memory/lifecycle.py); ``user_id=None`` = every user."""
        return lifecycle.forget(self, user_key=self._user_key(user_id), dry_run=dry_run, now=now)

    def lifecycle_overview(self, user_id: str, *, now: datetime | None = None) -> dict[str, Any]:
        """What is archived (why, purge date) and what will expire (when, why): the lifecycle view's data."""
        return lifecycle.overview(self, user_key=self.get_user(user_id).key, now=now)

    def compact(self, user_id: str | None = None, *, dry_run: bool = False, now: datetime | None = None):
        """Merge near-duplicate / same-topic memories, keeping every source's provenance."""
        from memory import compact

        return compact.compact(self, user_key=self._user_key(user_id), dry_run=dry_run, now=now)

    def export_user(self, user_id: str) -> dict[str, Any]:
        from memory import export

        return export.export_user(self, user_id)

    def import_user(self, data: dict[str, Any]) -> dict[str, int]:
        from memory import export

        return export.import_user(self, data)

    def delete_user(self, user_id: str, *, force: bool = False, now: datetime | None = None) -> dict[str, int]:
        from memory import export

        return export.delete_user(self, user_id, force=force, now=now)

    def delete_session(self, user_id: str, session_id: str, *, agent_id: str | None = None, force: bool = False,
                       now: datetime | None = None) -> dict[str, int]:
        from memory import export

        return export.delete_session(self, user_id, session_id, agent_id=agent_id, force=force, now=now)

    def purge_memory(self, memory_id: str) -> dict[str, int]:
        from memory import export

        return export.purge_memory(self, memory_id)

    def user_stats(self, user_id: str) -> dict[str, Any]:
        from memory import stats

        return stats.user_stats(self, user_id)

