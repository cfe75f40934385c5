"""Date resolution in both directions, English and Chinese, with property tests over every weekday."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory.text.dates import find_dates, resolve

AT = datetime(2025, 5, 1, 9, 0, tzinfo=UTC)  # a Thursday
EN_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
ZH_DAYS = "一二三四五六日"
days = st.dates(min_value=date(2000, 1, 1), max_value=date(2099, 12, 31))


def _at(d: date) -> datetime:
    return datetime(d.year, d.month, d.day, 12, 0, tzinfo=UTC)


@settings(max_examples=60, deadline=None)
@given(day=days, weekday=st.integers(0, 6))
def test_last_x_before_message_day_before_next_x(day, weekday):
    now = _at(day)
    for last, this, nxt in (
        (f"last {EN_DAYS[weekday]}", f"this {EN_DAYS[weekday]}", f"next {EN_DAYS[weekday]}"),
        (f"上周{ZH_DAYS[weekday]}", f"这周{ZH_DAYS[weekday]}", f"下周{ZH_DAYS[weekday]}"),
    ):
        before, same, after = (resolve(p, now).when.date() for p in (last, this, nxt))
        assert before < day < after, (last, nxt, day)
        assert before.weekday() == same.weekday() == after.weekday() == weekday
        assert (after - before).days == 14 and (after - same).days == 7


@settings(max_examples=40, deadline=None)
@given(day=days, n=st.integers(1, 60))
def test_ago_and_in_are_mirror_images(day, n):
    now = _at(day)
    for past, future in ((f"{n} days ago", f"in {n} days"), (f"{n}天前", f"{n}天后")):
        assert resolve(past, now).when.date() == day - timedelta(days=n)
        assert resolve(future, now).when.date() == day + timedelta(days=n)


@settings(max_examples=40, deadline=None)
@given(day=days)
def test_past_words_are_past_and_future_words_future(day):
    now = _at(day)
    for word in ("yesterday", "last week", "last month", "last year", "昨天", "前天", "上个月", "去年", "上上周"):
        assert resolve(word, now).when.date() < day, word
    for word in ("tomorrow", "next week", "next month", "next year", "明天", "后天", "下个月", "明年", "下下周"):
        assert resolve(word, now).when.date() > day, word


@settings(max_examples=60, deadline=None)
@given(
    word=st.sampled_from(
        [
            "marathon",
            "decided",
            "married",
            "novel",
            "mayor",
            "octopus",
            "junior",
            "augment",
            "season",
            "decimal",
            "January-ish",
            "marching",
        ]
    ),
    n=st.integers(1, 31),
)
def test_no_date_from_ordinary_words(word, n):
    assert find_dates(f"I {word} {n} times with friends", AT) == []


@pytest.mark.parametrize("phrase", ["marathon 5", "decided 3", "married 3", "novel 2", "I may 2 things", "we march 5"])
def test_issue_examples_are_not_dates(phrase):
    assert resolve(phrase, AT) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("yesterday", "2025-04-30"),
        ("the day before yesterday", "2025-04-29"),
        ("tomorrow", "2025-05-02"),
        ("this Thursday", "2025-05-01"),  # said on a Thursday: today, not a week later
        ("this Friday", "2025-05-02"),
        ("last Friday", "2025-04-25"),
        ("next Friday", "2025-05-09"),
        ("3 days ago", "2025-04-28"),
        ("in two weeks", "2025-05-15"),
        ("on June 3", "2025-06-03"),
        ("March 3", "2026-03-03"),
        ("2025-07-14", "2025-07-14"),
        ("昨天", "2025-04-30"),
        ("前天", "2025-04-29"),
        ("后天", "2025-05-03"),
        ("上周五", "2025-04-25"),
        ("这周四", "2025-05-01"),
        ("下周五", "2025-05-09"),
        ("下下周", "2025-05-15"),
        ("三天前", "2025-04-28"),
        ("两周后", "2025-05-15"),
        ("上个月", "2025-04-01"),
        ("二零二七年五月", "2027-05-01"),
        ("三月五号", "2026-03-05"),
        ("十二月二十五日", "2025-12-25"),
    ],
)
def test_examples(text, expected):
    assert resolve(text, AT).when.date().isoformat() == expected


def test_past_statements_read_bare_dates_backwards():
    assert resolve("on Friday", AT, prefer="past").when.date().isoformat() == "2025-04-25"
    assert resolve("on March 3", AT, prefer="past").when.date().isoformat() == "2025-03-03"
    assert resolve("三月五号", AT, prefer="past").when.date().isoformat() == "2025-03-05"


def test_resolve_reports_the_phrase_and_its_place():
    found = resolve("I moved here last month, honestly", AT)
    assert found.phrase == "last month" and found.granularity == "month"
    assert "I moved here last month, honestly"[found.start : found.end] == "last month"


@pytest.mark.parametrize("message_day", range(7))
def test_every_weekday_as_the_message_day(message_day):
    now = AT + timedelta(days=(message_day - AT.weekday()) % 7)  # Monday … Sunday
    for x in range(7):
        for last, nxt in ((f"last {EN_DAYS[x]}", f"next {EN_DAYS[x]}"), (f"上周{ZH_DAYS[x]}", f"下周{ZH_DAYS[x]}")):
            assert resolve(last, now).when.date() < now.date() < resolve(nxt, now).when.date(), (now, last, nxt)
        assert resolve(f"on {EN_DAYS[x]}", now, prefer="past").when.date() < now.date()
        assert resolve(f"on {EN_DAYS[x]}", now).when.date() >= now.date()


@pytest.mark.parametrize(
    ("said", "stamped", "read_back_en", "read_back_zh"),
    [
        ("I plan to change jobs this year.", "(this year, 2026)", "2026", None),
        ("我打算今年换工作。", "（今年，2026）", None, "2026年"),
        ("Next month I start a new job.", "(2026-04)", None, None),
        ("I'm flying to Tokyo next Friday.", "(next Friday, 2026-03-13)", "13 March 2026", None),
    ],
)
def test_a_date_is_stamped_no_finer_than_it_was_said(said, stamped, read_back_en, read_back_zh):
    """ "This year" is a year, not the month it was said in: the memory, its restamp and its reading agree."""
    from memory.text.dates import restamp
    from memory.text.voice import you
    from memory.write.extract.extractor import extract

    at = datetime(2026, 3, 2, 9, tzinfo=UTC)
    (memory,) = [c for c in extract(said, at=at) if c.event_time is not None]
    assert stamped in memory.content
    again, _ = restamp(memory.content, at)
    assert again == memory.content  # resolved again on the day it was said: the same stamp
    if read_back_en:
        assert f"({read_back_en})" in you(memory.content, "en")
    if read_back_zh:
        assert f"（{read_back_zh}）" in you(memory.content, "zh")


def test_resolve_gives_year_month_and_day_granularity():
    base = datetime(2026, 3, 2, 9, tzinfo=UTC)
    stamps = {p: resolve(p, base).stamp for p in ("this year", "明年", "next month", "下个月", "tomorrow", "明天")}
    assert stamps == {
        "this year": "2026",
        "明年": "2027",
        "next month": "2026-04",
        "下个月": "2026-04",
        "tomorrow": "2026-03-03",
        "明天": "2026-03-03",
    }
