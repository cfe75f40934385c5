"""Impossible dates and odd numerals parse or are ignored, never crash (issue #28, item 8).

"I went to Paris on 2024-02-31." made ``dates._absolute_zh`` return ``(None, "day")`` where a date is promised and
"My door code ends in 0000." asked ``datetime.replace`` for year 0: both crashed the extraction of the message (and,
through the write-behind's catch-up, every later write of the user). Property tests over generated dates (valid or
not) and digit strings, run through the date resolver and the real rule extractor.
"""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from memory.text.dates import find_dates, resolve
from memory.write.extract.extractor import extract

AT = datetime(2026, 11, 18, 10, 0, tzinfo=UTC)
digits = st.text(alphabet="0123456789", min_size=1, max_size=12)
zh_digits = st.text(alphabet="零〇一二三四五六七八九十百千万两", min_size=1, max_size=6)
years, months, days = st.integers(0, 99999), st.integers(0, 99), st.integers(0, 99)

SENTENCES = [
    "I went to Paris on {y}-{m}-{d}.",
    "My birthday is {y}/{m}/{d}.",
    "我{y}年{m}月{d}日去了巴黎。",
    "我{y}年{m}月{d}号生日。",
    "I moved here in {y}.",
    "See you on {y}-{m:02d}-{d:02d}!",
]
NUMERAL_SENTENCES = [
    "My door code ends in {n}.",
    "My PIN is {n} and my locker is in {n}.",
    "I was born in {n}.",
    "We met {n} days ago.",
    "in {n} years I retire",
    "我的门禁密码是{n}。",
    "{n}年后我退休。",
    "{n}天前我们见过。",
    "我{n}月{n}日搬家。",
]


def test_the_issue_sentences_extract_without_a_crash():
    """The two messages from the issue: before the fix both raised out of extract()."""
    assert find_dates("I went to Paris on 2024-02-31.", AT) == []
    assert find_dates("My door code ends in 0000.", AT) == []
    paris = extract("I went to Paris on 2024-02-31.", at=AT)
    assert all(c.event_time is None or c.event_time.year == 2024 for c in paris)  # no invented day
    extract("My door code ends in 0000.", at=AT)  # no exception is the property


@settings(max_examples=150, deadline=None)
@given(y=years, m=months, d=days, template=st.sampled_from(SENTENCES))
def test_generated_dates_resolve_to_a_real_day_or_to_nothing(y, m, d, template):
    text = template.format(y=y, m=m, d=d)
    for found in find_dates(text, AT):
        assert isinstance(found.when, datetime), (text, found)  # a date is promised: never None
    extract(text, at=AT)


@settings(max_examples=150, deadline=None)
@given(n=st.one_of(digits, zh_digits), template=st.sampled_from(NUMERAL_SENTENCES))
def test_generated_digit_strings_never_crash_the_resolver_or_the_extractor(n, template):
    text = template.format(n=n)
    for found in find_dates(text, AT, prefer="past"):
        assert isinstance(found.when, datetime), (text, found)
    got = resolve(text, AT)
    assert got is None or isinstance(got.when, datetime)
    extract(text, at=AT)
