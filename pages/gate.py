"""The sign-in gate: nothing about any user is read before it lets someone in.

``admit()`` runs first in ``backoffice.py``. The mode comes from ``memory.access.decide_gate`` (MEMLENS_AUTH, the number
of accounts, the address the server listens on): ``local`` shows a Username / Password form, ``oidc`` Streamlit's
``st.login``, ``open`` (no sign-in; loopback only) lets the local developer in as an admin under a visible badge,
``refuse`` explains what to do and serves nothing. The signed-in :class:`Actor` lives in ``st.session_state`` and is
re-checked against its account on every run (a removed account or changed role takes effect at once)."""

from __future__ import annotations

from collections.abc import Callable
from typing import NoReturn

import streamlit as st

from memory.access import Gate, decide_gate, oidc_role, open_actor
from memory.errors import ReadOnlyData, SignInFailed
from memory.vocab import Actor
from pages import registry
from pages.common import ACTOR_KEY, unchecked_service
from pages.safe import plain

OPEN_BADGE = "no sign-in: local only"
OPEN_KEY = "ml_gate_open"


def admit() -> Actor:
    """The signed-in actor; otherwise render the sign-in form (or the refusal) and stop the script."""
    svc = unchecked_service()
    gate = decide_gate(svc.settings.auth, svc.people.count(), st.get_option("server.address"))
    if gate.mode == "refuse":
        _refuse(gate)
    st.session_state[OPEN_KEY] = gate.mode == "open"
    if gate.mode == "open":
        actor = open_actor()
        st.session_state[ACTOR_KEY] = actor
        return actor
    actor = _oidc() if gate.mode == "oidc" else _local()
    st.session_state[ACTOR_KEY] = actor
    return actor


def _alone(render: Callable[[], None], title: str) -> NoReturn:
    """Show only ``render`` (a hidden navigation: no page list), then stop. Every page's address answers with it,
    so a deep link opened before sign-in shows this (not "Page not found") and keeps its address: once signed in,
    the rerun lands on the page that was asked for."""
    first = st.Page(render, title=title, url_path="sign-in", default=True)
    others = [st.Page(render, title=title, url_path=p.url_path) for p in registry.PAGES]
    st.navigation([first, *others], position="hidden").run()
    st.stop()


def _refuse(gate: Gate) -> None:
    st.session_state.pop(ACTOR_KEY, None)

    def refusal() -> None:
        st.title("MemLens")
        st.error(gate.reason, icon=":material/lock:")

    _alone(refusal, "MemLens")


def _local() -> Actor:
    svc = unchecked_service()
    actor = st.session_state.get(ACTOR_KEY)
    if isinstance(actor, Actor) and (actor.account or actor.via == "ui"):
        role = svc.people.role_of(actor.name)
        if role is not None:
            return Actor(name=actor.name, role=role, via=actor.via, account=True)  # the stored role, fresh
    st.session_state.pop(ACTOR_KEY, None)
    _alone(_sign_in_form, "Sign in")
    raise AssertionError("unreachable")  # pragma: no cover


def _sign_in_form() -> None:
    st.title("MemLens")
    st.caption("Sign in to open the back office.")
    with st.form("ml_signin", enter_to_submit=True):
        name = st.text_input("Username", autocomplete="username")
        password = st.text_input("Password", type="password", autocomplete="current-password")
        submitted = st.form_submit_button("Sign in", type="primary")
    if not submitted:
        return
    svc = unchecked_service()
    try:
        actor = svc.people.sign_in(name, password)
    except (SignInFailed, ReadOnlyData) as exc:  # read-only: the attempt cannot be counted, so none is let in
        st.error(plain(exc), icon=":material/block:")
        return
    st.session_state[ACTOR_KEY] = actor
    st.rerun()


def _oidc() -> Actor:
    """Streamlit's OIDC sign-in (provider in .streamlit/secrets.toml); the role comes from MEMLENS_OIDC_ROLES."""
    svc = unchecked_service()
    if not st.user.is_logged_in:

        def prompt() -> None:
            st.title("MemLens")
            st.button("Sign in", type="primary", on_click=st.login)

        _alone(prompt, "Sign in")
    email = str(st.user.get("email") or "")
    role = oidc_role(email, svc.settings.oidc_roles)
    if role is None:

        def no_role() -> None:
            st.title("MemLens")
            st.error(
                f"{plain(email) or 'This account'} has no role here. Ask an admin to add it to MEMLENS_OIDC_ROLES."
            )
            st.button("Sign out", on_click=st.logout)

        _alone(no_role, "MemLens")
    actor = Actor(name=email, role=role, via="ui:oidc")
    if st.session_state.get(ACTOR_KEY) != actor:
        svc.people.signed_in(actor)
    return actor


def sign_out() -> None:
    actor = st.session_state.pop(ACTOR_KEY, None)
    if isinstance(actor, Actor):
        unchecked_service().people.signed_out(actor)
        if actor.via == "ui:oidc":
            st.logout()


def who_badge(actor: Actor) -> None:
    """The sidebar's first line: who is signed in (and a sign-out button), or the local-only badge."""
    if st.session_state.get(OPEN_KEY):
        st.badge(OPEN_BADGE, icon=":material/lan:", color="orange")
        return
    cols = st.columns([3, 2], vertical_alignment="center")
    cols[0].text(f"{actor.name} · {actor.role}")  # a name is any text: shown as text, never Markdown
    cols[1].button("Sign out", key="ml_sign_out", on_click=sign_out, icon=":material/logout:")
