"""One closed vocabulary: the window shows every value the engine writes, and the engine writes no other."""

from __future__ import annotations

import ast
from pathlib import Path

from memory.vocab import EventOp, MemoryStatus, SearchMode, SessionStatus

ROOT = Path(__file__).resolve().parents[1]
WORDS = {v.value for e in (EventOp, MemoryStatus, SessionStatus) for v in e}


def test_every_operation_has_a_colour_a_badge_and_a_filter_entry():
    import pages.common as common

    assert set(common.OP_COLORS) == set(common.OP_BADGE) == set(EventOp)


def test_no_bare_status_or_operation_strings_in_the_engine_agent_or_pages():
    """``"active"`` or ``"SUPERSEDE"`` spelled out is how two spellings of one thing started; use memory.vocab."""
    found = []
    for folder in ("memory", "agent", "pages"):
        for path in (ROOT / folder).rglob("*.py"):
            if path.name == "vocab.py" or "migrations" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                for value in _op_or_status_values(node):
                    if isinstance(value, ast.Constant) and value.value in WORDS:
                        found.append(f"{path.relative_to(ROOT)}:{value.lineno} {value.value!r}")
    assert not found, found


def test_search_modes_are_the_settings_modes():
    from typing import get_args

    from memory.config import Settings

    annotation = Settings.model_fields["search_mode"].annotation
    assert set(get_args(annotation) or list(annotation)) == set(SearchMode)


def _op_or_status_values(node: ast.AST) -> list[ast.AST]:
    """Constants compared with something, passed as ``op=`` / ``status=``, or stored under an "op" / "status" key."""
    if isinstance(node, ast.Compare):
        return list(ast.walk(node))
    if isinstance(node, ast.keyword) and node.arg in ("op", "status"):
        return list(ast.walk(node.value))
    if isinstance(node, ast.Dict):
        keys = [k.value if isinstance(k, ast.Constant) else None for k in node.keys]
        return [v for k, v in zip(keys, node.values, strict=True) if k in ("op", "status")]
    return []
