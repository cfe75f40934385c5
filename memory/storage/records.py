"""Users, sessions, messages and memory rows: the plumbing every domain module shares, and the SQL-then-index write
order that survives a crash (SQL rows unindexed → LanceDB → mark indexed; ``repair`` settles the rest)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import func, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select

from memory import validate
from memory.errors import InvalidInput, NotFound
from memory.storage import integrity
from memory.storage.db import retrying
from memory.storage.models import (
    MEMORY_TYPES,
    SOURCE_TYPES,
    Memory,
    MemoryEvent,
    Message,
    Session,
    User,
    id_hash,
    utcnow,
)
from memory.storage.store import Store
from memory.storage.vectors import IndexRow
from memory.text.privacy import mask_pii
from memory.text.tokens import count_tokens
from memory.vocab import STATUS_OP, EventOp, MemoryStatus


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


class Records(Store):
    """Identity, conversation and memory-row storage on top of :class:`Store`."""

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
                    select(Memory.user_key, func.count())
                    .where(Memory.status == MemoryStatus.ACTIVE)
                    .group_by(Memory.user_key)
                ).all()
            )
            users = db.exec(select(User).order_by(User.created_at)).all()
        return [
            {
                "user_id": u.external_id,
                "key": u.key,
                "created_at": u.created_at.isoformat(),
                "active_memories": counts.get(u.key, 0),
            }
            for u in users
        ]

    def ensure_session(self, user: User, external_id: str, agent_id: str | None = None) -> Session:
        external_id = validate.external_id(external_id, "session id")
        agent = validate.agent_id(agent_id, self.settings.default_agent_id)
        query = select(Session).where(
            Session.user_key == user.key,
            Session.agent_id == agent,
            Session.external_hash == id_hash(external_id),
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
    def add_message(
        self,
        session: Session,
        role: str,
        content: str,
        *,
        created_at: datetime | None = None,
        idempotency_key: str | None = None,
        meta: dict | None = None,
        masker=None,
    ) -> Message:
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
            msg = Message(
                session_id=session.id,
                user_key=session.user_key,
                role=role,
                content=content,
                tokens=count_tokens(content),
                idempotency_key=idempotency_key,
                meta=meta or {},
                created_at=created_at or utcnow(),
            )
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
    def add_memories(
        self, user: User, drafts: Sequence[MemoryDraft], *, agent_id: str | None = None, vectors: Any = None
    ) -> list[Memory]:
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
        try:
            self.index_memories(rows, vectors=vectors, fresh=True)
        except (OSError, RuntimeError, ValueError):
            self._withdraw(rows)  # the caller is told this write failed: repair must never make it active later
            raise
        return rows

    def _withdraw(self, rows: Sequence[Memory]) -> None:
        """Mark rows whose write failed as deleted (best effort: a crash here leaves them to repair, as before)."""
        ids = [m.id for m in rows]
        try:
            with self.engine.begin() as conn:
                conn.execute(
                    update(Memory)
                    .where(col(Memory.id).in_(ids))
                    .values(status=MemoryStatus.DELETED, updated_at=utcnow())
                )
        except Exception:  # noqa: BLE001 - the original error is the one the caller must see
            return

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
            user_key=user.key,
            agent_id=agent,
            type=d.type,
            subject=d.subject,
            predicate=d.predicate,
            object=mask_pii(d.object) if d.object else d.object,
            content=content,
            source_type=d.source_type,
            source_message_ids=list(d.source_message_ids),
            confidence=float(d.confidence),
            importance=float(d.importance),
            event_time=d.event_time,
            created_at=d.created_at or now,
            updated_at=now,
            expires_at=d.expires_at,
            meta=dict(d.meta),
        )

    def index_memories(self, rows: Sequence[Memory], *, vectors: Any = None, fresh: bool = False) -> None:
        """Embed and index active rows, then mark them indexed; safe to repeat (upsert by id).

        ``fresh`` rows were created just now with new ids, so a plain append is enough.
        """
        if vectors is not None and len(vectors) == len(rows):
            keep = [i for i, m in enumerate(rows) if m.status == MemoryStatus.ACTIVE]
            active, vectors = [rows[i] for i in keep], [vectors[i] for i in keep]
        else:
            active, vectors = [m for m in rows if m.status == MemoryStatus.ACTIVE], None
        if not active:
            return
        if vectors is None:
            from memory.storage.embed import embed_threads  # many rows (batch add, import, reindex): every core

            with embed_threads(self.settings.embed_threads if len(active) > 1 else 1):
                vectors = self.embedder.embed_passages([m.content for m in active])
        (self.index.add if fresh else self.index.upsert)(
            [
                IndexRow(
                    id=m.id,
                    user_key=m.user_key,
                    agent_id=m.agent_id,
                    text=m.content,
                    vector=v,
                    type=m.type,
                    created_at=m.created_at,
                )
                for m, v in zip(active, vectors, strict=True)
            ]
        )
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

    def list_memories(
        self,
        user: User,
        *,
        statuses: Sequence[MemoryStatus] = (MemoryStatus.ACTIVE,),
        agent_id: str | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[Memory]:
        query = select(Memory).where(Memory.user_key == user.key)
        if statuses:
            query = query.where(col(Memory.status).in_(list(statuses)))
        if agent_id:
            query = query.where(Memory.agent_id == agent_id)
        query = query.order_by(col(Memory.created_at).desc(), Memory.id).offset(offset)
        with self.db() as db:
            return list(db.exec(query.limit(limit) if limit else query).all())

    def set_status(
        self,
        memory_id: str,
        status: MemoryStatus,
        *,
        reason: str,
        superseded_by: str | None = None,
        op: EventOp | None = None,
    ) -> Memory:
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
                db.add(
                    MemoryEvent(
                        user_key=m.user_key,
                        agent_id=m.agent_id,
                        memory_id=m.id,
                        op=op or STATUS_OP[MemoryStatus(status)],
                        reason=reason,
                        content=m.content,
                    )
                )
                db.commit()
                return m

        m = write()
        if status != MemoryStatus.ACTIVE:
            self.index.delete([memory_id])
        else:
            self.index_memories([m])
        return m

    # -- index maintenance -----------------------------------------------------------------------------------
    def reindex(self, batch: int = 256, progress=None) -> int:
        """Drop the LanceDB table and rebuild it from the active SQL rows."""
        self.index.drop()
        total = 0
        last = ""
        while True:
            with self.db() as db:
                rows = db.exec(
                    select(Memory)
                    .where(Memory.status == MemoryStatus.ACTIVE, Memory.id > last)
                    .order_by(Memory.id)
                    .limit(batch)
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
