"""Small hardening items: settings errors name the variable and the allowed values; terminal output carries no
control or escape sequence; look-alike user ids are shown distinguishably."""

from __future__ import annotations

import pytest

from memory.errors import ConfigError
from memory.text.display import show_id, terminal_safe


def test_a_bad_setting_names_the_variable_and_allowed_values(monkeypatch):
    from memory.config import Settings

    monkeypatch.setenv("MEMLENS_EMBEDDER", "bert")
    with pytest.raises(ConfigError) as err:
        Settings()
    message = str(err.value)
    assert "MEMLENS_EMBEDDER" in message and "'e5'" in message and "bert" in message
    assert "validation error for Settings" not in message


def test_terminal_output_has_no_escape_sequences():
    hostile = "tea\x1b[2J\x1b]0;pwned\x07 and \x9b31m red\u202etxt.exe\rX\x00"
    shown = terminal_safe(hostile)
    assert not any(ch in shown for ch in "\x1b\x07\x9b\u202e\r\x00")
    assert "tea" in shown and "\\u202e" in shown and terminal_safe("\n") == "\n"


@pytest.mark.parametrize(
    ("a", "b"),
    [("alice", "alice "), ("alice", "ali\u200bce"), ("alice", "аlice"), ("café", "cafe\u0301")],
)
def test_look_alike_ids_are_shown_apart(a, b):
    assert show_id(a) != show_id(b)
    assert show_id("alice") == "alice"
    assert "mixed scripts" in show_id("аlice")


def test_the_cli_shows_no_escape_sequence_and_tells_look_alikes_apart(plumbing_svc, settings):
    import os
    import subprocess
    import sys
    from pathlib import Path

    plumbing_svc.add_memory(plumbing_svc.ensure_user("alice"), "User likes tea\x1b[2J\x1b]0;pwned\x07")
    plumbing_svc.ensure_user("аlice")  # Cyrillic а
    plumbing_svc.close()
    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": root, "MEMLENS_DATA_DIR": str(settings.data_dir), "MEMLENS_EMBEDDER": "hash"}
    run = [sys.executable, "-c", "from memory.cli.main import main; main()"]
    out = subprocess.run([*run, "memories", "--user", "alice"], env=env, capture_output=True, text=True, timeout=120)
    assert "User likes tea" in out.stdout and "\x1b" not in out.stdout and "\x07" not in out.stdout
    users = subprocess.run([*run, "users"], env=env, capture_output=True, text=True, timeout=120).stdout
    assert "mixed scripts" in users


def test_a_write_that_failed_for_its_caller_is_never_activated_by_repair(plumbing_svc, monkeypatch):
    svc = plumbing_svc
    user = svc.ensure_user("disk")
    svc.add_memory(user, "User likes tea")

    def full(*_a, **_k):
        raise OSError("No space left on device")

    monkeypatch.setattr(svc.storage.index, "add", full)
    with pytest.raises(OSError):
        svc.add_memory(user, "User likes zqfailedwrite")
    monkeypatch.undo()
    svc.repair()
    active = [m.content for m in svc.list_memories(user)]
    assert "User likes tea" in active and not any("zqfailedwrite" in c for c in active)


def test_the_sidebar_labels_look_alike_ids_apart():
    from pages.sidebar import unique

    labels = {unique(name, "k") for name in ("alice", "alice ", "ali\u200bce", "аlice")}
    assert len(labels) == 4 and any("mixed scripts" in label for label in labels)


# -- issue #30's small items ---------------------------------------------------------------------------------------
def test_an_api_key_for_no_named_user_is_refused(plumbing_svc, settings, monkeypatch):
    from typer.testing import CliRunner

    from memory.cli import app

    plumbing_svc.close()
    monkeypatch.setenv("MEMLENS_EMBEDDER", "hash")
    for users in ("", " , ,"):
        res = CliRunner().invoke(app, ["apikey", "create", "--name", f"k{len(users)}", "--users", users])
        assert res.exit_code != 0 and "names no user" in res.output, res.output
    listed = CliRunner().invoke(app, ["apikey", "list"])
    assert "any user" not in listed.output  # no key for every user was made


def test_a_port_out_of_range_is_a_clear_error(monkeypatch):
    from typer.testing import CliRunner

    from agent.cli import app

    for port in ("99999", "0", "-1"):
        res = CliRunner().invoke(app, ["serve", "api", "--port", port])
        assert res.exit_code == 2 and "Traceback" not in res.output and "--port" in res.output, res.output


def test_data_files_are_created_for_their_owner_only(tmp_path, hash_embedder):
    import stat

    from memory.config import Settings
    from memory.service import MemoryService

    settings = Settings(data_dir=tmp_path / "fresh" / "data")
    svc = MemoryService(settings, embedder=hash_embedder)
    svc.remember("u", "I live in Porto.")
    svc.close()
    assert stat.S_IMODE(settings.data_dir.stat().st_mode) == 0o700
    db = next(settings.data_dir.glob("*.db"))
    assert stat.S_IMODE(db.stat().st_mode) & 0o077 == 0, oct(db.stat().st_mode)


def test_a_permission_error_is_not_reported_as_a_damaged_index(plumbing_svc, monkeypatch):
    from memory.storage import integrity

    plumbing_svc.add_memory(plumbing_svc.ensure_user("u"), "User likes tea")

    def denied():
        raise OSError("LanceError(IO): Generic LocalFileSystem error: Permission denied (os error 13)")

    monkeypatch.setattr(plumbing_svc.storage.index, "id_list", denied)
    with pytest.raises(ConfigError, match=r"permission denied .*\(nothing was changed\)"):
        integrity.repair(plumbing_svc.storage)
    monkeypatch.undo()
    assert plumbing_svc.storage.index.count() == 1  # not rebuilt, not emptied


@pytest.mark.parametrize(
    "text", ["call me after 5pm", "Call me After lunch", "you can call me before noon", "call me in the morning"]
)
def test_call_me_at_a_time_is_not_a_name(plumbing_svc, text):
    plumbing_svc.remember("caller", text)
    assert "preferred_name" not in plumbing_svc.get_profile("caller")
    plumbing_svc.remember("caller", "please call me Ana")
    assert plumbing_svc.get_profile("caller")["preferred_name"] == "Ana"
