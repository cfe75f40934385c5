"""Keeping LanceDB in step with SQL: embed and index rows, mark them indexed, rebuild the index from SQL.

These need only the storage object (engine, index, embedder, settings): the crash repair (``integrity``) runs them
when the index is first opened, before any domain object exists.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from sqlalchemy import update
from sqlmodel import col, select

from memory.storage.models import Memory
from memory.storage.passages import embedded, passage
from memory.storage.vectors import IndexRow
from memory.vocab import MemoryStatus

if TYPE_CHECKING:
    from memory.storage.db import Indexed


def ready(storage: Indexed) -> None:
    """Open the index (and run its start-up check) BEFORE an operation's SQL side: opened after it, the check
    would see the operation half done — a vector whose row was just deleted, a row just set unindexed — and report
    (and "repair") a disagreement that the operation itself was about to settle."""
    _ = storage.index


def index_memories(storage: Indexed, rows: Sequence[Memory], *, vectors: Any = None, fresh: bool = False) -> None:
    """Embed and index active rows, then mark them indexed; safe to repeat (upsert by id).

    ``vectors`` (one per row, of its content) saves the embedding; ``fresh`` rows were created just now with new ids,
    so a plain append is enough.
    """
    if vectors is not None and len(vectors) == len(rows):
        keep = [i for i, m in enumerate(rows) if m.status == MemoryStatus.ACTIVE]
        active, vectors = [rows[i] for i in keep], [vectors[i] for i in keep]
    else:
        active, vectors = [m for m in rows if m.status == MemoryStatus.ACTIVE], None
    if not active:
        return
    if vectors is None:
        from memory.storage.embed import embed_threads  # numpy: loaded on first use, not at import (CLI start-up)

        # many rows (batch add, import, reindex): every core
        with embed_threads(storage.settings.embed_threads if len(active) > 1 else 1):
            vectors = storage.embedder.embed_passages(
                [
                    embedded(
                        m.type, m.content, m.subject, m.created_at, m.source_type, storage.settings.reply_embed_tokens
                    )
                    for m in active
                ]
            )
    index = storage.index
    (index.add if fresh else index.upsert)(
        [
            IndexRow(
                id=m.id,
                user_key=m.user_key,
                agent_id=m.agent_id,
                text=passage(m.type, m.content, m.subject, m.created_at),
                vector=v,
                type=m.type,
                created_at=m.created_at,
            )
            for m, v in zip(active, vectors, strict=True)
        ]
    )
    mark_indexed(storage, [m.id for m in active])


def mark_indexed(storage: Indexed, ids: Iterable[str]) -> None:
    """A plain UPDATE: the flag is idempotent, so it neither reads the rows nor bumps their optimistic version."""
    ids = list(ids)
    with storage.engine.begin() as conn:
        for start in range(0, len(ids), 500):
            conn.execute(update(Memory).where(col(Memory.id).in_(ids[start : start + 500])).values(indexed=True))


def reindex(storage: Indexed, batch: int = 256, progress: Callable[[int], Any] | None = None) -> int:
    """Drop the LanceDB table and rebuild it from the active SQL rows."""
    storage.index.drop()
    total = 0
    last = ""
    while True:
        with storage.db() as db:
            rows = db.exec(
                select(Memory)
                .where(Memory.status == MemoryStatus.ACTIVE, col(Memory.id) > last)
                .order_by(col(Memory.id))
                .limit(batch)
            ).all()
        if not rows:
            break
        index_memories(storage, rows)
        total += len(rows)
        last = rows[-1].id
        if progress:
            progress(len(rows))
    storage.index.optimize()
    return total
