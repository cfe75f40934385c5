"""One real browser over the real server: `streamlit run app.py`, every page, one chat message, no exception box.

Uses Debian's Chromium (/usr/bin/chromium, installed by .ci/run) through Playwright; skips with a reason when it
is missing. Screenshots go to a temporary folder (printed; kept with ``UI_SCREENSHOTS=<dir>``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from browser_helpers import CHROMIUM, streamlit_server
from browser_helpers import settle as _settle

from bench.synthetic import Plan, populate

PAGES = {
    "": "Chat",
    "user-profile": "Profile",
    "recent-writes": "Memories",
    "session-timeline": "Sessions & bridges",
    "lab": "Retrieval lab",
    "budget": "Context budget",
}

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture
def server(tmp_path, plumbing_svc, monkeypatch):
    monkeypatch.setenv("MEMLENS_EMBEDDER", "hash")
    populate(plumbing_svc, Plan(users=2, memories_per_user=40))
    with streamlit_server(plumbing_svc.settings.data_dir, tmp_path / "streamlit.log") as url:
        yield url


def test_every_page_and_a_chat_message_in_chromium(server, tmp_path):
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium); .ci/run installs it")
    playwright = pytest.importorskip("playwright.sync_api")
    shots = Path(os.environ.get("UI_SCREENSHOTS") or tmp_path / "screenshots")
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
        for path in sorted(paths):  # every registered page, including other streams' (evaluation, lifecycle)
            page.goto(f"{server}/{path}")
            _settle(page)
            if path in PAGES:
                assert page.locator("h1").first.inner_text().strip().startswith(PAGES[path])  # "Chat · <user>"
            assert page.locator('[data-testid="stException"]').count() == 0, f"exception on /{path}"
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
        page.screenshot(path=str(shots / "chat-after-message.png"), full_page=True)
        browser.close()
    print(f"screenshots in {shots}")
