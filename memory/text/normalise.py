"""A normalised copy of a text for detection, with a map back to the original characters.

People type the same number in many ways: full-width digits from a Chinese IME (１３９…), other scripts' digits,
ideographic / non-breaking spaces, tabs and newlines, en and em dashes, and invisible zero-width characters in the
middle. Detection runs on one canonical spelling (NFKC, every decimal digit as ASCII, every space as " ", every dash
as "-", format characters dropped) and the spans it finds are mapped back so the *original* characters are masked.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache


@lru_cache(maxsize=4096)
def _canon(ch: str) -> str:
    """The canonical spelling of one character ("" for invisible format characters)."""
    cat = unicodedata.category(ch)
    if cat == "Cf":  # zero-width space/joiners, word joiner, BOM, soft hyphen, bidi controls
        return ""
    digit = unicodedata.decimal(ch, None)
    if digit is not None:
        return str(digit)
    if ch.isspace() or cat == "Zs":
        return " "
    if cat == "Pd" or ch == "\u2212":
        return "-"
    return unicodedata.normalize("NFKC", ch)


def normalised(text: str) -> tuple[str, list[int]]:
    """(canonical copy, origin) where ``origin[i]`` is the index in ``text`` of the copy's character ``i``.

    Linear in the text: one cached lookup per character."""
    parts: list[str] = []
    origin: list[int] = []
    for i, ch in enumerate(text):
        if ch.isascii() and ch not in "\t\n\r\x0b\x0c":
            parts.append(ch)
            origin.append(i)
            continue
        canon = _canon(ch)
        parts.append(canon)
        origin.extend([i] * len(canon))
    return "".join(parts), origin


def original_span(origin: list[int], start: int, end: int) -> tuple[int, int]:
    """The span of the original text that the copy's ``[start, end)`` came from (inner invisibles included)."""
    return origin[start], origin[end - 1] + 1
