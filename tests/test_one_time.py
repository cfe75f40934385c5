"""One notion of time (issue #28, item 4): relative dates resolve against the message's time, and a conversation
moved in time (the demo's histories) moves everything it produced, so pages, charts and replies agree.

Before: the demo resolved "下个月" against the day it was seeded and then moved the session back (a statement made on
11-18 said "2027-01"); profile fields and the change log stayed on the seeding day, so replies said "you told me
earlier today" about statements the Sessions page dated a week earlier, and the change-log chart squeezed a week
into two seconds.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import select

from agent.runtime import Agent
from memory.service import MemoryService
from memory.storage.models import Message, ProfileChange, ProfileField
from memory.text.dates import resolve, restamp

SAID = datetime(2026, 11, 18, 10, 0, tzinfo=UTC)  # a Wednesday

#: (phrase, what it means when said on SAID): a labelled set, both languages, both directions
LABELLED = [
    ("下个月", "2026-12"),
    ("上个月", "2026-10"),
    ("上周", "2026-11-11"),
    ("下周", "2026-11-25"),
    ("下周五", "2026-11-27"),
    ("上周五", "2026-11-13"),
    ("明天", "2026-11-19"),
    ("昨天", "2026-11-17"),
    ("3天前", "2026-11-15"),
    ("两周后", "2026-12-02"),
    ("明年", "2027"),
    ("去年", "2025"),
    ("next month", "2026-12"),
    ("last month", "2026-10"),
    ("last week", "2026-11-11"),
    ("next week", "2026-11-25"),
    ("next Friday", "2026-11-27"),
    ("last Friday", "2026-11-13"),
    ("tomorrow", "2026-11-19"),
    ("yesterday", "2026-11-17"),
    ("3 days ago", "2026-11-15"),
    ("in 2 weeks", "2026-12-02"),
    ("next year", "2027"),
    ("last year", "2025"),
]


def _as(found) -> str:
    fmt = {"day": "%Y-%m-%d", "month": "%Y-%m", "year": "%Y"}[found.granularity]
    return found.when.strftime(fmt)


@pytest.mark.parametrize(("phrase", "meant"), LABELLED)
def test_the_labelled_relative_dates_resolve_against_the_message_time(phrase: str, meant: str):
    assert _as(resolve(phrase, SAID)) == meant


def test_a_stamped_date_is_resolved_again_against_a_moved_message():
    content = "用户计划去东京（下个月，2027-01）。"  # resolved on 2026-12-02, said on 2026-11-18
    again, when = restamp(content, SAID)
    assert again == "用户计划去东京（下个月，2026-12）。" and when.date() == datetime(2026, 12, 18).date()
    assert restamp("User likes jazz.", SAID) == ("User likes jazz.", None)


def test_the_pipeline_resolves_against_the_message_time(svc: MemoryService):
    user = svc.ensure_user("t-ingest")
    session = svc.ensure_session(user, "s1")
    for text in ("下个月我要去东京。", "I am going to Tokyo next month."):
        message = svc.add_message(session, "user", text, created_at=SAID)
        svc.write_from_message(user, session, message)
    plans = [m for m in svc.list_memories(user) if m.predicate == "plan"]
    assert len(plans) == 2 and all("2026-12" in m.content and m.event_time.month == 12 for m in plans)


def test_a_moved_session_moves_its_dates_profile_and_change_log(svc: MemoryService):
    bot = Agent(svc)
    bot.chat("t-demo", "s1", "我住在杭州。下个月我要去东京。")
    bot.wait()
    user = svc.get_user("t-demo")
    assert svc.shift_session(user, "s1", 14)
    with svc.storage.db() as db:
        said = db.exec(select(Message).where(Message.role == "user")).first().created_at
        changes = db.exec(select(ProfileChange)).all()
        fields = db.exec(select(ProfileField)).all()
    said = said if said.tzinfo else said.replace(tzinfo=UTC)
    expected = resolve("下个月", said)
    plan = next(m for m in svc.list_memories(user) if m.predicate == "plan")
    assert f"（下个月，{_as(expected)}）" in plan.content
    assert plan.event_time.date() == expected.when.date()
    for row_time in [c.at for c in changes] + [f.updated_at for f in fields]:
        aware = row_time if row_time.tzinfo else row_time.replace(tzinfo=UTC)
        assert abs(aware - said) < timedelta(minutes=1)  # the day it was said, not the day it was seeded
    reply = bot.chat("t-demo", "s2", "我住在哪里？").reply
    assert "杭州" in reply and "今天告诉我的" not in reply
    assert f"{said.month}月{said.day}日告诉我的" in reply
    bot.close()


def test_a_value_said_a_week_ago_is_dated_by_its_message(svc: MemoryService):
    """An imported (or caught-up) message: its profile value and change-log row carry the day it was said, and the
    reply says that day, not "earlier today"."""
    user = svc.ensure_user("t-import")
    session = svc.ensure_session(user, "s1")
    week_ago = datetime.now(UTC) - timedelta(days=7)
    message = svc.add_message(session, "user", "I live in Porto.", created_at=week_ago)
    svc.write_from_message(user, session, message)
    field = svc.profile_fields(user)["city"]
    at = field.updated_at if field.updated_at.tzinfo else field.updated_at.replace(tzinfo=UTC)
    assert abs(at - week_ago) < timedelta(seconds=1)
    bot = Agent(svc)
    reply = bot.chat("t-import", "s2", "Where do I live?").reply
    assert "Porto" in reply and "earlier today" not in reply and f"{week_ago.day} {week_ago:%B}" in reply
    bot.close()
