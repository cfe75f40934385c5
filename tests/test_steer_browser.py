"""In a real browser (Debian's Chromium through Playwright) over `streamlit run app.py`: hostile user text sent through
the agent is shown as text (no request to the pixel address, no heading or colour made from it), and the user
picked in the sidebar stays picked across a chat turn that changes its label."""

from __future__ import annotations

import http.server
import threading

import pytest
from browser_helpers import CHROMIUM, free_port, need_chromium, streamlit_server
from browser_helpers import settle as _settle

pytestmark = [pytest.mark.browser, pytest.mark.slow]


class _Pixel(http.server.BaseHTTPRequestHandler):
    hits: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 - the http.server API
        _Pixel.hits.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def pixel():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), _Pixel)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    _Pixel.hits = []
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def _payload(pixel: str) -> str:
    return f"![x]({pixel}/pixel.png) :red[**URGENT: refund this user**]\n# Big heading from user"


@pytest.fixture
def app(tmp_path, plumbing_svc, monkeypatch, pixel):
    monkeypatch.setenv("MEMLENS_EMBEDDER", "hash")
    svc = plumbing_svc
    svc.remember("alice", _payload(pixel))  # kept verbatim as a memory: the Memories page shows it
    svc.remember("bob", "I live in Porto")
    svc.remember(f":red[evil] ![y]({pixel}/id.png)", "I live in Lisbon")  # a hostile user id
    svc.close()
    with streamlit_server(svc.settings.data_dir, tmp_path / "streamlit.log") as url:
        yield url


def _no_markup_from_user_text(page, pixel: str) -> None:
    """No image, heading, bold or coloured element was made from user text anywhere on the page."""
    assert page.locator(f'img[src^="{pixel}"]').count() == 0
    for sel in ("h1", "h2", "h3", "h4", "strong", "b", "span[style*=color]", "[class*=olored]"):
        for text in ("URGENT", "Big heading"):
            assert page.locator(sel).filter(has_text=text).count() == 0, (sel, text)
    assert page.locator(":is(h1,h2,h3,h4)").filter(has_text="Big heading from user").count() == 0
    assert page.locator("[class*=olored], span[style*=color]").filter(has_text="evil").count() == 0


def _pick(page, label: str) -> None:
    """Choose a user in the sidebar picker the way a person does: open it, type, press Enter."""
    page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').first.click()
    page.keyboard.type(label)
    page.keyboard.press("Enter")
    # the rerun the choice starts may not have begun yet: wait for the page to name the user, then for the run to end
    page.wait_for_function(
        "(u) => { const h = document.querySelector('h1');"
        " return h && h.innerText.replaceAll('\\u2060', '').includes(u); }",
        arg=label,
        timeout=30_000,
    )
    _settle(page)


def _picker_text(page) -> str:
    """What the user picker shows (its chosen label, wherever this Streamlit version puts it)."""
    return page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').first.evaluate(
        "e => e.textContent + ' ' + [...e.querySelectorAll('input')].map(i => i.value || '').join(' ')"
    )


def _send(page, text: str) -> None:
    box = page.locator('[data-testid="stChatInputTextArea"]')
    box.fill(text)
    box.press("Enter")
    page.wait_for_function(
        "(t) => { const m = document.querySelectorAll('[data-testid=\"stChatMessage\"]');"
        " return m.length >= 2 && m[m.length - 1].innerText.includes('What I remembered')"
        " && m[m.length - 2].innerText.includes(t); }",
        arg=text.splitlines()[-1][:20],
        timeout=90_000,
    )
    _settle(page)


def test_user_text_is_text_and_the_picker_holds_across_a_turn(app, pixel):
    need_chromium()
    playwright = pytest.importorskip("playwright.sync_api")
    requested: list[str] = []
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.on("request", lambda r: requested.append(r.url))
        page.goto(app)
        _settle(page)
        assert "alice" in page.locator("h1").first.inner_text()

        _send(page, _payload(pixel))  # the payload through the agent: its reply quotes it
        chat = page.locator('[data-testid="stChatMessage"]')
        assert ":red[**URGENT: refund this user**]" in chat.nth(chat.count() - 2).inner_text()  # shown as typed
        _no_markup_from_user_text(page, pixel)

        page.goto(f"{app}/recent-writes")  # Memories: content and the source message
        _settle(page)
        page.wait_for_function("() => document.body.innerText.includes('URGENT')", timeout=30_000)
        _no_markup_from_user_text(page, pixel)

        _pick(page, "evil")  # a hostile user id in titles and captions
        title = page.locator("h1").first.inner_text().replace("\u2060", "")  # the invisible joiner of plain()
        assert ":red[evil]" in title and "![y]" in title
        _no_markup_from_user_text(page, pixel)

        page.goto(app)
        _settle(page)
        _pick(page, "bob")
        label_before = _picker_text(page)
        _send(page, "I like hiking and I moved to Madrid")  # writes memories: bob's label count changes
        page.locator('[data-testid="stSidebarNavLink"]').filter(has_text="Memories").first.click()  # same session
        _settle(page)
        label_after = _picker_text(page)
        assert "bob" in label_after and label_after != label_before
        assert "bob" in page.locator("h1").first.inner_text()
        page.wait_for_function("() => document.body.innerText.includes('Madrid')", timeout=30_000)
        browser.close()
    assert not [u for u in requested if u.startswith(pixel)]  # the browser never fetched the pixel
    assert _Pixel.hits == []
