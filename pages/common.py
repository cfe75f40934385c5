"""What every back-office page shares: the cached service and agent, the picked user and session, the sidebar, colours.

Only long-lived resources are cached (``st.cache_resource``: the service, which owns the engine, the index and the
embedder; the agent). Never a DB session and never data: every page reads fresh rows, so several Streamlit
processes can share one database (docs/scaling.md). Global keys start with ``ml_``; page keys with the page's prefix.
"""

from __future__ import annotations

import contextlib
import importlib
import threading
from datetime import datetime
from typing import Any

import streamlit as st

from memory.config import Settings
from memory.errors import Forbidden
from memory.service import MemoryService
from memory.storage.models import Session, User
from memory.vocab import Actor, EventOp, Role
from memory.warm import freeze_loaded
from pages.safe import plain, text_block  # noqa: F401 (re-exported: pages import them from here)

USER_KEY = "ml_user"
ACTOR_KEY = "ml_actor"  # set by sign-in when there is one
SESSION_KEY = "ml_session"

#: one palette for the whole app: write decisions, statuses, context sections, verdicts
OP_COLORS: dict[EventOp, str] = {
    EventOp.ADD: "#2e7d32",
    EventOp.REINFORCE: "#1565c0",
    EventOp.UPDATE: "#ef6c00",
    EventOp.NOOP: "#9e9e9e",
    EventOp.SUPERSEDE: "#ef6c00",
    EventOp.EDIT: "#6a1b9a",
    EventOp.FLAG: "#ad1457",
    EventOp.UNFLAG: "#f06292",
    EventOp.DELETE: "#c62828",
    EventOp.RESTORE: "#00897b",
    EventOp.ARCHIVE: "#757575",
    EventOp.PURGE: "#4e342e",
    EventOp.COMPACT: "#5d4037",
    EventOp.MERGE: "#8d6e63",
    EventOp.SET_ASIDE: "#b71c1c",
}
SECTION_COLORS = {
    "system": "#90a4ae",
    "profile": "#5c6bc0",
    "bridge": "#26a69a",
    "summary": "#ffa726",
    "memories": "#ec407a",
    "history": "#42a5f5",
    "input": "#66bb6a",
}
PASS_COLOR, FAIL_COLOR, NEAR_COLOR = "#2e7d32", "#bdbdbd", "#ef6c00"
#: a candidate the cut dropped for another reason than the threshold (flagged, similarity floor, relative cut)
DROP_COLOR = "#ad1457"
THRESHOLD_COLOR = "#c62828"
OP_BADGE: dict[str, str] = {  # by EventOp (a str): a logged op is read back as text
    EventOp.ADD: "green",
    EventOp.REINFORCE: "blue",
    EventOp.UPDATE: "orange",
    EventOp.NOOP: "gray",
    EventOp.SUPERSEDE: "orange",
    EventOp.EDIT: "violet",
    EventOp.FLAG: "red",
    EventOp.UNFLAG: "violet",
    EventOp.DELETE: "red",
    EventOp.RESTORE: "green",
    EventOp.ARCHIVE: "gray",
    EventOp.PURGE: "red",
    EventOp.COMPACT: "blue",
    EventOp.MERGE: "blue",
    EventOp.SET_ASIDE: "red",
}
EMPTY_HINT = "Run `memlens seed-demo` in a terminal, or chat with the agent first."


# -- resources -----------------------------------------------------------------------------------------------------
@st.cache_resource(show_spinner="Opening the memory store…")
def _service_for(db_url: str, lance_uri: str, embedder: str) -> MemoryService:
    del db_url, lance_uri, embedder  # the cache key: a different data folder or embedder gets its own service
    return MemoryService(Settings())


def unchecked_service() -> MemoryService:
    """The service before sign-in: only the gate (pages.gate) uses it, to count accounts and check passwords."""
    s = Settings()
    return _service_for(s.resolved_database_url(), s.resolved_lancedb_uri(), s.embedder)


def service() -> MemoryService:
    """The service for pages: stops the run when nobody is signed in, so no page reads data before the gate (not
    even one opened without the app's frame)."""
    if not isinstance(st.session_state.get(ACTOR_KEY), Actor):
        st.warning("Sign in first.", icon=":material/lock:")
        st.stop()
    return unchecked_service()


@st.cache_resource(show_spinner="Starting the agent…")
def _agent_for(_svc: MemoryService, db_url: str):
    from agent.runtime import Agent

    return Agent(_svc)


#: what other pages import or open on their first visit, loaded once per process after the first page is shown
WARM_UP_MODULES = ("pandas", "plotly.express", "plotly.graph_objects", "agent.runtime", "pages.lab_tuning")


@st.cache_resource(show_spinner=False)
def _warm_up(_svc: MemoryService, db_url: str) -> threading.Thread:
    """Start one background thread per process that imports the heavy libraries, opens the index and draws one
    figure of each kind, so the first visit of every other page finds them ready (the first page never waits for
    it: this runs after it rendered, or before the server takes requests, see :func:`warm_process`)."""

    def work() -> None:
        for name in WARM_UP_MODULES:
            with contextlib.suppress(Exception):  # a warm-up failure only means the page pays for itself
                importlib.import_module(name)
        with contextlib.suppress(Exception):
            _svc.open_index()  # LanceDB, and the start-up repair check
        with contextlib.suppress(Exception):
            _draw_once()
        freeze_loaded()

    thread = threading.Thread(target=work, name="memlens-warm-up", daemon=True)
    thread.start()
    return thread


def _draw_once() -> None:
    """One small figure of each kind the pages draw: plotly loads a trace type's validators (hundreds of small
    modules) the first time a figure of that type is built, ~1 s on a page's first visit otherwise."""
    import pandas as pd
    import plotly.express as px
    import plotly.graph_objects as go

    frame = pd.DataFrame({"x": [0, 1], "y": [0, 1], "start": pd.to_datetime(["2026-01-01", "2026-01-02"])})
    fig = go.Figure()
    fig.add_bar(x=[0], y=[1])
    fig.add_scatter(x=[0], y=[1], mode="lines+markers")
    fig.add_vline(x=0, annotation_text="warm")
    for drawn in (fig, px.scatter(frame, x="x", y="y"), px.bar(frame, x="x", y="y")):
        drawn.to_json()
    px.timeline(frame, x_start="start", x_end="start", y="y").to_json()


def warm_process() -> None:
    """The service, the agent and the warm-up, waited for: app.py runs it before the server takes its first
    request. ``st.cache_resource`` is per process, so the pages find the same service and agent, and the first
    page's :func:`warm_up` finds this warm-up done instead of starting another."""
    svc = unchecked_service()
    db_url = svc.settings.resolved_database_url()
    _warm_up(svc, db_url).join()
    _agent_for(svc, db_url)


def warm_up() -> None:
    svc = service()
    _warm_up(svc, svc.settings.resolved_database_url())


def agent():
    svc = service()
    return _agent_for(svc, svc.settings.resolved_database_url())


def model_label(settings: Settings) -> str:
    """What answers in the chat: the configured chat model, or the offline engine (the agent's own rule)."""
    from agent.provider import DEFAULT_MODEL, provider  # not agent.llm: that loads LangChain (~1 s)

    name = provider(settings)
    if name == "offline":
        return "offline engine (no LLM configured)"
    if name == "openai":
        return f"{settings.llm_model or DEFAULT_MODEL} · {settings.llm_base_url or 'OpenAI'}"
    return name


def current_actor() -> Actor:
    """Who acts in this browser session: the person the gate let in (``ml_actor``; without sign-in, on loopback
    only, the local developer). Passed to every service call that changes something."""
    service()  # stops the run when nobody is signed in
    actor: Actor = st.session_state[ACTOR_KEY]
    if actor.account:  # a handler runs before the gate re-reads the account: read it here too (the service does too)
        role = unchecked_service().people.role_of(actor.name)
        if role is None:
            st.session_state.pop(ACTOR_KEY, None)
            raise Forbidden(f"refused: the account {actor.name!r} no longer exists")
        actor = Actor(name=actor.name, role=role, via=actor.via, account=True)
        st.session_state[ACTOR_KEY] = actor
    return actor


def can(role: Role) -> bool:
    """Whether the signed-in person's role includes ``role`` (the service enforces it; pages only hide controls)."""
    who = st.session_state.get(ACTOR_KEY)
    return isinstance(who, Actor) and Role(who.role).allows(role)


# -- the picked user and session -----------------------------------------------------------------------------------
def short(text: str | None, n: int = 40) -> str:
    text = "" if text is None else str(text)
    return text if len(text) <= n else text[: n - 1] + "…"


def current_user() -> User | None:
    """The user picked in the sidebar, by their stable internal key (labels and counts may change freely)."""
    key = st.session_state.get(USER_KEY)
    if not key:
        return None
    user = service().user_by_key(key)
    if user is None:  # deleted meanwhile
        st.session_state.pop(USER_KEY, None)
    return user


# -- user text is shown as text: pages.safe.plain / text_block (re-exported here for the pages) -----------------
def context_lines(rows: list[dict[str, Any]]) -> str:
    """A hit's source context as lines of plain text (date, speaker, what was said), for :func:`text_block`."""
    out = []
    for r in rows:
        day = str(r.get("created_at") or "")[:10] or "undated"
        out.append(
            f"    {day} · {' '.join(str(r.get('speaker') or '').split())}: {' '.join(str(r.get('text')).split())}"
        )
    return "\n".join(out)


def source_context(hits: list[dict[str, Any]]) -> None:
    """Under the hits: each one's source context (the conversation around the message it came from), all plain
    text — the memory escaped in Markdown, the lines in ``st.text``."""
    with_context = [h for h in hits if h.get("context")]
    if not with_context:
        return
    st.markdown("**Source context** · the conversation around each memory, as the prompt received it")
    for h in with_context:
        st.markdown(f":material/format_quote: {plain(short(h.get('content') or '', 110))}")
        text_block(context_lines(h["context"]))


def page_title(name: str, user: User | None) -> None:
    """Every page names whose data it shows, in its title (plain text)."""
    who = f" · {plain(short(user.external_id, 60))}" if user is not None else ""
    st.title(f"{name}{who}", anchor=False)


def current_session(user: User | None) -> Session | None:
    if user is None:
        return None
    ext = st.session_state.get(SESSION_KEY)
    if not ext:
        return None
    for s in service().list_sessions(user):
        if s.external_id == ext:
            return s
    return None


def new_session_id() -> str:
    return "session-" + datetime.now().strftime("%Y%m%d-%H%M%S")


def require_user() -> User:
    """The picked user; when there is none, an empty-state note and the page stops there."""
    user = current_user()
    if user is None:
        st.info(f"No user yet. {EMPTY_HINT}", icon=":material/person_off:")
        st.stop()
    return user


def empty(what: str, hint: str = EMPTY_HINT) -> None:
    st.info(f"{what} {hint}", icon=":material/inbox:")


def fmt(value: Any, digits: int = 3) -> str:
    """A value as words (memory.text.display.value_text): ``—`` for none, lists joined, moments as moments."""
    from memory.text.display import value_text

    return value_text(value, digits)


def when(value: datetime | None) -> str:
    """A moment as a person reads it (``25 Nov, 10:00``; ``—`` for none): memory.text.display, the one formatter."""
    from memory.text.display import when_text

    return when_text(value)


def ago(value: datetime | None) -> str:
    """``3 days ago`` / ``yesterday`` / ``25 Nov`` (memory.text.display.ago_text)."""
    from memory.text.display import ago_text

    return ago_text(value)


def label(name: Any) -> str:
    """A profile field's or a setting's label, never its stored name (``display_name`` → ``Name``)."""
    from memory.text.display import label as _label

    return _label(name)


def op_badge(op: str) -> str:
    """Markdown badge for a write decision (``:color-badge[...]``)."""
    return f":{OP_BADGE.get(op, 'gray')}-badge[{op}]"
