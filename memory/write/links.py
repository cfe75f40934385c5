"""The two layers' links, both ways: which episodes a fact, preference or event was read from (:func:`sources`),
what was read from an episode (:func:`read_from`), and which messages no longer count because every episode of
theirs was withdrawn (:func:`withdrawn_messages`). A memory's sources are the episodes of its
``source_message_ids`` (for a message cut into parts, the part ``meta.episode_id`` names); a person's correction of an
episode names it in ``meta.correction_of``. The cascade (``memory.write.cascade``), ``memlens memory show``, the
Memories and Sessions pages read them here.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from sqlmodel import col, select

from memory.storage.models import Memory, Message
from memory.vocab import MemoryStatus, MemoryType, is_flagged

if TYPE_CHECKING:
    from memory.storage.db import Database

#: the meta key of a person's correction memory naming the episode it corrects
CORRECTION_OF = "correction_of"


def in_force(m: Memory) -> bool:
    """Active and not flagged: what recall, the profile and the bridges may use."""
    return m.status == MemoryStatus.ACTIVE and not is_flagged(m.meta)


def state_words(m: Memory) -> str:
    """A memory's state in words: "in force", "flagged as wrong", "corrected", "deleted", "superseded"…"""
    meta = m.meta or {}
    if m.status == MemoryStatus.ACTIVE:
        if meta.get("correction"):
            return "corrected"
        return "flagged as wrong" if is_flagged(meta) else "in force"
    return str(m.status)


# -- the links -----------------------------------------------------------------------------------------------------
def _ids(values: Iterable[Any]) -> set[int]:
    return {int(v) for v in values or [] if isinstance(v, int) or str(v).isdigit()}


def _episodes_of(store: Database, user_key: str, message_ids: set[int]) -> dict[int, list[Memory]]:
    """{message id: its episodes, in order} for this user's messages (one SQL read, narrowed by the messages'
    times: an episode is dated by its message)."""
    if not message_ids:
        return {}
    with store.db() as db:
        times = db.exec(select(Message.created_at).where(col(Message.id).in_(sorted(message_ids)))).all()
        rows = db.exec(
            select(Memory).where(
                Memory.user_key == user_key,
                Memory.type == MemoryType.EPISODE,
                col(Memory.created_at).in_(list(set(times))),
            )
        ).all()
    out: dict[int, list[Memory]] = {}
    for e in sorted(rows, key=lambda r: int((r.meta or {}).get("part", 1))):
        for mid in _ids(e.source_message_ids) & message_ids:
            out.setdefault(mid, []).append(e)
    return out


def _attributed(m: Memory, episode: Memory, parts: list[Memory]) -> bool:
    """Was ``m`` read from ``episode`` (one part of its message)? A single-part message: yes. Several parts: the
    part the memory names (``meta.episode_id``), else the message's first part."""
    if len(parts) <= 1:
        return True
    named = (m.meta or {}).get("episode_id")
    if named in {p.id for p in parts}:
        return bool(named == episode.id)
    return parts[0].id == episode.id


def sources(store: Database, m: Memory) -> list[Memory]:
    """The episodes ``m`` was read from (any state), oldest message first; none for an episode or a person's row."""
    if m.type == MemoryType.EPISODE:
        return []
    msgs = _ids(m.source_message_ids)
    parts = _episodes_of(store, m.user_key, msgs)
    return [e for mid in sorted(parts) for e in parts[mid] if _attributed(m, e, parts[mid])]


def read_from(store: Database, episode: Memory) -> list[Memory]:
    """What was read from ``episode`` (any state): the facts, preferences and events whose sources include its
    message (and, for a message cut into parts, this part), plus a person's correction of it."""
    if episode.type != MemoryType.EPISODE:
        return []
    msgs = _ids(episode.source_message_ids)
    if not msgs:
        return []
    with store.db() as db:
        candidates = db.exec(
            select(Memory.id, Memory.source_message_ids, Memory.meta).where(
                Memory.user_key == episode.user_key, Memory.type != MemoryType.EPISODE
            )
        ).all()
        wanted = [
            i
            for i, src, meta in candidates
            if _ids(src) & msgs or (isinstance(meta, dict) and meta.get(CORRECTION_OF) == episode.id)
        ]
        rows = list(db.exec(select(Memory).where(col(Memory.id).in_(wanted))).all()) if wanted else []
    parts = _episodes_of(store, episode.user_key, msgs)
    out = []
    for m in sorted(rows, key=lambda r: r.created_at):
        if (m.meta or {}).get(CORRECTION_OF) == episode.id:
            out.append(m)
            continue
        shared = _ids(m.source_message_ids) & msgs
        if any(_attributed(m, episode, parts.get(mid, [episode])) for mid in shared):
            out.append(m)
    return out


def withdrawn_messages(store: Database, user_key: str, message_ids: Iterable[int]) -> set[int]:
    """The messages whose every episode is out of force (flagged, corrected, deleted): what was said there no
    longer counts for a bridge or a summary. A message without episodes (a canned reply) is not withdrawn."""
    parts = _episodes_of(store, user_key, set(message_ids))
    return {mid for mid, eps in parts.items() if eps and not any(in_force(e) for e in eps)}
