"""One stored message through the write pipeline (``MemoryService.write_from_message``), and a text stored as one
memory as it is (``remember_verbatim``: mem0's ``infer=False``, the LangGraph store's put).

Both take the message's write claim first, so a retried or concurrent write of one message runs once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memory import validate
from memory.errors import InvalidInput, NotFound
from memory.storage import integrity, records
from memory.storage.models import Memory, MemoryEvent, Message, Session, User
from memory.vocab import EventOp
from memory.write.batch import run
from memory.write.pipeline import WriteReport

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from memory.storage.store import Storage


def stored_message(store: Storage, message: Message | int) -> tuple[Message, int]:
    """(the stored message, its id), looked up when given by id; NotFound / InvalidInput otherwise."""
    if not isinstance(message, Message):
        with store.db() as db:
            found = db.get(Message, message)
        if found is None:
            raise NotFound(f"no message {message!r}")
        message = found
    if message.id is None:
        raise InvalidInput("the message is not stored")
    return message, message.id


def write_message(
    store: Storage,
    user: User,
    session: Session,
    message: Message | int,
    *,
    agent_id: str | None,
    turn_id: int | None,
    model: BaseChatModel | None,
    keep_unparsed: bool,
) -> WriteReport:
    """The pipeline on one stored message of ``user``; a message already written reports so and writes nothing."""
    message, message_id = stored_message(store, message)
    if message.user_key != user.key:
        raise InvalidInput("the message belongs to another user")
    agent = validate.agent_id(agent_id or session.agent_id, store.settings.default_agent_id)
    if not integrity.claim_for_write(store, message_id):  # a retried or concurrent write: it runs once
        return WriteReport(message_id, message.role, False, "already written (repeated message)")
    return run(store, user, session, message, agent_id=agent, turn_id=turn_id, model=model, keep_unparsed=keep_unparsed)


def write_verbatim(
    store: Storage, user: User, message: Message, *, agent_id: str | None, meta: dict[str, Any] | None
) -> Memory:
    """``message``'s text as one memory, no extraction; the message is its source and the ADD is logged."""
    message, message_id = stored_message(store, message)
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
