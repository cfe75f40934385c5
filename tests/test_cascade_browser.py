"""In a real browser (Debian's Chromium through Playwright) over `streamlit run app.py`: a curator flags what the
user said (the episode) on the Memories page; the page says in words what was read from it and that it went with
it; the next session's turn (another process on the same data folder, as a second app would be) gets the plain
"corrected" bridge, no Valencia in its reply or its injected hits, and the profile has no city; unflagging on the
page brings the fact, the profile and the answer back. The real e5 embedder on both sides."""

from __future__ import annotations

import re

import pytest
from browser_helpers import CHROMIUM, need_chromium, streamlit_server
from browser_helpers import settle as _settle

from agent.runtime import Agent
from memory.prompts import BRIDGE_WORDS
from memory.service import MemoryService
from memory.vocab import SEMANTIC_TYPES, is_flagged

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _chat(svc: MemoryService, session: str, text: str):
    agent = Agent(svc)
    try:
        result = agent.chat("v", session, text)
        svc.wait_writes("v")
        return result
    finally:
        agent.close()


def _act(page, button: str, done: str) -> None:
    page.get_by_role("tab", name=re.compile("Correct")).click()
    page.get_by_label("Reason (logged)").fill("the user never said that")
    page.get_by_label("Reason (logged)").press("Enter")
    _settle(page)
    page.get_by_role("button", name=button).click()
    page.get_by_text(done).wait_for(timeout=60_000)
    _settle(page)


def test_flag_and_unflag_an_episode_on_the_memories_page_reach_the_fact_profile_bridge_and_reply(svc, tmp_path):
    need_chromium()
    playwright = pytest.importorskip("playwright.sync_api")
    _chat(svc, "a", "I live in Valencia.")
    fact = next(m for m in svc.list_memories(svc.get_user("v"), types=SEMANTIC_TYPES) if "Valencia" in m.content)
    assert svc.get_profile("v")["city"] == "Valencia"
    env = {"MEMLENS_EMBEDDER": svc.settings.embedder}
    log = tmp_path / "streamlit.log"
    with streamlit_server(svc.settings.data_dir, log, env=env) as url, playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(f"{url}/recent-writes")
        _settle(page)
        page.get_by_label("Open a write").click()  # the episode's write, as a person picks it
        page.keyboard.type("I live in Valencia")
        page.keyboard.press("Enter")
        _settle(page)
        page.get_by_text("Read from it: the fact “User lives in Valencia.” (in force)").wait_for(timeout=30_000)
        _act(page, "Flag as wrong", "flag done")
        page.get_by_text("Read from it: the fact “User lives in Valencia.” (flagged as wrong)").wait_for(timeout=30_000)
        assert is_flagged(svc.get_memory(fact.id).meta) and svc.get_profile("v").get("city") is None
        turn = _chat(svc, "b", "Where do I live?")
        assert turn.bridge == BRIDGE_WORDS["en"]["corrected"]
        assert "Valencia" not in turn.reply
        assert not [h for h in turn.recall.selected if "Valencia" in h.content]
        _act(page, "Unflag", "unflag done")
        page.get_by_text("Read from it: the fact “User lives in Valencia.” (in force)").wait_for(timeout=30_000)
        browser.close()
    assert not is_flagged(svc.get_memory(fact.id).meta) and svc.get_profile("v")["city"] == "Valencia"
    again = _chat(svc, "c", "Where do I live?")
    assert "Valencia" in again.reply
