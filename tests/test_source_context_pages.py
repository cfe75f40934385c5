"""The back office shows each selected hit's source context under it, as plain text (AppTest, hash embedder)."""

from __future__ import annotations

import pytest
from app_helpers import no_exception, open_page, seed

from memory.service import MemoryDraft

HOSTILE = "**bold** [click](http://evil.example) :red[alarm] <b>tag</b>"
QUERY = "ana went hiking in sintra"


@pytest.fixture
def seeded(monkeypatch, plumbing_svc):
    svc = seed(monkeypatch, plumbing_svc)
    user = svc.get_user("synthetic-user-0000")  # the user the pages open on
    session = svc.ensure_session(user, "trip")
    msgs = [
        svc.add_message(session, "assistant", HOSTILE),
        svc.add_message(session, "user", "ana went hiking in sintra last weekend"),
        svc.add_message(session, "assistant", "sounds lovely, was it sunny?"),
    ]
    svc.add_memories(user, [MemoryDraft(content=QUERY, source_message_ids=[msgs[1].id], importance=0.9)])
    return svc


def _texts(at) -> list[str]:
    return [t.value for t in at.text]


def test_the_lab_shows_the_selected_hits_source_context_as_plain_text(seeded):
    at = open_page("pages/retrieval_lab.py")
    at.slider(key="lab_threshold").set_value(0.0).run()
    at.text_input(key="lab_query").set_value(QUERY).run()
    no_exception(at)
    [block] = [t for t in _texts(at) if "sounds lovely" in t]
    assert HOSTILE in block  # shown as is, in st.text: nothing of it is read as Markdown or HTML
    assert all("evil.example" not in m.value or "\\[click\\]" in m.value for m in at.markdown)


def test_the_chat_panel_shows_the_injected_hits_source_context(seeded):
    at = open_page("pages/chat.py")
    at.chat_input(key="chat_input").set_value("did ana go hiking in sintra?").run()
    no_exception(at)
    panel = at.chat_message[-1].expander[0]
    shown = [t.value for t in panel.text]
    assert any(HOSTILE in t and "sounds lovely" in t for t in shown), shown
