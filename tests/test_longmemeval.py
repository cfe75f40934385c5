"""`memlens eval longmemeval` on a small fixture in LongMemEval's public format (real e5, real store)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memory.cli import app
from memory.cli import evaluate as cli_eval
from memory.errors import InvalidInput
from memory.evaluation import longmemeval

TINY = Path(__file__).parent / "data" / "longmemeval_tiny.json"


@pytest.mark.slow  # ingests every haystack session through the write path: 30–45 s on a busy 2-core machine
def test_report_by_type_skips_abstention_and_finds_the_answer_sessions(svc, monkeypatch, tmp_path):
    monkeypatch.setattr(cli_eval, "service", lambda: svc)
    out = tmp_path / "lme.json"
    args = ["eval", "longmemeval", str(TINY), "--k", "1,3", "--json", "--out", str(out)]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    report = json.loads(out.read_text())
    assert (report["questions"], report["asked"], report["skipped_abstention"]) == (3, 2, 1)
    assert set(report["by_type"]) == {"single-session-user", "multi-session"}
    single, multi = report["by_type"]["single-session-user"], report["by_type"]["multi-session"]
    assert single["session_recall_any@1"] == 100.0 and single["turn_recall@1"] == 100.0  # the corgi turn first
    assert multi["session_recall_any@3"] == 100.0 and multi["session_recall_all@3"] == 100.0  # violin + piano
    assert multi["session_recall_all@1"] == 0.0  # two answer sessions cannot both be in the top one
    for block in (single, multi):  # with source context a turn brings its neighbours: never fewer answer turns
        assert all(block[f"turn_recall_context@{k}"] >= block[f"turn_recall@{k}"] for k in (1, 3))
    assert report["episodes_ingested"] == 12  # 6 + 6 turns; the abstention's haystack is never ingested
    again = CliRunner().invoke(app, [*args[:-2], "--out", str(tmp_path / "again.json")])  # a second run reuses
    assert again.exit_code == 0 and json.loads((tmp_path / "again.json").read_text())["episodes_ingested"] == 0
    text = out.read_text()
    assert "corgi" not in text and "violin" not in text  # numbers only
    saved = longmemeval.latest_report(Path(svc.settings.data_dir) / "eval")  # kept for the Evaluation page too
    assert saved is not None and saved["by_type"] == report["by_type"]  # the second run, same figures
    rows = longmemeval.table_rows(saved)
    assert [r["question type"] for r in rows] == ["all", "multi-session", "single-session-user"]
    assert rows[0]["questions"] == 2 and rows[0]["session any@3 %"] == 100.0


def test_user_turns_only_and_limit(svc, monkeypatch, tmp_path):
    monkeypatch.setattr(cli_eval, "service", lambda: svc)
    out = tmp_path / "lme.json"
    res = CliRunner().invoke(
        app, ["eval", "longmemeval", str(TINY), "--limit", "1", "--user-turns-only", "--json", "--out", str(out)]
    )
    assert res.exit_code == 0, res.output
    report = json.loads(out.read_text())
    assert report["asked"] == 1 and report["episodes_ingested"] == 3 and report["settings"]["user_turns_only"]


def test_type_asks_only_that_type_and_the_report_says_where_the_answer_sessions_ranked(svc, monkeypatch, tmp_path):
    monkeypatch.setattr(cli_eval, "service", lambda: svc)
    out = tmp_path / "lme.json"
    args = ["eval", "longmemeval", str(TINY), "--k", "1,3", "--type", "multi-session", "--json", "--out", str(out)]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    report = json.loads(out.read_text())
    assert report["asked"] == 1 and set(report["by_type"]) == {"multi-session"}
    assert report["settings"]["types"] == ["multi-session"] and report["episodes_ingested"] == 6  # one haystack
    [row] = report["per_question"]
    assert row["question_id"] == "q-multi-1" and row["type"] == "multi-session" and row["seconds"] > 0
    assert len(row["answer_session_ranks"]) == 2 and max(row["answer_session_ranks"]) <= 3  # violin + piano
    assert row["session_recall_all@3"] == 1.0
    bad = CliRunner().invoke(app, ["eval", "longmemeval", str(TINY), "--type", "temporal-reasoning"])
    assert bad.exit_code != 0 and "no question of type temporal-reasoning" in str(bad.exception or bad.output)


def test_malformed_files_are_refused(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"question_id": "x", "question": "?"}]))
    with pytest.raises(InvalidInput, match="missing"):
        longmemeval.load(bad)
    assert longmemeval.parse_date("2023/05/20 (Sat) 02:21").isoformat() == "2023-05-20T02:21:00+00:00"


def test_a_gzip_compressed_release_reads_like_the_plain_file(tmp_path):
    import gzip

    packed = tmp_path / "tiny.json.gz"
    packed.write_bytes(gzip.compress(TINY.read_bytes()))
    plain, unpacked = longmemeval.load(TINY), longmemeval.load(packed)
    assert [q.question_id for q in unpacked] == [q.question_id for q in plain] and len(plain) == 3
    broken = tmp_path / "broken.json.gz"
    broken.write_bytes(gzip.compress(TINY.read_bytes())[:40])  # a truncated download
    with pytest.raises(InvalidInput, match="cannot read LongMemEval file"):
        longmemeval.load(broken)


def test_a_haystack_is_one_write_call_and_a_run_cut_short_resumes_without_repeats(svc, monkeypatch):
    """The haystack is written as an import of a long history is: every session's messages, then ONE
    ``write_from_messages`` call (one embedding call over every core), then each session ended in order. A run cut
    short before the write finds its stored messages again by their keys: nothing is stored twice."""
    from sqlmodel import select

    from memory.storage.models import Message, Session
    from memory.vocab import SessionStatus

    multi = next(q for q in longmemeval.load(TINY) if q.question_id == "q-multi-1")
    calls = []
    real = svc.write_from_messages
    monkeypatch.setattr(svc, "write_from_messages", lambda *a, **kw: calls.append(len(a[2])) or real(*a, **kw))
    crash = RuntimeError("killed before the write")

    def killed(*a, **kw):
        raise crash

    with monkeypatch.context() as m:
        m.setattr(svc, "write_from_messages", killed)
        with pytest.raises(RuntimeError):
            longmemeval.ingest(svc, multi, user_turns_only=False)
    assert longmemeval.ingest(svc, multi, user_turns_only=False) == 6  # three sessions of two turns
    assert calls == [6]  # one write for the whole haystack
    user = svc.get_user(multi.user_id)
    with svc.storage.db() as db:
        assert len(db.exec(select(Message).where(Message.user_key == user.key)).all()) == 6  # none stored twice
        sessions = db.exec(select(Session).where(Session.user_key == user.key)).all()
    assert len(sessions) == 3 and all(s.status == SessionStatus.ENDED for s in sessions)
    assert longmemeval.ingest(svc, multi, user_turns_only=False) == 0 and calls == [6]  # ended sessions are reused
