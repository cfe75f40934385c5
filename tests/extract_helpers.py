"""What the extraction tests read (tests/test_extract_*.py; not a test module): a user's message through the write
path's extraction, before the learned keep decision."""

from __future__ import annotations

from datetime import UTC, datetime

from memory.storage.models import Message
from memory.write.pipeline import Item, prepare

AT = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)


def read(text: str, previous: str | None = None, recent: list[str] | None = None) -> list[str]:
    """What the write path's extraction makes of a user's message (before the learned keep decision), read after
    ``previous`` (the message it answers) and the session's ``recent`` messages."""
    message = Message(session_id="s", user_key="u", role="user", content=text, created_at=AT)
    return [c.content for c in prepare(Item(message, previous=previous, recent=recent)).cands]
