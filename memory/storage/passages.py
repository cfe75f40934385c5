"""What the index reads of a memory: its content, and for an episode the speaker and the day as well.

An episode keeps the speaker's words as they were said (its ``content``); the index embeds and full-text indexes
them as "Speaker (2 December 2026): words", because the speaker's name and the date are what dense retrieval needs
to answer "what did Lena say in May?". Every place that embeds or indexes a row (the write path, rebuild, repair)
goes through :func:`passage`, so an episode re-indexed later gets the same vector it was written with.
"""

from __future__ import annotations

from datetime import datetime

from memory.vocab import MemoryType


def passage(type_: str, content: str, subject: str | None, created_at: datetime | None) -> str:
    """The retrievable form of one memory row (see module docstring)."""
    if type_ != MemoryType.EPISODE:
        return content
    day = f" ({created_at.day} {created_at:%B %Y})" if created_at is not None else ""
    return f"{subject or 'someone'}{day}: {content}"
