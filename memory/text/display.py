"""Showing stored text and ids safely on a terminal or a page.

User text may carry ANSI/OSC escape sequences, C0/C1 control characters and bidirectional overrides that would
clear a screen, retitle a window or reorder what an operator reads: :func:`terminal_safe` removes the sequences and
shows the rest as visible escapes. Ids that differ only invisibly (a trailing space, a zero-width character, a
Cyrillic letter, NFC vs NFD) are a separate scope each: :func:`show_id` makes them look different.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import UTC, datetime

_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]|\x9b[0-?]*[ -/]*[@-~]")
_BIDI = set("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _visible(ch: str) -> str:
    return f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}"


def terminal_safe(text: str) -> str:
    """``text`` without escape sequences; other control, format and bidi characters shown as ``\\xNN``/``\\uNNNN``
    (newlines and tabs kept)."""
    text = _ESCAPES.sub("", str(text))
    out = []
    for ch in text:
        if ch in "\n\t":
            out.append(ch)
        elif ch in _BIDI or unicodedata.category(ch) in ("Cc", "Cf"):
            out.append(_visible(ch))
        else:
            out.append(ch)
    return "".join(out)


def _scripts(value: str) -> set[str]:
    names = set()
    for ch in value:
        if ch.isalpha():
            name = unicodedata.name(ch, "")
            names.add(name.split(" ")[0] if name else "?")
    return names


def show_id(value: str) -> str:
    """An id as it must be shown: invisible and non-ASCII space characters escaped, leading/trailing spaces marked,
    decomposed (NFD) forms shown escaped, and a warning when letters of several scripts are mixed."""
    out = []
    for ch in str(value):
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Cf", "Mn", "Me") or (cat.startswith("Z") and ch != " ") or ch in _BIDI:
            out.append(_visible(ch))
        else:
            out.append(ch)
    shown = "".join(out)
    if shown != shown.strip(" "):
        shown = f"“{shown}”"
    if len(_scripts(value) - {"DIGIT"}) > 1:
        shown += " ⚠ mixed scripts"
    return shown


def when_text(value: datetime | None) -> str:
    """The one way the back office writes a moment: ``2026-11-18 10:00`` in UTC (stored times are UTC; SQLite gives
    them back without a zone), ``—`` for none. Replies say the same day in words (``memory.text.voice.told_on``)."""
    if value is None:
        return "—"
    moment = value.astimezone(UTC) if value.tzinfo else value
    return moment.strftime("%Y-%m-%d %H:%M")
