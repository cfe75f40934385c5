"""The data one turn of the memory loop carries, typed: what is checkpointed, what the run holds, what each node made.

TurnState    checkpointed on the session's thread: ids and small facts only, never raw text (PII is masked only
             in what MemLens stores)
TurnContext  run-scoped, never checkpointed: the collaborators (service, model, summariser, settings), the user,
             the session and the raw input — and ``scratch``
TurnScratch  what each node produced for the nodes after it (load_context → recall → compose → respond → write)
             and for the turn's result (``agent.runtime.TurnResult``)
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypedDict

from langchain_core.language_models import BaseChatModel
from langgraph.graph import StateGraph
from langgraph.graph.state import CompiledStateGraph

from memory.config import Settings
from memory.retrieval.recall import RecallResult
from memory.service import MemoryService
from memory.sessions.extractive import Summariser
from memory.sessions.prompt import Composition, MemoryItem
from memory.storage.models import Message, Session, SessionBridge, User
from memory.write.pipeline import WriteReport


class TurnState(TypedDict, total=False):
    action: str  # "turn" (default) | "end"
    turn_id: int
    user_message_id: int
    reply_message_id: int
    first_turn: bool
    bridge_id: int | None
    goal: str | None
    retrieval_id: int | None
    snapshot_id: int | None
    ended: bool


class TurnNotReady(RuntimeError):
    """A node read what an earlier node had not produced (the graph's order was changed)."""


@dataclass
class TurnScratch:
    """What the nodes hand each other within one run. Each field names the node that fills it."""

    # load_context
    user_message: Message | None = None
    bridge: str | None = None  # the last session's bridge text, taken on the first turn
    summaries: list[str] = field(default_factory=list)  # this session's summary anchors, oldest first
    history: list[Message] = field(default_factory=list)  # recent messages after the last anchor, input excluded
    profile: dict[str, Any] = field(default_factory=dict)  # field → value (str, number or list, as stated)
    profile_sources: dict[str, str] = field(default_factory=dict)  # field → where its value came from
    profile_dates: dict[str, datetime] = field(default_factory=dict)  # field → when its value was last set
    retracted: set[tuple[str, str]] = field(default_factory=set)  # (predicate, object) statements that no longer hold
    # recall
    recall: RecallResult | None = None
    # compose
    memory_items: list[MemoryItem] = field(default_factory=list)  # what was offered to the composer, in rank order
    importance: dict[str, float] = field(default_factory=dict)  # memory id → importance (offline replies rank by it)
    composition: Composition | None = None
    # respond
    reply: str = ""
    # write_memory: the write runs after the reply, in the background (memory/write/behind.py)
    write_job: Future[WriteReport | None] | None = None
    # end_session
    bridge_written: SessionBridge | None = None
    # any node (and the runtime): the user or session was erased while the turn ran
    erased: bool = False

    def recalled(self) -> RecallResult:
        if self.recall is None:
            raise TurnNotReady("recall has not run")
        return self.recall

    def composed(self) -> Composition:
        if self.composition is None:
            raise TurnNotReady("compose has not run")
        return self.composition

    def written(self, timeout: float | None = 60) -> WriteReport | None:
        """What write_memory wrote, once its background job has finished (its error, if any, is raised here)."""
        return self.write_job.result(timeout) if self.write_job is not None else None

    def input_message(self) -> Message:
        if self.user_message is None:
            raise TurnNotReady("load_context has not run")
        return self.user_message


@dataclass
class TurnContext:
    """Run-scoped objects (not checkpointed): collaborators, the raw input and what each node produced."""

    service: MemoryService
    model: BaseChatModel
    summariser: Summariser
    settings: Settings
    user: User
    session: Session
    text: str = ""
    idempotency_key: str | None = None
    #: who said the message, when the conversation has named speakers (stored on the message; its episode's speaker)
    speaker: str | None = None
    #: when it was said, for a client replaying a conversation (default: now)
    at: datetime | None = None
    background: list[threading.Thread] = field(default_factory=list)
    scratch: TurnScratch = field(default_factory=TurnScratch)


#: the memory loop's graph, typed: state in and out, the run's context
TurnGraph = StateGraph[TurnState, TurnContext, TurnState, TurnState]
CompiledTurnGraph = CompiledStateGraph[TurnState, TurnContext, TurnState, TurnState]
