"""What the index reads of a memory: its content, and for an episode the speaker and the day as well.

An episode keeps the speaker's words as they were said (its ``content``); the index embeds and full-text indexes
them as "Speaker (2 December 2026): words", because the speaker's name and the date are what dense retrieval needs
to answer "what did Lena say in May?". Every place that embeds or indexes a row (the write path, rebuild, repair)
goes through :func:`passage`, so an episode re-indexed later gets the same vector it was written with.

What the *embedder* reads (:func:`embedded`) is the same passage, except for an episode of the assistant's reply: the
vector is made from its opening ``reply_embed_tokens`` tokens only. Why: a model's reply is long (a LongMemEval
haystack is ~85 % assistant tokens) and composed from what the user asked, so its opening says what it is about;
the embedder's cost is linear in tokens and was 97.5 % of an ingest. Every word of the reply is still full-text
indexed, stored and shown as said; only the dense vector reads less. The user's own words are always read whole.
"""

from __future__ import annotations

from datetime import datetime

from memory.text.tokens import truncate_to_tokens
from memory.vocab import MemoryType, SourceType


def passage(type_: str, content: str, subject: str | None, created_at: datetime | None) -> str:
    """The retrievable form of one memory row (see module docstring)."""
    if type_ != MemoryType.EPISODE:
        return content
    day = f" ({created_at.day} {created_at:%B %Y})" if created_at is not None else ""
    return f"{subject or 'someone'}{day}: {content}"


def embedded(
    type_: str, content: str, subject: str | None, created_at: datetime | None, source_type: str, reply_tokens: int
) -> str:
    """The text the embedder reads for one memory row: :func:`passage`, with an assistant episode's words cut to
    their first ``reply_tokens`` tokens (0: whole). An episode said by the agent is ``source_type`` agent."""
    if type_ == MemoryType.EPISODE and source_type == SourceType.AGENT and reply_tokens > 0:
        content = truncate_to_tokens(content, reply_tokens)
    return passage(type_, content, subject, created_at)
