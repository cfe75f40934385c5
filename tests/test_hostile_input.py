"""Hostile input through the service, the agent and the CLI: no crash, no leak, a clear error where refused.

User and session ids can be anything a host application sends (SQL, paths, emoji, 10,000 characters); text can be
any Unicode, control characters included. Refused: empty ids, NUL, lone surrogates, over-long ids or text — always
as ``InvalidInput`` (CLI: one stderr line, exit 2, no traceback).
"""

from __future__ import annotations

import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory.errors import InvalidInput
from memory.text.privacy import mask_pii

HOSTILE_IDS = [
    "x' OR '1'='1",
    'a"; DROP TABLE memory; --',
    "../../etc/passwd",
    "🦊👩‍💻🏳️‍🌈",
    "用户 一号",
    "\t\n\r\x1b[31mred\x7f",
    "%s%n{0}${HOME}",
    "user_key = 'x' OR 1=1",
    "\u202eevil\u200b",
    "ｆｕｌｌｗｉｄｔｈ",
    "z" * 10_000,
    "".join(chr(0x4E00 + (i * 7919) % 20000) for i in range(10_000)),  # 10,000 CJK: 30 kB, past any index row
]
REFUSED_IDS = ["", "   \n", "a\x00b", "lone \ud800 surrogate", "z" * 10_001, 42, None]
ANY_TEXT = st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=300)
quick = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def test_hostile_ids_round_trip_and_never_see_each_other(backend_plumbing_svc):
    svc = backend_plumbing_svc
    mine: dict[str, set[str]] = {}
    for n, uid in enumerate(HOSTILE_IDS):
        user = svc.ensure_user(uid)
        assert svc.get_user(uid).key == user.key and user.external_id == uid
        session = svc.ensure_session(user, uid)  # a hostile session id too
        assert svc.ensure_session(user, uid).id == session.id
        svc.add_message(session, "user", f"secret number {n} of this user")
        mine[uid] = {svc.add_memory(user, f"secret tennis note {n}").id, svc.add_memory(user, "shared words").id}
    assert len({svc.get_user(u).key for u in HOSTILE_IDS}) == len(HOSTILE_IDS)
    for uid in HOSTILE_IDS:
        for query in ("secret tennis note", "shared words", "x' OR '1'='1", "*", "%"):
            seen = {h.memory_id for h in svc.recall(uid, query, threshold=-1.0, k=50).hits}
            assert seen <= mine[uid]
        assert {m.id for m in svc.list_memories(svc.get_user(uid))} == mine[uid]


@pytest.mark.parametrize("bad", REFUSED_IDS, ids=lambda v: repr(v)[:20])
def test_refused_ids_get_a_clear_invalid_input(plumbing_svc, bad):
    svc = plumbing_svc
    for call in (svc.ensure_user, svc.get_user):
        with pytest.raises(InvalidInput, match=r"user id"):
            call(bad)
    user = svc.ensure_user("ok")
    with pytest.raises(InvalidInput, match=r"session id"):
        svc.ensure_session(user, bad)
    with pytest.raises(InvalidInput, match=r"agent id"):
        svc.ensure_session(user, "s", agent_id=bad if isinstance(bad, str) and bad else "a b")


@quick
@given(text=ANY_TEXT)
def test_any_text_is_stored_exactly_or_refused_clearly(plumbing_svc, text):
    svc = plumbing_svc
    user = svc.ensure_user("fuzz")
    session = svc.ensure_session(user, "s")
    try:
        msg = svc.add_message(session, "user", text)
    except InvalidInput as exc:
        assert str(exc)  # a sentence, not an empty error
        assert not text.strip() or "\x00" in text or any(0xD800 <= ord(c) <= 0xDFFF for c in text)
        return
    expected = mask_pii(unicodedata.normalize("NFC", text))
    assert svc.messages(session.id)[-1].content == msg.content == expected
    mem = svc.add_memory(user, text)
    assert svc.get_memory(mem.id).content == unicodedata.normalize("NFC", text)
    result = svc.recall("fuzz", text, threshold=-1.0)
    assert all(h.memory_id in {m.id for m in svc.list_memories(user)} for h in result.hits)


@quick
@given(uid=st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=40))
def test_any_user_id_is_accepted_exactly_or_refused_clearly(plumbing_svc, uid):
    svc = plumbing_svc
    try:
        user = svc.ensure_user(uid)
    except InvalidInput:
        assert not uid.strip() or "\x00" in uid or any(0xD800 <= ord(c) <= 0xDFFF for c in uid)
        return
    assert svc.get_user(uid).key == user.key and len(user.key) == 32 and user.key.isalnum()


def test_the_message_limit_is_configurable_and_refusal_names_it(tmp_path, hash_embedder):
    from memory.config import Settings
    from memory.service import MemoryService

    settings = Settings(data_dir=tmp_path / "d", max_message_chars=500, max_document_chars=2000)
    svc = MemoryService(settings, embedder=hash_embedder)
    user = svc.ensure_user("u")
    session = svc.ensure_session(user, "s")
    assert svc.add_message(session, "user", "好" * 500).content == "好" * 500
    for call in (lambda t: svc.add_memory(user, t), lambda t: svc.recall("u", t)):
        with pytest.raises(InvalidInput, match=r"501 characters long; the limit is 500 \(MEMLENS_MAX_MESSAGE_CHARS\)"):
            call("好" * 501)
    # a longer message (a pasted document) is kept, as episodes, not read for facts; past the document limit: refused
    report = svc.remember("u", "好" * 501)
    assert report.episodes and not report.operations and "long text" in report.reason
    for call in (lambda t: svc.add_message(session, "user", t), lambda t: svc.remember("u", t)):
        with pytest.raises(
            InvalidInput, match=r"2,001 characters long; the limit is 2,000 \(MEMLENS_MAX_DOCUMENT_CHARS\)"
        ):
            call("好" * 2001)
    with pytest.raises(InvalidInput, match="idempotency key"):
        svc.add_message(session, "user", "hi", idempotency_key="k" * 129)
    with pytest.raises(InvalidInput, match="role"):
        svc.add_message(session, "robot'; --", "hi")
    svc.close()


def test_the_agent_loop_takes_hostile_ids_and_text(plumbing_svc):
    from agent.runtime import Agent

    bot = Agent(plumbing_svc)
    try:
        for uid in HOSTILE_IDS[:4]:
            result = bot.chat(uid, uid, "I live in Hangzhou 🦊 \x1b[0m and I like tennis")
            assert result.reply
        other = bot.chat("someone else", "s", "where do I live?")
        assert "Hangzhou" not in other.reply  # nobody else's memory leaks into this user's reply
        with pytest.raises(InvalidInput):
            bot.chat("u", "s", "lone \udfff surrogate")
    finally:
        bot.close()


def _cli(monkeypatch, capsys, *argv: str) -> tuple[int, str, str]:
    from agent.cli import app
    from memory.cli import run

    monkeypatch.setenv("MEMLENS_EMBEDDER", "hash")
    monkeypatch.setattr(sys, "argv", ["memlens", *argv])
    with pytest.raises(SystemExit) as done:
        run(app)
        raise SystemExit(0)
    out, err = capsys.readouterr()
    return int(done.value.code or 0), out, err


def test_cli_hostile_ids_work_and_refusals_are_one_line(monkeypatch, capsys):
    for uid in ("x' OR '1'='1", "../../etc/passwd", "🦊" * 2000):
        code, out, err = _cli(monkeypatch, capsys, "remember", "I play chess on Sundays", "--user", uid, "--json")
        assert code == 0, err
        code, out, err = _cli(monkeypatch, capsys, "recall", "chess", "--user", uid, "--json")
        assert code == 0 and "chess" in out
    code, out, err = _cli(monkeypatch, capsys, "recall", "chess", "--user", "nobody")
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err and "nobody" in err
    for argv in (
        ["remember", "x" * 200_001, "--user", "u"],
        ["remember", "hello", "--user", ""],
        ["recall", "chess", "--user", "u", "--agent", "a'; DROP TABLE memory; --"],
    ):
        code, out, err = _cli(monkeypatch, capsys, *argv)
        assert code == 2 and err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err


def test_cli_process_refuses_undecodable_argv_in_one_line(tmp_path):
    """Bytes that are not UTF-8 reach Python as lone surrogates: a real process, exit 2, one line, no traceback."""
    env = {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(Path(__file__).resolve().parents[1]),  # this checkout's code, not an installed copy
        "MEMLENS_DATA_DIR": str(tmp_path / "d"),
        "MEMLENS_EMBEDDER": "hash",
        "HOME": str(tmp_path),
        "LANG": "C.UTF-8",
    }
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from agent.cli import main; main()",
            "recall",
            "x",
            "--user",
            b"bad\xff\xfe".decode("utf-8", "surrogateescape"),
        ],
        env=env,
        capture_output=True,
        timeout=120,
        cwd=tmp_path,
    )
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 2 and err.count("\n") == 1 and "not valid Unicode" in err, err
