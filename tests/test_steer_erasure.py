"""Erasure is never blocked by recent use: `delete-user` / `delete-session` succeed at once, and a turn streaming in
another process at that moment finishes without writing anything back (real processes, real SQLite + LanceDB)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from sqlalchemy import inspect, text
from typer.testing import CliRunner

from memory.lifecycle.export import CHECKPOINT_TABLES, user_tables

ROOT = Path(__file__).resolve().parent.parent
SECRET = "zebraquokka"

#: a child process: one agent turn whose reply streams slowly; it pauses after the first chunk until told to go on
CHILD = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from agent.llm import register_chat_model
    from agent.offline import OfflineChatModel
    from agent.runtime import Agent
    from memory.config import Settings
    from memory.service import MemoryService

    here = Path(sys.argv[1])

    class Slow(OfflineChatModel):
        def _stream(self, messages, stop=None, run_manager=None, **kw):
            for n, chunk in enumerate(super()._stream(messages, stop, run_manager, **kw)):
                yield chunk
                if n == 0:
                    (here / "started").touch()
                    deadline = time.monotonic() + 60
                    while not (here / "go").exists() and time.monotonic() < deadline:
                        time.sleep(0.05)

    register_chat_model("slow", lambda settings: Slow())
    agent = Agent(MemoryService(Settings()))
    result = agent.chat(sys.argv[2], "s1", f"I live in Lisbon and my password hint is {sys.argv[3]}")
    agent.close()
    print("reply-chars", len(result.reply))
    """
)


def _env(data_dir: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "MEMLENS_DATA_DIR": str(data_dir),
        "MEMLENS_EMBEDDER": "hash",
        "MEMLENS_LLM_PROVIDER": "slow",
        "MEMLENS_SUMMARY_BACKGROUND": "false",
    }


def _files_with(root: Path, needle: str) -> list[str]:
    return sorted(
        str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and needle.encode() in p.read_bytes()
    )


def _leftovers(svc, user_key: str, thread_ids: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    with svc.storage.engine.connect() as conn:
        for table, column, parent, _pc in user_tables():
            col = table.c[column]
            if parent is None:
                n = conn.execute(text(f'SELECT COUNT(*) FROM "{table.name}" WHERE "{col.name}" = :k'), {"k": user_key})
                out[table.name] = n.scalar_one()
        present = set(inspect(conn).get_table_names())
        for name in CHECKPOINT_TABLES:
            if name in present:
                marks = ", ".join(f"'{t}'" for t in thread_ids)
                out[name] = conn.execute(
                    text(f'SELECT COUNT(*) FROM "{name}" WHERE thread_id IN ({marks})')
                ).scalar_one()
    return {k: v for k, v in out.items() if v}


@pytest.mark.slow  # a second process streams a turn while the user is erased: 28–43 s on a busy 2-core machine
def test_delete_user_while_a_turn_streams_in_another_process_leaves_nothing(plumbing_svc, tmp_path):
    svc = plumbing_svc
    svc.remember("gone", f"My favourite word is {SECRET}")
    user = svc.get_user("gone")
    svc.remember("kept", "I live in Porto")
    data = svc.settings.data_dir
    svc.close()
    env = _env(data)
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(tmp_path), "gone", SECRET],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 90
        while not (tmp_path / "started").exists():
            assert child.poll() is None, child.communicate()
            assert time.monotonic() < deadline, "the turn never started streaming"
            time.sleep(0.05)
        sessions = [s.id for s in svc.list_sessions(user)]
        assert len(sessions) == 2  # "cli" (remember) and "s1", the turn in flight
        erase = subprocess.run(
            [sys.executable, "-c", "from agent.cli import main; main()", "delete-user", "--user", "gone", "--yes"],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert erase.returncode == 0, erase.stderr  # at once: no "still running" refusal, no --force
    finally:
        (tmp_path / "go").touch()
        out, err = child.communicate(timeout=120)
    assert child.returncode == 0, err  # the turn finished normally
    assert "reply-chars" in out

    assert _leftovers(svc, user.key, sessions) == {}  # no row, no checkpoint
    assert not svc.storage.index.ids(user.key)  # no vector
    assert _files_with(data, SECRET) == []  # no byte of its text under the data folder
    assert _files_with(data, "Lisbon") == []
    assert [u["user_id"] for u in svc.list_users()] == ["kept"]  # the other user untouched


def test_delete_session_right_after_use_succeeds_without_force(plumbing_svc, monkeypatch):
    from memory.cli import app

    plumbing_svc.remember("t1", "I live in Lisbon", session_id="fresh")
    plumbing_svc.close()
    monkeypatch.setenv("MEMLENS_EMBEDDER", "hash")
    done = CliRunner().invoke(app, ["delete-session", "--user", "t1", "--session", "fresh", "--yes", "--json"])
    assert done.exit_code == 0, done.output
    assert plumbing_svc.list_sessions(plumbing_svc.get_user("t1")) == []
