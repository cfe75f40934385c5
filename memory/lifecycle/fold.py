"""Folding: episodes the cap archives leave a summary of their session behind, so old conversation stays findable.

Why: episodes never fade, but a user's active episodes have a cap (``max_active_episodes``). Without folding, an
episode over the cap would drop out of recall with nothing in its place, and what was said in an old session would
be found only through the facts that rules happened to read from it. So when a forgetting run archives episodes over
the cap, the archived episodes of each session become one ``summary`` memory:

- **Content**: what was said, in the speakers' own (already masked) words. It starts with the day it was said, and
  each episode gets one "speaker: words" line in the order said, shortened to an equal share of ``FOLD_TOKENS`` ("…"
  marks a cut). Nothing is paraphrased, so the summary quotes only what was actually said.
- **Provenance**: ``source_message_ids`` are the messages of every folded episode, ``event_time`` is when the first of
  them was said, and ``meta.folded_from`` lists the episode ids. Each folded episode's archive reason names its
  summary.
- **Lifecycle**: a summary is a memory of the semantic layer. It is recalled like a fact, fades when it is never
  recalled, and counts toward ``max_active_memories``. Deleting its session or one of its messages purges it with the
  episodes (:func:`memory.lifecycle.erasure.episodes_of`): erasure always wins over the digest.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlmodel import col, select

from memory.prompts import FOLD_WORDS
from memory.storage import records
from memory.storage.models import Memory, Message
from memory.text.language import language
from memory.text.tokens import count_tokens, truncate_to_tokens
from memory.vocab import MemoryStatus, MemoryType, SourceType
from memory.write.episodes import EPISODE_IMPORTANCE

if TYPE_CHECKING:
    from memory.storage.store import Storage

#: the token budget of one session's summary (a prompt line, not a transcript)
FOLD_TOKENS = 160
#: each folded episode keeps at least this many tokens of its words
MIN_LINE_TOKENS = 12
#: how an episode's archive reason says where its words went
FOLDED = "folded into a summary of its session"


@dataclass(frozen=True)
class Folded:
    """One summary written for the archived episodes of one session."""

    summary_id: str
    session_id: str
    episode_ids: list[str]
    content: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "summary_id": self.summary_id,
            "session_id": self.session_id,
            "episodes": len(self.episode_ids),
            "content": self.content,
        }


def line(speaker: str, words: str, budget: int, colon: str = ": ") -> str:
    """``speaker: words``, the words cut to ``budget`` tokens (a cut ends with "…")."""
    words = " ".join(words.split())
    if count_tokens(words) > budget:
        words = truncate_to_tokens(words, budget).rstrip() + "…"
    return f"{speaker}{colon}{words}"


def summary_text(episodes: Sequence[Memory]) -> str:
    """The folded episodes (one session's, in the order said) as one summary in their own words."""
    first = min(e.created_at for e in episodes)
    words = FOLD_WORDS[language(" ".join(e.content for e in episodes))]
    budget = max(MIN_LINE_TOKENS, FOLD_TOKENS // max(1, len(episodes)))
    speakers = words["speakers"]
    body = words["sep"].join(
        line(speakers.get(e.subject or "User", e.subject or ""), e.content, budget, words["colon"]) for e in episodes
    )
    return words["said"].format(day=f"{first:%Y-%m-%d}") + body


def fold(store: Storage, episode_ids: Sequence[str]) -> list[Folded]:
    """Write one summary per (user, agent, session) of these archived episodes; returns what was written."""
    if not episode_ids:
        return []
    with store.db() as db:
        episodes = db.exec(
            select(Memory).where(
                col(Memory.id).in_(list(episode_ids)),
                Memory.type == MemoryType.EPISODE,
                Memory.status == MemoryStatus.ARCHIVED,
            )
        ).all()
        message_ids = {int(i) for e in episodes for i in e.source_message_ids or []}
        session_of = dict(
            db.exec(select(Message.id, Message.session_id).where(col(Message.id).in_(message_ids))).all()
            if message_ids
            else []
        )
    groups: dict[tuple[str, str, str], list[Memory]] = defaultdict(list)
    for e in episodes:
        sources = [int(i) for i in e.source_message_ids or []]
        session = next((session_of[i] for i in sources if i in session_of), "")
        groups[(e.user_key, e.agent_id, session)].append(e)
    # one write per (user, agent): one embedding call and one index append however many sessions were folded
    drafts: dict[tuple[str, str], list[tuple[str, list[str], records.MemoryDraft]]] = defaultdict(list)
    for (user_key, agent_id, session), members in groups.items():
        members.sort(
            key=lambda e: (e.created_at, min(map(int, e.source_message_ids or [0])), (e.meta or {}).get("offset", 0))
        )
        draft = records.MemoryDraft(
            content=summary_text(members),
            type=MemoryType.SUMMARY,
            source_type=SourceType.SYSTEM,
            source_message_ids=sorted({int(i) for e in members for i in e.source_message_ids or []}),
            importance=EPISODE_IMPORTANCE,
            event_time=members[0].created_at,
            meta={"folded_from": [e.id for e in members], "rule": "episode cap"},
        )
        drafts[(user_key, agent_id)].append((session, [e.id for e in members], draft))
    written: list[Folded] = []
    for (user_key, agent_id), planned in drafts.items():
        user = records.user_by_key(store, user_key)
        if user is None:
            continue
        rows = records.add_memories(store, user, [d for _, _, d in planned], agent_id=agent_id)
        written += [Folded(row.id, s, ids, row.content) for row, (s, ids, _) in zip(rows, planned, strict=True)]
    return written


def folded_summaries(store: Storage, user_key: str, limit: int = 200) -> list[dict[str, Any]]:
    """The user's active summaries folded from episodes, newest first (what the Lifecycle page lists)."""
    with store.db() as db:
        rows = db.exec(
            select(Memory)
            .where(Memory.user_key == user_key, Memory.type == MemoryType.SUMMARY, Memory.status == MemoryStatus.ACTIVE)
            .order_by(col(Memory.created_at).desc())
            .limit(limit)
        ).all()
    return [
        {
            "memory_id": m.id,
            "said_on": m.event_time,
            "folded_at": m.created_at,
            "episodes": len((m.meta or {}).get("folded_from", [])),
            "content": m.content[:300],
        }
        for m in rows
        if (m.meta or {}).get("folded_from")
    ]
