"""Foundation: settings documented, migrations recorded once, no connection at import, tokens offline, layering."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from actors import ADMIN
from sqlalchemy import text

from memory.config import Settings
from memory.service import MemoryService
from memory.storage.db import make_engine, migrate
from memory.storage.migrations import MIGRATIONS
from memory.text.tokens import count_tokens, truncate_to_tokens

ROOT = Path(__file__).resolve().parents[1]


def test_every_setting_is_in_the_configuration_table():
    table = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    missing = [f"MEMLENS_{name.upper()}" for name in Settings.model_fields if f"`MEMLENS_{name.upper()}`" not in table]
    assert not missing, f"undocumented settings: {missing}"


def test_settings_read_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("MEMLENS_RELEVANCE_THRESHOLD", "0.42")
    monkeypatch.setenv("MEMLENS_SIMILARITY_FLOOR", "0.83")
    monkeypatch.setenv("MEMLENS_DATABASE_URL", "sqlite:///" + str(tmp_path / "elsewhere.db"))
    s = Settings()
    assert (s.relevance_threshold, s.similarity_floor) == (0.42, 0.83)
    assert s.resolved_database_url().endswith("elsewhere.db")
    assert s.resolved_lancedb_uri() == str((s.data_dir / "lancedb").resolve())


def test_migrations_apply_once_and_are_recorded(settings):
    engine = make_engine(settings)
    assert migrate(engine) == [m.version for m in MIGRATIONS]
    assert migrate(engine) == []
    with engine.connect() as conn:
        versions = [r[0] for r in conn.execute(text("SELECT version FROM schemamigration ORDER BY version"))]
    assert versions == [m.version for m in MIGRATIONS]


def test_constructing_a_service_touches_nothing(settings):
    svc = MemoryService(settings)
    assert not settings.data_dir.exists()
    svc.close()


def test_importing_the_engine_connects_nowhere(tmp_path):
    code = "import memory.service, memory.cli, memory.retrieval.recall, memory.storage.vectors; print('ok')"
    env = {**os.environ, "MEMLENS_DATA_DIR": str(tmp_path / "d")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ok"
    assert not (tmp_path / "d").exists()


def test_live_settings_override_and_validate(plumbing_svc):
    from memory.errors import InvalidInput

    plumbing_svc.set_live_settings({"relevance_threshold": 0.9, "similarity_floor": 0.2, "top_k": 3}, actor=ADMIN)
    eff = plumbing_svc.effective_settings()
    assert (eff.relevance_threshold, eff.similarity_floor, eff.top_k) == (0.9, 0.2, 3)
    assert (plumbing_svc.recall_policy().threshold, plumbing_svc.recall_policy().similarity_floor) == (0.9, 0.2)
    with pytest.raises(InvalidInput):
        plumbing_svc.set_live_settings({"data_dir": "/tmp"}, actor=ADMIN)
    with pytest.raises(ValueError):
        plumbing_svc.set_live_settings({"top_k": 0}, actor=ADMIN)


def test_token_counts_are_exact_and_offline(tmp_path, monkeypatch):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "tk"))
    code = (
        "from memory.text.tokens import count_tokens;"
        "print(count_tokens('hello world'), count_tokens('我住在杭州'), count_tokens('<|endoftext|>'))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "TIKTOKEN_CACHE_DIR": str(tmp_path / "tk"), "HTTPS_PROXY": "http://0.0.0.0:9"},
    )
    hello, zh, special = map(int, out.stdout.split())
    assert hello == 2 and zh >= 3 and special > 1
    assert count_tokens("") == 0


def test_truncate_never_exceeds_and_keeps_a_prefix():
    long = "我喜欢在西湖边散步。" * 200 + "The end."
    cut = truncate_to_tokens(long, 50)
    assert count_tokens(cut) <= 50 and long.startswith(cut) and cut


def test_memory_package_imports_neither_streamlit_nor_agent():
    offenders = []
    for path in (ROOT / "memory").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else ([node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            )
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] in ("streamlit", "agent")]
    assert not offenders


def _cli(*args: str, env_dir: Path, monkeypatch, capsys) -> tuple[int, str, str]:
    """Run the real console entry point in-process (argv, exit code, stdout/stderr)."""
    from agent.cli import main

    monkeypatch.setenv("MEMLENS_DATA_DIR", str(env_dir))
    monkeypatch.setenv("MEMLENS_EMBEDDER", "hash")
    monkeypatch.setattr(sys, "argv", ["memlens", *args])
    code = 0
    try:
        main()
    except SystemExit as exc:
        code = exc.code or 0
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_remember_recall_users_reindex(tmp_path, monkeypatch, capsys):
    data = tmp_path / "cli"
    run = lambda *a: _cli(*a, env_dir=data, monkeypatch=monkeypatch, capsys=capsys)  # noqa: E731
    assert run("remember", "--user", "cli-user", "I collect vintage cameras")[0] == 0
    code, out, err = run("recall", "--user", "cli-user", "--json", "--threshold", "-1", "--k", "3", "cameras")
    assert code == 0, err
    hit = json.loads(out)["hits"][0]
    assert {"memory_id", "content", "similarity", "score", "passed"} <= set(hit)
    assert "cameras" in hit["content"] and hit["passed"] is True
    assert [u["user_id"] for u in json.loads(run("users", "--json")[1])["users"]] == ["cli-user"]
    assert "reindexed" in run("reindex")[1]


@pytest.mark.parametrize(
    "args",
    [
        ("recall", "--user", "", "q"),
        ("recall", "--user", "ghost", "q"),
        ("recall", "--user", "u", "--mode", "sideways", "q"),
        ("remember", "--user", "u", "   "),
        ("recall", "--user"),
        ("no-such-command",),
    ],
)
def test_cli_errors_are_one_line_exit_2(tmp_path, monkeypatch, capsys, args):
    run = lambda *a: _cli(*a, env_dir=tmp_path / "e", monkeypatch=monkeypatch, capsys=capsys)  # noqa: E731
    run("remember", "--user", "u", "something to make the user exist")
    code, _, err = run(*args)
    assert code == 2
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and err.startswith("error:")


def test_console_script_runs_as_a_process(tmp_path):
    env = {**os.environ, "MEMLENS_DATA_DIR": str(tmp_path / "p"), "MEMLENS_EMBEDDER": "hash"}
    out = subprocess.run(
        [sys.executable, "-m", "agent.cli", "recall", "--user", "nobody", "q"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 2 and out.stderr.startswith("error: no user") and "Traceback" not in out.stderr
