"""0006 — one hit label per (query, memory, labeller): labels carry a key of the query text, duplicates made by
re-labelling the same query are folded into the newest, and a unique index keeps it so."""

from __future__ import annotations

import hashlib

import sqlalchemy as sa
from sqlalchemy import Connection

NAME = "hit labels unique per query, memory and labeller"


def query_key(text: str) -> str:
    """Frozen copy of ``memory.views.query_key``: the same query, whatever its spacing or case."""
    return hashlib.sha256(" ".join(text.split()).casefold().encode("utf-8")).hexdigest()


def upgrade(conn: Connection) -> None:
    conn.execute(sa.text('ALTER TABLE "hitlabel" ADD COLUMN "query_key" VARCHAR(64)'))
    rows = conn.execute(
        sa.text('SELECT h.id, r.query FROM "hitlabel" h JOIN "retrieval" r ON r.id = h.retrieval_id')
    ).all()
    for label_id, query in rows:
        conn.execute(
            sa.text('UPDATE "hitlabel" SET query_key = :k WHERE id = :i'), {"k": query_key(str(query)), "i": label_id}
        )
    conn.execute(
        sa.text(
            'DELETE FROM "hitlabel" WHERE id NOT IN (SELECT MAX(id) FROM "hitlabel" '
            "GROUP BY user_key, query_key, memory_id, labeled_by)"
        )
    )
    conn.execute(
        sa.text(
            'CREATE UNIQUE INDEX "ux_hitlabel_query_memory_labeller" '
            'ON "hitlabel" (user_key, query_key, memory_id, labeled_by)'
        )
    )
