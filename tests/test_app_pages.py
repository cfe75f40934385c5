"""Every back-office page renders with data (and says what to do without), driven through Streamlit's AppTest.

Data comes from bench.synthetic (bulk rows + the hash embedder): these tests check rendering and wiring, not
meaning. The app reads its settings from the environment, like ``streamlit run`` does.
"""

from __future__ import annotations

import pytest
from app_helpers import PAGES, no_exception, open_page, seed, unescape


@pytest.fixture
def seeded(monkeypatch, plumbing_svc):
    return seed(monkeypatch, plumbing_svc)


@pytest.fixture
def empty_store(monkeypatch):
    monkeypatch.setenv("MEMLENS_EMBEDDER", "hash")


MAIN_ELEMENT = {
    "pages/chat.py": lambda at: at.chat_input(key="chat_input") and len(at.chat_message) > 0,
    "pages/profile.py": lambda at: at.dataframe and at.get("plotly_chart"),
    "pages/memories.py": lambda at: at.dataframe and at.selectbox(key="mem_pick").value is not None,
    "pages/sessions.py": lambda at: at.get("plotly_chart") and at.metric[0].value == "3",
    "pages/retrieval_lab.py": lambda at: at.slider(key="lab_threshold") and at.text_input(key="lab_query"),
    "pages/context_budget.py": lambda at: at.get("plotly_chart") and at.metric[0].label == "Budget",
}


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_its_main_element(seeded, page):
    at = open_page(page)
    no_exception(at)
    assert at.title[0].value
    assert MAIN_ELEMENT[page](at)
    assert at.sidebar.selectbox(key="ml_user_pick").value == seeded.get_user("synthetic-user-0000").key


def test_every_page_says_what_to_do_when_empty(empty_store):
    for page in PAGES:
        at = open_page(page)
        no_exception(at)
        assert any("seed-demo" in i.value for i in at.info), page


def test_user_picker_switches_every_page_to_that_user(seeded):
    at = open_page("pages/profile.py")
    at.sidebar.selectbox(key="ml_user_pick").set_value(seeded.get_user("synthetic-user-0001").key).run()
    no_exception(at)
    assert "synthetic-user-0001" in unescape(at.caption[0].value)
