"""``Agent``: the facade the CLI and the Streamlit pages use to run the memory loop.

    agent = Agent(service)                  # model from the factory (offline unless configured)
    result = agent.chat("u1", "s1", "我住在杭州")
    for piece in (stream := agent.stream("u1", "s1", "酒店换便宜点的")):
        print(piece, end="")
    stream.result.context["total_used"]

Nothing connects in the constructor; the compiled graph and its checkpointer are made on first use.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, cast

from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver

from agent import checkpoint
from agent import graph as g
from agent.llm import make_chat_model, make_summariser
from agent.state import CompiledTurnGraph, TurnContext, TurnState
from memory.errors import NotFound
from memory.retrieval.recall import RecallResult
from memory.service import MemoryService
from memory.vocab import Actor, Role
from memory.write.consistency import consistent_text
from memory.write.pipeline import WriteReport


@dataclass
class TurnResult:
    reply: str
    turn_id: int | None
    session_id: str
    session_key: str
    recall: RecallResult | None
    context: dict[str, Any]  # the composer's allocation per section (memory.sessions.prompt.Composition)
    bridge: str | None
    write_job: Future[WriteReport | None] | None = field(default=None, repr=False)
    model: str = ""
    state: TurnState = field(default_factory=lambda: TurnState())

    @property
    def writes(self) -> WriteReport | None:
        """What the turn wrote. The write runs after the reply, so reading this waits for it (and raises its error)."""
        return self.write_job.result() if self.write_job is not None else None

    @property
    def retrieval_query(self) -> str | None:
        return self.recall.retrieval_query if self.recall else None

    def to_dict(self) -> dict[str, Any]:
        """The ``memlens chat --json`` object: reply, hits (as recall's), context allocation, bridge, writes."""
        recall = self.recall.to_dict() if self.recall else {}
        return {
            "reply": self.reply,
            "turn_id": self.turn_id,
            "session_id": self.session_id,
            "model": self.model,
            "query": recall.get("query"),
            "retrieval_query": recall.get("retrieval_query"),
            "retrieval_id": recall.get("retrieval_id"),
            "hits": recall.get("hits", []),
            "context": self.context,
            "bridge": self.bridge,
            "writes": self.writes.to_dict() if self.writes else None,
        }


class TurnStream:
    """Iterate for the reply's text chunks; ``result`` holds the TurnResult once the iteration has finished."""

    def __init__(self, chunks: Iterator[str]) -> None:
        self._chunks = chunks
        self.result: TurnResult | None = None

    def __iter__(self) -> Iterator[str]:
        yield from self._chunks


class Agent:
    def __init__(self, service: MemoryService, chat_model: BaseChatModel | None = None) -> None:
        self.service = service
        self._model = chat_model
        self._graph: CompiledTurnGraph | None = None
        self._saver: BaseCheckpointSaver[str] | None = None
        self._lock = threading.Lock()
        self._background: list[threading.Thread] = []
        self.last_result: TurnResult | None = None

    @property
    def model(self) -> BaseChatModel:
        if self._model is None:
            self._model = make_chat_model(self.service.settings)
        return self._model

    @property
    def graph(self) -> CompiledTurnGraph:
        with self._lock:
            if self._graph is None:
                self._saver = checkpoint.make_checkpointer(self.service.settings)
                self._graph = checkpoint.compile_graph(self._saver)
            return self._graph

    def close(self) -> None:
        self.wait()
        if self._saver is not None:
            checkpoint.close_checkpointer(self._saver)
        self._graph = self._saver = None

    def wait(self, timeout: float | None = 60) -> None:
        """Join background summaries and writes, and let the retrieval log catch up (tests, benchmarks, shutdown)."""
        while self._background:
            self._background.pop().join(timeout)
        self.service.wait_writes(None, timeout)
        self.service.flush_retrieval_log(timeout)

    # -- turns -------------------------------------------------------------------------------------------------
    def _context(
        self,
        user_id: str,
        session_id: str,
        text: str,
        agent_id: str | None,
        idempotency_key: str | None = None,
        speaker: str | None = None,
        at: datetime | None = None,
    ) -> TurnContext:
        svc = self.service
        user = svc.ensure_user(user_id)
        session = svc.ensure_session(user, session_id, agent_id)
        return TurnContext(
            service=svc,
            model=self.model,
            summariser=make_summariser(self.model),
            settings=svc.effective_settings(),
            user=user,
            session=session,
            text=text,
            idempotency_key=idempotency_key,
            speaker=speaker,
            at=at,
            background=self._background,
        )

    def stream(
        self,
        user_id: str,
        session_id: str,
        text: str,
        *,
        agent_id: str | None = None,
        idempotency_key: str | None = None,
        speaker: str | None = None,
        at: datetime | None = None,
        actor: Actor | None = None,
    ) -> TurnStream:
        """Run one turn; iterate the returned object for the reply as it is generated.

        A person chatting through a door (the back office, REST) passes ``actor``: a turn writes the user's message
        and the memories drawn from it, so it needs the curator role, checked here — a viewer gets
        :class:`~memory.errors.Forbidden` and a ``denied`` audit row before anything is written, whatever page or
        request reached this. Without ``actor`` the caller is the program itself (the CLI, a library user).

        A client retrying a turn passes the same ``idempotency_key``: the message is stored once and its memories
        are written once (the reply is generated again). ``speaker`` names who said it (a conversation with named
        speakers) and ``at`` when (a client replaying a conversation); both are stored on the message.
        """
        self._may_chat(actor)
        ctx = self._context(user_id, session_id, text, agent_id, idempotency_key, speaker, at)
        stream = TurnStream(iter(()))
        stream._chunks = self._run(ctx, TurnState(action="turn"), stream)
        return stream

    def _may_chat(self, actor: Actor | None, action: str = "chat as a user (the agent writes memories)") -> None:
        if actor is not None:
            self.service.require(actor, Role.CURATOR, action)  # the role now, audited when refused

    def _run(self, ctx: TurnContext, state: TurnState, holder: TurnStream) -> Iterator[str]:
        config: RunnableConfig = {"configurable": {"thread_id": ctx.session.id}}
        final: TurnState = {}
        try:
            # durability="exit": one checkpoint per turn — every step already leaves its own SQL record
            for mode, payload in self.graph.stream(
                state, config, context=ctx, stream_mode=["custom", "values"], durability="exit"
            ):
                if mode == "custom" and isinstance(payload, dict) and "delta" in payload:
                    yield payload["delta"]
                elif mode == "values":
                    final = cast(TurnState, payload)  # the "values" stream: the whole state after each step
        except Exception:
            if not self._swept(ctx):  # a write into rows erased meanwhile fails: that turn just ends, quietly
                raise
        else:
            self._swept(ctx)
        holder.result = self.last_result = self._result(ctx, final)

    def _swept(self, ctx: TurnContext) -> bool:
        """Erased while the turn ran (another process deleted the user or session)? Remove what the turn wrote
        meanwhile — rows, its checkpoint, vectors — so nothing of the erased user remains."""
        if self.service.sweep_erased(ctx.session.user_key, ctx.session.id):
            ctx.scratch.erased = True
            return True
        return False

    def chat(
        self,
        user_id: str,
        session_id: str,
        text: str,
        *,
        agent_id: str | None = None,
        idempotency_key: str | None = None,
        speaker: str | None = None,
        at: datetime | None = None,
        actor: Actor | None = None,
    ) -> TurnResult:
        stream = self.stream(
            user_id,
            session_id,
            text,
            agent_id=agent_id,
            idempotency_key=idempotency_key,
            speaker=speaker,
            at=at,
            actor=actor,
        )
        for _ in stream:
            pass
        assert stream.result is not None
        return stream.result

    def _result(self, ctx: TurnContext, state: TurnState) -> TurnResult:
        s = ctx.scratch
        return TurnResult(
            reply=s.reply,
            turn_id=state.get("turn_id"),
            session_id=ctx.session.external_id,
            session_key=ctx.session.id,
            recall=s.recall,
            context=s.composition.allocation if s.composition else {},
            bridge=consistent_text(s.bridge, s.profile, s.retracted) if s.bridge else None,  # as the prompt got it
            write_job=s.write_job,
            model=g._model_name(ctx.model),
            state=TurnState(**state),
        )

    # -- sessions ----------------------------------------------------------------------------------------------
    def end_session(
        self, user_id: str, session_id: str, *, agent_id: str | None = None, actor: Actor | None = None
    ) -> str | None:
        """End the session (through the graph, on its own thread) and return the bridge text, if any. ``actor`` as
        for :meth:`stream`: ending a session writes its summary and bridge, a curator's right."""
        self._may_chat(actor, "end a chat session (its summary is written)")
        svc = self.service
        user = svc.get_user(user_id)
        agent = agent_id or svc.settings.default_agent_id
        session = svc.find_session(user, session_id, agent)
        if session is None:
            raise NotFound(f"no session {session_id[:80]!r} for this user")
        ctx = TurnContext(
            service=svc,
            model=self.model,
            summariser=make_summariser(self.model),
            settings=svc.effective_settings(),
            user=user,
            session=session,
        )
        self.graph.invoke(TurnState(action="end"), {"configurable": {"thread_id": session.id}}, context=ctx)
        bridge = ctx.scratch.bridge_written
        return bridge.text if bridge else None
