"""One real browser over the real server: `streamlit run app.py`, every page, one chat message, no exception box.

Uses Debian's Chromium (/usr/bin/chromium, installed by .ci/run) through Playwright; skips with a reason when it
is missing. Screenshots go to a temporary folder (printed; kept with ``UI_SCREENSHOTS=<dir>``).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from bench.synthetic import Plan, populate

CHROMIUM = "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parent.parent
PAGES = {
    "": "Chat",
    "user-profile": "Profile",
    "recent-writes": "Memories",
    "session-timeline": "Sessions & bridges",
    "lab": "Retrieval lab",
    "budget": "Context budget",
}

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_healthy(url: str, proc: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise TimeoutError("streamlit did not become healthy")


@pytest.fixture
def server(tmp_path, plumbing_svc, monkeypatch):
    monkeypatch.setenv("MEMLENS_EMBEDDER", "hash")
    populate(plumbing_svc, Plan(users=2, memories_per_user=40))
    port = _free_port()
    env = {**os.environ, "MEMLENS_DATA_DIR": str(plumbing_svc.settings.data_dir), "MEMLENS_EMBEDDER": "hash"}
    cmd = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        "app.py",
        "--server.headless",
        "true",
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
        "--browser.gatherUsageStats",
        "false",
        "--server.fileWatcherType",
        "none",
    ]
    log = open(tmp_path / "streamlit.log", "w")  # noqa: SIM115 - closed below, after the process ends
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait_healthy(f"http://127.0.0.1:{port}", proc)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def _settle(page) -> None:
    """Wait until the script run is over: the title is there and the 'running' widget is gone."""
    page.wait_for_selector("h1", timeout=30_000)
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=30_000)
    page.wait_for_timeout(500)


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
