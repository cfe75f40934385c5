"""A normalised copy of a text for detection, with a map back to the original characters.

People type the same number in many ways: full-width digits from a Chinese IME (１３９…), other scripts' digits,
ideographic / non-breaking spaces, tabs and newlines, en and em dashes, keycap emoji (1️⃣3️⃣9️⃣), and invisible
zero-width characters in the middle; text pasted from a web page or a URL carries HTML character references
(``lin&#64;example.com``, ``&commat;``) and URL escapes (``lin%40example.com``). Detection runs on one canonical
spelling — references and escapes decoded (twice, for text encoded twice), then NFKC, every decimal digit as ASCII,
every space as " ", every dash as "-", format characters, variation selectors and the keycap mark dropped — and the
spans it finds are mapped back so the *original* characters are masked (an entity or escape as a whole).
"""

from __future__ import annotations

import html
import re
import unicodedata
from functools import lru_cache

#: an HTML character reference (decimal, hex or named) or a URL escape of a printable ASCII character
_ENCODED = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});|%[2-7][0-9A-Fa-f]")
#: invisible marks that only change how a character is drawn: variation selectors, the combining keycap
_DRAWING = frozenset("\ufe0e\ufe0f\u20e3")


@lru_cache(maxsize=4096)
def _canon(ch: str) -> str:
    """The canonical spelling of one character ("" for invisible format characters)."""
    cat = unicodedata.category(ch)
    if cat == "Cf" or ch in _DRAWING:  # zero-width space/joiners, word joiner, BOM, soft hyphen, bidi controls
        return ""
    digit = unicodedata.decimal(ch, None)
    if digit is not None:
        return str(digit)
    if ch.isspace() or cat == "Zs":
        return " "
    if cat == "Pd" or ch == "\u2212":
        return "-"
    return unicodedata.normalize("NFKC", ch)


def _decoded(text: str, origin: list[int]) -> tuple[str, list[int]]:
    """``text`` with each HTML character reference and URL escape of a printable character replaced by that
    character (``origin`` carried along: the character maps to where its reference began)."""
    parts: list[str] = []
    out: list[int] = []
    pos = 0
    for m in _ENCODED.finditer(text):
        token = m.group()
        ch = chr(int(token[1:], 16)) if token[0] == "%" else html.unescape(token)
        if len(ch) != 1 or ch == token or not ch.isprintable():
            continue
        parts.append(text[pos : m.start()])
        out.extend(origin[pos : m.start()])
        parts.append(ch)
        out.append(origin[m.start()])
        pos = m.end()
    if not parts:
        return text, origin
    parts.append(text[pos:])
    out.extend(origin[pos:])
    return "".join(parts), out


def normalised(text: str) -> tuple[str, list[int]]:
    """(canonical copy, origin) where ``origin[i]`` is the index in ``text`` where the copy's character ``i`` came
    from (see :func:`original_span` for its end).

    Linear in the text: one cached lookup per character, and a decoding pass only when ``&`` or ``%`` appears."""
    source, first = text, list(range(len(text)))
    if "&" in text or "%" in text:
        for _ in range(2):  # twice: "&amp;#64;" and "%2540" are "@" encoded twice
            source, first = _decoded(source, first)
    parts: list[str] = []
    origin: list[int] = []
    for i, ch in enumerate(source):
        if ch.isascii() and ch not in "\t\n\r\x0b\x0c":
            parts.append(ch)
            origin.append(first[i])
            continue
        canon = _canon(ch)
        parts.append(canon)
        origin.extend([first[i]] * len(canon))
    return "".join(parts), origin


def original_span(origin: list[int], start: int, end: int, length: int | None = None) -> tuple[int, int]:
    """The span of the original text (``length`` characters long) that the copy's ``[start, end)`` came from: up
    to where the next copy character came from, so a decoded reference (``&#64;``), a keycap's marks and inner
    invisibles are covered whole."""
    last = origin[end - 1] + 1
    if end < len(origin):
        return origin[start], max(last, origin[end])
    return origin[start], max(last, length if length is not None else last)
