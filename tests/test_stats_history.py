"""History statistics: frequencies with ties broken by recency, once per message, median budget; bad rows skipped."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from sqlalchemy import text
from typer.testing import CliRunner

from memory.lifecycle.stats import parse_amount
from memory.service import MemoryDraft
from memory.storage.models import ProfileChange

T0 = datetime(2025, 1, 1, tzinfo=UTC)


def _changes(svc, user, rows) -> None:
    with svc.storage.db() as db:
        db.add_all(
            ProfileChange(
                user_key=user.key,
                field=f,
                old_value=old,
                new_value=new,
                source_message_id=mid,
                at=T0 + timedelta(days=day),
            )
            for f, old, new, mid, day in rows
        )
        db.commit()


def test_interests_topics_and_median_budget(plumbing_svc):
    svc = plumbing_svc
    user = svc.ensure_user("lin")
    session = svc.ensure_session(user, "s")
    m = [svc.add_message(session, "user", f"message {i}").id for i in range(6)]
    _changes(
        svc,
        user,
        [
            ("interests", None, ["photography", "Photography", "hiking"], m[0], 0),  # repeat in one message: once
            ("interests", ["photography", "hiking"], ["photography", "hiking", "tea"], m[1], 1),  # only "tea" is new
            ("budget", None, 3000, m[2], 2),
            ("budget", 3000, "4500元", m[3], 3),
            ("budget", "4500元", "5k", m[4], 4),
        ],
    )
    svc.add_memories(
        user,
        [
            MemoryDraft(
                "likes tea",
                predicate="likes",
                object="tea",
                source_message_ids=[m[1]],  # same message: once
                created_at=T0 + timedelta(days=1),
            ),
            MemoryDraft(
                "喜欢摄影",
                predicate="喜欢",
                object="photography",
                source_message_ids=[m[5]],
                created_at=T0 + timedelta(days=5),
            ),
            MemoryDraft(
                "budget 50000 for the big trip",
                predicate="budget",
                object="¥50,000",
                source_message_ids=[m[5]],
                created_at=T0 + timedelta(days=5),
            ),
            MemoryDraft(
                "diet note",
                predicate="diet",
                meta={"topic": "food"},
                source_message_ids=[m[2]],
                created_at=T0 + timedelta(days=2),
            ),
        ],
    )
    stats = svc.lifecycle.user_stats("lin")
    assert [(i["value"], i["count"]) for i in stats["interests"]] == [("photography", 2), ("tea", 1), ("hiking", 1)]
    assert stats["typical_budget"] == 4750  # median of 3000, 4500, 5000, 50000 — not the mean
    assert stats["budget_samples"] == 4
    topics = [t["value"] for t in stats["topics"]]
    assert topics[0] == "budget" and {"likes", "喜欢", "food"} <= set(topics)
    assert stats["sessions"]["total"] == 1 and stats["memories"]["active"] == 4
    assert stats["problems"] == [] and stats["skipped_rows"] == 0


def test_ties_go_to_the_most_recent(plumbing_svc):
    svc = plumbing_svc
    user = svc.ensure_user("lin")
    _changes(
        svc,
        user,
        [
            ("interests", None, ["chess"], None, 0),
            ("interests", ["chess"], ["chess", "go"], None, 3),
            ("interests", ["chess", "go"], ["chess", "go", "bridge"], None, 1),
        ],
    )
    assert [i["value"] for i in svc.lifecycle.user_stats("lin")["interests"]] == ["go", "bridge", "chess"]


def test_corrupted_and_legacy_rows_are_skipped_and_reported(plumbing_svc):
    svc = plumbing_svc
    user = svc.ensure_user("lin")
    good = svc.add_memory(user, "likes tea", predicate="likes", object="tea")
    bad = [svc.add_memory(user, f"bad {i}", predicate="likes", object="chess") for i in range(3)]
    budget = svc.add_memory(user, "budget", predicate="budget", object="quite a lot")
    _changes(svc, user, [("interests", None, ["tea"], None, 0), ("budget", None, 2000, None, 0)])
    with svc.storage.engine.begin() as conn:  # what an old version or a crash could have left behind
        conn.execute(text("UPDATE memory SET meta = '{not json' WHERE id = :i"), {"i": bad[0].id})
        conn.execute(text("UPDATE memory SET source_message_ids = '42' WHERE id = :i"), {"i": bad[1].id})
        conn.execute(text("UPDATE memory SET created_at = 'yesterday' WHERE id = :i"), {"i": bad[2].id})
        conn.execute(text("UPDATE profilechange SET new_value = NULL WHERE field = 'budget'"))
        conn.execute(
            text(
                "INSERT INTO profilechange (user_key, field, old_value, new_value, source, reason, at) "
                "VALUES (:k, 'interests', 'garbage', '{\"a\": 1}', 'legacy', '', '2020-01-01')"
            ),
            {"k": user.key},
        )
    stats = svc.lifecycle.user_stats("lin")
    problems = {(p["table"], p["id"]) for p in stats["problems"]}
    assert {("memory", b.id) for b in bad} | {("memory", budget.id)} <= problems
    assert any(p["table"] == "profilechange" for p in stats["problems"])
    assert stats["skipped_rows"] == len(problems) == 5
    assert [(i["value"], i["count"]) for i in stats["interests"]] == [("tea", 2)]  # good rows (memory + profile)
    assert stats["typical_budget"] is None and stats["memories"]["active"] == 5
    assert good.id not in {p["id"] for p in stats["problems"]}


def test_parse_amount_accepts_common_forms():
    assert [parse_amount(v) for v in (5000, "5,000", "¥5000 元", "5k", "1.5万", {"amount": "300"})] == [
        5000,
        5000,
        5000,
        5000,
        15000,
        300,
    ]


def test_cli_stats_json(plumbing_svc, monkeypatch):
    from memory.cli import app

    user = plumbing_svc.ensure_user("lin")
    plumbing_svc.add_memory(user, "likes tea", predicate="likes", object="tea")
    plumbing_svc.close()
    monkeypatch.setenv("MEMLENS_EMBEDDER", "hash")
    res = CliRunner().invoke(app, ["stats", "--user", "lin", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["interests"][0]["value"] == "tea"
