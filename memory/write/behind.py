"""A turn's memory write after its reply: off the reply's path, never lost, seen by the user's next turn.

Why: after recall, the write is the largest part of a turn (classify and extract, one embedding, the plan's SQL
reads, one transaction, the index append, the profile's writes: ~100-300 ms when the message states something), and
the reply needs none of it. So the agent hands the write to :func:`submit` and returns the reply.

Guarantees:

- **durable**: the user's message is stored (and its turn row opened) before the reply; the job runs in a non-daemon
  thread, so a clean exit (a one-shot CLI turn) finishes it, and ``MemoryService.close`` waits for it. If the process
  dies before the job commits, the user's next write first writes the user's earlier agent turns whose message has no
  write-log event and no live claim (:func:`unwritten_turns`; the most recent ``CATCH_UP_TURNS`` turns older than
  ``CATCH_UP_GRACE``), in conversation order.
- **ordered per user**: a user's jobs run one after another in submission order, so each plan sees the memories
  of the turn before it, exactly as the inline write did.
- **visible**: :meth:`WriteBehind.wait` returns once every job submitted for the user has finished; the agent calls
  it before a turn's loads, so the next turn's profile and recall see this turn's writes (no user: everyone's).
- **exactly once**: the write claims its message (``claim_for_write``) as before, so a job racing a catch-up in
  another process writes nothing twice.

A write that fails (its own message or a caught-up earlier one) is **set aside** (:func:`set_aside`): a
``SET_ASIDE`` write-log event records the error, so neither the catch-up nor the write claim ever runs that message
again on its own, and the turn goes on to the next message. One bad message never stops the next; a person sees it
in the back office (:func:`set_aside_messages`) and retries it (``MemoryService.retry_write``, audited). The job's
future still holds the error (``TurnResult.writes`` re-raises it).
"""

from __future__ import annotations

import contextvars
import logging
import threading
from collections.abc import Callable
from concurrent import futures
from datetime import timedelta
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import delete, exists, or_, select, update
from sqlmodel import col

from memory.errors import NotFound
from memory.storage.integrity import CLAIM_LEASE
from memory.storage.models import MemoryEvent, Message, Session, Turn, utcnow
from memory.vocab import EventOp

if TYPE_CHECKING:
    from memory.storage.store import Storage

log = logging.getLogger(__name__)
T = TypeVar("T")

#: a crashed process's unwritten turns are looked for among the user's most recent turns only (bounded work)
CATCH_UP_TURNS = 50
#: turns younger than this are left to the process that opened them (it may still be about to write them)
CATCH_UP_GRACE = timedelta(seconds=60)


class WriteBehind:
    """Per-user chains of background jobs: one thread per job, each waiting for the user's previous job first."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last: dict[str, futures.Future[Any]] = {}

    def submit(self, user_key: str, job: Callable[[], T]) -> futures.Future[T]:
        fut: futures.Future[T] = futures.Future()
        with self._lock:
            before = self._last.get(user_key)
            self._last[user_key] = fut
        # the job runs in the caller's context: a door's provenance stamp (memory.provenance.acting) reaches its writes
        context = contextvars.copy_context()
        thread = threading.Thread(
            target=context.run, args=(self._run, user_key, before, job, fut), name=f"memlens-write-{user_key[:8]}"
        )
        thread.start()  # not a daemon: a process that exits cleanly finishes its writes first
        return fut

    def _run(self, user_key: str, before: futures.Future[Any] | None, job: Callable[[], T], fut: futures.Future[T]):
        if before is not None:
            futures.wait([before])
        fut.set_running_or_notify_cancel()
        try:
            fut.set_result(job())
        except BaseException as exc:  # noqa: BLE001 - the caller reads it from the future; the next job still runs
            log.exception("a background memory write failed")  # no user key: logs outlive erasures
            fut.set_exception(exc)
        finally:
            with self._lock:
                if self._last.get(user_key) is fut:
                    del self._last[user_key]

    def wait(self, user_key: str | None = None, timeout: float | None = None) -> bool:
        """Wait for the user's jobs (everyone's when ``user_key`` is None); False on timeout. Cheap when idle."""
        with self._lock:
            if user_key is None:
                pending = list(self._last.values())
            else:
                pending = [self._last[user_key]] if user_key in self._last else []
        if not pending:
            return True
        _, not_done = futures.wait(pending, timeout)
        return not not_done


def unwritten_turns(store: Storage, user_key: str, *, before: int | None = None) -> list[tuple[list[int], int, str]]:
    """(the user's message id and the reply's, turn id, session key) of the user's recent agent turns whose message
    was never written: no write-log event, no live claim, older than ``CATCH_UP_GRACE``; oldest first."""
    now = utcnow()
    turn_id, message_id = col(Turn.id), col(Turn.user_message_id)
    recent = select(turn_id).where(col(Turn.user_key) == user_key).order_by(turn_id.desc()).limit(CATCH_UP_TURNS)
    claimed = col(Message.write_claimed_at)
    query = (
        select(message_id, turn_id, col(Turn.session_id), col(Turn.reply_message_id))
        .join(Message, col(Message.id) == message_id)
        .where(
            turn_id.in_(recent.scalar_subquery()),
            col(Turn.created_at) < now - CATCH_UP_GRACE,
            ~exists().where(col(MemoryEvent.message_id) == message_id),
            or_(claimed.is_(None), claimed < now - CLAIM_LEASE),
        )
        .order_by(message_id)
    )
    if before is not None:
        query = query.where(message_id < before)
    with store.engine.connect() as conn:
        rows = conn.execute(query).all()
    return [([a] if r is None else [a, r], b, c) for a, b, c, r in rows if a is not None and b is not None]


#: the error text kept with a set-aside message (enough to see what broke; the traceback is in the server log)
ERROR_CHARS = 500


def set_aside(
    store: Storage, user_key: str, message_id: int, error: BaseException, *, turn_id: int | None = None
) -> None:
    """Record that ``message_id``'s write failed: a ``SET_ASIDE`` event with the error, and the claim released.

    The event makes :func:`unwritten_turns` and ``claim_for_write`` pass the message by (never retried forever);
    :func:`release` removes it when a person retries."""
    text = f"{type(error).__name__}: {error}"[:ERROR_CHARS]
    with store.db() as db:
        db.add(
            MemoryEvent(
                user_key=user_key,
                agent_id=store.settings.default_agent_id,
                op=EventOp.SET_ASIDE,
                reason=text,
                message_id=message_id,
                turn_id=turn_id,
                detail={"error": text, "error_type": type(error).__name__},
            )
        )
        db.commit()
    with store.engine.begin() as conn:
        conn.execute(update(Message).where(col(Message.id) == message_id).values(write_claimed_at=None))


def set_aside_messages(store: Storage, user_key: str) -> list[dict[str, Any]]:
    """The user's set-aside messages, newest first: message id, session, when, the message text and the error."""
    event, message = MemoryEvent, Message
    query = (
        select(
            col(message.id),
            col(message.session_id),
            col(event.created_at),
            col(message.created_at),
            col(message.content),
            col(event.reason),
            col(event.turn_id),
        )
        .join(message, col(message.id) == col(event.message_id))
        .where(col(event.user_key) == user_key, col(event.op) == EventOp.SET_ASIDE)
        .order_by(col(event.id).desc())
    )
    with store.engine.connect() as conn:
        rows = conn.execute(query).all()
    keys = ("message_id", "session_key", "at", "said_at", "text", "error", "turn_id")
    return [dict(zip(keys, row, strict=True)) for row in rows]


def release(store: Storage, user_key: str, message_id: int) -> tuple[Message, Session, int | None]:
    """Take ``message_id`` out of the set-aside pile so its write can run again: (the message, its session, its
    turn id). NotFound when it is not set aside for this user."""
    with store.db() as db:
        message = db.get(Message, message_id)
        session = db.get(Session, message.session_id) if message is not None else None
    with store.engine.connect() as conn:
        turn_id = conn.execute(select(col(Turn.id)).where(col(Turn.user_message_id) == message_id)).scalar()
    with store.engine.begin() as conn:
        gone = conn.execute(
            delete(MemoryEvent).where(
                col(MemoryEvent.message_id) == message_id,
                col(MemoryEvent.user_key) == user_key,
                col(MemoryEvent.op) == EventOp.SET_ASIDE,
            )
        )
    if not gone.rowcount or message is None or session is None:
        raise NotFound(f"message {message_id} is not set aside for this user")
    return message, session, turn_id


def reply_to(store: Storage, turn_id: int | None) -> list[int]:
    """The agent's reply of a turn, as a one-item list (empty when there is none): written with its message."""
    if turn_id is None:
        return []
    with store.engine.connect() as conn:
        reply = conn.execute(select(col(Turn.reply_message_id)).where(col(Turn.id) == turn_id)).scalar()
    return [] if reply is None else [int(reply)]
