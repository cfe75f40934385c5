"""Shared AppTest helpers for tests/test_app_*.py (not a test module)."""

from __future__ import annotations

from pathlib import Path

from streamlit import config
from streamlit.testing.v1 import AppTest

from bench.synthetic import Plan, populate

APP = str(Path(__file__).resolve().parent.parent / "backoffice.py")
PAGES = [
    "pages/chat.py",
    "pages/profile.py",
    "pages/memories.py",
    "pages/sessions.py",
    "pages/retrieval_lab.py",
    "pages/context_budget.py",
]


def open_page(page: str | None = None, *, address: str = "localhost") -> AppTest:
    """Run the app (and switch to ``page``) as a server listening on ``address`` would: with no account and a
    loopback address the gate lets the local developer in (AppTest reads no config.toml, so say where it listens)."""
    config.set_option("server.address", address)
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    if page:
        at.switch_page(page)
        at.run()
    return at


def no_exception(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def seed(monkeypatch, svc):
    """Two synthetic users on the hash embedder; the app reads the same data folder from the environment."""
    monkeypatch.setenv("MEMLENS_EMBEDDER", "hash")
    populate(svc, Plan(users=2, memories_per_user=40))
    return svc


def unescape(markdown: str) -> str:
    """The text a Markdown string shows (AppTest reports the source; user text in it is backslash-escaped)."""
    import re

    return re.sub(r"\\(.)", r"\1", markdown)
