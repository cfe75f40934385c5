"""`memlens seed-demo` runs real turns through the agent, leaves every page something to show, and is idempotent."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlmodel import func, select

from agent.demo import DAYS_BACK, DEMO_USERS, seed
from agent.runtime import Agent
from memory import views
from memory.storage.models import HitLabel, Message

pytestmark = pytest.mark.slow


def test_seed_demo_fills_every_page_once(plumbing_svc):
    users = (DEMO_USERS[0], DEMO_USERS[1])  # one English, one Chinese: enough to cover the paths, and quick
    bot = Agent(plumbing_svc)
    try:
        assert seed(plumbing_svc, bot, users) == {"seeded": 2, "skipped": 0}
        with plumbing_svc.storage.db() as db:
            messages = db.exec(select(func.count()).select_from(Message)).one()
        assert seed(plumbing_svc, bot, users) == {"seeded": 0, "skipped": 2}
        with plumbing_svc.storage.db() as db:
            assert db.exec(select(func.count()).select_from(Message)).one() == messages
    finally:
        bot.close()
    for demo in users:
        key = plumbing_svc.get_user(demo.user_id).key
        sessions = views.sessions_overview(plumbing_svc.storage, key)
        assert len(sessions) == len(demo.sessions)
        assert sessions[0]["bridge_in"], "the last session opens with a bridge"
        assert sessions[-1]["started_at"] < sessions[0]["started_at"]  # moved back in time, oldest first
        assert views.write_log(plumbing_svc.storage, key, limit=1)[1] > 0
        assert views.profile_fields(plumbing_svc.storage, key)
        assert views.context_snapshots(plumbing_svc.storage, sessions[0]["id"])
        assert views.labelled_similarities(plumbing_svc.storage, key)
    with plumbing_svc.storage.db() as db:
        assert set(db.exec(select(HitLabel.labeled_by)).all()) == {"seed-demo"}
        replies = db.exec(select(Message).where(Message.role == "assistant")).all()
    # each session happened on its own day, and its replies read earlier sessions' statements with their true day
    # (#32: a week-old statement was "told me earlier today" when every session was replayed at seed time)
    now = datetime.now(UTC)
    for demo in users:
        started = sorted(
            s["started_at"] for s in views.sessions_overview(plumbing_svc.storage, _key(plumbing_svc, demo))
        )
        ago = [(now - (t if t.tzinfo else t.replace(tzinfo=UTC))).total_seconds() / 86400 for t in started]
        assert [round(a) for a in ago] == [round(d) for d in DAYS_BACK]
    recalling = [r.content for r in replies if "told me" in r.content or "告诉我的" in r.content]
    assert recalling and not [r for r in recalling if "earlier today" in r or "今天告诉我的" in r], (
        recalling
    )  # the demo's author, a curator
    wang = {
        f["field"]: f["value"] for f in views.profile_fields(plumbing_svc.storage, plumbing_svc.get_user("王芳").key)
    }
    assert wang.get("city") == "上海"  # the move in session 2 updated the profile


def _key(svc, demo) -> str:
    return svc.get_user(demo.user_id).key


def test_the_shipped_evaluation_report_is_installed_once_and_renders(plumbing_svc):
    from agent.demo import SHIPPED_REPORT, install_shipped_report
    from memory.evaluation import list_reports, load_report, reports_dir

    assert SHIPPED_REPORT.is_file()
    path = install_shipped_report(plumbing_svc)
    assert path is not None and list_reports(reports_dir(plumbing_svc)) == [path]
    assert load_report(path)["overall"]["recall@10"] > 0
    assert install_shipped_report(plumbing_svc) is None  # a report is there: nothing is overwritten
