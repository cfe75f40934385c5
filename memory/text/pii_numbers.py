"""Numbers that identify a person, found in runs of digits of the normalised text.

A *run* is digits joined by short separators (spaces, dashes, dots, slashes, underscores, brackets), so
``330106 19910422 3104``, ``(139) 0144-0461`` and ``1 3 9 0 1 4 4 0 4 6 1`` are each one run. Within a run, groups of
digits are tried longest first from each group (a run may hold two numbers side by side), and each candidate is
classified by the well-kept libraries: python-stdnum for the card Luhn sum and the ID check, phonenumbers for phone
numbers in every national and international format. Each candidate costs O(1) and a run is tried at most 20 groups
ahead, so a text is scanned in linear time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_RUN = re.compile(r"\+?[0-9](?:[ \-./_()]{0,3}[0-9])*(?:[Xx](?![A-Za-z]))?")
_GROUP = re.compile(r"[0-9]+[Xx]?")
_MAX_DIGITS = 19
_MAX_GROUPS = 20
#: regions tried for numbers written nationally with a trunk 0 (mainland China first: the product's home market)
_TRUNK_REGIONS = ("CN", "GB", "DE", "FR", "AU", "JP", "IN", "IT")
_CARD_WORDS = re.compile(
    r"\b(?:cards?|visa|master\s?card|amex|credit|debit|account|acct|iban|bank)\b|卡|账户|账号|银行", re.IGNORECASE
)
_ORDER_WORDS = re.compile(
    r"\b(?:order|tracking|invoice|ticket|booking|ref|reference|parcel|shipment|no\.)|#|订单|单号|运单|快递|发票|编号|流水",
    re.IGNORECASE,
)
#: a version or a book number just before a run: not a person's number ("version 2.13.9014461", "ISBN 0-306-…")
VERSION_BEFORE = re.compile(r"(?:\bv|\bver|version|版本|release|build|python|\bos)\s*[.:]?\s*\Z", re.IGNORECASE)
_NOT_PERSONAL_BEFORE = re.compile(r"isbn(?:-1[03])?\s*[:：]?\s*\Z", re.IGNORECASE)
#: the 15-character resident ID issued before 1999 (region, YYMMDD birth date, sequence; no check character)
_ID15_SHAPE = re.compile(r"[1-8][0-9]{5}[0-9]{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12][0-9]|3[01])[0-9]{3}")
_ID_SHAPE = re.compile(r"[1-8][0-9]{5}(?:19|20)[0-9]{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12][0-9]|3[01])[0-9]{3}[0-9Xx]")


@dataclass(frozen=True)
class NumberHit:
    kind: str  # id-card | bank-card | phone
    start: int  # in the normalised text
    end: int


def id_card_valid(value: str) -> bool:
    """ISO 7064 MOD 11-2 check character of an 18-character resident ID (python-stdnum)."""
    from stdnum.cn import ric  # the number libraries load on first use: `memlens users` never masks anything

    return len(value) == 18 and ric.is_valid(value)


def luhn_valid(digits: str) -> bool:
    from stdnum import luhn

    return digits.isdigit() and luhn.is_valid(digits)


#: issuer prefixes outside 3-6: Mir 2200-2204, RuPay 81/82, Troy 9792, UzCard 8600, Humo 9860, UATP 1
_OTHER_PREFIXES = ("2200", "2201", "2202", "2203", "2204", "81", "82", "9792", "8600", "9860", "1")


def _card_prefix_ok(digits: str) -> bool:
    if digits[0] in "3456":
        return True
    if digits[0] == "2" and 2221 <= int(digits[:4]) <= 2720:
        return True
    return digits.startswith(_OTHER_PREFIXES) and (digits[0] != "1" or len(digits) == 15)


class _Parser:
    """phonenumbers validation with a per-text budget: past it (only adversarial texts get there) a number of a
    phone's shape counts as a phone without the parser — masking too much, never too little, in bounded time."""

    BUDGET = 1500

    def __init__(self) -> None:
        self.left = self.BUDGET

    def valid(self, number: str, region: str | None) -> bool:
        if self.left <= 0:
            return True
        self.left -= 1
        return _valid(number, region)


@lru_cache(maxsize=2048)
def _valid(number: str, region: str | None) -> bool:
    import phonenumbers

    try:
        return phonenumbers.is_valid_number(phonenumbers.parse(number, region))
    except phonenumbers.NumberParseException:
        return False


def is_phone(digits: str, international: bool, parser: _Parser | None = None) -> bool:
    """A dialable number: international (``+`` or ``00``), Chinese mobile / ``86`` + mobile, national with a trunk
    ``0`` in a common region, or North-American. Cheap shape checks first, so most runs never reach the parser."""
    p = parser or _Parser()
    n = len(digits)
    if international or (n > 9 and digits.startswith("00")):
        rest = digits if international else digits[2:]
        return 8 <= len(rest) <= 15 and p.valid("+" + rest, None)
    if n == 11 and digits[0] == "1" and digits[1] in "3456789":
        return p.valid(digits, "CN")
    if n == 13 and digits.startswith("861") and digits[3] in "3456789":
        return p.valid("+" + digits, None)
    if 9 <= n <= 12 and digits[0] == "0":
        return any(p.valid(digits, r) for r in _TRUNK_REGIONS)
    if n == 10 and digits[0] in "23456789" and digits[3] in "23456789":
        return p.valid(digits, "US")
    if n == 11 and digits[0] == "1" and digits[1] in "23456789" and digits[4] in "23456789":
        return p.valid(digits, "US")
    return False


def _kind(digits: str, international: bool, context: str, parser: _Parser) -> str | None:
    """What a candidate is, or None. An 18-character ID-shaped number is masked even with a wrong check digit: a
    mistyped real ID is still personal data."""
    n = len(digits)
    if n == 18 and _ID_SHAPE.fullmatch(digits):
        return "id-card"
    if not digits.isdigit():
        return None
    card_words = _CARD_WORDS.search(context)
    card = 13 <= n <= _MAX_DIGITS and (card_words or _card_prefix_ok(digits)) and luhn_valid(digits)
    if card and (card_words or not _ORDER_WORDS.search(context)):
        return "bank-card"
    if n == 15 and _ID15_SHAPE.fullmatch(digits):
        return "id-card"
    if 7 <= n <= 17 and is_phone(digits, international, parser):
        return "phone"
    return None


def _indian_mobile(digits: str, shape: tuple[int, ...], parser: _Parser) -> bool:
    """An Indian mobile as people group it: 98765 43210, 9876543210, 91 98765 43210 (only these groupings: five
    two-digit scores in a row are not a phone number)."""
    if len(digits) == 10 and digits[0] in "6789" and shape in ((10,), (5, 5)):
        return parser.valid(digits, "IN")
    if len(digits) == 12 and digits.startswith("91") and shape in ((12,), (2, 5, 5), (2, 10)):
        return parser.valid("+" + digits, None)
    return False


@lru_cache(maxsize=32)
def _lengths(first: str, international: bool) -> frozenset[int]:
    """Digit counts worth classifying for a candidate starting with ``first`` (most are skipped for free)."""
    if international:
        return frozenset(range(8, 18))
    out: set[int] = set()
    if first in "12345678":
        out.update((15, 18))
    if first != "0":
        out.update(range(13, _MAX_DIGITS + 1))
    if first == "1":
        out.add(11)
    if first == "0":
        out.update(range(9, 18))
    if first == "8":
        out.add(13)
    if first in "23456789":
        out.add(10)
    if first == "9":
        out.add(12)
    return frozenset(out)


def _longest_at(
    groups: list[tuple[int, int, str]], i: int, international: bool, context: str, norm: str, parser: _Parser
):
    """(kind, last group) of the longest identifying number starting at group ``i``, or None."""
    window = groups[i : i + _MAX_GROUPS]
    digits = "".join(g[2] for g in window)
    ends, total = [], 0
    for g in window:
        total += len(g[2])
        ends.append(total)
    intl = international and i == 0
    allowed = _lengths(digits[0], intl)
    for k in range(len(window) - 1, -1, -1):
        n = ends[k]
        if n < 7:
            break
        if n not in allowed:
            continue
        kind = _kind(digits[:n], intl, context, parser)
        if kind is None and intl and "(0)" in norm[window[0][0] : window[k][1]]:
            kind = _kind("".join(g[2] for g in window[: k + 1] if g[2] != "0"), True, context, parser)
        if kind is None and not intl and _indian_mobile(digits[:n], tuple(len(g[2]) for g in window[: k + 1]), parser):
            kind = "phone"
        if kind:
            return kind, i + k
    return None


def _run_hits(norm: str, m: re.Match, parser: _Parser) -> list[NumberHit]:
    run = m.group()
    before = norm[max(0, m.start() - 12) : m.start()]
    if VERSION_BEFORE.search(before) or _NOT_PERSONAL_BEFORE.search(before):
        return []
    groups = [(g.start() + m.start(), g.end() + m.start(), g.group()) for g in _GROUP.finditer(run)]
    context = norm[max(0, m.start() - 24) : m.start()]
    hits: list[NumberHit] = []
    i = 0
    while i < len(groups):
        found = _longest_at(groups, i, run.startswith("+"), context, norm, parser)
        if found:
            hits.append(NumberHit(found[0], m.start() if i == 0 else groups[i][0], groups[found[1]][1]))
            i = found[1] + 1
        else:
            i += 1
    return hits


def find_numbers(norm: str) -> list[NumberHit]:
    """Every identifying number in the normalised text, left to right."""
    hits: list[NumberHit] = []
    parser = _Parser()
    for m in _RUN.finditer(norm):
        if m.end() - m.start() >= 7:
            hits.extend(_run_hits(norm, m, parser))
    return hits
