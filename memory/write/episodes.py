"""Episodes: every conversation message kept as what was said, in the index beside the facts drawn from it.

Why: rules (or a model) extract only part of what people say. Without episodes, "My sister Lena finally got her
pilot's licence" leaves no trace, because no rule was written for it. With them, the sentence is kept in the
speaker's own words, with its speaker, time, session and agent. Recall and the calibrated relevance cut treat it
like any other memory, and the facts extracted from the same message point back to it (``meta.episode_id``).

An episode is one Memory row (``type = episode``): ``content`` is the masked text as said, ``subject`` the speaker,
``source_message_ids`` the message, ``meta`` the message's own metadata plus role, speaker and, for a long message
cut into several episodes, each part's character offset in the message. The write path (:mod:`memory.write.batch`)
builds them in the same embedding call, SQL transaction and index append as the facts. A message is written once
(its write claim), so it never gets two sets of episodes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memory import provenance
from memory.prompts import offline_intro_length
from memory.storage.models import Message, User, new_id, utcnow
from memory.storage.passages import embedded
from memory.text.privacy import mask_value
from memory.text.tokens import count_tokens, truncate_to_tokens
from memory.vocab import CANNED, MemoryType, SourceType
from memory.write.status import new_lifecycle

if TYPE_CHECKING:
    from memory.storage.store import Storage

#: the roles whose messages are conversation (system and tool messages are not what anybody said)
EPISODE_ROLES = ("user", "assistant")
#: how a role is named when the message names no speaker of its own (LoCoMo's turns do: "Caroline")
ROLE_SPEAKER = {"user": "User", "assistant": "Assistant"}
#: an episode's meta key: stored as is with nothing read from it (mem0's ``infer=False``, a LangGraph put) — the
#: caller's own record, which the caller may rewrite (mem0's ``update``); a conversation's episode never is
VERBATIM = "verbatim"
#: message metadata that is bookkeeping of the write path, not provenance worth copying onto an episode
_SKIP_META = frozenset({"idempotency_key"})
#: an episode is worth less than a fact drawn from it when a summary or the forgetting policy must choose
EPISODE_IMPORTANCE = 0.3
# a paragraph break, or whitespace after a sentence end (English or Chinese punctuation)
_BREAKS = re.compile(r"\n\s*\n|(?<=[.!?。！？；;])\s+|(?<=[。！？；])")


@dataclass(frozen=True, slots=True)
class Episode:
    """One episode row about to be written, and the text the index embeds for it."""

    row: dict[str, Any]
    passage: str

    @property
    def id(self) -> str:
        return str(self.row["id"])


def speaker(message: Message) -> str:
    """Who said it: the speaker the message names (a multi-party conversation), else its role."""
    named = (message.meta or {}).get("speaker")
    if isinstance(named, str) and named.strip():
        return named.strip()[:64]
    return ROLE_SPEAKER.get(message.role, message.role)


def chunks(text: str, max_tokens: int) -> list[tuple[int, str]]:
    """(character offset, part) of ``text`` cut into parts of at most ``max_tokens`` tokens, at paragraph and
    sentence ends where it can (a sentence longer than that is cut inside); one part when it fits."""
    if count_tokens(text) <= max_tokens:
        return [(0, text)]
    pieces: list[tuple[int, str]] = []
    start = 0
    for m in _BREAKS.finditer(text):
        if m.end() > start:
            pieces.append((start, text[start : m.end()]))
            start = m.end()
    if start < len(text):
        pieces.append((start, text[start:]))
    out: list[tuple[int, str]] = []
    cur_at, cur, cur_tokens = 0, "", 0
    for at, piece in pieces:
        n = count_tokens(piece)
        if cur and cur_tokens + n > max_tokens:
            out.append((cur_at, cur))
            cur, cur_tokens = "", 0
        if not cur:
            cur_at = at
        while n > max_tokens:  # one sentence longer than a part: cut it
            head = truncate_to_tokens(piece, max_tokens) or piece[:1]
            if cur:
                out.append((cur_at, cur))
                cur, cur_tokens = "", 0
            out.append((at, head))
            at, piece = at + len(head), piece[len(head) :]
            n = count_tokens(piece)
            cur_at = at
        cur, cur_tokens = cur + piece, cur_tokens + n
    if cur.strip():
        out.append((cur_at, cur))
    return [(at, part.strip()) for at, part in out if part.strip()]


def build(store: Storage, user: User, agent_id: str, message: Message, text: str) -> list[Episode]:
    """The episodes of one stored message (``text``: its masked content); none for system and tool messages."""
    if message.role not in EPISODE_ROLES or message.id is None or not text.strip():
        return []
    if (message.meta or {}).get(CANNED):
        return []
    # the offline engine's self-introduction is not memory: the episode starts after it (offsets stay the message's)
    start = offline_intro_length(text) if message.role == "assistant" else 0
    if not text[start:].strip():
        return []
    who = speaker(message)
    at = message.created_at or utcnow()
    parts = [(start + offset, part) for offset, part in chunks(text[start:], store.settings.episode_tokens)]
    base_meta = {k: v for k, v in (message.meta or {}).items() if k not in _SKIP_META}
    source = SourceType.USER_STATED if message.role == "user" else SourceType.AGENT
    reply_tokens = store.settings.reply_embed_tokens
    out = []
    for n, (offset, part) in enumerate(parts):
        meta: dict[str, Any] = {**mask_value(base_meta), "role": message.role, "speaker": who}
        if len(parts) > 1 or start:
            meta.update(part=n + 1, parts=len(parts), offset=offset, length=len(part))
        out.append(
            Episode(
                _row(user, agent_id, message, who, part, at, meta, source),
                embedded(MemoryType.EPISODE, part, who, at, source, reply_tokens),
            )
        )
    return out


def _row(
    user: User, agent_id: str, message: Message, who: str, text: str, at: datetime, meta: dict[str, Any], source: str
) -> dict[str, Any]:
    return new_lifecycle(utcnow()) | {
        "id": new_id(),
        "user_key": user.key,
        "agent_id": agent_id,
        "type": MemoryType.EPISODE,
        "subject": who,
        "predicate": None,
        "object": None,
        "content": text,
        "source_type": source,
        "source_message_ids": [message.id],
        "confidence": 1.0,
        "importance": EPISODE_IMPORTANCE,
        "event_time": at,
        "created_at": at,
        "meta": provenance.stamp_meta(meta),
    }


def episode_for(episodes: list[Episode], evidence: str) -> str | None:
    """The id of the episode a fact came from: the part holding its evidence, else the message's first part."""
    if not episodes:
        return None
    probe = evidence.strip()[:40]
    for e in episodes:
        if probe and probe in e.row["content"]:
            return e.id
    return episodes[0].id
