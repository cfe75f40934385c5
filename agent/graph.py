"""The memory loop as a LangGraph StateGraph (README, "Architecture").

    START ─┬─ load_context → recall → compose → respond → write_memory → maybe_summarise → END
           └─ end_session (action == "end": write the session bridge) → END

``build_graph()`` returns the *uncompiled* builder, so tests can compile it with any checkpointer;
:mod:`agent.checkpoint` sets up the production one, in the MemLens database itself, one thread per session.

The checkpointed state holds ids and small facts only — never raw text (PII is masked only in what MemLens stores).
Live objects (the service, the model, the raw input, the recall result) travel in the run-scoped ``TurnContext``.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypedDict

from langchain_core.language_models import BaseChatModel
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from agent.llm import is_offline
from agent.offline import OfflineContext, Recalled, is_about_me
from memory import profile_sync
from memory.config import Settings
from memory.retrieval import log as retrieval_log
from memory.service import MemoryService
from memory.sessions import prompt, summary
from memory.sessions.consistency import consistent_text
from memory.storage.models import Turn

log = logging.getLogger(__name__)


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


@dataclass
class TurnContext:
    """Run-scoped objects (not checkpointed): collaborators, the raw input and what each node produced."""

    service: MemoryService
    model: BaseChatModel
    summariser: Any
    settings: Settings
    user: Any
    session: Any
    text: str = ""
    idempotency_key: str | None = None
    background: list[threading.Thread] = field(default_factory=list)
    scratch: dict[str, Any] = field(default_factory=dict)


Rt = Runtime[TurnContext]


def load_context(state: TurnState, runtime: Rt) -> dict[str, Any]:
    """Cheap loads: close stale sessions, take the bridge on turn 1, store the input, profile, summary, history."""
    c = runtime.context
    svc, session, settings = c.service, c.session, c.settings
    first = not svc.messages(session.id, limit=1)
    summary.close_other_sessions(svc, session, settings, first_turn=first, summariser=c.summariser)
    summary.reopen(svc, session)
    bridge = summary.take_bridge(svc, session) if first else None
    msg = svc.add_message(session, "user", c.text, idempotency_key=c.idempotency_key)
    with svc.db() as db:
        turn = Turn(
            session_id=session.id, user_key=session.user_key, user_message_id=msg.id, model=_model_name(c.model)
        )
        db.add(turn)
        db.commit()
    anchors = summary.anchors(svc, session.id)
    done = max((a.to_message_id for a in anchors), default=0)
    history = [m for m in svc.messages(session.id, after_id=done) if m.id != msg.id][-settings.history_messages :]
    summaries = [a.text for a in anchors]
    c.scratch.update(
        user_message=msg,
        bridge=bridge.text if bridge else None,
        summaries=summaries,
        history=history,
        profile=_profile(svc, c.user),
        profile_sources={name: f.source for name, f in svc.profile_fields(c.user).items()},
        retracted=profile_sync.retracted_statements(svc, c.user.key),
    )
    return {
        "turn_id": turn.id,
        "user_message_id": msg.id,
        "first_turn": first,
        "ended": False,
        "bridge_id": bridge.id if bridge else None,
        "goal": summary.current_goal(summaries),
    }


def _profile(svc: MemoryService, user) -> dict[str, Any]:
    return dict(svc.get_profile(user) or {})


def _model_name(model: BaseChatModel) -> str:
    return str(getattr(model, "model_name", None) or getattr(model, "model", None) or type(model).__name__)


def recall(state: TurnState, runtime: Rt) -> dict[str, Any]:
    """Search with the input, plus the session's goal for short follow-ups; both queries are logged."""
    c = runtime.context
    query = summary.retrieval_query(c.text, state.get("goal"))
    result = c.service.recall(
        c.user.external_id,
        c.text,
        agent_id=c.session.agent_id,
        session_id=c.session.id,
        turn_id=state["turn_id"],
        retrieval_query=query,
    )
    c.scratch["recall"] = result
    return {}  # result.retrieval_id would wait for the log's writer; the turn's result reads it at the end


def compose(state: TurnState, runtime: Rt) -> dict[str, Any]:
    c = runtime.context
    result = c.scratch["recall"]
    chat = [m for m in c.scratch["history"] if m.role in ("user", "assistant")]
    memories = [
        prompt.MemoryItem(h.memory_id, h.content, h.created_at, h.source_type, h.type, h.predicate, h.object)
        for h in result.selected
    ]
    c.scratch["importance"] = {h.memory_id: h.importance for h in result.selected}
    if is_about_me(c.text):  # "what do you remember about me?": the most important memories, relevant or not
        memories += _most_important(c, exclude={m.memory_id for m in memories})
    c.scratch["memory_items"] = memories
    request = prompt.ContextRequest(
        input=c.text,
        profile=c.scratch["profile"],
        profile_sources=c.scratch.get("profile_sources", {}),
        retracted=c.scratch.get("retracted", set()),
        bridge=c.scratch["bridge"],
        summaries=c.scratch["summaries"],
        memories=memories,
        history=[prompt.HistoryItem(m.role, m.content, m.id) for m in chat],
    )
    comp = prompt.compose(request, c.settings)
    for hit in result.hits:
        if hit.memory_id in comp.injected:
            hit.injected = True
        elif hit.memory_id in comp.dropped:
            hit.injected, hit.drop_reason = False, "budget"
        elif hit.memory_id in comp.contradicted:
            hit.injected, hit.drop_reason = False, prompt.CONTRADICTS
    # after the retrieval's own log entry, on the log's writer: the turn does not wait for either
    retrieval_log.writer(c.service).then(
        lambda: prompt.mark_injected(c.service, result.retrieval_id, comp.injected, comp.dropped, comp.contradicted)
    )
    snapshot = prompt.save_snapshot(
        c.service, comp, user_key=c.session.user_key, session_id=c.session.id, turn_id=state["turn_id"]
    )
    c.scratch["composition"] = comp
    return {"snapshot_id": snapshot}


def erased(c: TurnContext) -> bool:
    """Was this user (or session) erased while the turn ran? Then the turn finishes without writing anything back."""
    from memory.lifecycle.export import erased as gone

    if not c.scratch.get("erased"):
        c.scratch["erased"] = gone(c.service, c.session.user_key, c.session.id)
    return c.scratch["erased"]


ABOUT_ME_LIMIT = 5


def _most_important(c: TurnContext, exclude: set[str]) -> list[prompt.MemoryItem]:
    """The user's active memories with the highest importance (flagged ones never), for a "tell me about me"."""
    rows = c.service.list_memories(c.user, agent_id=c.session.agent_id, limit=500)
    rows = [m for m in rows if m.id not in exclude and not (m.meta or {}).get("flagged")]
    rows.sort(key=lambda m: (-m.importance, m.source_type == "inferred"))
    top = rows[:ABOUT_ME_LIMIT]
    c.scratch["importance"].update({m.id: m.importance for m in top})
    return [prompt.MemoryItem(m.id, m.content, m.created_at, m.source_type, m.type, m.predicate, m.object) for m in top]


def _offline_context(state: TurnState, c: TurnContext) -> OfflineContext:
    """The structured data the prompt was composed from, for the offline engine (it never parses prompt text)."""
    comp = c.scratch["composition"]
    importance = c.scratch.get("importance", {})
    items = c.scratch.get("memory_items", [])
    injected = [
        Recalled(m.content, m.created_at, importance.get(m.memory_id, 0.5), m.source_type, m.predicate)
        for m in items
        if m.memory_id in comp.injected
    ]
    fields = c.service.profile_fields(c.user)
    profile, bridge = c.scratch["profile"], c.scratch["bridge"]
    return OfflineContext(
        profile=profile,
        profile_dates={name: f.updated_at for name, f in fields.items()},
        profile_sources={name: f.source for name, f in fields.items()},
        memories=injected,
        important=injected if is_about_me(c.text) else [],
        bridge=consistent_text(bridge, profile, c.scratch.get("retracted", set())) if bridge else None,
        first_turn=bool(state.get("first_turn")),
        now=datetime.now(UTC),
    )


def respond(state: TurnState, runtime: Rt) -> dict[str, Any]:
    """Stream the model's reply (each chunk goes out on the ``custom`` stream as it arrives), then store it (unless
    the user was erased meanwhile)."""
    c = runtime.context
    parts: list[str] = []
    extra = {"memlens": _offline_context(state, c)} if is_offline(c.model) else {}
    for chunk in c.model.stream(c.scratch["composition"].messages, **extra):
        piece = (
            chunk.content
            if isinstance(chunk.content, str)
            else "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in chunk.content)
        )
        if piece:
            parts.append(piece)
            runtime.stream_writer({"delta": piece})
    reply = "".join(parts)
    c.scratch["reply"] = reply
    if erased(c):
        return {}
    stored = (reply or "(empty reply)")[: c.settings.max_message_chars]
    msg = c.service.add_message(c.session, "assistant", stored)
    with c.service.db() as db:
        turn = db.get(Turn, state["turn_id"])
        turn.reply_message_id = msg.id
        db.add(turn)
        db.commit()
    return {"reply_message_id": msg.id}


def write_memory(state: TurnState, runtime: Rt) -> dict[str, Any]:
    """The write pipeline on the user's message; every decision is logged with this turn's id."""
    c = runtime.context
    if erased(c):
        return {}
    extractor = None if is_offline(c.model) else c.model  # the offline engine extracts with rules
    c.scratch["writes"] = c.service.write_from_message(
        c.user,
        c.session,
        c.scratch["user_message"],
        agent_id=c.session.agent_id,
        turn_id=state["turn_id"],
        model=extractor,
    )
    return {}


def maybe_summarise(state: TurnState, runtime: Rt) -> dict[str, Any]:
    """Fold old turns into a summary anchor — in a background thread by default, so the reply is never delayed."""
    c = runtime.context
    if erased(c):
        return {}
    if not c.settings.summary_background:
        summary.maybe_summarise(c.service, c.session.id, c.settings, c.summariser)
        return {}
    thread = threading.Thread(
        target=_summarise_quietly,
        args=(c.service, c.session.id, c.settings, c.summariser, c.session.user_key),
        name=f"memlens-summary-{c.session.id}",
    )
    thread.start()  # not a daemon: a CLI process finishes the summary before it exits
    c.background.append(thread)
    return {}


def _summarise_quietly(
    svc: MemoryService, session_id: str, settings: Settings, summariser: Any, user_key: str | None = None
) -> None:
    from memory.lifecycle.export import sweep_erased

    try:
        summary.maybe_summarise(svc, session_id, settings, summariser)
    except Exception:  # noqa: BLE001 - a background summary must never crash the process; the next turn retries
        log.exception("summary of session %s failed; will retry on the next turn", session_id)
    if user_key is not None:
        sweep_erased(svc, user_key, session_id)  # erased while summarising: leave nothing behind


def end_session(state: TurnState, runtime: Rt) -> dict[str, Any]:
    """Ending a session writes its bridge (2–3 sentences), which the user's next session receives on turn 1."""
    c = runtime.context
    bridge = summary.end_session_row(c.service, c.session, c.settings, c.summariser)
    c.scratch["bridge_written"] = bridge
    return {"ended": True, "bridge_id": bridge.id if bridge else None}


def _route(state: TurnState) -> str:
    return "end_session" if state.get("action") == "end" else "load_context"


def build_graph() -> StateGraph:
    """The uncompiled graph: compile it with the checkpointer of your choice."""
    g = StateGraph(TurnState, context_schema=TurnContext)
    for node in (load_context, recall, compose, respond, write_memory, maybe_summarise, end_session):
        g.add_node(node.__name__, node)
    g.add_conditional_edges(START, _route, ["load_context", "end_session"])
    chain = ["load_context", "recall", "compose", "respond", "write_memory", "maybe_summarise"]
    for a, b in zip(chain, chain[1:], strict=False):
        g.add_edge(a, b)
    g.add_edge("maybe_summarise", END)
    g.add_edge("end_session", END)
    return g
