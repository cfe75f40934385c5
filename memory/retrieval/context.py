"""Source context: each selected memory comes with the conversation around the message it was learnt from.

A memory drawn from a message (a conversation ``turn``, or a fact extracted from it: ``source_message_ids``) is
shown to the model with the turns within ±``span`` positions of that message in the same session, so a short turn
("Yes, last Friday!") or a terse fact keeps what it answered. Memories without a source message (a person's edits)
get none. Windows of several hits are shown once: a message already claimed by a better-ranked hit (its source or
its context), or the hit's own source, is not repeated (:func:`contexts`, pure, shared by recall and the
evaluation). Only user and assistant messages count as turns.

:func:`load` reads the selected hits' context from SQL for one user, in bounded statements (one prepared
statement per source message, ``IN`` lists of at most :data:`IN_CHUNK` ids), filtered by the user's key and with
every id bound as a parameter. Message text is masked when it is stored (``memory.storage.records.add_message``);
a purged memory's blanked source message is left out here, and a context line stating what a person retracted is
left out by the prompt composer (``memory.write.consistency.consistent_text``), like older bridges and summaries.
"""

from __future__ import annotations

import functools
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Integer, String, and_, bindparam, select, union_all
from sqlmodel import SQLModel

from memory.prompts import offline_intro_length
from memory.storage.db import chunks
from memory.storage.models import PURGED_MESSAGE as PURGED
from memory.storage.models import Memory, MemoryEvent, Message
from memory.vocab import MemoryStatus, MemoryType, is_flagged

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

#: roles that make up a conversation (system and tool messages are not turns)
TURN_ROLES = ("user", "assistant")


@dataclass(frozen=True)
class ContextRow:
    """One message shown around a memory: who said it, when, and what (masked as stored)."""

    message_id: int
    speaker: str
    created_at: datetime | None
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "message_id": self.message_id,
            "speaker": self.speaker,
            "created_at": self.created_at.isoformat() if self.created_at else None,
            "text": self.text,
        }


def row_of(message_id: int, role: str, meta: Any, created_at: datetime | None, content: str) -> ContextRow:
    """The context row of a stored message: the speaker's name when the message carries one (imported
    conversations), else its role."""
    speaker = meta.get("speaker") if isinstance(meta, dict) else None
    if role == "assistant":  # the offline engine's self-introduction is never the conversation around a memory
        content = content[offline_intro_length(content) :]
    return ContextRow(int(message_id), str(speaker or role), created_at, content)


class Placement:
    """Where each message sits: (session, position among the session's turns). Built from each session's message
    ids in conversation order (:meth:`from_order`), or from positions SQL numbered (:func:`load`)."""

    def __init__(self, at: Mapping[int, tuple[Hashable, int]]):
        self.at = dict(at)
        self._by_place = {place: mid for mid, place in self.at.items()}

    @classmethod
    def from_order(cls, order: Mapping[Any, Sequence[int]]) -> Placement:
        return cls({mid: (session, pos) for session, ids in order.items() for pos, mid in enumerate(ids)})

    def window(self, sources: Iterable[Any], span: int) -> list[int]:
        """Message ids within ±span of any of ``sources`` in its session, the sources left out, in conversation
        order. Ids that are not placed (another user's, deleted, not a turn) have no window."""
        own = {m for m in (_as_id(s) for s in sources) if m is not None and m in self.at}
        if span <= 0 or not own:
            return []
        found = set()
        for mid in own:
            session, pos = self.at[mid]
            for p in range(pos - span, pos + span + 1):
                other = self._by_place.get((session, p))
                if other is not None and other not in own:
                    found.add(other)
        return sorted(found, key=lambda m: (str(self.at[m][0]), self.at[m][1]))


def contexts(
    placement: Placement, sources: Sequence[Iterable[Any]], span: int, shown: Iterable[int] = ()
) -> list[list[int]]:
    """Per hit (in rank order, each given by its source message ids) the context message ids it shows: its window
    without its own sources, without any message a better-ranked hit already claimed (its sources or context), and
    without the messages ``shown`` as memories in their own right (the sources of selected ``turn`` memories, which
    are the message itself: :func:`verbatim`)."""
    claimed: set[int] = set(shown)
    out = []
    for src in sources:
        own = {m for m in (_as_id(s) for s in src) if m is not None}
        shown = [m for m in placement.window(own, span) if m not in claimed]
        claimed |= own | set(shown)
        out.append(shown)
    return out


def verbatim(hits: Iterable[tuple[str, Iterable[Any]]]) -> set[int]:
    """The messages the prompt already shows as memories: the sources of (type, source ids) ``turn`` memories."""
    return {m for kind, src in hits if kind == MemoryType.EPISODE for m in source_ids(src)}


def _as_id(value: Any) -> int | None:
    """A stored source id as an int (JSON may hold ints or digit strings); anything else is no message."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    text = str(value)
    return int(text) if text.isdigit() and len(text) < 19 else None


def source_ids(values: Iterable[Any]) -> list[int]:
    return [m for m in (_as_id(v) for v in values) if m is not None]


def load(
    engine: Engine, user_key: str, sources: Sequence[Iterable[Any]], span: int, shown: Iterable[int] = ()
) -> list[list[ContextRow]]:
    """The context rows of each hit (given by its source message ids, in rank order), read from the user's own
    messages only (``shown``: see :func:`contexts`), in statements bounded whatever the number of hits. Blanked
    (purged) messages are left out, and so are those a memory a person retracted came from
    (:func:`retracted_sources`, a second small read)."""
    placement, rows = read(engine, user_key, [m for src in sources for m in source_ids(src)], span)
    found = shown_rows(placement, rows, sources, span, shown)
    gone = retracted_sources(engine, user_key, [r.message_id for ctx in found for r in ctx])
    return [[r for r in ctx if r.message_id not in gone] for ctx in found]


def retracted_sources(engine: Engine, user_key: str, message_ids: Sequence[int]) -> set[int]:
    """Of these messages, those a memory a person flagged or deleted was learnt from (found through the write log,
    which records each write's message): shown again as context they would re-inject what the person retracted."""
    if not message_ids:
        return set()
    event_t, memory_t = (SQLModel.metadata.tables[str(t.__tablename__)] for t in (MemoryEvent, Memory))
    ev, mem = event_t.c, memory_t.c
    query = (
        select(ev.message_id, mem.status, mem.meta)
        .join_from(event_t, memory_t, mem.id == ev.memory_id)
        .where(ev.user_key == user_key, mem.user_key == user_key)
    )
    found: list[Any] = []
    with engine.connect() as conn:
        for part in chunks(sorted(set(message_ids)), IN_CHUNK):
            found += conn.execute(query.where(ev.message_id.in_(list(part)))).all()
    return {r.message_id for r in found if r.status == MemoryStatus.DELETED or is_flagged(r.meta)}


def read(engine: Engine, user_key: str, wanted: Iterable[int], span: int) -> tuple[Placement, dict[int, ContextRow]]:
    """Where the turns within ±span of the ``wanted`` messages sit, and their rows (bounded statements, one user)."""
    ids = sorted(set(wanted))
    if span <= 0 or not ids:
        return Placement({}), {}
    found = list({r.id: r for r in _window_rows(engine, user_key, ids, span)}.values())  # windows may overlap
    order: dict[str, list[int]] = {}
    for r in sorted(found, key=lambda r: r.id):  # every source's whole window is here: windowing this partial
        order.setdefault(r.session_id, []).append(r.id)  # order gives the same windows as the session's full one
    rows = {r.id: row_of(r.id, r.role, r.meta, r.created_at, r.content) for r in found}
    return Placement.from_order(order), rows


def shown_rows(
    placement: Placement,
    rows: Mapping[int, ContextRow],
    sources: Sequence[Iterable[Any]],
    span: int,
    shown: Iterable[int] = (),
) -> list[list[ContextRow]]:
    """:func:`contexts` as rows, without blanked (purged) messages."""
    out = []
    for ids in contexts(placement, sources, span, shown):
        out.append([rows[m] for m in ids if rows[m].text.strip() and rows[m].text != PURGED])
    return out


#: ids bound in one ``IN (...)`` list (SQLite's default bound-parameter limit is 32,766; PostgreSQL's 65,535)
IN_CHUNK = 500


_COLUMNS = ("id", "session_id", "role", "meta", "created_at", "content")


@functools.cache
def _around() -> Any:
    """The turns within ``span`` before and after one message in its session, for one user: one statement built
    once (its compiled form is cached too) and run per message with bound values, so its size never grows with
    the number of hits and building it costs nothing per search."""
    t = SQLModel.metadata.tables[str(Message.__tablename__)]  # Core columns: plain rows, not ORM objects
    cols = [t.c[name] for name in _COLUMNS]
    src = t.alias("src")
    user_key = bindparam("user_key", type_=String)
    mid, span = bindparam("mid", type_=Integer), bindparam("span", type_=Integer)
    session = select(src.c.session_id).where(src.c.id == mid, src.c.user_key == user_key).scalar_subquery()
    near = and_(t.c.user_key == user_key, t.c.role.in_(TURN_ROLES), t.c.session_id == session)
    before = select(*cols).where(near, t.c.id < mid).order_by(t.c.id.desc()).limit(span).subquery()
    after = select(*cols).where(near, t.c.id > mid).order_by(t.c.id).limit(span).subquery()
    return union_all(select(*before.c), select(*after.c))


def _window_rows(engine: Engine, user_key: str, wanted: list[int], span: int) -> list[Any]:
    """Each wanted message with the ``span`` turns before and after it in its session: the messages themselves in
    ``IN`` lists of at most :data:`IN_CHUNK` ids, then per message two small index-ordered reads (session, id) in
    one prepared statement (:func:`_around`), so the cost does not grow with the session's length and no statement
    grows with the number of hits (one UNION for a hundred hits broke SQLite's compound-SELECT limit). Every clause
    names the user's key: one user never reads another's messages."""
    t = SQLModel.metadata.tables[str(Message.__tablename__)]
    cols = [t.c[name] for name in _COLUMNS]
    mine = and_(t.c.user_key == user_key, t.c.role.in_(TURN_ROLES))
    found: list[Any] = []
    with engine.connect() as conn:
        for part in chunks(wanted, IN_CHUNK):
            found += conn.execute(select(*cols).where(mine, t.c.id.in_(list(part)))).all()
        around = _around()
        for mid in wanted:
            found += conn.execute(around, {"user_key": user_key, "mid": mid, "span": span}).all()
    return found
