"""Structure figures of the code base: how the folders, modules and functions are sized, typed and layered.

One command: ``python bench/structure.py [--root DIR] [--out FILE]``. Reads the source only (``ast`` and
pyproject.toml; nothing is imported or run), prints the figures and writes ``bench/results/structure.json``. To
measure an older commit: ``git worktree add /tmp/before <commit>`` and pass ``--root /tmp/before --out
bench/results/structure_before.json``.

Figures: modules per folder; the largest modules (lines); the longest functions (lines, ``def`` to last line) and
every function over 50 lines; parameters without a type annotation in ``memory/`` and ``agent/`` (``self``/``cls``
left out); import cycles inside ``memory/``, between modules and between subpackages (the same graphs
tests/test_import_graph.py checks); mypy override entries still in pyproject.toml (the type-checking baseline left to
pay down).
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
import tomllib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # `python bench/structure.py` from anywhere

from bench.import_graph import cycles, graph, package_graph  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
#: the product's code: the engine, the agent, the back office
CODE = ("memory", "agent", "pages", "app.py", "backoffice.py")
#: where parameters must be typed (every domain function's signature says what it needs)
TYPED = ("memory", "agent")
LONG_FUNCTION = 50
TOP = 5


@dataclass(frozen=True)
class Function:
    """One ``def`` (methods and nested functions included) and its length in lines."""

    path: str
    name: str
    lines: int
    untyped: tuple[str, ...]


def python_files(root: Path, parts: tuple[str, ...]) -> list[Path]:
    """The ``.py`` files under each folder (or the file itself) of ``parts``, sorted."""
    out: list[Path] = []
    for part in parts:
        path = root / part
        out.extend([path] if path.is_file() else sorted(path.rglob("*.py")))
    return out


def untyped_params(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str, ...]:
    """Names of the parameters without an annotation (``self`` and ``cls`` are not counted)."""
    a = fn.args
    params = [*a.posonlyargs, *a.args, *a.kwonlyargs, *(p for p in (a.vararg, a.kwarg) if p)]
    return tuple(p.arg for p in params if p.annotation is None and p.arg not in ("self", "cls"))


def functions(root: Path, path: Path) -> list[Function]:
    """Every function defined in one file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    rel = str(path.relative_to(root))
    return [
        Function(rel, n.name, (n.end_lineno or n.lineno) - n.lineno + 1, untyped_params(n))
        for n in ast.walk(tree)
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    ]


def modules_per_folder(root: Path) -> dict[str, int]:
    """folder → number of modules directly in it (``__init__.py`` not counted)."""
    counts = Counter(str(p.parent.relative_to(root)) for p in python_files(root, CODE) if p.name != "__init__.py")
    return dict(sorted(counts.items()))


def line_count(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def mypy_overrides(root: Path) -> dict[str, int]:
    """The baseline in pyproject.toml: override entries, modules they name, (module, error code) pairs."""
    config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    entries = config.get("tool", {}).get("mypy", {}).get("overrides", [])
    named = [(m, len(e.get("disable_error_code", []))) for e in entries for m in _as_list(e.get("module"))]
    return {"entries": len(entries), "modules": len(named), "disabled_codes": sum(n for _, n in named)}


def _as_list(value: str | list[str] | None) -> list[str]:
    return [value] if isinstance(value, str) else list(value or [])


def measure(root: Path) -> dict[str, Any]:
    """Every figure, as a JSON-ready dict."""
    files = python_files(root, CODE)
    fns = [f for path in files for f in functions(root, path)]
    typed_fns = [f for f in fns if f.path.split("/")[0] in TYPED]
    long_fns = sorted((f for f in fns if f.lines > LONG_FUNCTION), key=lambda f: -f.lines)
    sizes = sorted(((str(p.relative_to(root)), line_count(p)) for p in files), key=lambda s: -s[1])
    untyped = [(f.path, f.name, p) for f in typed_fns for p in f.untyped]
    imports = graph("memory", root)
    found = cycles(imports)
    layers = cycles(package_graph(imports, "memory", root))
    return {
        "modules_total": sum(1 for p in files if p.name != "__init__.py"),
        "modules_per_folder": modules_per_folder(root),
        "largest_modules": [{"path": p, "lines": n} for p, n in sizes[:TOP]],
        "modules_over_400_lines": sum(1 for _, n in sizes if n > 400),
        "longest_functions": [{"path": f.path, "name": f.name, "lines": f.lines} for f in long_fns[:TOP]],
        "functions_over_50_lines": len(long_fns),
        "functions_over_50_lines_memory_agent": sum(1 for f in long_fns if f.path.split("/")[0] in TYPED),
        "long_functions": [f"{f.path}:{f.name} ({f.lines})" for f in long_fns],
        "untyped_parameters_memory_agent": len(untyped),
        "untyped_parameters_by_package": dict(Counter(p.split("/")[0] for p, _, _ in untyped)),
        "untyped_store_parameters": sum(1 for _, _, name in untyped if name in ("store", "svc", "service")),
        "untyped_parameter_list": [f"{p}:{fn}({name})" for p, fn, name in untyped],
        "memory_import_cycles": len(found),
        "memory_import_cycle_members": found,
        "memory_subpackage_import_cycles": len(layers),
        "memory_subpackage_import_cycle_members": layers,
        "mypy_overrides": mypy_overrides(root),
    }


def report(figures: dict[str, Any]) -> str:
    """The figures a person reads (the JSON keeps the full lists)."""
    lines = [f"modules: {figures['modules_total']}"]
    lines += [f"  {folder:<28} {n}" for folder, n in figures["modules_per_folder"].items()]
    lines.append("largest modules:")
    lines += [f"  {m['lines']:>5}  {m['path']}" for m in figures["largest_modules"]]
    lines.append(f"modules over 400 lines: {figures['modules_over_400_lines']}")
    lines.append(
        f"functions over {LONG_FUNCTION} lines: {figures['functions_over_50_lines']} "
        f"(memory/ + agent/: {figures['functions_over_50_lines_memory_agent']})"
    )
    lines += [f"  {f}" for f in figures["long_functions"]]
    lines.append(
        f"untyped parameters in memory/ + agent/: {figures['untyped_parameters_memory_agent']} "
        f"{figures['untyped_parameters_by_package']} (store/svc/service: {figures['untyped_store_parameters']})"
    )
    lines.append(f"import cycles in memory/: {figures['memory_import_cycles']}")
    lines.append(f"import cycles between memory/'s subpackages: {figures['memory_subpackage_import_cycles']}")
    lines.append(f"mypy overrides: {figures['mypy_overrides']}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to measure (default: this one)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "structure.json")
    args = parser.parse_args()
    root = args.root.resolve()
    figures = measure(root)
    print(report(figures))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    commit = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    args.out.write_text(json.dumps({"commit": commit.stdout.strip(), **figures}, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
