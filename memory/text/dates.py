"""Resolve the date words people use ("yesterday", "next Friday", "3 days ago", "上周五", "下下周", "二零二七年五月").

``resolve(text, now)`` finds the first date phrase in ``text`` and resolves it against ``now`` — the message's own
timestamp, or an ``as_of`` reference — so a conversation ingested later still gets the dates its speakers meant.
Both directions are handled (yesterday / last week / N days ago and tomorrow / next month / in N days). Relative
arithmetic uses dateutil's relativedelta (month ends clamp); English month-day forms are parsed by dateutil; the
Chinese side is hand-written on top of the shared numeral parser, since no library reads 上周五 or 下下周.
Month names need a word boundary and a plausible day, so "marathon 5" or "decided 3" never become dates.

Conventions (one calendar week runs Monday..Sunday): "next Friday" / 下周五 is the Friday of next week, "last Friday"
/ 上周五 the Friday of last week, "this Friday" / 这周五 the Friday of this week (today when said on a Friday), a bare
"Friday" / 周五 the next one to come (or the last one gone, for a past statement). A year-less date ("June 3")
is the next one to come, or the last one gone when ``prefer="past"``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from dateutil import parser as date_parser
from dateutil.relativedelta import relativedelta

from memory.text.numerals import ZH_DIGITS, parse_number

Prefer = Literal["future", "past"] | None

_WEEKDAYS_EN = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_ZH_WEEKDAY = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6, "末": 5}
_UNITS_EN = {"day": "days", "week": "weeks", "month": "months", "year": "years"}
_UNITS_ZH = {"天": "days", "日": "days", "周": "weeks", "星期": "weeks", "礼拜": "weeks", "月": "months", "年": "years"}
_WORD_NUM = (
    r"\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a couple of|couple of"
    r"|twenty|thirty"
)
_WORD_VALUE = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "twenty": 20,
    "thirty": 30,
    "a couple of": 2,
    "couple of": 2,
}
_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|"
    r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_DAY = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
_WD = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
DATE_EN = re.compile(
    r"\b(?:"
    r"(?:the )?day after tomorrow|(?:the )?day before yesterday|tomorrow|yesterday|today|tonight|last night|"
    r"(?:this|next|last|past|coming) (?:week(?:end)?|month|year)|"
    r"(?:this|next|last|coming|on) " + _WD + r"|" + _WD + r"|"
    r"in (?:" + _WORD_NUM + r") (?:day|week|month|year)s?|(?:" + _WORD_NUM + r") (?:day|week|month|year)s? "
    r"(?:ago|from now|later|before)|"
    r"\d{4}-\d{1,2}-\d{1,2}|"
    r"(?:on )?" + _MONTH + r"\.? " + _DAY + r"(?:,? \d{4})?(?![\d:])|"
    r"(?:on )?(?:the )?" + _DAY + r" (?:of )?" + _MONTH + r"\b\.?(?:,? \d{4})?|"
    r"in " + _MONTH + r"(?: \d{4})?|in \d{4}"
    r")\b",
    re.IGNORECASE,
)
_ZN = r"[\d" + ZH_DIGITS + r"]"
DATE_ZH = re.compile(
    r"大后天|大前天|后天|前天|明天|昨天|今天|今晚|昨晚|明晚|今早|"
    r"(?:上上|下下|上|下|这|本)(?:个)?(?:周|星期|礼拜)[一二三四五六日天末]?|(?:周|星期|礼拜)[一二三四五六日天]|周末|"
    r"(?:上|下|这|本)(?:个)?月|今年|去年|明年|前年|后年|"
    r"(?:" + _ZN + r"{1,4}|半)(?:个)?(?:天|周|星期|礼拜|月|年)(?:前|后|以后|之后|以前|之前)|"
    r"\d{4}[-/]\d{1,2}[-/]\d{1,2}|"
    r"(?:" + _ZN + r"{2,4}年)?" + _ZN + r"{1,2}月(?:" + _ZN + r"{1,3}[日号])?"
)


_MODAL = re.compile(r"(?:on )?(?:may|march)\b")  # case-sensitive: only "May" / "March" name a month


@dataclass(frozen=True)
class DateMatch:
    """A date phrase found in a text and the day it means (``granularity``: day, month or year)."""

    phrase: str
    start: int
    end: int
    when: datetime
    granularity: str = "day"

    @property
    def stamp(self) -> str:
        """The date as a memory's text carries it, no finer than the phrase means: "next Friday" → 2026-03-13,
        "next month" → 2026-04, "this year" → 2026 (never a month the speaker did not say)."""
        return f"{self.when:{STAMP_FORMATS[self.granularity]}}"


#: how a resolved date is written into a memory's text, by granularity
STAMP_FORMATS = {"day": "%Y-%m-%d", "month": "%Y-%m", "year": "%Y"}


def _week_start(base: datetime) -> datetime:
    return base - timedelta(days=base.weekday())


def weekday_in(base: datetime, weekday: int, offset_weeks: int) -> datetime:
    """The given weekday in this (0), next (1) or last (-1) calendar week."""
    return _week_start(base) + timedelta(weeks=offset_weeks, days=weekday)


def nearest_weekday(base: datetime, weekday: int, prefer: Prefer) -> datetime:
    """A bare weekday: the next one to come (today counts), or the last one gone for past statements."""
    if prefer == "past":
        back = (base.weekday() - weekday) % 7
        return base - timedelta(days=back or 7)
    return base + timedelta(days=(weekday - base.weekday()) % 7)


def _year_less(base: datetime, month: int, day: int, prefer: Prefer) -> datetime | None:
    try:
        when = base.replace(month=month, day=day)
    except ValueError:
        return None
    if prefer == "past" and when.date() > base.date():
        return when - relativedelta(years=1)
    if prefer != "past" and when.date() < base.date() - timedelta(days=7):
        return when + relativedelta(years=1)
    return when


def _count(word: str) -> int | None:
    w = word.lower().strip()
    if w in _WORD_VALUE:
        return _WORD_VALUE[w]
    if w == "半":
        return None
    value = parse_number(w)
    return int(value) if value is not None and value.is_integer() else None


def _shift(base: datetime, unit: str, n: int) -> datetime:
    step = {"days": relativedelta(days=n), "weeks": relativedelta(weeks=n), "months": relativedelta(months=n)}
    return base + step.get(unit, relativedelta(years=n))


def _resolve_en(p: str, base: datetime, prefer: Prefer) -> tuple[datetime, str] | None:
    p = re.sub(r"^(?:on|the)\s+", "", p.lower().strip())
    fixed = {"today": 0, "tonight": 0, "tomorrow": 1, "yesterday": -1, "last night": -1}
    fixed |= {"day after tomorrow": 2, "the day after tomorrow": 2, "day before yesterday": -2}
    if p in fixed:
        return base + timedelta(days=fixed[p]), "day"
    m = re.fullmatch(r"(this|next|last|past|coming) (week(?:end)?|month|year)", p)
    if m:
        step = {"this": 0, "coming": 1, "next": 1, "last": -1, "past": -1}[m.group(1)]
        if m.group(2) == "weekend":
            return weekday_in(base, 5, step), "day"
        unit = _UNITS_EN[m.group(2)]
        return _shift(base, unit, step), {"weeks": "day", "months": "month", "years": "year"}[unit]
    m = re.fullmatch(r"(?:(this|next|last|coming) )?(\w+day)", p)
    if m and m.group(2) in _WEEKDAYS_EN:
        wd = _WEEKDAYS_EN.index(m.group(2))
        which = m.group(1)
        if which in ("next", "last"):
            return weekday_in(base, wd, 1 if which == "next" else -1), "day"
        if which == "this":
            return weekday_in(base, wd, 0), "day"
        return nearest_weekday(base, wd, "future" if which == "coming" else prefer), "day"
    m = re.fullmatch(r"(?:in )?(.+?) (day|week|month|year)s?(?: (ago|from now|later|before))?", p)
    if m and (p.startswith("in ") or m.group(3)):
        n = _count(m.group(1))
        if n is None:
            return None
        sign = -1 if m.group(3) in ("ago", "before") else 1
        unit = _UNITS_EN[m.group(2)]
        return _shift(base, unit, sign * n), "day" if unit in ("days", "weeks") else unit[:-1]
    return _absolute_en(p, base, prefer)


def _absolute_en(p: str, base: datetime, prefer: Prefer) -> tuple[datetime, str] | None:
    m = re.fullmatch(r"in (\d{4})", p)
    if m:
        year = _safe(base, int(m.group(1)), 1, 1)  # "in 0000" (a door code) is no year
        return (year, "year") if year else None
    month_only = p.startswith("in ")
    text = p[3:] if month_only else p
    has_year = bool(re.search(r"\d{4}", text))
    try:
        when = date_parser.parse(text, default=base.replace(day=1 if month_only else base.day), fuzzy=False)
    except (ValueError, OverflowError):
        return None
    when = when.replace(tzinfo=base.tzinfo)
    if month_only:
        if not has_year and when.date() < base.replace(day=1).date() and prefer != "past":
            when += relativedelta(years=1)
        return when, "month"
    if has_year:
        return when, "day"
    fixed = _year_less(base, when.month, when.day, prefer)
    return (fixed, "day") if fixed else None


def _resolve_zh(p: str, base: datetime, prefer: Prefer) -> tuple[datetime, str] | None:
    fixed = {"今天": 0, "今晚": 0, "今早": 0, "明天": 1, "明晚": 1, "后天": 2, "大后天": 3}
    fixed |= {"昨天": -1, "昨晚": -1, "前天": -2, "大前天": -3}
    if p in fixed:
        return base + timedelta(days=fixed[p]), "day"
    years = {"今年": 0, "去年": -1, "明年": 1, "前年": -2, "后年": 2}
    if p in years:
        return _shift(base, "years", years[p]), "year"
    m = re.fullmatch(r"(上|下|这|本)个?月", p)
    if m:
        return _shift(base, "months", {"上": -1, "下": 1}.get(m.group(1), 0)), "month"
    m = re.fullmatch(r"(上上|下下|上|下|这|本)?个?(?:周|星期|礼拜)([一二三四五六日天末])?|周末", p)
    if m:
        step = {"上上": -2, "下下": 2, "上": -1, "下": 1}.get(m.group(1) or "", 0)
        day = m.group(2) if p != "周末" else "末"
        if day is None:
            return _shift(base, "weeks", step), "day"
        if m.group(1) is None and day != "末":
            return nearest_weekday(base, _ZH_WEEKDAY[day], prefer), "day"
        return weekday_in(base, _ZH_WEEKDAY[day], step), "day"
    m = re.fullmatch(r"(.+?)个?(天|周|星期|礼拜|月|年)(前|后|以后|之后|以前|之前)", p)
    if m:
        unit = _UNITS_ZH[m.group(2)]
        n = _count(m.group(1))
        if m.group(1) == "半":
            unit, n = ("days", 15) if unit == "months" else ("months", 6) if unit == "years" else ("days", 3)
        if n is None:
            return None
        sign = -1 if m.group(3).endswith("前") else 1
        return _shift(base, unit, sign * n), "day" if unit in ("days", "weeks") else unit[:-1]
    return _absolute_zh(p, base, prefer)


def _absolute_zh(p: str, base: datetime, prefer: Prefer) -> tuple[datetime, str] | None:
    m = re.fullmatch(r"(\d{4})[-/](\d{1,2})[-/](\d{1,2})", p)
    if m:
        y, mo, d = map(int, m.groups())
        when = _safe(base, y, mo, d)  # 2024-02-31 is no day: no date, never a None where a date is promised
        return (when, "day") if when else None
    m = re.fullmatch(r"(?:(.{2,4})年)?(.{1,2})月(?:(.{1,3})[日号])?", p)
    if not m:
        return None
    year = _zh_year(m.group(1)) if m.group(1) else None
    month = _count(m.group(2))
    day = _count(m.group(3)) if m.group(3) else None
    if not month or not 1 <= month <= 12 or (m.group(1) and year is None):
        return None
    if day is None:
        when = _safe(base, year or base.year, month, 1)
        if when and year is None and prefer != "past" and when.date() < base.replace(day=1).date():
            when += relativedelta(years=1)
        return (when, "month") if when else None
    if year is not None:
        when = _safe(base, year, month, day)
        return (when, "day") if when else None
    when = _year_less(base, month, day, prefer)
    return (when, "day") if when else None


def _zh_year(text: str) -> int | None:
    """'2027' or '二零二七' (read digit by digit) → 2027."""
    if text.isdigit():
        return int(text)
    digits = ["〇一二三四五六七八九".find(c) if c != "零" else 0 for c in text]
    return int("".join(map(str, digits))) if len(digits) == 4 and min(digits) >= 0 else None


def _safe(base: datetime, year: int, month: int, day: int) -> datetime | None:
    """That day, or None when there is no such day (2024-02-31, year 0)."""
    try:
        return base.replace(year=year, month=month, day=day)
    except (ValueError, OverflowError):
        return None


def find_dates(text: str, now: datetime, *, prefer: Prefer = None) -> list[DateMatch]:
    """Every date phrase in ``text`` (English and Chinese) that resolves, in order of appearance."""
    out: list[DateMatch] = []
    for pattern, resolver in ((DATE_EN, _resolve_en), (DATE_ZH, _resolve_zh)):
        for m in pattern.finditer(text):
            if _MODAL.match(m.group()):
                continue  # "I may 2 …", "we march 5 miles": verbs, not months
            try:
                got = resolver(m.group(), now, prefer)
            except (ValueError, OverflowError):  # "9999年后", an impossible day: not a date, never a crash
                got = None
            if got:
                out.append(DateMatch(m.group(), m.start(), m.end(), got[0], got[1]))
    return sorted(out, key=lambda d: d.start)


def resolve(text: str, now: datetime, *, prefer: Prefer = None) -> DateMatch | None:
    """The first date phrase in ``text`` resolved against ``now`` (message time or an as-of reference), or None.

    ``prefer="past"`` reads bare weekdays and year-less dates as the last one gone ("I went there on Friday").
    """
    found = find_dates(text, now, prefer=prefer)
    return found[0] if found else None


#: the date a memory's content carries: "(next month, 2026-12)" / "（下个月，2026-12）" / "(this year, 2026)", as the
#: extractor writes it
_STAMPED = re.compile(
    r"(?P<open>[(（])(?P<phrase>[^()（），,]+)(?P<sep>, |，)(?P<day>\d{4}(?:-\d{2}(?:-\d{2})?)?)(?P<close>[)）])"
)


def restamp(content: str, said_at: datetime, *, prefer: Prefer = None) -> tuple[str, datetime | None]:
    """``content`` with its stamped date resolved again against ``said_at`` (the message's time), and that day:
    a conversation moved in time (a demo's history, an import) means what its speaker meant on the day they spoke.
    Unchanged (and None) when the content carries no stamped date or its phrase no longer resolves."""
    m = _STAMPED.search(content)
    found = resolve(m.group("phrase"), said_at, prefer=prefer) if m else None
    if m is None or found is None:
        return content, None
    stamped = f"{m.group('open')}{m.group('phrase')}{m.group('sep')}{found.stamp}{m.group('close')}"
    return content[: m.start()] + stamped + content[m.end() :], found.when
