"""The memory card shows the fact and, one click away, the words it came from (issue 44, item 4), in a real Chromium
over `streamlit run app.py`: a fact's card on the Memories page has a "Words it came from" control; one click shows
the sentence read and the source message whole, as plain text — Markdown and HTML in what the user said show
literally (no heading, bold, tag or link comes out of them). Before, the card showed only the fact."""

from __future__ import annotations

import pytest
from browser_helpers import CHROMIUM, need_chromium, streamlit_server
from browser_helpers import settle as _settle

from memory.vocab import SEMANTIC_TYPES

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SAID = "# zq news\n\nI live in Lisbon. **zq stars** <b>zq tag</b> [zq link](https://zq.example)"

#: elements inside the opened popover that Markdown or HTML in the message would have produced
_MARKUP = """() => {
  const body = document.querySelector('[data-testid="stPopoverBody"]');
  if (!body) return null;
  return [...body.querySelectorAll('h1, h2, strong, b, a, img')].filter(e => e.innerText.includes('zq')).length;
}"""


def test_a_fact_card_shows_the_words_it_came_from_one_click_away_as_plain_text(plumbing_svc, tmp_path):
    need_chromium()
    playwright = pytest.importorskip("playwright.sync_api")
    svc = plumbing_svc
    svc.remember("v", SAID, session_id="s1")
    facts = svc.list_memories(svc.get_user("v"), types=SEMANTIC_TYPES)
    assert [m.content for m in facts] == ["User lives in Lisbon."]
    svc.close()
    with (
        streamlit_server(svc.settings.data_dir, tmp_path / "streamlit.log") as url,
        playwright.sync_playwright() as p,
    ):
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(f"{url}/recent-writes")
        _settle(page)
        page.get_by_label("Open a write").click()  # the fact's write, as a person picks it
        page.keyboard.type("User lives in Lisbon")
        page.keyboard.press("Enter")
        _settle(page)
        assert page.locator('[data-testid="stPopoverBody"]').count() == 0  # not shown until asked for
        page.get_by_role("button", name="Words it came from").click()  # the one click
        body = page.locator('[data-testid="stPopoverBody"]')
        body.wait_for(timeout=30_000)
        shown = body.inner_text()
        assert "I live in Lisbon" in shown  # the sentence read
        for literal in ("# zq news", "**zq stars**", "<b>zq tag</b>", "[zq link](https://zq.example)"):
            assert literal in shown, literal  # the message whole, as said
        assert page.evaluate(_MARKUP) == 0
        browser.close()
