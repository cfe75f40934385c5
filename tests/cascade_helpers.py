"""What the cascade tests do and read on both layers (tests/test_cascade_*.py; not a test module): a turn through the
offline agent with its writes settled, a fact found by its words, what a turn selected, a session's stored bridge."""

from __future__ import annotations

from sqlmodel import select

from agent.runtime import Agent
from memory.storage.models import SessionBridge
from memory.vocab import SEMANTIC_TYPES, Actor, MemoryStatus, Role, SourceType

#: the curator whose corrections the cascade tests make (as the back office does)
ANA = Actor("ana", Role.CURATOR, "ui")


def chat_settled(svc, user: str, session: str, text: str):
    """One turn through the offline agent, returned once its background writes are done (so the test reads them)."""
    agent = Agent(svc)
    try:
        result = agent.chat(user, session, text)
        svc.wait_writes(user)
        return result
    finally:
        agent.close()


def fact_with(svc, user: str, needle: str):
    """The user's fact (any status) whose words hold ``needle``, not a person's edit of it."""
    rows = svc.list_memories(svc.get_user(user), types=SEMANTIC_TYPES, statuses=tuple(MemoryStatus))
    return next(m for m in rows if needle in m.content and m.source_type != SourceType.PERSON_EDIT)


def selected_contents(result) -> list[str]:
    """The words of the memories a turn injected."""
    return [h.content for h in result.recall.selected] if result.recall else []


def bridge_text(svc, session_key: str) -> str:
    """The bridge stored from that session ("" when there is none)."""
    with svc.storage.db() as db:
        row = db.exec(select(SessionBridge).where(SessionBridge.from_session_id == session_key)).first()
    return row.text if row else ""
