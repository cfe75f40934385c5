"""README's "Use MemLens from your agent" runs as written: its Python snippets, its key command, its server."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from doors_helpers import free_port
from typer.testing import CliRunner

from memory.cli import app

ROOT = Path(__file__).resolve().parents[1]


def section() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("## Use MemLens from your agent")
    return text[start : text.index("\n## ", start + 10)]


def blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", section(), flags=re.S)


@pytest.fixture
def readme_env(monkeypatch, tmp_path):
    monkeypatch.setenv("MEMLENS_EMBEDDER", "hash")  # plumbing: the snippets' wiring, not retrieval quality
    return tmp_path


def start_api(port: int) -> subprocess.Popen:
    """`memlens serve api` as README says, in a real process on this test's data folder."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent.cli", "serve", "api", "--port", str(port)],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/v1/health").status_code == 200:
                return proc
        except httpx.TransportError:
            time.sleep(0.2)
    proc.kill()
    raise AssertionError(proc.stdout.read().decode()[-2000:])


@pytest.mark.slow  # starts `memlens serve api` in its own process
def test_every_snippet_runs(readme_env, monkeypatch, capsys):
    python = blocks("python")
    assert len(python) == 3  # the Python API, the LangGraph graph, the REST client
    for code in python[:2]:
        exec(compile(code, "README.md", "exec"), {"__name__": "readme"})
    assert "['ADD', 'EDIT']" in capsys.readouterr().out

    [shell] = blocks("bash")
    create, serve = [shlex.split(line.split("#")[0]) for line in shell.strip().splitlines()]
    made = CliRunner().invoke(app, create[1:])
    assert made.exit_code == 0, made.output
    monkeypatch.setenv("MEMLENS_KEY", made.output.strip().splitlines()[-1])  # printed once, on the last line
    port = free_port()
    monkeypatch.setenv("MEMLENS_URL", f"http://127.0.0.1:{port}")
    assert serve[:3] == ["memlens", "serve", "api"]
    proc = start_api(port)
    try:
        exec(compile(python[2], "README.md", "exec"), {"__name__": "readme"})
    finally:
        proc.terminate()
        proc.wait(10)
    out = capsys.readouterr().out
    assert "results" in out and "offline" in out.lower()

    [config] = blocks("json")
    server = json.loads(config)["mcpServers"]["memlens"]
    assert server["command"] == "memlens" and server["args"][:2] == ["serve", "mcp"]
