"""mem0's documented behaviour (``tests/contracts/mem0.py``, 56 items) on the mem0-shaped door, real offline
embedder; the deliberate differences are strict xfails and the table in docs/doors.md is generated from them."""

from __future__ import annotations

from pathlib import Path

import pytest
from contracts.mem0 import ITEMS, table

from memory import Memory


def test_the_contract_has_56_items():
    assert len(ITEMS) == 56 and len({i.name for i in ITEMS}) == 56


@pytest.mark.parametrize(
    "entry",
    [
        pytest.param(i, id=i.name, marks=[pytest.mark.xfail(reason=f"by design: {i.by_design}", strict=True)])
        if i.by_design
        else pytest.param(i, id=i.name)
        for i in ITEMS
    ],
)
def test_mem0_documented_behaviour(entry, svc, tmp_path):
    entry.check(Memory(svc), tmp_path=tmp_path)


def test_docs_table_is_generated_from_the_contract():
    doc = (Path(__file__).parent.parent / "docs" / "doors.md").read_text(encoding="utf-8")
    assert table() in doc, "docs/doors.md is stale: paste `python -m tests.contracts.mem0` into it"
