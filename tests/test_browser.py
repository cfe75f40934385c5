"""One real browser over the real server: `streamlit run app.py`, the navigation lists every core page, and one chat
message gets its reply with no exception box. (Every page is opened and read in a browser by
``test_plain_text_browser`` — no exception, its heading, no markup from user text — and ``test_tour_browser``.)

Uses Debian's Chromium (/usr/bin/chromium, installed by .ci/run) through Playwright; skips with a reason when it
is missing. Screenshots of every page are taken only with ``UI_SCREENSHOTS=<dir>`` (a full-page screenshot costs
the browser seconds of CPU; the suite runs without them).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from browser_helpers import CHROMIUM, CORE_PAGES, need_chromium, streamlit_server
from browser_helpers import settle as _settle

from bench.synthetic import Plan, populate
from pages.registry import PAGES as REGISTRY

#: the core pages' paths in the navigation (the default page, the chat, lives at "")
PAGES = frozenset("" if spec.default else spec.url_path for spec in REGISTRY if spec.url_path in CORE_PAGES)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture
def server(tmp_path, plumbing_svc, monkeypatch):
    monkeypatch.setenv("MEMLENS_EMBEDDER", "hash")
    populate(plumbing_svc, Plan(users=2, memories_per_user=40))
    with streamlit_server(plumbing_svc.settings.data_dir, tmp_path / "streamlit.log") as url:
        yield url


def test_the_navigation_lists_every_page_and_a_chat_message_gets_its_reply(server):
    need_chromium()
    playwright = pytest.importorskip("playwright.sync_api")
    shots = Path(os.environ["UI_SCREENSHOTS"]) if os.environ.get("UI_SCREENSHOTS") else None
    if shots is not None:
        shots.mkdir(parents=True, exist_ok=True)
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-dev-shm-usage",
            ],
        )
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(server)
        _settle(page)
        links = page.locator('[data-testid="stSidebarNavLink"]')
        urls = [links.nth(i).get_attribute("href") for i in range(links.count())]
        paths = {u.rstrip("/").rsplit("/", 1)[-1] if u.rstrip("/") != server else "" for u in urls if u}
        assert set(PAGES) <= paths, f"navigation lost a page: {sorted(paths)}"
        if shots is not None:  # every page's picture, for the docs (each page is opened and checked elsewhere)
            for path in sorted(paths):
                page.goto(f"{server}/{path}")
                _settle(page)
                page.screenshot(path=str(shots / f"{path or 'chat'}.png"), full_page=True)
            page.goto(server)
            _settle(page)
        before = page.locator('[data-testid="stChatMessage"]').count()
        box = page.locator('[data-testid="stChatInputTextArea"]')
        box.fill("I live in Hangzhou and I don't eat spicy food")
        box.press("Enter")
        page.wait_for_function(
            "(n) => { const m = document.querySelectorAll('[data-testid=\"stChatMessage\"]');"
            " return m.length >= n && m[m.length - 1].innerText.includes('What I remembered'); }",
            arg=before + 2,
            timeout=60_000,
        )
        _settle(page)
        last = page.locator('[data-testid="stChatMessage"]').last
        assert "What I remembered" in last.inner_text() and len(last.inner_text()) > 40
        assert page.locator('[data-testid="stException"]').count() == 0
        if shots is not None:
            page.screenshot(path=str(shots / "chat-after-message.png"), full_page=True)
        browser.close()
