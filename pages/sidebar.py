"""The sidebar every page shares: who we look at, which session, what model answers, and the live retrieval knobs.

The live knobs write straight to ``svc.set_live_settings`` (the ``setting`` table), so the agent picks them up on its
next turn in any process, no restart. Widgets are re-synced from the stored values on every run, so an "apply" in
the retrieval lab (or another browser tab) shows up here at once.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from memory.config import Settings
from memory.errors import MemLensError
from memory.vocab import Actor, Role, SearchMode, SessionStatus
from pages.common import (
    SESSION_KEY,
    USER_KEY,
    agent,
    can,
    current_actor,
    current_user,
    model_label,
    new_session_id,
    service,
    short,
)
from pages.safe import plain

LIVE_WIDGETS = {"relevance_threshold": "ml_live_threshold", "top_k": "ml_live_k", "search_mode": "ml_live_mode"}
MODES = [SearchMode.HYBRID, SearchMode.VECTOR, SearchMode.FULLTEXT]


def unique(name: str, key: str, n: int = 32) -> str:
    """A label that stays distinct when long ids share a prefix (the picker maps labels back to values), and when ids
    differ only invisibly: invisibles escaped, a mixed-script warning (``show_id``)."""
    from memory.text.display import show_id

    shown = show_id(name)
    return shown if len(name) <= n else f"{short(shown, n)} [{key[:6]}]"


def sync(key: str, value) -> None:
    """Show ``value`` in widget ``key`` when the stored value changed since we last showed it."""
    marker = f"{key}__shown"
    if st.session_state.get(marker) != value:
        st.session_state[key] = value
        st.session_state[marker] = value


def _staged(live: dict[str, Any]) -> dict[str, Any]:
    """The live settings the person changed in the sidebar and has not applied yet."""
    out = {}
    for name, key in LIVE_WIDGETS.items():
        value = st.session_state.get(key, live[name])
        same = abs(float(value) - float(live[name])) < 1e-9 if name == "relevance_threshold" else value == live[name]
        if not same:
            out[name] = value
    return out


def _apply_live(live: dict[str, Any]) -> None:
    """Apply the staged changes at once: one service call, one audit row (moving the slider applies nothing)."""
    changed = _staged(live)
    if not changed:
        return
    try:
        service().set_live_settings(changed, actor=current_actor())
    except MemLensError as exc:
        st.toast(plain(exc), icon=":material/error:")
        return
    for name, value in changed.items():
        st.session_state[f"{LIVE_WIDGETS[name]}__shown"] = value
    shown = ", ".join(f"{name.replace('_', ' ')} → {value}" for name, value in changed.items())
    st.toast(f"{shown} (from the next turn)", icon=":material/tune:")


PICK_KEY = "ml_user_pick"
SESSION_PICK_KEY = "ml_session_pick"  # the widget; the choice itself lives in USER_KEY (a user's stable internal key)


def _picked() -> None:
    st.session_state[USER_KEY] = st.session_state[PICK_KEY]
    st.session_state.pop(SESSION_KEY, None)


def _pick_user(users: list[dict]) -> None:
    """The picker's options are the users' stable keys; labels (id · live memory count) may change on any rerun
    without moving the selection, because the choice is kept apart from the widget and handed back to it."""
    keys = [u["key"] for u in users]
    if st.session_state.get(USER_KEY) not in keys:
        st.session_state[USER_KEY] = keys[0]
    st.session_state[PICK_KEY] = st.session_state[USER_KEY]
    labels = {u["key"]: f"{unique(u['user_id'], u['key'])} · {u['active_memories']} memories" for u in users}
    st.selectbox("User", keys, key=PICK_KEY, format_func=lambda k: labels.get(k, k), on_change=_picked)


def _new_session() -> None:
    svc = service()
    user = current_user()
    if user is None:
        return
    try:  # the service checks the role now (a demotion since the page was drawn counts) and audits a refusal
        svc.require(current_actor(), Role.CURATOR, "start a chat session")
    except MemLensError as exc:
        st.toast(plain(exc), icon=":material/error:")
        return
    previous = st.session_state.get(SESSION_KEY)
    if previous:
        try:  # the agent's own end-session (its summariser writes the bridge), as `memlens end-session` does
            agent().end_session(user.external_id, previous, actor=current_actor())
        except MemLensError as exc:
            st.toast(f"could not close {plain(previous)}: {plain(exc)}", icon=":material/warning:")
    session = svc.ensure_session(user, new_session_id())
    st.session_state[SESSION_KEY] = session.external_id


def _pick_session() -> None:
    svc = service()
    user = current_user()
    if user is None:
        return
    sessions = list(reversed(svc.list_sessions(user)))  # newest first
    names = [s.external_id for s in sessions]
    if not names:
        st.caption("No session yet: the first message starts one.")
    else:
        if st.session_state.get(SESSION_KEY) not in names:
            st.session_state[SESSION_KEY] = names[0]
        st.session_state[SESSION_PICK_KEY] = st.session_state[SESSION_KEY]  # same scheme as the user picker
        status = {s.external_id: ("● " if s.status == SessionStatus.ACTIVE else "○ ") for s in sessions}
        ids = {s.external_id: s.id for s in sessions}
        st.selectbox(
            "Session",
            names,
            key=SESSION_PICK_KEY,
            format_func=lambda n: status.get(n, "") + unique(n, ids.get(n, "")),
            on_change=lambda: st.session_state.update({SESSION_KEY: st.session_state[SESSION_PICK_KEY]}),
        )
    if can(Role.CURATOR):  # a session is where the agent writes memories: chatting is a curator's right
        st.button("New session", icon=":material/add_comment:", on_click=_new_session, width="stretch")


def _live_settings(eff: Settings, threshold: float) -> None:
    st.subheader("Live retrieval", divider="gray")
    if not can(Role.ADMIN):  # shown, not changeable: live settings are an admin's
        st.caption(f"Relevance threshold {threshold:.3g} · top k {eff.top_k} · mode {eff.search_mode}")
        st.caption("Changing them needs the admin role.")
        return
    live = {"relevance_threshold": float(threshold), "top_k": int(eff.top_k), "search_mode": eff.search_mode}
    for name, value in live.items():
        sync(LIVE_WIDGETS[name], value)
    st.slider(
        "Relevance threshold",
        0.0,
        1.0,
        step=0.001,
        format="%.3f",
        key=LIVE_WIDGETS["relevance_threshold"],
        help="Keep a memory when its calibrated relevance (estimated probability that it is relevant) is at least "
        "this.",
    )
    st.number_input("Top k", 1, 50, step=1, key=LIVE_WIDGETS["top_k"])
    st.selectbox("Mode", MODES, key=LIVE_WIDGETS["search_mode"])
    staged = _staged(live)
    st.button(
        "Apply to the agent",
        key="ml_live_apply",
        icon=":material/tune:",
        on_click=_apply_live,
        args=(live,),
        disabled=not staged,
        width="stretch",
    )
    if staged:
        st.caption("Not applied yet: the agent keeps its settings until you press Apply (audited once).")
    else:
        st.caption("The agent's settings now; the retrieval lab has the rest.")


def render(who: Actor) -> None:
    from pages.gate import who_badge

    svc = service()
    with st.sidebar:
        st.markdown("### :material/memory: MemLens")
        who_badge(who)
        if svc.storage.read_only:
            st.warning(
                f"Read-only: {plain(svc.storage.read_only)}. Every page shows what is stored; changes are refused.",
                icon=":material/lock:",
            )
        users = svc.list_users()
        if users:
            _pick_user(users)
            _pick_session()
        else:
            st.info("No users yet. Run `memlens seed-demo`, or start chatting as a new user below.")
        if can(Role.CURATOR):
            with st.popover("Add a user", icon=":material/person_add:", width="stretch"):
                st.text_input("User id", key="ml_new_user", placeholder="e.g. alice@example.com")
                st.button("Create", key="ml_new_user_btn", on_click=_add_user)
        eff = svc.effective_settings()
        st.caption(
            f":material/smart_toy: **Model** · {model_label(eff)}  \n"
            f":material/scatter_plot: **Embedder** · {eff.embedder}"
        )
        _live_settings(eff, svc.recall_policy().threshold)


def _add_user() -> None:
    name = (st.session_state.get("ml_new_user") or "").strip()
    if not name:
        st.toast("Type a user id first.", icon=":material/warning:")
        return
    try:  # the service checks the role now and audits a refusal: the button is only hidden from a viewer
        service().require(current_actor(), Role.CURATOR, "add a user")
        user = service().ensure_user(name)
    except MemLensError as exc:
        st.toast(plain(exc), icon=":material/error:")
        return
    st.session_state[USER_KEY] = user.key
    st.session_state.pop(SESSION_KEY, None)
    st.session_state["ml_new_user"] = ""
