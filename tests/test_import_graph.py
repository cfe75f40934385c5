"""The layers, checked from the source: arrows point down (pages → agent → memory) and ``memory/`` has no cycles.

The graph is computed with ``ast`` from every import statement, including those inside functions (a function-local
import that closes a cycle is still a cycle, only hidden); imports under ``if TYPE_CHECKING:`` are left out, since
they never run. ``from package import name`` is an edge to ``package.name`` when that is a module, else to
``package`` itself.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN_IN_MEMORY = ("agent", "pages", "streamlit", "app")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(package: str) -> dict[str, Path]:
    return {module_name(p): p for p in (ROOT / package).rglob("*.py")}


def _runtime_nodes(tree: ast.AST):
    """Every node except those under ``if TYPE_CHECKING:``."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            stack.extend(node.orelse)
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """Absolute names this module imports (resolved against ``known`` modules where possible)."""
    out: set[str] = set()
    is_package = path.name == "__init__.py"
    for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                out.add(sub if sub in known else target)
    return out


def graph(package: str) -> dict[str, set[str]]:
    mods = modules(package)
    known = set(mods)
    return {m: {t for t in imports_of(m, p, known) if t in known and t != m} for m, p in mods.items()}


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan), plus self-loops."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(g[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return found


def test_memory_has_no_import_cycles():
    assert cycles(graph("memory")) == []


@pytest.mark.parametrize("package", ["memory", "agent"])
def test_arrows_point_down(package):
    """memory/ imports neither agent/, pages/, app nor streamlit; agent/ imports neither pages/, app nor streamlit."""
    banned = FORBIDDEN_IN_MEMORY if package == "memory" else ("pages", "streamlit", "app")
    mods = modules(package)
    bad = sorted(
        f"{m} → {t}" for m, p in mods.items() for t in imports_of(m, p, set(mods)) if t.split(".")[0] in banned
    )
    assert bad == []


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
