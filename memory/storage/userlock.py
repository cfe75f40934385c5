"""One writer per user at a time, across threads, doors and processes.

A door's write reads what the user already has (the store's key, the pipeline's contradictions) and then writes; two
such writes for one user running side by side both miss each other, so eight puts to one key left eight live items
and six "I live in X" left six home cities. Every door's write for a user runs inside :func:`user_writes`, which
holds, in this order:

- a lock shared by the threads of this process (one per user; re-entrant, so a door's helper may call another);
- a lock shared by the processes on this machine: ``flock`` on a small file in ``<data_dir>/locks`` named by the
  user's digest (released by the kernel if the process dies);
- on PostgreSQL, also a session advisory lock keyed by the digest, so processes on other machines sharing the
  database queue too. It is held on a connection of its own, outside the storage's pool (a writer waiting for a lock
  must never hold a connection the lock's owner needs to finish).

Writes of different users never wait for each other. Reads take no lock.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Protocol

from sqlalchemy import Engine, create_engine, text
from sqlalchemy.pool import NullPool

from memory.storage.models import id_hash

if TYPE_CHECKING:
    from memory.config import Settings


class Storage(Protocol):
    """What a lock needs of the storage (a :class:`~memory.storage.store.Storage` is one): typed here rather than
    imported, so the start-up check (``integrity``, below the storage object) can take a user's lock without an
    import circle."""

    settings: Settings

    @property
    def engine(self) -> Engine: ...

    @property
    def read_only(self) -> str | None: ...


_guard = threading.Lock()
_thread_locks: dict[str, threading.RLock] = {}
_lock_engines: dict[str, Engine] = {}
_held = threading.local()


def _thread_lock(digest: str) -> threading.RLock:
    with _guard:
        return _thread_locks.setdefault(digest, threading.RLock())


@contextlib.contextmanager
def user_writes(storage: Storage, user_id: str) -> Iterator[None]:
    """Hold the user's write lock (see the module docstring) for the body of the ``with``."""
    if storage.read_only:  # every write of a user's rows comes through here: refuse it before any work
        from memory.errors import ReadOnlyData
        from memory.storage.db import READ_ONLY_FIX

        raise ReadOnlyData(f"read-only: {storage.read_only}; nothing can be written for a user. {READ_ONLY_FIX}.")
    digest = id_hash(user_id)
    held: set[str] = getattr(_held, "digests", None) or set()
    _held.digests = held
    with _thread_lock(digest):
        if digest in held:  # re-entered on this thread: the process and database locks are already ours
            yield
            return
        held.add(digest)
        try:
            with _file_lock(storage, digest), _pg_lock(storage, digest):
                yield
        finally:
            held.discard(digest)


@contextlib.contextmanager
def idle_user(storage: Storage, digest: str) -> Iterator[bool]:
    """Take the write lock of the user whose id hashes to ``digest`` without waiting: yields True while held, False
    (holding nothing) when a writer anywhere has it — e.g. an import still running in another process, whose
    leftovers the start-up check must not touch (a killed writer's locks are released by the kernel / server)."""
    lock = _thread_lock(digest)
    if not lock.acquire(blocking=False):
        yield False
        return
    try:
        with _file_lock(storage, digest, wait=False) as got_file:
            if not got_file:
                yield False
                return
            with _pg_lock(storage, digest, wait=False) as got_pg:
                yield bool(got_pg)
    finally:
        lock.release()


@contextlib.contextmanager
def _file_lock(storage: Storage, digest: str, *, wait: bool = True) -> Iterator[bool]:
    folder = storage.settings.data_dir / "locks"
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / f"{digest[:32]}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)  # closing the descriptor releases the lock


@contextlib.contextmanager
def _pg_lock(storage: Storage, digest: str, *, wait: bool = True) -> Iterator[bool]:
    if storage.engine.dialect.name != "postgresql":
        yield True
        return
    key = int(digest[:15], 16)  # fits a signed bigint
    with _lock_engine(storage).connect() as conn:
        if wait:
            conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": key})
        elif not conn.execute(text("SELECT pg_try_advisory_lock(:k)"), {"k": key}).scalar():
            conn.commit()
            yield False
            return
        conn.commit()
        try:
            yield True
        finally:
            conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": key})
            conn.commit()


def _lock_engine(storage: Storage) -> Engine:
    """An engine without a pool for the advisory locks (one short connection per locked write)."""
    url = storage.engine.url
    name = url.render_as_string(hide_password=False)
    with _guard:
        if name not in _lock_engines:
            _lock_engines[name] = create_engine(url, poolclass=NullPool)
        return _lock_engines[name]
