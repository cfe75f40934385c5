"""Where a write came from: the door (``api:<key name>``, ``mcp``, ``langgraph``, ``python``…) and who used it.

A door wraps its service calls in ``acting(actor)``; every memory row and write-log event created inside carries
``via`` / ``by`` (memory ``meta``, event ``detail``), whichever path wrote it — the write pipeline (SQLAlchemy Core
rows, stamped in ``memory.write.apply``) or an ORM write (edit, delete, supersede, flag: stamped by the listeners
below). A context variable, so it follows the call into ``asyncio.to_thread`` and never leaks between requests.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from sqlalchemy import Connection, event
from sqlalchemy.orm import Mapper

from memory.storage.models import Memory, MemoryEvent
from memory.text.privacy import mask_value
from memory.vocab import Actor

_current: ContextVar[dict[str, Any] | None] = ContextVar("memlens_provenance", default=None)


@contextmanager
def acting(actor: Actor, **extra: Any) -> Iterator[dict[str, Any]]:
    """Stamp every write made inside with the actor's door and name (plus ``extra``, e.g. the caller's metadata)."""
    extra = mask_value({k: v for k, v in extra.items() if v is not None})  # caller data: PII masked like the rest
    stamp = {**current(), "via": actor.via, "by": actor.name, **extra}  # nested blocks add to the outer stamp
    token = _current.set(stamp)
    try:
        yield stamp
    finally:
        _current.reset(token)


def current() -> dict[str, Any]:
    """The stamp of the enclosing ``acting`` block (empty outside one: the built-in agent, the CLI, the pages)."""
    return dict(_current.get() or {})


def stamp_meta(meta: dict[str, Any] | None) -> dict[str, Any]:
    """A memory's ``meta`` with the provenance added (a value already there wins: it was set on purpose)."""
    return {**current(), **(meta or {})}


def stamp_detail(detail: dict[str, Any] | None = None) -> dict[str, Any]:
    """A write-log event's ``detail`` with where the write came from (``via``, ``by`` only)."""
    prov = {k: v for k, v in current().items() if k in ("via", "by")}
    return {**prov, **(detail or {})}


@event.listens_for(Memory, "before_insert")
def _stamp_memory(_mapper: Mapper[Any], _conn: Connection, target: Memory) -> None:
    if _current.get():
        target.meta = stamp_meta(target.meta)


@event.listens_for(MemoryEvent, "before_insert")
def _stamp_event(_mapper: Mapper[Any], _conn: Connection, target: MemoryEvent) -> None:
    if _current.get():
        target.detail = stamp_detail(target.detail)
