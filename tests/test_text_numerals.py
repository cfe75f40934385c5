"""Numbers and money amounts in English and Chinese: one parser for the extractors and the statistics."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory.lifecycle.stats import parse_amount
from memory.text.numerals import amount_key, find_amount, parse_number


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("一百零五", 105),
        ("三百零二", 302),
        ("一千零五", 1005),
        ("一亿", 100_000_000),
        ("3.5万", 35_000),
        ("两千五", 2500),
        ("2.5k", 2500),
        ("1,500", 1500),
        ("十二", 12),
    ],
)
def test_parse_number(text, value):
    assert parse_number(text) == value


@pytest.mark.parametrize(
    ("text", "value", "currency"),
    [
        ("五千块", 5000, "CNY"),
        ("1,500 dollars", 1500, "USD"),
        ("about 2.5k on a laptop", 2500, None),
        ("€800 for the trip", 800, "EUR"),
        ("3.5k pounds a month", 3500, "GBP"),
        ("一百零五美元", 105, "USD"),
        ("预算大概一亿", 100_000_000, None),
        ("4500元", 4500, "CNY"),
    ],
)
def test_amounts_keep_their_currency(text, value, currency):
    found = find_amount(text)
    assert found is not None and found.value == value and found.currency == currency


def test_words_without_numbers_are_not_amounts():
    assert find_amount("no money talk here") is None and parse_number("many") is None
    assert amount_key("no number") == "no number"


@pytest.mark.parametrize("text", ["五千块", "1,500 dollars", "3.5万", "一千零五元", "2.5k"])
def test_stats_read_amounts_with_the_same_parser(text):
    assert parse_amount(text) == find_amount(text).value


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 99_999_999))
def test_chinese_and_arabic_spellings_agree(n):
    import cn2an

    assert parse_number(cn2an.an2cn(n)) == n
    assert parse_number(f"{n:,}") == n
