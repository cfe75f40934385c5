"""Running `memlens` as a person does from a shell: its own process on a given data folder, with no MEMLENS_ setting
of the test run leaking in (the process reads only what the command line and that folder say)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cli_env(data: Path) -> dict[str, str]:
    """This environment without its MEMLENS_ settings, the worktree on the path and ``data`` the data folder."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMLENS_")}
    env.update(PYTHONPATH=str(ROOT), MEMLENS_DATA_DIR=str(data))
    return env


def run_memlens(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """One `memlens` command in its own process (the console script's entry point); it must succeed — its stderr is
    in the failure — and what it printed is returned for the caller to read."""
    done = subprocess.run(
        [sys.executable, "-c", "from agent.cli import main; main()", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    return done
