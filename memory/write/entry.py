"""The one write entry: every way words reach memory — the chat turn's background write, the mem0-shaped door
(Python and REST), the MCP tool, the LangGraph store, ``memlens remember``, ``seed-demo`` and the evaluation
ingest — ends in :func:`write` (or :func:`write_verbatim`, the store's ``infer=False`` put).

Why one function: a write reads what the user already has (contradictions, duplicates, the profile) and then
writes. Two writers for one user that skip the lock both miss each other (a chat turn racing ``Memory.add`` left
two home cities in about a third of the runs), and two doors with their own idea of whose words are facts gave
four different answers (chat read the user only; the mem0 door and LongMemEval the assistant too; LoCoMo both
speakers as the user). So :func:`write`:

1. refuses bad input before anything is stored (text, role, metadata: a NUL anywhere is an ``InvalidInput``);
2. holds the user's write lock (:mod:`memory.storage.userlock`: threads, processes, PostgreSQL clients);
3. stores the new messages in ONE transaction, masked;
4. decides by ONE rule, :func:`own_words`, which messages are read for facts: only the user's own words. Every
   other message (the agent's reply, the other party of a two-person conversation) is kept as an episode with its
   speaker, never read as evidence for a user fact;
5. runs the write path (:mod:`memory.write.batch`): the memory rows and the write log in one transaction, one
   index append.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypedDict

from memory import validate
from memory.errors import InvalidInput
from memory.storage import integrity, records
from memory.storage.models import Memory, MemoryEvent, Message, Session, User, stored_id
from memory.storage.userlock import user_writes
from memory.vocab import EventOp
from memory.write import batch
from memory.write.pipeline import Item, WriteReport

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from memory.storage.store import Storage


@dataclass(frozen=True)
class Said:
    """A message not stored yet: :func:`write` stores it (validated, masked) under the user's lock."""

    role: str
    content: str
    meta: dict[str, Any] = field(default_factory=dict)
    created_at: datetime | None = None


class WriteOptions(TypedDict, total=False):
    """:func:`write`'s keyword options, named once so a facade that only wraps the write (batch ingest under more
    embedding threads) passes them on typed instead of repeating the list."""

    agent_id: str | None
    turn_id: int | None
    model: Any
    keep_unparsed: bool
    infer: bool | Sequence[bool]
    owner: str | None


def own_words(message: Message, owner: str | None = None) -> bool:
    """THE rule for whose words are read for facts about the user: a ``user`` message, and — when the conversation
    names its speakers and ``owner`` says which one the user is (LoCoMo's two people: the user's name,
    ``User.display_name``) — one that speaker said.
    An assistant reply is never evidence for a user fact (it is composed from memory; re-reading it would store
    recalled memories again as inferences), nor is another person's turn."""
    if message.role != "user":
        return False
    if owner is None:
        return True
    named = (message.meta or {}).get("speaker")
    return not isinstance(named, str) or not named.strip() or named.strip() == owner.strip()


def checked(said: Sequence[Said], limit: int) -> list[Said]:
    """Every new message refused or accepted before any is stored: nothing half-written."""
    out = []
    for s in said:
        content = validate.text(s.content, limit, limit_name="MEMLENS_MAX_DOCUMENT_CHARS")
        validate.role(s.role)
        validate.clean_value(s.meta, "metadata")
        out.append(Said(s.role, content, s.meta, s.created_at))
    return out


def write(
    store: Storage,
    user: User,
    session: Session,
    said: Sequence[Message | int | Said],
    *,
    agent_id: str | None = None,
    turn_id: int | None = None,
    model: BaseChatModel | None = None,
    keep_unparsed: bool = False,
    infer: bool | Sequence[bool] = True,
    owner: str | None = None,
) -> list[WriteReport]:
    """Store what is new in ``said``, then the write path on every message, in order, under the user's lock; one
    report each. Facts are read from a message when ``infer`` allows it (one flag, or one per message) AND it is
    the user's own words (:func:`own_words`); ``keep_unparsed`` keeps a user's explicit request no rule
    understood as a free-text fact. ``owner``: the speaker the user is in a conversation with named speakers
    (default: the name the user goes by, ``User.display_name``; none = every user message is the user's). A message
    already written reports "already written" and writes nothing."""
    if session.user_key != user.key:
        raise InvalidInput("the session belongs to another user")
    flags = [infer] * len(said) if isinstance(infer, bool) else [bool(f) for f in infer]
    if len(flags) != len(said):
        raise InvalidInput("infer must be one flag or one per message")
    new = checked([s for s in said if isinstance(s, Said)], store.settings.max_document_chars)
    agent = validate.agent_id(agent_id or session.agent_id, store.settings.default_agent_id)
    owner = owner if owner is not None else user.display_name
    with user_writes(store, user.external_id):
        stored = iter(records.add_messages(store, session, new) if new else [])
        msgs = batch.load(store, [next(stored) if isinstance(s, Said) else s for s in said])
        if any(m.user_key != user.key for m in msgs):
            raise InvalidInput("the message belongs to another user")
        ids = [stored_id(m.id, "message") for m in msgs]
        owned = batch.claim(store, ids)
        items: dict[int, Item] = {}
        for m, mid, read in zip(msgs, ids, flags, strict=True):
            if mid in owned and mid not in items:  # a message listed twice is written once
                items[mid] = Item(m, turn_id=turn_id, keep_unparsed=keep_unparsed, infer=read and own_words(m, owner))
        if items:
            batch.write_items(store, user, list(items.values()), agent_id=agent, model=model)
    out = []
    for m, mid in zip(msgs, ids, strict=True):
        it = items.pop(mid, None)
        out.append(batch.prepared(it) if it else WriteReport(mid, m.role, False, "already written (repeated message)"))
    return out


def write_verbatim(
    store: Storage, user: User, session: Session, said: Said, *, agent_id: str | None, meta: dict[str, Any] | None
) -> Memory:
    """``said`` stored, and its text kept as ONE memory as it is, no extraction (mem0's ``infer=False`` for one
    text, the LangGraph store's put), under the user's lock; the message is its source and the ADD is logged."""
    validate.clean_value(meta, "metadata")
    [said] = checked([said], store.settings.max_document_chars)
    with user_writes(store, user.external_id):
        [message] = records.add_messages(store, session, [said])
        message_id = stored_id(message.id, "message")
        integrity.claim_for_write(store, message_id)  # nobody runs the pipeline on it later: this is its write
        source = "user-stated" if message.role == "user" else "tool"
        memory = records.add_memory(
            store,
            user,
            message.content,
            agent_id=agent_id,
            source_message_ids=[message_id],
            source_type=source,
            meta=meta or {},
        )
        with store.db() as db:
            db.add(
                MemoryEvent(
                    user_key=user.key,
                    agent_id=memory.agent_id,
                    memory_id=memory.id,
                    op=EventOp.ADD,
                    reason="stored verbatim (no extraction requested)",
                    content=memory.content,
                    message_id=message_id,
                    detail={"source_type": source, "infer": False},
                )
            )
            db.commit()
    return memory
