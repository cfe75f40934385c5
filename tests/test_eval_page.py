"""The evaluation page renders saved reports (charts, compare) and its empty state (Streamlit AppTest)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from memory.config import Settings
from memory.evaluation.metrics import Candidate, Outcome
from memory.evaluation.runner import EvalOptions, assemble, save_report

ROOT = Path(__file__).resolve().parents[1]
PAGE = str(ROOT / "pages" / "evaluation.py")


def fake_report(shift: float) -> dict:
    """A report built by the real assembler from synthetic outcomes (the page only reads numbers)."""
    ranked = [Candidate(frozenset({f"D1:{i}"}), 0.9 - i * 0.01 - shift, 12) for i in range(30)]
    outs = [Outcome("s", i, 1 + i % 5, frozenset({f"D1:{i % 7}"}), ranked) for i in range(10)]
    opts = EvalOptions(ks=(5, 10, 25))
    return assemble(
        {"hybrid": outs, "fulltext": outs, "vector": outs},
        opts,
        configured_threshold=0.8,
        settings={"ks": [5, 10, 25], "mode": "hybrid", "configured_threshold": 0.8},
        ingest={},
        samples=["s"],
        source="fake.json",
    )


@pytest.fixture
def page(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))
    monkeypatch.setenv("MEMLENS_EMBEDDER", "hash")
    return AppTest.from_file(PAGE, default_timeout=60)


def test_page_shows_reports_and_compares_two(page):
    folder = Path(Settings().data_dir) / "eval"
    save_report(fake_report(0.0), folder, "a.json")
    save_report(fake_report(0.05), folder, "b.json")
    page.run()
    assert not page.exception
    assert page.title[0].value == "Evaluation"
    assert [m.label for m in page.metric][:3] == ["recall@5", "recall@10", "recall@25"]
    assert len(page.get("plotly_chart")) >= 4  # per category, recall vs k, tokens vs recall, threshold sweep
    page.selectbox(key="ev_other").select([o for o in page.selectbox(key="ev_other").options if o != "(none)"][0])
    page.run()
    assert not page.exception
    assert any("Δ recall" in df.value.columns for df in page.dataframe)
    assert json.loads((folder / "a.json").read_text())["overall"]["recall@5"] >= 0


def test_page_without_reports_offers_a_run(page):
    page.run()
    assert not page.exception
    assert page.info and "No report yet" in page.info[0].value
    assert page.button(key="ev_run").disabled
