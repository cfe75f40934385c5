"""The retrieval log's writer: every recall is logged (query, parameters, each candidate's scores and verdict) and its
selected memories are marked as used — after the hits are returned, on one background thread per service.

Why a thread: writing ~100 candidate rows and the access-tracking UPDATE took 3 ms at the median but 20-40 ms at
p95 on a busy machine (SQLite's write lock, commits), which the caller of ``recall`` waited for; the query itself
needs none of it. ``bench/recall_latency.py`` measures both ways in one run (``MEMLENS_RETRIEVAL_LOG_BACKGROUND``).

Guarantees:

- out of the way: before writing an entry the writer waits (at most ``YIELD_S``, and not when ``YIELD_BELOW`` or more
  entries wait) until no recall of this process is in flight, so a recall does not share the GIL with the log of
  the one before it;
- bounded: at most ``CAPACITY`` entries wait; a caller that outruns the writer blocks until there is room (nothing
  is dropped for back-pressure, and the order of entries is kept);
- in order: work queued with :meth:`RetrievalLog.then` (e.g. marking which hits reached the prompt) runs after
  every entry submitted before it, so it sees their ``retrieval_id``;
- nothing lost on a clean shutdown: :meth:`RetrievalLog.close` (``Storage.close``, and at interpreter exit) writes
  what is queued; a write that still fails after its retries is counted in ``dropped`` and logged, and entries left
  unwritten at exit are reported (a killed process loses at most the queued entries, usually none);
- readers in the same process call :func:`flush` first (the retrieval lab, replay, exports and deletes), so they
  see every logged retrieval; reading ``RecallResult.retrieval_id`` waits for that entry alone.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import queue
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import insert, update
from sqlmodel import col

from memory.storage.db import retrying
from memory.storage.models import Memory, Retrieval, RetrievalHit, stored_id, utcnow
from memory.vocab import ANY_AGENT

if TYPE_CHECKING:
    from sqlalchemy import Connection

    from memory.retrieval.recall import RecallResult
    from memory.storage.db import Database
    from memory.storage.store import Storage

log = logging.getLogger(__name__)

#: entries that may wait for the writer before a caller blocks (one entry ≈ a query and a hundred candidates)
CAPACITY = 1024
#: the writer lets recalls in flight in this process finish before it writes an entry (both need the GIL: a ~10 ms
#: write beside a recall made that recall ~10 ms slower), waiting at most this long per entry …
YIELD_S = 0.1
#: … and not at all once this many entries wait (catching up comes first: the log never falls behind for long)
YIELD_BELOW = 8


class InFlight:
    """How many recalls of this process are running now; the log's writer waits for none (:data:`YIELD_S`)."""

    def __init__(self) -> None:
        self._n = 0
        self._idle = threading.Condition()

    @contextlib.contextmanager
    def recall(self) -> Iterator[None]:
        with self._idle:
            self._n += 1
        try:
            yield
        finally:
            with self._idle:
                self._n -= 1
                if not self._n:
                    self._idle.notify_all()

    def wait_idle(self, timeout: float) -> bool:
        """Until no recall runs (True) or ``timeout`` seconds passed (False)."""
        with self._idle:
            return self._idle.wait_for(lambda: not self._n, timeout)


#: the process's recalls in flight (``MemoryService.recall`` runs inside ``in_flight.recall()``)
in_flight = InFlight()
_STOP = object()
_live: weakref.WeakSet[RetrievalLog] = weakref.WeakSet()
#: each storage's writer, kept here rather than on the storage (the floor knows nothing of the log)
_writers: weakref.WeakKeyDictionary[Storage, RetrievalLog] = weakref.WeakKeyDictionary()


class RetrievalLog:
    """A bounded FIFO of logging jobs and the one daemon thread that writes them (started on first use)."""

    def __init__(self, store: Storage, *, background: bool = True, capacity: int = CAPACITY) -> None:
        #: weak: the writer is kept by storage in ``_writers`` (a weak-keyed map), so it must not keep its storage alive
        self._store = weakref.ref(store)
        self.background = background
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=capacity)
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self.submitted = self.written = self.dropped = 0
        _live.add(self)

    # -- producer side -----------------------------------------------------------------------------------------
    def submit(self, result: Any, **scope: Any) -> None:
        """Log ``result`` (a ``RecallResult``) and mark its selected memories used; ``scope`` = user_key, agent_id,
        session_key, turn_id. Sets ``result.retrieval_id`` once written."""
        self.submitted += 1
        result.written = threading.Event()
        self._put((self._write_entry, (result, scope)))

    def then(self, fn: Callable[[], Any]) -> None:
        """Run ``fn`` after every entry submitted so far is written (inline when logging is not in the background)."""
        self._put((self._call, (fn,)))

    def _put(self, job: tuple) -> None:
        if not self.background or threading.current_thread() is self._thread:
            job[0](*job[1])
            return
        self._ensure_thread()
        self._queue.put(job)  # blocks when full: back-pressure, never a silent drop

    def _ensure_thread(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            with self._lock:
                if self._thread is None or not self._thread.is_alive():
                    self._thread = threading.Thread(target=self._run, name="memlens-retrieval-log", daemon=True)
                    self._thread.start()

    # -- writer side -------------------------------------------------------------------------------------------
    def _run(self) -> None:
        while True:
            job = self._queue.get()
            try:
                if job is _STOP:
                    return
                if job[0] == self._write_entry and self.pending() <= YIELD_BELOW:
                    in_flight.wait_idle(YIELD_S)
                job[0](*job[1])
            finally:
                self._queue.task_done()

    def _write_entry(self, result: Any, scope: dict[str, Any]) -> None:
        try:
            store = self._store()
            if store is None:  # the service is gone: nothing left to log into
                raise RuntimeError("its storage was closed and released")
            result.logged_id = retrying(log_retrieval)(store, result, **scope)  # and marks its selected hits used
            self.written += 1
        except Exception as exc:  # noqa: BLE001 - the writer must outlive a bad entry; the loss is counted and said
            self.dropped += 1
            log.warning("retrieval log: an entry could not be written (%s); %d dropped so far", exc, self.dropped)
        finally:
            result.written.set()

    def _call(self, fn: Callable[[], Any]) -> None:
        try:
            fn()
        except Exception as exc:  # noqa: BLE001 - same: a follow-up's failure must not stop the log
            log.warning("retrieval log: a follow-up failed: %s", exc)

    # -- waiting and shutdown ----------------------------------------------------------------------------------
    def pending(self) -> int:
        return self._queue.unfinished_tasks

    def flush(self, timeout: float | None = 30.0) -> bool:
        """Wait until everything queued so far is written; False on timeout. Cheap when nothing is pending."""
        if self._thread is None or threading.current_thread() is self._thread or not self.pending():
            return True
        done = threading.Event()
        self._put((done.set, ()))
        return done.wait(timeout)

    def close(self, timeout: float = 30.0) -> int:
        """Write what is queued and stop the thread; returns (and reports) how many entries were left unwritten."""
        thread = self._thread
        if thread is None or not thread.is_alive():
            return 0
        self._queue.put((lambda: None, ()))
        self._queue.put(_STOP)
        thread.join(timeout)
        self._thread = None
        left = max(self.pending() - 1, 0) if thread.is_alive() else 0
        if left or self.dropped:
            log.warning(
                "retrieval log: %d entries not written at shutdown, %d dropped by failed writes", left, self.dropped
            )
        return left

    def stats(self) -> dict[str, int]:
        return {
            "submitted": self.submitted,
            "written": self.written,
            "dropped": self.dropped,
            "pending": self.pending(),
        }


def attach(store: Storage, found: RetrievalLog) -> RetrievalLog:
    """Make ``found`` the storage's writer; the storage's close drains it (before its engine goes)."""
    _writers[store] = found
    store.on_close(lambda: close(store))
    return found


def writer(store: Storage) -> RetrievalLog:
    """The storage's retrieval-log writer (one per storage object, created on first use)."""
    found = _writers.get(store)
    if found is None:
        with _create_lock:
            found = _writers.get(store)
            if found is None:
                found = attach(store, RetrievalLog(store, background=store.settings.retrieval_log_background))
    return found


def flush(store: Storage, timeout: float | None = 30.0) -> bool:
    """Let a reader see every retrieval this process logged so far (no-op when nothing is pending)."""
    found = _writers.get(store)
    return found.flush(timeout) if found is not None else True


def close(store: Storage) -> int:
    found = _writers.pop(store, None)
    return found.close() if found is not None else 0


# -- access tracking ---------------------------------------------------------------------------------------------
#: ids per UPDATE (SQLite's bound-parameter limit is 999)
CHUNK = 900


def touch(conn: Connection, memory_ids: Iterable[str], *, now: datetime | None = None) -> int:
    """Mark memories as used by a retrieval, inside the caller's transaction (the log entry's: one commit for both):
    one UPDATE per 900 ids, counters bumped in SQL (no read-modify-write)."""
    ids = list(dict.fromkeys(memory_ids))
    when = now or utcnow()
    for start in range(0, len(ids), CHUNK):
        conn.execute(
            update(Memory)
            .where(col(Memory.id).in_(ids[start : start + CHUNK]))
            .values(last_accessed_at=when, access_count=Memory.access_count + 1)
        )
    return len(ids)


def log_retrieval(
    store: Database,
    result: RecallResult,
    *,
    user_key: str,
    agent_id: str | None,
    session_key: str | None,
    turn_id: int | None,
) -> int:
    """One transaction, Core inserts only (ORM objects for a hundred hits cost more than the search itself); the
    selected memories are marked used in the same transaction (:func:`touch`)."""
    row = {
        "user_key": user_key,
        "agent_id": agent_id or ANY_AGENT,
        "session_id": session_key,  # the column holds the internal key
        "turn_id": turn_id,
        "query": result.query,  # masked by the engine on the way in (memory.storage.scrub), like every text column
        "retrieval_query": result.retrieval_query,
        "mode": result.params.mode,
        "k": result.params.k,
        "threshold": result.params.threshold,
        "params": {**result.params.to_dict(), **result.provenance},  # + the door it came through
        "latency_ms": result.latency_ms,
        "created_at": utcnow(),
    }
    with store.engine.begin() as conn:
        inserted = conn.execute(insert(Retrieval).values(row).returning(col(Retrieval.id))).scalar_one()
        retrieval_id = stored_id(inserted, "retrieval")
        if result.hits:
            conn.execute(
                insert(RetrievalHit),
                [
                    {
                        "retrieval_id": retrieval_id,
                        "memory_id": h.memory_id,
                        "rank": h.rank,
                        "similarity": h.similarity,
                        "fts_score": h.fts_score,
                        "fused_score": h.score,
                        "relevance": h.relevance,
                        "passed": h.passed,
                        "selected": h.selected,
                        "injected": bool(h.injected),
                        "drop_reason": h.drop_reason,
                    }
                    for h in result.hits
                ],
            )
        touch(conn, [h.memory_id for h in result.selected])
    return retrieval_id


_create_lock = threading.Lock()


@atexit.register
def _close_all() -> None:
    """A clean interpreter exit writes every queued entry (daemon threads still run while atexit handlers do)."""
    for w in list(_live):
        w.close(timeout=10.0)
