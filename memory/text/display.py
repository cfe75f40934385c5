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


# -- words a person reads: one formatter for every page and the offline replies --------------------------------------
NOTHING = "—"
_MONTHS_EN = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def _utc(value: datetime) -> datetime:
    """Stored times are UTC; SQLite gives them back without a zone."""
    return value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)


def day_text(value: datetime | None, lang: str = "en", now: datetime | None = None) -> str:
    """A day as a person writes it: ``25 Nov`` / ``11月25日``, with the year when it is not this year's
    (``25 Nov 2025`` / ``2025年11月25日``); ``—`` for none."""
    if value is None:
        return NOTHING
    moment, today = _utc(value), _utc(now or datetime.now(UTC))
    if lang == "zh":
        day = f"{moment.month}月{moment.day}日"
        return day if moment.year == today.year else f"{moment.year}年{day}"
    day = f"{moment.day} {_MONTHS_EN[moment.month - 1]}"
    return day if moment.year == today.year else f"{day} {moment.year}"


def when_text(value: datetime | None, now: datetime | None = None) -> str:
    """The one way the back office writes a moment: ``25 Nov, 10:00`` in UTC (the year when it is not this year's),
    ``—`` for none. Replies say the same day in words (``memory.text.voice.told_on``)."""
    if value is None:
        return NOTHING
    return f"{day_text(value, 'en', now)}, {_utc(value):%H:%M}"


def ago_text(value: datetime | None, lang: str = "en", now: datetime | None = None) -> str:
    """How long ago, as a person says it: ``just now``, ``5 minutes ago``, ``3 hours ago``, ``yesterday``, ``3 days
    ago``, then the day (``25 Nov``) from a week back; Chinese ``刚刚``, ``5分钟前``, ``3小时前``, ``昨天``, ``3天前``,
    ``11月25日``. ``—`` for none; a moment in the future is its day."""
    if value is None:
        return NOTHING
    moment, current = _utc(value), _utc(now or datetime.now(UTC))
    seconds = (current - moment).total_seconds()
    days = (current.date() - moment.date()).days
    zh = lang == "zh"
    if seconds < 0 or days >= 7:
        return day_text(moment, lang, current)
    if seconds < 60:
        return "刚刚" if zh else "just now"
    if seconds < 3600:
        n = int(seconds // 60)
        return f"{n}分钟前" if zh else plural(n, "minute") + " ago"
    if days == 0:
        n = int(seconds // 3600)
        return f"{n}小时前" if zh else plural(n, "hour") + " ago"
    if days == 1:
        return "昨天" if zh else "yesterday"
    return f"{days}天前" if zh else f"{days} days ago"


def plural(n: int, noun: str, many: str | None = None) -> str:
    """``1 write``, ``3 writes``, ``0 memories`` (``many``: an irregular plural; ``-y`` → ``-ies`` on its own)."""
    if n == 1:
        return f"1 {noun}"
    if many is None:
        many = noun[:-1] + "ies" if noun.endswith("y") and noun[-2:-1] not in "aeiou" else noun + "s"
    return f"{n:,} {many}"


#: what a person calls each profile field and setting (the stored names stay in code, exports and the API)
LABELS: dict[str, dict[str, str]] = {
    "en": {
        "display_name": "Name",
        "preferred_name": "Likes to be called",
        "city": "Lives in",
        "language": "Language",
        "communication_style": "Answer style",
        "budget": "Budget",
        "interests": "Interests",
        "dietary": "Diet",
        "occupation": "Job",
        "notes": "Notes",
        "relevance_threshold": "Relevance threshold",
        "similarity_floor": "Similarity floor",
        "relevance_calibration": "Relevance calibration",
        "relative_cut": "Relative cut",
        "top_k": "Memories per answer (k)",
        "search_mode": "Search mode",
        "fusion": "Fusion",
        "vector_weight": "Vector weight",
        "rrf_k": "RRF constant",
        "user-stated": "said by the user",
        "person-edit": "corrected by a person",
        "inferred": "the agent's guess",
        "system": "system",
        "agent": "the agent's reply",
    },
    "zh": {
        "display_name": "姓名",
        "preferred_name": "称呼",
        "city": "居住城市",
        "language": "语言",
        "communication_style": "回答风格",
        "budget": "预算",
        "interests": "兴趣",
        "dietary": "饮食",
        "occupation": "职业",
        "notes": "备注",
        "relevance_threshold": "相关度阈值",
        "similarity_floor": "相似度下限",
        "top_k": "每次回答的记忆数 (k)",
        "search_mode": "检索方式",
        "user-stated": "用户亲口说的",
        "person-edit": "由工作人员更正",
        "inferred": "助手的推测",
        "agent": "助手的回复",
    },
}


def label(name: object, lang: str = "en") -> str:
    """A profile field's, a setting's or a source's label (``display_name`` → ``Name``); an unknown name is written
    as words (``junk_rate`` → ``Junk rate``), ``—`` for none."""
    if name is None or name == "":
        return NOTHING
    key = str(name)
    words = LABELS.get(lang, {}).get(key) or LABELS["en"].get(key)
    if words:
        return words
    spaced = key.replace("_", " ").replace("-", " ").strip()
    return spaced[:1].upper() + spaced[1:]


def value_text(value: object, digits: int = 2) -> str:
    """A stored value as words: ``—`` for none or empty, lists joined with commas, floats rounded, yes / no."""
    if value is None or value == "" or value == []:
        return NOTHING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    if isinstance(value, datetime):
        return when_text(value)
    if isinstance(value, list | tuple):
        return ", ".join(value_text(v, digits) for v in value)
    if isinstance(value, str) and _ISO.match(value):  # a stamp that travelled as text (JSON): said as a moment
        try:
            return when_text(datetime.fromisoformat(value))
        except ValueError:
            return value
    return str(value)


_LONG_ID = re.compile(r"\b[0-9a-f]{32}\b")


def reason_text(reason: object) -> str:
    """A logged reason as a sentence: a memory's full id inside it shortened to a short reference (``superseded by
    3d1c19a8a09e4af…`` → ``superseded by #3d1c19``); ``—`` for none."""
    if reason is None or str(reason).strip() == "":
        return NOTHING
    return _LONG_ID.sub(lambda m: "#" + m.group()[:6], str(reason))


_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")
