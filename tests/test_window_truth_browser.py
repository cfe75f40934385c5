"""The window tells the truth, in a real Chromium over `streamlit run app.py` (issue #28, items 1, 2 and 8).

- a flagged fact is gone from the chat banner, the panel's "Last session" and the Sessions page (item 1);
- the chat panel shows the prompt's own sections from the turn's snapshot, not the recalled hits' full source
  context ("as the prompt received it" used to list lines the composer never sent) (item 2);
- a message whose write failed is listed on the Memories page with its error and a person retries it (item 8).
"""

from __future__ import annotations

import pytest
from actors import CURATOR
from browser_helpers import CHROMIUM, need_chromium, streamlit_server
from browser_helpers import settle as _settle
from sqlmodel import col, select

from agent.runtime import Agent
from memory.service import MemoryService
from memory.storage.embed import HashEmbedder
from memory.storage.models import ContextSnapshot
from memory.vocab import SEMANTIC_TYPES
from memory.write import behind

pytestmark = [pytest.mark.browser, pytest.mark.slow]
USER = "wt-user"


def _send(page, text: str) -> None:
    box = page.locator('[data-testid="stChatInputTextArea"]')
    box.fill(text)
    box.press("Enter")
    page.wait_for_function(
        "(t) => { const m = document.querySelectorAll('[data-testid=\"stChatMessage\"]');"
        " return m.length >= 2 && m[m.length - 1].innerText.includes('What I remembered')"
        " && m[m.length - 2].innerText.includes(t); }",
        arg=text[:20],
        timeout=90_000,
    )
    _settle(page)


def test_flagged_facts_panel_snapshot_and_set_aside_writes_in_chromium(plumbing_svc, tmp_path, monkeypatch):
    need_chromium()
    playwright = pytest.importorskip("playwright.sync_api")
    monkeypatch.setenv("MEMLENS_EMBEDDER", "hash")
    svc = plumbing_svc
    bot = Agent(svc)
    long_line = "We talked about trains, stations, timetables and tickets across the whole country. " * 3
    for text in (long_line, "I have a dog named Biscuit.", "I like jazz.", long_line):
        bot.chat(USER, "s1", text)
    bot.wait()
    user = svc.get_user(USER)
    dog = next(m for m in svc.list_memories(user, types=SEMANTIC_TYPES) if "Biscuit" in m.content)
    svc.flag_memory(dog.id, actor=CURATOR)
    session = svc.find_session(user, "s1", "default")
    aside = svc.add_message(session, "user", "I went to Paris on 2024-02-31 zq-aside.")
    behind.set_aside(svc.storage, user.key, aside.id, ValueError("day is out of range for month"))
    bot.close()
    settings = svc.settings
    svc.close()
    env = {"MEMLENS_CONTEXT_MEMORIES_CAP": "60"}  # the composer cuts the memories' source context for budget
    with streamlit_server(settings.data_dir, tmp_path / "st.log", env=env) as url, playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1400, "height": 1400})
        page.goto(url)
        _settle(page)
        page.get_by_role("button", name="New session").click()  # ends s1: its bridge is written now
        page.get_by_text("A fresh session.").first.wait_for(timeout=60_000)
        _settle(page)
        _send(page, "hello, what's my dog's name?")
        reader = MemoryService(settings, embedder=HashEmbedder())
        with reader.storage.db() as db:  # what the prompt received, as saved
            prompt = db.exec(select(ContextSnapshot).order_by(col(ContextSnapshot.id).desc())).first().prompt
        reader.close()
        for reloaded in (False, True):  # the live panel, then the same turn read back from the log
            if reloaded:
                page.goto(url)
                _settle(page)
                banner = page.get_by_text("Carried over from last session").first
                banner.wait_for(timeout=30_000)
                shown = page.locator('[data-testid="stAlert"]').first.inner_text()
                assert "jazz" in shown and "Biscuit" not in shown
            last = page.locator('[data-testid="stChatMessage"]').last
            last.get_by_text("What I remembered").click()
            _settle(page)
            panel = last.inner_text()
            assert "What the prompt received" in panel and "Last session" in panel and "jazz" in panel
            assert "Biscuit" not in panel  # flagged: not in the bridge, not in the memories the prompt got
            assert "as the prompt received it" not in panel  # the recomputed source context is gone
            # the long line is said back (bridge, or its episode) only where the prompt had it; context lines cut for
            # budget are not shown
            assert ("timetables" in panel) == ("timetables" in prompt)

        page.goto(f"{url}/session-timeline")
        _settle(page)
        assert "Biscuit" not in page.locator("body").inner_text()

        page.goto(f"{url}/recent-writes")
        _settle(page)
        page.get_by_text("Set aside · 1 message").wait_for(timeout=30_000)
        grid = page.locator('[data-testid="stDataFrame"]').first
        grid.wait_for(timeout=30_000)
        page.wait_for_timeout(800)
        cells = page.evaluate(
            """() => [...document.querySelectorAll('[data-testid="stDataFrame"] td')].map(td => td.innerText)"""
        )
        assert any("zq-aside" in c for c in cells) and any("day is out of range" in c for c in cells), cells[:12]
        page.get_by_role("button", name="Retry its write").click()
        page.get_by_text("Set aside · 1 message").wait_for(state="detached", timeout=60_000)
        _settle(page)
        assert "Set aside · " not in page.locator("body").inner_text()
        browser.close()
    again = MemoryService(settings, embedder=HashEmbedder())
    assert again.set_aside_writes(USER) == []
    again.close()
