"""The memory loop as a LangGraph StateGraph (docs/overview.md, "Architecture").

    START ─┬─ load_context → recall → compose → respond → write_memory → maybe_summarise → END
           └─ end_session (action == "end": write the session bridge) → END

``build_graph()`` returns the *uncompiled* builder, so tests can compile it with any checkpointer;
:mod:`agent.checkpoint` sets up the production one, in the MemLens database itself, one thread per session.

The checkpointed state holds ids and small facts only — never raw text (PII is masked only in what MemLens stores).
Live objects (the service, the model, the raw input) travel in the run-scoped ``TurnContext``, and what each node
produces for the next in its typed ``TurnScratch`` (both in :mod:`agent.state`). Every read and write goes through
the ``MemoryService`` facade; the pure helpers (retrieval query, goal line, composer) are called directly.
"""

from __future__ import annotations

import logging
import threading
from datetime import UTC, datetime

from langchain_core.language_models import BaseChatModel
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from agent.llm import is_offline
from agent.offline import OfflineContext, Recalled, is_about_me
from agent.state import TurnContext, TurnGraph, TurnScratch, TurnState
from memory.config import Settings
from memory.retrieval.filters import RecallFilters
from memory.service import MemoryService
from memory.sessions import prompt, summary
from memory.sessions.extractive import Summariser
from memory.storage.models import stored_id
from memory.vocab import CANNED, is_flagged
from memory.write.consistency import consistent_text

__all__ = ["TurnContext", "TurnScratch", "TurnState", "build_graph"]
log = logging.getLogger(__name__)
Rt = Runtime[TurnContext]


def load_context(state: TurnState, runtime: Rt) -> TurnState:
    """Cheap loads: close stale sessions, take the bridge on turn 1, store the input, profile, summary, history."""
    c = runtime.context
    svc, session, settings, s = c.service, c.session, c.settings, c.scratch
    svc.wait_writes(c.user)  # the user's previous turn wrote in the background: its memories and profile first
    first = not svc.messages(session.id, limit=1)
    svc.close_other_sessions(session, settings, first_turn=first, summariser=c.summariser)
    svc.reopen_session(session)
    bridge = svc.take_bridge(session) if first else None
    said = {"speaker": c.speaker} if c.speaker else None
    msg = s.user_message = svc.add_message(
        session, "user", c.text, idempotency_key=c.idempotency_key, created_at=c.at, meta=said
    )
    turn_id = svc.open_turn(session, msg, model=_model_name(c.model))
    anchors = svc.summary_anchors(session.id)
    done = max((a.to_message_id for a in anchors), default=0)
    s.history = [m for m in svc.messages(session.id, after_id=done) if m.id != msg.id][-settings.history_messages :]
    s.summaries = [a.text for a in anchors]
    s.bridge = bridge.text if bridge else None
    fields = svc.profile_fields(c.user)  # one read: values, where each came from, when it was said
    s.profile = {name: f.value for name, f in fields.items()}
    s.profile_sources = {name: f.source for name, f in fields.items()}
    s.profile_dates = {name: f.updated_at for name, f in fields.items()}
    s.retracted = svc.retracted_statements(c.user)
    return TurnState(
        turn_id=turn_id,
        user_message_id=stored_id(msg.id, "message"),
        first_turn=first,
        ended=False,
        bridge_id=bridge.id if bridge else None,
        goal=summary.current_goal(s.summaries),
    )


def _model_name(model: BaseChatModel) -> str:
    return str(getattr(model, "model_name", None) or getattr(model, "model", None) or type(model).__name__)


def recall(state: TurnState, runtime: Rt) -> TurnState:
    """Search with the input, plus the session's goal for short follow-ups; both queries are logged."""
    c = runtime.context
    query = summary.retrieval_query(c.text, state.get("goal"))
    shown = RecallFilters.build(shown_messages=[m.id for m in c.scratch.history if m.id is not None])
    c.scratch.recall = c.service.recall(
        c.user.external_id,
        c.text,
        agent_id=c.session.agent_id,
        session_key=c.session.id,
        turn_id=state["turn_id"],
        retrieval_query=query,
        filters=shown,
    )
    return {}  # result.retrieval_id would wait for the log's writer; the turn's result reads it at the end


def compose(state: TurnState, runtime: Rt) -> TurnState:
    c = runtime.context
    s, result = c.scratch, c.scratch.recalled()
    chat = [m for m in s.history if m.role in ("user", "assistant")]
    memories = [prompt.MemoryItem.from_hit(h) for h in result.selected]
    s.importance = {h.memory_id: h.importance for h in result.selected}
    if is_about_me(c.text):  # "what do you remember about me?": the most important memories, relevant or not
        memories += _most_important(c, exclude={m.memory_id for m in memories})
    s.memory_items = memories
    request = prompt.ContextRequest(
        input=c.text,
        profile=s.profile,
        profile_sources=s.profile_sources,
        retracted=s.retracted,
        bridge=s.bridge,
        summaries=s.summaries,
        memories=memories,
        history=[prompt.HistoryItem(m.role, m.content, m.id) for m in chat],
    )
    comp = s.composition = prompt.compose(request, c.settings)
    for hit in result.hits:
        if hit.memory_id in comp.injected:
            hit.injected = True
        elif hit.memory_id in comp.dropped:
            hit.injected, hit.drop_reason = False, "budget"
        elif hit.memory_id in comp.contradicted:
            hit.injected, hit.drop_reason = False, prompt.CONTRADICTS
    snapshot = c.service.log_composition(comp, result, session=c.session, turn_id=state["turn_id"])
    return {"snapshot_id": snapshot}


def erased(c: TurnContext) -> bool:
    """Was this user (or session) erased while the turn ran? Then the turn finishes without writing anything back."""
    if not c.scratch.erased:
        c.scratch.erased = c.service.erased(c.session.user_key, c.session.id)
    return c.scratch.erased


ABOUT_ME_LIMIT = 5


def _most_important(c: TurnContext, exclude: set[str]) -> list[prompt.MemoryItem]:
    """The user's active memories with the highest importance (flagged ones never), for a "tell me about me"."""
    rows = c.service.list_memories(c.user, agent_id=c.session.agent_id, limit=500)
    rows = [m for m in rows if m.id not in exclude and not is_flagged(m.meta)]
    rows.sort(key=lambda m: (-m.importance, m.source_type == "inferred"))
    top = rows[:ABOUT_ME_LIMIT]
    c.scratch.importance.update({m.id: m.importance for m in top})
    return [prompt.MemoryItem(m.id, m.content, m.created_at, m.source_type, m.type, m.predicate, m.object) for m in top]


def _offline_context(state: TurnState, c: TurnContext) -> OfflineContext:
    """The structured data the prompt was composed from, for the offline engine (it never parses prompt text)."""
    s = c.scratch
    comp = s.composed()
    injected = [
        Recalled(
            m.content,
            m.created_at,
            s.importance.get(m.memory_id, 0.5),
            m.source_type,
            m.predicate,
            m.type,
            m.update,
            m.replaced_on,
        )
        for m in s.memory_items
        if m.memory_id in comp.injected
    ]
    return OfflineContext(
        profile=s.profile,
        profile_dates=s.profile_dates,
        profile_sources=s.profile_sources,
        memories=injected,
        important=injected if is_about_me(c.text) else [],
        bridge=consistent_text(s.bridge, s.profile, s.retracted) if s.bridge else None,
        first_turn=bool(state.get("first_turn")),
        now=datetime.now(UTC),
    )


def respond(state: TurnState, runtime: Rt) -> TurnState:
    """Stream the model's reply (each chunk goes out on the ``custom`` stream as it arrives), then store it (unless
    the user was erased meanwhile)."""
    c = runtime.context
    parts: list[str] = []
    messages = c.scratch.composed().messages
    offline = is_offline(c.model)  # the offline engine gets the structured data the prompt was composed from
    chunks = c.model.stream(messages, memlens=_offline_context(state, c)) if offline else c.model.stream(messages)
    for chunk in chunks:
        piece = (
            chunk.content
            if isinstance(chunk.content, str)
            else "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in chunk.content)
        )
        if piece:
            parts.append(piece)
            runtime.stream_writer({"delta": piece})
    reply = c.scratch.reply = "".join(parts)
    if erased(c):
        return {}
    kept = (reply or "(empty reply)")[: c.settings.max_message_chars]
    # the offline engine's replies are canned (built from what memory already holds): kept in the transcript, never
    # an episode (memory.vocab.CANNED)
    meta = {CANNED: True} if offline else None
    msg = c.service.add_message(c.session, "assistant", kept, created_at=c.at, meta=meta)
    c.service.close_turn(state["turn_id"], msg)
    return TurnState(reply_message_id=stored_id(msg.id, "message"))


def write_memory(state: TurnState, runtime: Rt) -> TurnState:
    """The write pipeline on the user's message, handed to the background: the reply does not wait for it, the
    user's next turn does (memory/write/behind.py). Every decision is logged with this turn's id."""
    c = runtime.context
    if erased(c):
        return {}
    extractor = None if is_offline(c.model) else c.model  # the offline engine extracts with rules
    reply = state.get("reply_message_id")
    c.scratch.write_job = c.service.write_after_reply(
        c.user, c.session, c.scratch.input_message(), turn_id=state["turn_id"], reply=reply, model=extractor
    )
    return {}


def maybe_summarise(state: TurnState, runtime: Rt) -> TurnState:
    """Fold old turns into a summary anchor — in a background thread by default, so the reply is never delayed."""
    c = runtime.context
    if erased(c):
        return {}
    if not c.settings.summary_background:
        c.service.maybe_summarise(c.session.id, c.settings, c.summariser)
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
    svc: MemoryService, session_key: str, settings: Settings, summariser: Summariser, user_key: str | None = None
) -> None:
    try:
        svc.maybe_summarise(session_key, settings, summariser)
    except Exception:  # noqa: BLE001 - a background summary must never crash the process; the next turn retries
        log.exception("a session summary failed; will retry on the next turn")  # no key: logs outlive erasures
    if user_key is not None:
        svc.sweep_erased(user_key, session_key)  # erased while summarising: leave nothing behind


def end_session(state: TurnState, runtime: Rt) -> TurnState:
    """Ending a session writes its bridge (2–3 sentences), which the user's next session receives on turn 1 — the
    one session end (``MemoryService.end_session_row``: the user's background writes first)."""
    c = runtime.context
    bridge = c.scratch.bridge_written = c.service.end_session_row(c.session, c.settings, c.summariser)
    return {"ended": True, "bridge_id": bridge.id if bridge else None}


def _route(state: TurnState) -> str:
    return "end_session" if state.get("action") == "end" else "load_context"


def build_graph() -> TurnGraph:
    """The uncompiled graph: compile it with the checkpointer of your choice."""
    g: TurnGraph = StateGraph(TurnState, context_schema=TurnContext)
    for node in (load_context, recall, compose, respond, write_memory, maybe_summarise, end_session):
        g.add_node(node.__name__, node)
    g.add_conditional_edges(START, _route, ["load_context", "end_session"])
    chain = ["load_context", "recall", "compose", "respond", "write_memory", "maybe_summarise"]
    for a, b in zip(chain, chain[1:], strict=False):
        g.add_edge(a, b)
    g.add_edge("maybe_summarise", END)
    g.add_edge("end_session", END)
    return g
