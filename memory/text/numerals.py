"""Numbers and money amounts in English and Chinese: "1,500 dollars", "2.5k", "3.5万", "五千块", "一百零五", "一亿".

Chinese numerals go through cn2an (imported lazily: it takes ~0.2 s to load); Arabic digits with thousands separators
and k/m/万/亿 multipliers are read here. An amount keeps its currency (ISO code) when the text names one. The
extractors (budgets), the statistics derived from profile history and the date resolver all use this one parser.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

ZH_DIGITS = "零〇一二两三四五六七八九十百千万亿壹贰叁肆伍陆柒捌玖拾佰仟"
_MULT = {"k": 1e3, "K": 1e3, "千": 1e3, "m": 1e6, "M": 1e6, "w": 1e4, "W": 1e4, "万": 1e4, "亿": 1e8, "": 1}
_ARABIC = re.compile(r"(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?\s?(k|K|m|M|w|W|千|万|亿)?(?![A-Za-z0-9.])")
_CURRENCY_WORDS: list[tuple[str, str]] = [
    (r"\$|usd|us dollars?|dollars?|bucks|美元|美金|刀", "USD"),
    (r"€|eur|euros?|欧元", "EUR"),
    (r"£|gbp|pounds?|英镑", "GBP"),
    (r"¥|rmb|cny|yuan|元|块钱?|人民币", "CNY"),
    (r"jpy|yen|日元|日币", "JPY"),
]
#: a money phrase: optional currency sign, a number (digits or Chinese numerals), optional multiplier and unit
AMOUNT = re.compile(
    r"(?P<pre>[$€£¥]|(?:rmb|usd|eur|gbp|cny)\s?)?"
    r"(?P<num>\d[\d,]*(?:\.\d+)?\s?(?:k|K|m|M|w|W|千|万|亿)?(?![A-Za-z0-9.])|"
    r"\d+(?:\.\d+)?\s?[千万亿][\d" + ZH_DIGITS + r"]*|[" + ZH_DIGITS + r"]{1,12})"
    r"\s?(?P<unit>(?:us )?dollars?|bucks|euros?|pounds?|yuan|rmb|usd|eur|gbp|cny|yen|"
    r"美元|美金|欧元|英镑|日元|人民币|块钱|块|元|刀)?",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Amount:
    """A number as said ("五千块") and as read (5000.0, "CNY")."""

    value: float
    currency: str | None
    text: str

    @property
    def key(self) -> str:
        """The normal form stored as a memory's object: '5000', '2.5'."""
        return format_number(self.value)


def format_number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


@lru_cache(maxsize=1)
def _cn2an():
    import cn2an  # lazy: heavy import

    return cn2an


def parse_number(text: str) -> float | None:
    """'1,500' → 1500, '2.5k' → 2500, '3.5万' → 35000, '一百零五' → 105, '两千五' → 2500, '一亿' → 1e8; else None."""
    t = text.strip().replace(" ", "")
    if not t:
        return None
    m = _ARABIC.fullmatch(t)
    if m:
        whole = float(m.group(1).replace(",", "") + ("." + m.group(2) if m.group(2) else ""))
        return whole * _MULT[m.group(3) or ""]
    if not re.fullmatch(r"[\d.]*[" + ZH_DIGITS + r"\d]+", t):
        return None
    try:
        value = _cn2an().cn2an(t, "smart")
    except (ValueError, KeyError, IndexError, TypeError):
        return None
    return float(value)


def currency_of(text: str) -> str | None:
    """The ISO code a money phrase names ('$', 'dollars', '块', '美元' …), or None."""
    low = text.lower()
    for pattern, code in _CURRENCY_WORDS:
        if re.search(pattern, low):
            return code
    return None


def find_amount(text: str) -> Amount | None:
    """The first money amount in ``text`` with its currency, or None."""
    for m in AMOUNT.finditer(text):
        value = parse_number(m.group("num"))
        if value is None:
            continue
        said = m.group().strip()
        return Amount(value, currency_of((m.group("pre") or "") + " " + (m.group("unit") or "")), said)
    return None


def amount_key(text: str) -> str:
    """The number inside a money phrase in normal form ('$5,000' → '5000', '预算五千' → '5000'); else the text."""
    found = find_amount(text)
    return found.key if found else text
