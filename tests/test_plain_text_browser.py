"""Plain text means plain (issue #28, item 6), in a real Chromium over `streamlit run app.py`, on every page (each
opens without an exception box, the core pages with their heading).

Before: ``pages.common.plain`` backslash-escaped Markdown, which does not stop GFM's autolinks (an e-mail, a URL or
"www." in a user id, a reason or a memory became a link) nor Streamlit's ``:material/…:`` icons (they are read after
unescaping). Now ``pages.safe.plain`` also breaks them with an invisible word joiner, and every error, toast and
caption that quotes user text goes through it. The hostile strings carry the marker "zq".
"""

from __future__ import annotations

import pytest
from actors import CURATOR
from browser_helpers import CHROMIUM, CORE_PAGES, need_chromium, streamlit_server
from browser_helpers import settle as _settle

from memory.lifecycle import curation
from pages.registry import PAGES
from pages.safe import JOINER, plain

pytestmark = [pytest.mark.browser, pytest.mark.slow]

HOSTILE_USER = "zq-user bob@zq.example :material/warning: https://zq.example/u www.zq.example"
HOSTILE_SESSION = "zq :material/star: http://zq.example/s"
HOSTILE_TEXT = "I love jazz zq — see https://zq.example/m or www.zq.example :material/delete: :smile:"
HOSTILE_REASON = "zq reason dan@zq.example https://zq.example/r :material/bolt:"
HOSTILE_ICONS = {"warning", "star", "delete", "bolt"}

#: every element showing a hostile string: none may hold a link or one of the hostile icons
_CHECK = """(icons) => {
  const bad = [];
  for (const a of document.querySelectorAll('a')) {
    if ((a.getAttribute('href') || '').includes('zq') || a.innerText.includes('zq')) bad.push('link: ' + a.outerHTML);
  }
  for (const el of document.querySelectorAll('[data-testid="stMarkdownContainer"], h1, h2, h3, [role="alert"]')) {
    if (!el.innerText.includes('zq')) continue;
    for (const icon of el.querySelectorAll('span[role="img"]')) {
      if (icons.includes(icon.innerText.trim())) bad.push('icon: ' + el.innerText.slice(0, 80));
    }
  }
  return bad;
}"""


def test_plain_breaks_autolinks_and_icons_and_keeps_the_visible_text():
    for text in (HOSTILE_USER, HOSTILE_TEXT, HOSTILE_REASON):
        shown = plain(text)
        assert "://" not in shown and "@zq" not in shown and "www." not in shown.lower()
        assert ":material/" not in shown.replace("\\", "")
        unescaped = shown.replace(JOINER, "").replace("\\", "")
        assert unescaped == text  # nothing visible changed


@pytest.fixture
def app(tmp_path, plumbing_svc, monkeypatch):
    monkeypatch.setenv("MEMLENS_EMBEDDER", "hash")
    svc = plumbing_svc
    svc.remember(HOSTILE_USER, HOSTILE_TEXT, session_id=HOSTILE_SESSION)
    memory = svc.list_memories(svc.get_user(HOSTILE_USER))[0]
    curation.flag_memory(svc.storage, memory.id, reason=HOSTILE_REASON, actor=CURATOR)
    svc.close()
    with streamlit_server(svc.settings.data_dir, tmp_path / "streamlit.log") as url:
        yield url


def test_hostile_ids_and_texts_are_plain_on_every_page(app, tmp_path):
    need_chromium()
    playwright = pytest.importorskip("playwright.sync_api")
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(app)
        _settle(page)
        assert "zq-user" in page.locator("h1").first.inner_text()  # the hostile user is the one picked
        for spec in PAGES:
            page.goto(f"{app}/{spec.url_path}")
            _settle(page)
            page.wait_for_timeout(800)
            assert page.locator('[data-testid="stException"]').count() == 0, spec.url_path
            if spec.url_path in CORE_PAGES:
                assert page.locator("h1").first.inner_text().strip().startswith(spec.title)
            bad = page.evaluate(_CHECK, sorted(HOSTILE_ICONS))
            if bad:  # a full-page screenshot costs the browser seconds: taken only to show a failure
                page.screenshot(path=str(tmp_path / f"{spec.url_path}.png"), full_page=True)
            assert not bad, (spec.url_path, bad[:3], tmp_path)
        browser.close()
