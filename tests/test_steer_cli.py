"""Steering from the command line, as a person types it: real `memlens` processes on a fresh data folder, the real e5
embedder — edit a memory, the profile and recall follow; flag one, it is never selected again; erase the user at
once, and no byte of their text remains.

Every write (remember, edit, flag, delete-user) and the first recall run as their own `memlens` process; the reads
that only check what a command prints run the same console script in this process (each a fresh service on the
same folder, as a process would open it), since a process start costs seconds of imports each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import cli_env, run_memlens

pytestmark = pytest.mark.slow


def _files_with(root: Path, needle: str) -> list[str]:
    found = (p for p in root.rglob("*") if p.is_file() and needle.encode() in p.read_bytes())
    return sorted(str(p.relative_to(root)) for p in found)


def test_done_when_sequence_on_a_fresh_data_folder(tmp_path, monkeypatch):
    data = tmp_path / "fresh"
    env = cli_env(data)
    monkeypatch.setenv("MEMLENS_DATA_DIR", str(data))

    def read(*args: str) -> str:
        """A read-only command through the console script's app, in this process."""
        from typer.testing import CliRunner

        from agent.cli import app

        done = CliRunner().invoke(app, list(args))
        assert done.exit_code == 0, done.output
        return done.stdout

    def memlens(*args: str) -> str:
        return run_memlens(env, tmp_path, *args).stdout

    memlens("remember", "--user", "t1", "I live in Lisbon")
    facts = [m for m in json.loads(read("memories", "--user", "t1", "--json")) if m["type"] != "episode"]
    lisbon = facts[0]["memory_id"]
    memlens("memory", "edit", lisbon, "User lives in Porto.", "--reason", "moved")
    profile = json.loads(read("profile", "--user", "t1", "--json"))
    assert profile["profile"]["city"]["value"] == "Porto"
    assert profile["changes"][-1]["source"] == "person-edit" and "moved" in profile["changes"][-1]["reason"]
    recall = json.loads(memlens("recall", "--user", "t1", "--json", "where do I live"))
    selected = [h["content"] for h in recall["hits"] if h["selected"]]
    assert "User lives in Porto." in selected and not any("Lisbon" in c for c in selected)
    # what was said ("I live in Lisbon") is kept and may be found, never injected: it stands for the same message as
    # the edited fact (one hit per message) or states the retracted claim
    said = [h for h in recall["hits"] if "Lisbon" in h["content"]]
    assert all(h["drop_reason"] for h in said), said

    memlens("remember", "--user", "t1", "I work as a designer")
    listed = json.loads(read("memories", "--user", "t1", "--json"))
    designer = next(m for m in listed if "designer" in m["content"] and m["type"] != "episode")
    memlens("memory", "flag", designer["memory_id"], "--reason", "actually a product manager")
    for query in ("what is my job", "designer", "I work as a designer"):
        hits = json.loads(read("recall", "--user", "t1", "--json", query))["hits"]
        mine = [h for h in hits if h["memory_id"] == designer["memory_id"]]
        assert mine and not mine[0]["selected"] and mine[0]["drop_reason"] == "flagged"  # visible, never selected
    shown = json.loads(read("memory", "show", designer["memory_id"], "--json"))
    assert [e["op"] for e in shown["events"]] == ["ADD", "FLAG"] and shown["flagged"]

    memlens("delete-user", "--user", "t1", "--yes")  # right away: no "still running", no --force
    for text in ("Lisbon", "Porto", "designer", "product manager"):
        assert _files_with(data, text) == [], text
