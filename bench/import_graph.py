"""The project's import graph, computed from the source with ``ast``: used by tests/test_import_graph.py (no cycles
in ``memory/`` between modules or between subpackages, arrows point down) and by bench/structure.py (the figures).

Every import statement counts: those inside functions (a function-local import that closes a cycle is still a
cycle, only hidden) and those under ``if TYPE_CHECKING:`` (a type that needs a module above is a layer leaking
upwards, even if it never runs; type with a ``Protocol`` of the lower layer instead). ``runtime_only=True`` leaves
the ``TYPE_CHECKING`` ones out. ``from package import name`` is an edge to ``package.name`` when that is a module,
else to ``package`` itself.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def module_name(path: Path, root: Path = ROOT) -> str:
    """``memory/write/apply.py`` → ``memory.write.apply``; a package's ``__init__.py`` is the package."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(package: str, root: Path = ROOT) -> dict[str, Path]:
    """Every module of ``package`` (recursively), by dotted name."""
    return {module_name(p, root): p for p in sorted((root / package).rglob("*.py"))}


def _runtime_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node except those under ``if TYPE_CHECKING:``."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            stack.extend(node.orelse)
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def imports_of(name: str, path: Path, known: set[str], *, runtime_only: bool = False) -> set[str]:
    """Absolute names this module imports (resolved against ``known`` modules where possible)."""
    out: set[str] = set()
    is_package = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in _runtime_nodes(tree) if runtime_only else ast.walk(tree):
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


def graph(package: str, root: Path = ROOT, *, runtime_only: bool = False) -> dict[str, set[str]]:
    """module → the modules of the same package it imports (every import; ``runtime_only``: those that run)."""
    mods = modules(package, root)
    known = set(mods)
    return {
        m: {t for t in imports_of(m, p, known, runtime_only=runtime_only) if t in known and t != m}
        for m, p in mods.items()
    }


def unit_of(module: str, package: str = "memory", root: Path = ROOT) -> str:
    """The layer a module belongs to: its top-level subpackage (``memory.write.extract.base`` → ``memory.write``), or
    the module itself when it sits directly in ``package`` (``memory.profile``)."""
    parts = module.split(".")
    if len(parts) > 2 and parts[0] == package and (root / package / parts[1]).is_dir():
        return ".".join(parts[:2])
    return module


def package_graph(g: dict[str, set[str]], package: str = "memory", root: Path = ROOT) -> dict[str, set[str]]:
    """The module graph folded onto subpackages (and top-level modules): ``a → b`` when a module of ``a`` imports
    one of ``b``."""
    out: dict[str, set[str]] = {}
    for m, targets in g.items():
        a = unit_of(m, package, root)
        out.setdefault(a, set())
        for t in targets:
            b = unit_of(t, package, root)
            out.setdefault(b, set())
            if a != b:
                out[a].add(b)
    return out


def edges_between(g: dict[str, set[str]], a: str, b: str, package: str = "memory", root: Path = ROOT) -> list[str]:
    """``module → module`` imports that make the package edge ``a → b`` (to say which line to move)."""
    return sorted(
        f"{m} → {t}"
        for m, targets in g.items()
        for t in targets
        if unit_of(m, package, root) == a and unit_of(t, package, root) == b
    )


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
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


def forbidden_imports(package: str, banned: tuple[str, ...], root: Path = ROOT) -> list[str]:
    """``module → target`` for every import of ``package`` whose top-level name is in ``banned``."""
    mods = modules(package, root)
    return sorted(
        f"{m} → {t}" for m, p in mods.items() for t in imports_of(m, p, set(mods)) if t.split(".")[0] in banned
    )
