"""PII detection and masking, applied before anything is stored, embedded or logged.

Kinds and how each is told apart from ordinary numbers (dates, prices, order numbers must stay untouched):

- ``email``: a plain address pattern → ``[email]``.
- ``id-card``: mainland China resident ID, 18 characters: a region code (first digit 1-8), a plausible birth date
  (19xx/20xx, month 01-12, day 01-31) and the ISO 7064 MOD 11-2 check character (may be X) → ``[id-card ***123X]``.
- ``bank-card``: 13-19 digits (spaces or dashes between groups allowed), an issuer prefix (3, 4, 5, 6 or the
  Mastercard 2221-2720 range, so date-like ``2024…`` numbers never qualify) and a valid Luhn sum; skipped when an
  order/tracking word stands just before it → ``[bank-card ***4242]``.
- ``phone``: Chinese mobile ``1[3-9]`` + 9 digits (optionally ``+86``/``86``, spaces or dashes), international numbers
  written with ``+CC``, and North-American ``(555) 123-4567`` / ``555-123-4567`` → ``[phone ***5678]``.

The masked form keeps the kind and at most the last 4 characters, and contains no run of digits any pattern can
match again, so masking is idempotent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
_ID_CARD = re.compile(
    r"(?<![0-9A-Za-z])[1-8]\d{5}(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[0-9Xx](?![0-9A-Za-z])"
)  # noqa: E501 (pattern table)
_CARD = re.compile(r"(?<![\d-])(?:\d[ -]?){12,18}\d(?![\d])")
_CN_MOBILE = re.compile(r"(?<![\d+])(?:(?:\+|00)?86[ -]?)?1[3-9]\d(?:[ -]?\d){8}(?!\d)")
_INTL = re.compile(r"(?<![A-Za-z0-9+])\+\d{1,3}(?:[ -]?\(?\d{1,4}\)?){2,5}(?!\d)")
_NANP = re.compile(r"(?<!\d)(?:\(\d{3}\)\s?|\d{3}[-.])\d{3}[-.]\d{4}(?!\d)")
_ORDER_CONTEXT = re.compile(
    r"(?:order|tracking|invoice|ticket|booking|ref(?:erence)?|no\.|#|订单|单号|运单|快递|发票|编号|流水)[^\n]{0,12}$",
    re.IGNORECASE,
)
_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_ID_CHECK = "10X98765432"


@dataclass(frozen=True)
class PiiMatch:
    kind: str  # email | id-card | bank-card | phone
    start: int
    end: int
    text: str

    @property
    def masked(self) -> str:
        if self.kind == "email":
            return "[email]"
        tail = re.sub(r"[^0-9Xx]", "", self.text)[-4:].upper()
        return f"[{self.kind} ***{tail}]"


def id_card_valid(value: str) -> bool:
    """ISO 7064 MOD 11-2 check character of an 18-character resident ID."""
    if len(value) != 18 or not value[:17].isdigit():
        return False
    total = sum(int(d) * w for d, w in zip(value[:17], _ID_WEIGHTS, strict=True))
    return _ID_CHECK[total % 11] == value[17].upper()


def luhn_valid(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _card_prefix_ok(digits: str) -> bool:
    if digits[0] in "3456":
        return True
    return digits[0] == "2" and 2221 <= int(digits[:4]) <= 2720


def _is_card(text: str, raw: str, start: int) -> bool:
    digits = re.sub(r"[ -]", "", raw)
    if not 13 <= len(digits) <= 19 or not _card_prefix_ok(digits) or not luhn_valid(digits):
        return False
    return not _ORDER_CONTEXT.search(text[max(0, start - 24) : start])


def find_pii(text: str) -> list[PiiMatch]:
    """Every PII span in ``text``, left to right, without overlaps (earlier, more specific kinds win)."""
    if not text:
        return []
    found: list[PiiMatch] = []
    taken: list[tuple[int, int]] = []

    def take(kind: str, start: int, raw: str) -> None:
        end = start + len(raw)
        if any(start < te and ts < end for ts, te in taken):
            return
        taken.append((start, end))
        found.append(PiiMatch(kind, start, end, raw))

    for m in _EMAIL.finditer(text):
        take("email", m.start(), m.group())
    for m in _ID_CARD.finditer(text):
        if id_card_valid(m.group()):
            take("id-card", m.start(), m.group())
    for m in _CARD.finditer(text):
        if _is_card(text, m.group(), m.start()):
            take("bank-card", m.start(), m.group())
    for pattern in (_CN_MOBILE, _INTL, _NANP):
        for m in pattern.finditer(text):
            take("phone", m.start(), m.group())
    return sorted(found, key=lambda p: p.start)


def mask_pii(text: str) -> str:
    """``text`` with every PII span replaced by its masked form (kind + at most the last 4 characters)."""
    if not text or not any(ch.isdigit() or ch == "@" for ch in text):
        return text
    matches = find_pii(text)
    if not matches:
        return text
    out, pos = [], 0
    for m in matches:
        out.append(text[pos : m.start])
        out.append(m.masked)
        pos = m.end
    out.append(text[pos:])
    return "".join(out)


def mask_value(value):
    """Mask strings inside JSON-like values (profile values, event details)."""
    if isinstance(value, str):
        return mask_pii(value)
    if isinstance(value, list):
        return [mask_value(v) for v in value]
    if isinstance(value, dict):
        return {k: mask_value(v) for k, v in value.items()}
    return value
