"""The layers, checked from the source: arrows point down (pages → agent → memory) and ``memory/`` has no cycles.

The graph itself (``ast`` over every import statement, function-local ones included, ``TYPE_CHECKING`` ones left
out) is computed in bench/import_graph.py, which bench/structure.py reports from as well.
"""

from __future__ import annotations

import ast

import pytest

from bench.import_graph import cycles, forbidden_imports, graph, imports_of, modules

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


#: the facade's own clients inside memory/: the doors (Python API, LangGraph store), the CLI, the evaluation harness
FACADE_CLIENTS = ("memory.client", "memory.langgraph", "memory.cli", "memory.evaluation")


def _imports_the_facade(tree: ast.AST) -> bool:
    for node in ast.walk(tree):  # TYPE_CHECKING imports included: a domain function may not even be typed with it
        if isinstance(node, ast.Import) and any(a.name == "memory.service" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (
            node.module == "memory.service"
            or (node.module == "memory" and any(a.name == "service" for a in node.names))
        ):
            return True
    return False


def test_domain_modules_never_see_the_service():
    """Composition, one way: the service holds the storage and calls the domain modules; no domain module imports
    ``memory.service`` (not even for a type), so none can receive the whole service or call back into it."""
    seen = {
        name
        for name, path in modules("memory").items()
        if name != "memory.service" and _imports_the_facade(ast.parse(path.read_text(encoding="utf-8")))
    }
    assert {n for n in seen if not n.startswith(FACADE_CLIENTS)} == set()
    assert "memory.client" in seen  # the check sees an import where there is one


def test_the_service_holds_its_parts_rather_than_inheriting_them():
    from memory.service import MemoryService
    from memory.storage.store import Storage

    assert MemoryService.__bases__ == (object,) and Storage.__bases__ == (object,)
    svc = MemoryService()  # connects to nothing until used
    assert isinstance(svc.storage, Storage) and svc.people.storage is svc.storage
