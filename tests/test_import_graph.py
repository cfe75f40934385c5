"""The layers, checked from the source: arrows point down (pages → agent → memory) and ``memory/`` has no cycles.

The graph itself (``ast`` over every import statement, function-local ones included, ``TYPE_CHECKING`` ones left
out) is computed in bench/import_graph.py, which bench/structure.py reports from as well.
"""

from __future__ import annotations

import pytest

from bench.import_graph import cycles, forbidden_imports, graph, imports_of

FORBIDDEN_IN_MEMORY = ("agent", "pages", "streamlit", "app")


def test_memory_has_no_import_cycles():
    assert cycles(graph("memory")) == []


@pytest.mark.parametrize("package", ["memory", "agent"])
def test_arrows_point_down(package):
    """memory/ imports neither agent/, pages/, app nor streamlit; agent/ imports neither pages/, app nor streamlit."""
    banned = FORBIDDEN_IN_MEMORY if package == "memory" else ("pages", "streamlit", "app")
    assert forbidden_imports(package, banned) == []


def test_the_checker_sees_a_cycle_and_a_hidden_one(tmp_path):
    """The test itself can fail: a two-module cycle closed by a function-local import is found."""
    g = {"a": {"b"}, "b": set(), "c": set()}
    assert cycles(g) == []
    g["b"].add("a")
    assert cycles(g) == [["a", "b"]]
    src = "def f():\n    from memory.write import batch\n"
    path = tmp_path / "apply.py"
    path.write_text(src, encoding="utf-8")
    assert imports_of("memory.write.apply", path, {"memory.write.batch"}) == {"memory.write.batch"}
    typed = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from memory.write import batch\n"
    path.write_text(typed, encoding="utf-8")
    assert "memory.write.batch" not in imports_of("memory.write.apply", path, {"memory.write.batch"})
