"""The cascade from a shell, as a new user tries it: every command its own `memlens` process on one fresh data folder
(the real e5 embedder, the offline agent). Flag the message (the episode) → the next session's bridge, reply and
injected hits no longer say it; `memlens memory show` says both links in words; unflag → it is back. Edit a message →
a correction is recorded, the words as said are kept, the profile and the agent follow. No process ever finds the
index disagreeing with SQL: each operation leaves them agreeing in the process that made it."""

from __future__ import annotations

import json

import pytest
from cli_helpers import cli_env, run_memlens

from memory.prompts import BRIDGE_WORDS

pytestmark = pytest.mark.slow


def test_flag_edit_and_undo_of_messages_from_the_cli(tmp_path):
    env = cli_env(tmp_path / "data")
    warnings: list[str] = []

    def memlens(*args: str) -> str:
        done = run_memlens(env, tmp_path, *args)
        warnings.extend(line for line in done.stderr.splitlines() if "disagrees" in line)
        return done.stdout

    def episode(user: str, needle: str) -> str:
        rows = json.loads(memlens("memories", "--user", user, "--json"))
        return next(r["memory_id"] for r in rows if r["type"] == "episode" and needle in r["content"])

    memlens("chat", "--user", "q", "--session", "a", "I keep a parrot named Kiwi.")
    kiwi = episode("q", "Kiwi")
    memlens("memory", "flag", kiwi, "--reason", "that is my sister's parrot")
    shown = memlens("memory", "show", kiwi)
    assert "Read from it: the fact “User keeps a parrot named Kiwi.” (flagged as wrong)" in shown
    turn = json.loads(memlens("chat", "--user", "q", "--session", "b", "--json", "What is my parrot called?"))
    assert turn["bridge"] == BRIDGE_WORDS["en"]["corrected"]
    assert "Kiwi" not in turn["reply"]
    assert not [h for h in turn["hits"] if h["selected"] and "Kiwi" in h["content"]]
    memlens("memory", "unflag", kiwi, "--reason", "it was theirs after all")
    rows = json.loads(memlens("memories", "--user", "q", "--json"))
    fact = next(r for r in rows if r["type"] == "fact" and "Kiwi" in r["content"])
    assert "Read from what User said: “I keep a parrot named Kiwi.” (in force)" in memlens(
        "memory", "show", fact["memory_id"]
    )

    memlens("remember", "--user", "v", "I live in Valencia")
    valencia = episode("v", "Valencia")
    out = memlens("memory", "edit", valencia, "I live in Seville", "--reason", "typo")
    assert "corrected to “I live in Seville”" in out
    data = json.loads(memlens("memory", "show", valencia, "--json"))
    assert data["content"] == "I live in Valencia" and data["provenance"]["source_type"] == "user-stated"
    assert json.loads(memlens("profile", "--user", "v", "--json"))["profile"]["city"]["value"] == "Seville"
    turn = json.loads(memlens("chat", "--user", "v", "--session", "b", "--json", "Where do I live?"))
    assert "Seville" in turn["reply"] and "Valencia" not in turn["reply"]
    memlens("memory", "delete", valencia, "--reason", "never said")
    memlens("memory", "restore", valencia, "--reason", "it was said")
    memlens("profile", "--user", "v")  # one more process start: its start-up check finds nothing
    assert warnings == []


def test_profile_set_and_clear_from_the_cli_cascade_and_restore_brings_the_value_back(tmp_path):
    """`memlens profile --clear/--set` is the Profile page's edit from a shell: the fact it fed is retracted, the next
    turn's bridge says plainly that the news was corrected, its reply and hits follow; `memlens memory restore` of the
    fact brings it all back. EN and ZH."""
    env = cli_env(tmp_path / "data")

    def memlens(*args: str) -> str:
        done = run_memlens(env, tmp_path, *args)
        assert "disagrees" not in done.stderr
        return done.stdout

    def city(user: str):
        return json.loads(memlens("profile", "--user", user, "--json"))["profile"].get("city", {}).get("value")

    memlens("chat", "--user", "王芳", "--session", "a", "我住在杭州。")
    memlens("profile", "--user", "王芳", "--clear", "city", "--reason", "搬走了")
    assert city("王芳") is None
    rows = json.loads(memlens("memories", "--user", "王芳", "--all", "--json"))
    fact = next(r for r in rows if r["type"] != "episode" and "杭州" in r["content"])
    assert fact["status"] == "deleted"
    turn = json.loads(memlens("chat", "--user", "王芳", "--session", "c", "--json", "我住在哪里？"))
    assert turn["bridge"] == BRIDGE_WORDS["zh"]["corrected"] and "杭州" not in turn["reply"]
    assert not [h for h in turn["hits"] if h["selected"] and "杭州" in h["content"]]
    memlens("memory", "restore", fact["memory_id"], "--reason", "没搬")
    assert city("王芳") == "杭州"
    assert "杭州" in json.loads(memlens("chat", "--user", "王芳", "--session", "d", "--json", "我住在哪里？"))["reply"]

    memlens("remember", "--user", "v", "I live in Valencia")
    memlens("profile", "--user", "v", "--set", "city=Seville", "--reason", "moved")
    assert city("v") == "Seville"
    turn = json.loads(memlens("chat", "--user", "v", "--session", "b", "--json", "Where do I live?"))
    assert "Seville" in turn["reply"] and "Valencia" not in turn["reply"]
    assert not [h for h in turn["hits"] if h["selected"] and "Valencia" in h["content"]]
