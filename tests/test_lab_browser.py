"""The lab tells the truth, in a real Chromium over `streamlit run app.py` (issue #28, item 7).

Before: under a threshold of 0.019 every candidate was a "near miss" (a fixed band of 0.1), a flagged hit above the
threshold was drawn as passed in the histogram, and every value the sidebar's threshold slider went through was
applied to the live agent and audited. Now the band is relative to the threshold and shown, the histogram groups
come from the cut's verdicts, and the sidebar applies (and audits) once, on Apply.
"""

from __future__ import annotations

import pytest
from actors import ADMIN, CURATOR
from browser_helpers import CHROMIUM, need_chromium, streamlit_server
from browser_helpers import settle as _settle

from memory import audit
from memory.service import MemoryService
from memory.storage.embed import HashEmbedder
from memory.vocab import AuditAction

pytestmark = [pytest.mark.browser, pytest.mark.slow]
FACTS = ["tea with milk", "green tea every morning", "black coffee", "a walk by the river", "tea ceremony in Kyoto"]
THRESHOLD = 0.019

_TRACES = """() => { const el = document.querySelector('.js-plotly-plot');
  return el && el.data ? el.data.map(t => [t.name, (t.x || []).length]) : null; }"""


def _metric(page, label: str) -> str:
    box = page.locator('[data-testid="stMetric"]', has_text=label).first
    return box.locator('[data-testid="stMetricValue"]').inner_text().strip()


def test_lab_band_histogram_and_the_sidebar_applies_once(plumbing_svc, tmp_path, monkeypatch):
    need_chromium()
    playwright = pytest.importorskip("playwright.sync_api")
    monkeypatch.setenv("MEMLENS_EMBEDDER", "hash")
    svc = plumbing_svc
    user = svc.ensure_user("lab-u")
    ids = [svc.add_memory(user, f).id for f in FACTS]
    svc.flag_memory(ids[1], actor=CURATOR)
    svc.set_live_settings({"relevance_threshold": THRESHOLD}, actor=ADMIN)
    expected = svc.recall("lab-u", "tea", threshold=THRESHOLD, log=False)
    flagged = next(h for h in expected.hits if h.memory_id == ids[1])
    assert flagged.relevance >= THRESHOLD  # the case the old histogram drew as passed
    settings = svc.settings
    svc.close()
    with streamlit_server(settings.data_dir, tmp_path / "streamlit.log") as url, playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1400, "height": 1200})
        page.goto(f"{url}/lab")
        _settle(page)
        page.get_by_label("Query", exact=True).fill("tea")
        page.get_by_label("Query", exact=True).press("Enter")
        page.locator('[data-testid="stMetric"]', has_text="Near misses").first.wait_for(timeout=60_000)
        _settle(page)
        page.wait_for_function(
            "() => { const el = document.querySelector('.js-plotly-plot'); return !!(el && el.data); }",
            timeout=30_000,
        )
        traces = dict(page.evaluate(_TRACES))
        assert int(_metric(page, "Near misses")) == len(expected.near_misses) < len(expected.hits)
        assert int(_metric(page, "Passed")) == traces["passed"] == sum(h.passed for h in expected.hits)
        assert traces["dropped (flagged, floor, cut)"] >= 1  # the flagged hit, drawn as dropped
        body = page.locator("body").inner_text()
        assert f"from {THRESHOLD / 2:.3g} (half the threshold) up to {THRESHOLD:.3g}" in body

        # the sidebar's threshold: moving it applies nothing; Apply applies the final value, audited once
        slider = page.locator('[data-testid="stSidebar"] [data-testid="stSlider"] input[type="range"]').first
        slider.focus()
        for _ in range(5):
            slider.press("ArrowRight")
            page.wait_for_timeout(400)
        _settle(page)
        again = MemoryService(settings, embedder=HashEmbedder())
        assert again.effective_settings().relevance_threshold == pytest.approx(THRESHOLD)
        assert len(audit.events(again.storage, action=AuditAction.SETTINGS)) == 1  # the seed's own
        page.get_by_role("button", name="Apply to the agent").click()
        page.get_by_text("from the next turn").first.wait_for(timeout=30_000)
        rows = audit.events(again.storage, action=AuditAction.SETTINGS)
        assert len(rows) == 2 and rows[0].target_ids == ["relevance_threshold"]
        assert again.effective_settings().relevance_threshold == pytest.approx(THRESHOLD + 0.005)
        again.close()
        browser.close()
