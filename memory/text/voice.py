"""Say stored facts back to the user in plain second person, in English or Chinese.

Memories are stored in a canonical third person ("User lives in Lisbon.", "用户住在杭州。") and profile fields as
values; the offline engine and the session bridges turn them into sentences a person would say ("You live in
Lisbon — you told me on 24 November.", "你住在杭州（11月24日告诉我的）。"), with no field names or tags. The sentence
templates are in :mod:`memory.prompts`; the grammar that fills them (verb agreement, dates read back) is here.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from memory.prompts import PROFILE_SENTENCES, TOLD

_IRREGULAR = {"is": "are", "has": "have", "was": "were", "does": "do", "doesn't": "don't", "isn't": "aren't"}
_NO_S = re.compile(r"(?:ss|sh|ch|x|o)es$")
_STYLE_EN = {"concise": "short", "detailed": "detailed", "no emoji": "emoji-free", "formal": "formal"}
_STYLE_ZH = {"concise": "简洁", "detailed": "详细", "no emoji": "不带表情", "formal": "正式", "casual": "轻松随意"}
_LANG_ZH = {"Chinese": "中文", "English": "英文", "Japanese": "日语", "French": "法语", "Spanish": "西班牙语"}


_DATED = re.compile(r"\([^()]*?,\s*(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?\)")
_DATED_ZH = re.compile(r"（[^（）]*?，(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?）")


def _day(m: re.Match, lang: str) -> str:
    """A stored '(next Friday, 2025-05-09)' read back as a date that stays true: '9 May 2025' / '2025年5月9日';
    a month-level one ('(next month, 2027-01)') as 'January 2027' / '2027年1月', a year ('(this year, 2026)') as
    '2026' / '2026年'."""
    when = datetime(int(m.group(1)), int(m.group(2) or 1), int(m.group(3) or 1))
    if m.group(2) is None:
        return f"{when.year}年" if lang == "zh" else f"{when.year}"
    if m.group(3) is None:
        return f"{when.year}年{when.month}月" if lang == "zh" else f"{when:%B %Y}"
    return f"{when.year}年{when.month}月{when.day}日" if lang == "zh" else f"{when.day} {when:%B %Y}"


def _base_verb(word: str) -> str:
    """'lives' → 'live', 'watches' → 'watch', 'studies' → 'study'; past forms and others unchanged."""
    w = word.lower()
    if w in _IRREGULAR:
        return _IRREGULAR[w]
    if _NO_S.search(w):
        return word[:-2]
    if re.search(r"[^aeiou]ies$", w):
        return word[:-3] + "y"
    if w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _you_en(text: str) -> str:
    text = re.sub(r"^\(assistant's inference\)\s*", "", text)
    possibly = bool(re.match(r"^Possibly[:,]\s*", text))  # "Possibly, User …" (and "Possibly: user …" stored before)
    text = re.sub(r"^Possibly[:,]\s*[uU]", "U", text)
    text = re.sub(r"\bUser's\b", "your", text)
    text = re.sub(
        r"\bUser (no longer|also|still|now|often|usually|always|never|really|regularly|just|recently|finally|already|"
        r"even|definitely|currently|sometimes) (\S+)",
        lambda m: f"you {m.group(1)} {_base_verb(m.group(2))}",
        text,
    )
    text = re.sub(r"\bUser (\S+)", lambda m: f"you {_base_verb(m.group(1))}", text)
    text = re.sub(r"\b(and|but) (lives|works|likes|has|is) ", lambda m: f"{m.group(1)} {_base_verb(m.group(2))} ", text)
    text = re.sub(r"\btheir\b", "your", text)
    text = re.sub(r"\bthemself\b", "yourself", text)
    text = _DATED.sub(lambda m: f"({_day(m, 'en')})", text)
    return ("Possibly " if possibly else "") + (text if possibly else text[:1].upper() + text[1:])


def you(content: str, lang: str) -> str:
    """'User moved to Lisbon and lives there now.' → 'You moved to Lisbon and live there now.'; '用户…' → '你…'."""
    text = " ".join(str(content).split()).strip()
    if lang == "zh" or re.match(r"^(?:（助手推测）)?(?:可能：)?用户", text):
        text = re.sub(r"^（助手推测）", "", text)
        text = _DATED_ZH.sub(lambda m: f"（{_day(m, 'zh')}）", text)
        return text.replace("用户", "你")
    return _you_en(text)


def told_on(when: datetime | None, lang: str, now: datetime | None = None) -> str:
    """' — you told me on 24 November' / '（11月24日告诉我的）'; 'earlier today' / '今天' on the same day."""
    if when is None:
        return ""
    words = TOLD["zh" if lang == "zh" else "en"]
    if now is not None and when.date() == now.date():
        return words["today"]
    return words["on"].format(day=when.day, month=f"{when:%B}", month_number=when.month)


def join_words(items: list[str], lang: str) -> str:
    items = [str(i) for i in items if str(i).strip()]
    if lang == "zh":
        return "、".join(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def profile_sentence(name: str, value: Any, lang: str) -> str | None:
    """One profile field as a sentence without its field name; None for an empty value or an unknown field."""
    if value in (None, "", []):
        return None
    items = value if isinstance(value, list) else [value]
    v = join_words([str(i) for i in items], lang)
    if lang == "zh":
        return _profile_zh(name, v, items)
    return _profile_en(name, v, items)


def _profile_en(name: str, v: str, items: list) -> str | None:
    if name == "dietary":
        parts = [re.sub(r"^doesn't\b", "don't", str(i)) if str(i).startswith("doesn't") else f"are {i}" for i in items]
        return "You " + join_words(parts, "en")
    if name == "occupation":
        art = "an" if v[:1].lower() in "aeiou" else "a"
        return f"You work as {art} {v}" if v.isascii() else f"Your job: {v}"
    templates = PROFILE_SENTENCES["en"]
    if name == "communication_style":
        v = join_words([_STYLE_EN.get(str(i), str(i)) for i in items], "en")
    return templates[name].format(v=v) if name in templates else None


def _profile_zh(name: str, v: str, items: list) -> str | None:
    if name == "communication_style":
        v = "、".join(_STYLE_ZH.get(str(i), str(i)) for i in items)
    if name == "language":
        v = _LANG_ZH.get(v, v)
    if name == "dietary":
        v = "、".join("吃素" if str(i) == "vegetarian" else str(i) for i in items)
        if all(str(i).startswith(("不", "吃", "对")) or str(i) == "vegetarian" for i in items):
            return f"你{v}"
    templates = PROFILE_SENTENCES["zh"]
    return templates[name].format(v=v) if name in templates else None


def sentence_end(text: str, lang: str) -> str:
    text = text.strip().rstrip("。.")
    return text + ("。" if lang == "zh" else ".")


#: first person → second person, whole words, longest first ("I'm" before "I")
_FIRST_TO_SECOND = [
    (r"\bI am\b", "you are"),
    (r"\bI'm\b|\bI’m\b", "you're"),
    (r"\bI was\b", "you were"),
    (r"\bI've\b|\bI’ve\b", "you've"),
    (r"\bI'd\b|\bI’d\b", "you'd"),
    (r"\bI'll\b|\bI’ll\b", "you'll"),
    (r"\bI\b", "you"),
    (r"\bmy\b", "your"),
    (r"\bMy\b", "Your"),
    (r"\bmine\b", "yours"),
    (r"\bmyself\b", "yourself"),
    (r"\bme\b", "you"),
    (r"\bwe\b", "you"),
    (r"\bour\b", "your"),
]


#: sentence-initial words that read lower-case after "You mentioned that" (a name keeps its capital)
_LOWER_FIRST = frozenset(
    re.findall(
        r"\S+",
        "your you you're you've you'd you'll the a an this that these those it it's there dinner lunch breakfast "
        "yesterday today tonight last next on in at after before when since",
    )
)


def said_to_you(text: str, lang: str) -> str:
    """What the user said, read back to them: "My sister got her licence" → "your sister got her licence";
    "我上周去爬山了" → "你上周去爬山了". Words only change person; nothing is added or left out."""
    text = " ".join(str(text).split()).strip()
    if lang == "zh":
        return text.replace("我", "你")
    for pattern, repl in _FIRST_TO_SECOND:
        text = re.sub(pattern, repl, text)
    first = text.split(" ", 1)[0]
    if first.lower() in _LOWER_FIRST and first not in ("I",):
        text = text[:1].lower() + text[1:]  # "You mentioned that your sister…", never "…that Your sister"
    return text
