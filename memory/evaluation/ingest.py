"""Feed LoCoMo conversations through MemLens's one ingest path, keeping provenance to every ``dia_id``.

Each sample is one MemLens user (``locomo:<sample_id>``), each LoCoMo session one MemLens session, and each turn one
message stamped with its session's date (``Message.meta`` holds the ``dia_id`` and the speaker). The evaluation
supplies only those ids and times: the messages then go through the one write entry a chat turn and every door use
(``memory.write.entry``: an episode of each message, "Speaker (date): words", and the facts extracted from the
user's own words, whose ``source_message_ids`` lead back to the message). It writes no memory row of its own.

Whose words are facts: a LoCoMo conversation is two people talking, and the MemLens user is one of them — the first
speaker (``speaker_a``), recorded as the name the user goes by (``MemoryService.name_user``). Their turns are the
user's own words, read for facts; the second speaker's turns are the other party's (as the agent's replies are in a
chat): kept as episodes with the speaker's name, searchable and scored like any memory, but never read as facts
about the user (before, both speakers' turns were read as "the user", so one person's home city superseded the
other's).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import sqlalchemy as sa
from sqlmodel import col, select

from memory.evaluation.locomo import LocomoSession, Sample
from memory.evaluation.tune import Conversation
from memory.retrieval.context import TURN_ROLES, Placement, row_of
from memory.service import MemoryService
from memory.sessions.prompt import context_line
from memory.storage.db import Database
from memory.storage.models import Memory, Message, Session, User
from memory.text.tokens import count_tokens
from memory.vocab import EventOp, MemoryStatus, SessionStatus

Progress = Callable[[int], None]
#: the path every report names: the product's own write path, as a chat turn and the doors run it
INGEST_PATH = "write_from_messages (episodes + extraction, as chat and the doors)"


@dataclass
class IngestStats:
    sessions: int = 0
    reused_sessions: int = 0
    messages: int = 0
    episodes: int = 0
    extracted: int = 0
    extraction: str = INGEST_PATH
    seconds: float = 0.0
    ops: dict = field(default_factory=dict)

    def add(self, other: IngestStats) -> None:
        for name in ("sessions", "reused_sessions", "messages", "episodes", "extracted", "seconds"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for op, n in other.ops.items():
            self.ops[op] = self.ops.get(op, 0) + n
        self.extraction = other.extraction


def _write(svc: MemoryService, user: User, session: Session, msgs: list[Message], infer: bool, stats: IngestStats):
    """The session's messages through the one write entry in one batch (same decisions as one by one, in order);
    facts are read from the user's own turns only (the user is named after the first speaker: the module docstring)."""
    for report in svc.write_from_messages(user, session, msgs, infer=infer):
        stats.episodes += len(report.episodes)
        for op in report.operations:
            name = op.get("op", "?")
            stats.ops[name] = stats.ops.get(name, 0) + 1
            if name in (EventOp.ADD, EventOp.UPDATE):
                stats.extracted += 1


def ingest_session(
    svc: MemoryService,
    user: User,
    sample: Sample,
    ls: LocomoSession,
    *,
    extract: bool,
    progress: Progress | None = None,
) -> IngestStats:
    """One LoCoMo session as a MemLens session; ``extract`` False = mem0's ``infer=False`` (episodes only)."""
    stats = IngestStats(extraction=INGEST_PATH if extract else f"{INGEST_PATH}, infer=False")
    if user.display_name != sample.speakers[0]:
        user = svc.name_user(user, sample.speakers[0])  # the user is the first speaker: the module docstring
    session = svc.ensure_session(user, f"session_{ls.number}")
    if session.status == SessionStatus.ENDED:
        stats.reused_sessions += 1
        if progress:
            progress(len(ls.turns))
        return stats
    msgs = []
    for turn in ls.turns:
        msg = svc.add_message(
            session,
            "user",
            turn.message() or "(image)",
            created_at=turn.at,
            idempotency_key=f"locomo:{sample.sample_id}:{turn.dia_id}"[:128],
            meta={"dia_id": turn.dia_id, "speaker": turn.speaker, "session": ls.number, "source": "locomo"},
        )
        msgs.append(msg)
        stats.messages += 1
        if progress:
            progress(1)
    if msgs:
        _write(svc, user, session, msgs, extract, stats)
    svc.end_session_row(session)  # the one session end: as the agent's, with its bridge
    stats.sessions += 1
    return stats


def ingest_sample(
    svc: MemoryService, sample: Sample, *, extract: bool = True, progress: Progress | None = None
) -> IngestStats:
    """Ingest one conversation in date order; sessions already ingested are reused."""
    import time

    start = time.perf_counter()
    user = svc.ensure_user(sample.user_id)
    total = IngestStats()
    for ls in sample.sessions:
        total.add(ingest_session(svc, user, sample, ls, extract=extract, progress=progress))
    total.seconds = round(time.perf_counter() - start, 2)
    return total


def dia_ids_by_message(store: Database, user_key: str) -> dict[int, str]:
    """message id -> dia_id for one user: the provenance link from any memory back to LoCoMo's turns."""
    with store.db() as db:
        rows = db.exec(select(Message.id, Message.meta).where(Message.user_key == user_key)).all()
    return {
        mid: str(meta["dia_id"])
        for mid, meta in rows
        if mid is not None and isinstance(meta, dict) and meta.get("dia_id")
    }


def conversation(store: Database, user_key: str) -> Conversation:
    """Where each of one user's messages sits (session, turn position) and its tokens as a source-context line, as
    recall would read it (:mod:`memory.retrieval.context`): one query, so the evaluation windows source context
    without asking SQL again."""
    t = Message.__table__.c  # type: ignore[attr-defined]  # Core columns: plain rows
    query = sa.select(t.id, t.session_id, t.role, t.meta, t.created_at, t.content).where(
        t.user_key == user_key, t.role.in_(TURN_ROLES)
    )
    with store.engine.connect() as conn:
        rows = conn.execute(query.order_by(t.session_id, t.id)).all()
    order: dict[str, list[int]] = {}
    tokens: dict[int, int] = {}
    for r in rows:
        order.setdefault(r.session_id, []).append(r.id)
        row = row_of(r.id, r.role, r.meta, r.created_at, r.content)
        same_day = r.created_at.date().isoformat() if r.created_at else "undated"  # a session is one day
        tokens[r.id] = count_tokens(context_line(row, before=False, memory_day=same_day))
    return Conversation(Placement.from_order(order), tokens)


def memory_counts(store: Database, user_key: str) -> dict[str, int]:
    """Active memories per type for one user (what retrieval searches over)."""
    with store.db() as db:
        types = db.exec(
            select(Memory.type).where(Memory.user_key == user_key, col(Memory.status) == MemoryStatus.ACTIVE)
        ).all()
    counts: dict[str, int] = {}
    for t in types:
        counts[t] = counts.get(t, 0) + 1
    return counts
