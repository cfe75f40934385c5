"""Resolve the date words people use in plans ("next Friday", "on March 3", "下周五", "5月1日") to a datetime.

Relative words are resolved against the message's own timestamp, so a conversation ingested later still gets the
dates its speakers meant. Only unambiguous forms are handled; anything else leaves ``event_time`` empty.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

_WEEKDAYS_EN = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_MONTHS_EN = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
_ZH_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}  # noqa: E501 (pattern table)
_ZH_WEEKDAY = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}

DATE_EN = re.compile(
    r"\b(?:tomorrow|today|tonight|this weekend|next weekend|next week|next month|next year|"
    r"(?:next|this|on)\s+(?:mon|tues|wednes|thurs|fri|satur|sun)day|"
    r"(?:on\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?|"
    r"\d{4}-\d{2}-\d{2}|in\s+(?:january|february|march|april|june|july|august|september|october|november|december))\b",
    re.IGNORECASE,
)
DATE_ZH = re.compile(
    r"明天|后天|今天|今晚|大后天|这周末|周末|下周[一二三四五六日天]?|下星期[一二三四五六日天]?|下个?月|明年|"
    r"(?:这|本)?(?:周|星期)[一二三四五六日天]|(?:\d{4}年)?\d{1,2}月\d{1,2}[日号]?|\d{4}-\d{2}-\d{2}|"
    r"[一二三四五六七八九十]{1,3}月(?:[一二三四五六七八九十]{1,3}[日号])?"
)


def _next_weekday(base: datetime, weekday: int, *, next_week: bool) -> datetime:
    if next_week:  # "next Friday" / "下周五": that weekday in the following calendar week
        start = base - timedelta(days=base.weekday()) + timedelta(days=7)
        return start + timedelta(days=weekday)
    ahead = (weekday - base.weekday()) % 7
    return base + timedelta(days=ahead or 7)


def _month_day(base: datetime, month: int, day: int, year: int | None = None) -> datetime | None:
    try:
        when = base.replace(year=year or base.year, month=month, day=day)
    except ValueError:
        return None
    if year is None and when.date() < base.date() - timedelta(days=31):
        when = when.replace(year=when.year + 1)
    return when


def zh_small_number(text: str) -> int | None:
    """一..三十一 style numbers (months, days)."""
    if text.isdigit():
        return int(text)
    if "十" in text:
        tens, _, ones = text.partition("十")
        return (_ZH_DIGITS.get(tens, 1) if tens else 1) * 10 + (_ZH_DIGITS.get(ones, 0) if ones else 0)
    return _ZH_DIGITS.get(text)


def resolve_en(phrase: str, base: datetime) -> datetime | None:
    p = phrase.lower().strip()
    p = re.sub(r"^on\s+", "", p)
    simple = {"today": 0, "tonight": 0, "tomorrow": 1, "next week": 7, "next month": 30, "next year": 365}
    if p in simple:
        return base + timedelta(days=simple[p])
    if p in ("this weekend", "next weekend"):
        return _next_weekday(base, 5, next_week=p.startswith("next"))
    m = re.match(r"(next|this)?\s*(\w+day)$", p)
    if m and m.group(2) in _WEEKDAYS_EN:
        return _next_weekday(base, _WEEKDAYS_EN.index(m.group(2)), next_week=m.group(1) == "next")
    if re.match(r"\d{4}-\d{2}-\d{2}$", p):
        y, mo, d = map(int, p.split("-"))
        return _month_day(base, mo, d, y)
    m = re.match(r"([a-z]+)\.?\s+(\d{1,2})", p)
    if m:
        month = next((i for i, name in enumerate(_MONTHS_EN, 1) if name.startswith(m.group(1)[:3])), None)
        return _month_day(base, month, int(m.group(2))) if month else None
    m = re.match(r"in\s+([a-z]+)$", p)
    if m and m.group(1) in _MONTHS_EN:
        return _month_day(base, _MONTHS_EN.index(m.group(1)) + 1, 1)
    return None


def resolve_zh(phrase: str, base: datetime) -> datetime | None:
    simple = {"今天": 0, "今晚": 0, "明天": 1, "后天": 2, "大后天": 3, "明年": 365}
    if phrase in simple:
        return base + timedelta(days=simple[phrase])
    if phrase in ("下个月", "下月"):
        return base + timedelta(days=30)
    if phrase in ("这周末", "周末"):
        return _next_weekday(base, 5, next_week=False)
    m = re.match(r"(下)?(?:这|本)?(?:周|星期)([一二三四五六日天])?$", phrase)
    if m:
        if m.group(2) is None:
            return base + timedelta(days=7)
        return _next_weekday(base, _ZH_WEEKDAY[m.group(2)], next_week=bool(m.group(1)))
    if re.match(r"\d{4}-\d{2}-\d{2}$", phrase):
        y, mo, d = map(int, phrase.split("-"))
        return _month_day(base, mo, d, y)
    m = re.match(r"(?:(\d{4})年)?([\d一二三四五六七八九十]{1,3})月(?:([\d一二三四五六七八九十]{1,3})[日号]?)?$", phrase)
    if m:
        month, day = zh_small_number(m.group(2)), zh_small_number(m.group(3)) if m.group(3) else 1
        if month and day:
            return _month_day(base, month, day, int(m.group(1)) if m.group(1) else None)
    return None


def find_date(text: str, base: datetime, lang: str) -> tuple[str | None, datetime | None]:
    """The first date phrase in ``text`` and its resolution (either may be None)."""
    m = (DATE_ZH if lang == "zh" else DATE_EN).search(text)
    if not m:
        return None, None
    phrase = m.group()
    return phrase, (resolve_zh if lang == "zh" else resolve_en)(phrase, base)
