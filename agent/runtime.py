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
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel

from agent import checkpoint
from agent import graph as g
from agent.llm import make_chat_model, make_summariser
from memory.errors import NotFound
from memory.retrieval import log as retrieval_log
from memory.retrieval.recall import RecallResult
from memory.service import MemoryService
from memory.sessions import summary


@dataclass
class TurnResult:
    reply: str
    turn_id: int | None
    session_id: str
    session_key: str
    recall: RecallResult | None
    context: dict[str, Any]
    bridge: str | None
    writes: Any = None
    model: str = ""
    state: dict[str, Any] = field(default_factory=dict)

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
            "writes": _writes_dict(self.writes),
        }


def _writes_dict(writes: Any) -> dict[str, Any] | None:
    if writes is None:
        return None
    if hasattr(writes, "to_dict"):
        return writes.to_dict()
    return {
        "operations": list(getattr(writes, "operations", []) or []),
        "profile_changes": list(getattr(writes, "profile_changes", []) or []),
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
        self._graph = None
        self._saver = None
        self._lock = threading.Lock()
        self._background: list[threading.Thread] = []
        self.last_result: TurnResult | None = None

    @property
    def model(self) -> BaseChatModel:
        if self._model is None:
            self._model = make_chat_model(self.service.settings)
        return self._model

    @property
    def graph(self):
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
        """Join background summaries and let the retrieval log catch up (tests, benchmarks, shutdown)."""
        while self._background:
            self._background.pop().join(timeout)
        retrieval_log.flush(self.service, timeout)

    # -- turns -------------------------------------------------------------------------------------------------
    def _context(
        self, user_id: str, session_id: str, text: str, agent_id: str | None, idempotency_key: str | None = None
    ) -> g.TurnContext:
        svc = self.service
        user = svc.ensure_user(user_id)
        session = svc.ensure_session(user, session_id, agent_id)
        return g.TurnContext(
            service=svc,
            model=self.model,
            summariser=make_summariser(self.model),
            settings=svc.effective_settings(),
            user=user,
            session=session,
            text=text,
            idempotency_key=idempotency_key,
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
    ) -> TurnStream:
        """Run one turn; iterate the returned object for the reply as it is generated.

        A client retrying a turn passes the same ``idempotency_key``: the message is stored once and its memories
        are written once (the reply is generated again).
        """
        ctx = self._context(user_id, session_id, text, agent_id, idempotency_key)
        stream = TurnStream(iter(()))
        stream._chunks = self._run(ctx, {"action": "turn"}, stream)
        return stream

    def _run(self, ctx: g.TurnContext, state: dict[str, Any], holder: TurnStream) -> Iterator[str]:
        config = {"configurable": {"thread_id": ctx.session.id}}
        final: dict[str, Any] = {}
        try:
            # durability="exit": one checkpoint per turn — every step already leaves its own SQL record
            for mode, payload in self.graph.stream(
                state, config, context=ctx, stream_mode=["custom", "values"], durability="exit"
            ):
                if mode == "custom" and isinstance(payload, dict) and "delta" in payload:
                    yield payload["delta"]
                elif mode == "values":
                    final = payload
        except Exception:
            if not self._swept(ctx):  # a write into rows erased meanwhile fails: that turn just ends, quietly
                raise
        else:
            self._swept(ctx)
        holder.result = self.last_result = self._result(ctx, final)

    def _swept(self, ctx: g.TurnContext) -> bool:
        """Erased while the turn ran (another process deleted the user or session)? Remove what the turn wrote
        meanwhile — rows, its checkpoint, vectors — so nothing of the erased user remains."""
        from memory.lifecycle.export import sweep_erased

        if sweep_erased(self.service, ctx.session.user_key, ctx.session.id):
            ctx.scratch["erased"] = True
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
    ) -> TurnResult:
        stream = self.stream(user_id, session_id, text, agent_id=agent_id, idempotency_key=idempotency_key)
        for _ in stream:
            pass
        assert stream.result is not None
        return stream.result

    def _result(self, ctx: g.TurnContext, state: dict[str, Any]) -> TurnResult:
        s = ctx.scratch
        comp = s.get("composition")
        return TurnResult(
            reply=s.get("reply", ""),
            turn_id=state.get("turn_id"),
            session_id=ctx.session.external_id,
            session_key=ctx.session.id,
            recall=s.get("recall"),
            context=comp.allocation if comp else {},
            bridge=s.get("bridge"),
            writes=s.get("writes"),
            model=g._model_name(ctx.model),
            state=dict(state),
        )

    # -- sessions ----------------------------------------------------------------------------------------------
    def end_session(self, user_id: str, session_id: str, *, agent_id: str | None = None) -> str | None:
        """End the session (through the graph, on its own thread) and return the bridge text, if any."""
        svc = self.service
        user = svc.get_user(user_id)
        agent = agent_id or svc.settings.default_agent_id
        session = summary.find_session(svc, user.key, session_id, agent)
        if session is None:
            raise NotFound(f"no session {session_id[:80]!r} for this user")
        ctx = g.TurnContext(
            service=svc,
            model=self.model,
            summariser=make_summariser(self.model),
            settings=svc.effective_settings(),
            user=user,
            session=session,
        )
        self.graph.invoke({"action": "end"}, {"configurable": {"thread_id": session.id}}, context=ctx)
        bridge = ctx.scratch.get("bridge_written")
        return bridge.text if bridge else None
