"""0004 — hits log their calibrated relevance; a stored raw-similarity threshold becomes the optional similarity floor.

The cut now applies to relevance. The old default 0.80 is dropped rather than kept as a floor: measured on LoCoMo it
let something through for half of the questions asked of a user with nothing relevant, which is what the relevance
cut replaces. Any other stored value was someone's choice, so it stays, as the floor.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy import Connection
from sqlalchemy.dialects.postgresql import JSONB

NAME = "relevance on hits; raw threshold becomes the similarity floor"
OLD_DEFAULT = 0.80

_meta = sa.MetaData()
SETTING = sa.Table(
    "setting",
    _meta,
    sa.Column("key", sa.String(64), primary_key=True, nullable=False),
    sa.Column("value", sa.JSON().with_variant(JSONB(), "postgresql"), nullable=True),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
)


def upgrade(conn: Connection) -> None:
    from memory.storage.migrations import add_column, has_column  # the package imports this module first

    if not has_column(conn, "retrievalhit", "relevance"):
        add_column(conn, "retrievalhit", sa.Column("relevance", sa.Float(), nullable=True))
    row = conn.execute(sa.select(SETTING.c.value, SETTING.c.updated_at).where(SETTING.c.key == "similarity_threshold"))
    old = row.first()
    if old is None:
        return
    conn.execute(SETTING.delete().where(SETTING.c.key == "similarity_threshold"))
    value, when = old
    if isinstance(value, int | float) and abs(float(value) - OLD_DEFAULT) > 1e-9:
        conn.execute(SETTING.delete().where(SETTING.c.key == "similarity_floor"))
        conn.execute(SETTING.insert().values(key="similarity_floor", value=float(value), updated_at=when))
