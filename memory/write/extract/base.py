"""The candidate record every extractor produces, the predicate catalogue and the helpers the rule sets share.

A *candidate* is a statement about the user that may become a memory: subject / predicate / object plus a canonical
third-person ``content`` in the language of the utterance. Extractors only describe; deciding what to store is the
planner's job (memory.write.plan).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memory.text.numerals import amount_key  # noqa: F401 (re-exported for older callers)

#: predicate → (memory type, single-valued?, impact 0..1, profile field or None)
PREDICATES: dict[str, tuple[str, bool, float, str | None]] = {
    "name": ("fact", True, 0.9, "display_name"),
    "preferred_name": ("preference", True, 0.9, "preferred_name"),
    "lives_in": ("fact", True, 0.8, "city"),
    "hometown": ("fact", True, 0.5, None),
    "works_in": ("fact", True, 0.5, None),
    "works_at": ("fact", True, 0.6, None),
    "occupation": ("fact", True, 0.7, "occupation"),
    "budget": ("preference", True, 0.8, "budget"),
    "communication_style": ("preference", False, 0.8, "communication_style"),
    "language": ("preference", True, 0.8, "language"),
    "likes": ("preference", False, 0.5, "interests"),
    "dislikes": ("preference", False, 0.5, None),
    "prefers": ("preference", False, 0.6, None),
    "diet": ("preference", False, 0.9, "dietary"),
    "plan": ("event", False, 0.7, None),
    "event": ("event", False, 0.6, None),
    "family": ("fact", False, 0.6, None),
    "pet": ("fact", False, 0.5, None),
    "fact": ("fact", False, 0.5, None),
    "advises": ("fact", False, 0.5, None),  # "User's advice for …: read lots …" (memory.write.extract.advice)
    "attribute": ("fact", False, 0.6, None),  # "my favourite colour is blue": meta["attribute"] = "favourite colour"
}
SINGLE_VALUED = frozenset(p for p, spec in PREDICATES.items() if spec[1])
OPPOSITES = {"likes": "dislikes", "dislikes": "likes"}

#: confidence by how the statement was made
CONF_EXPLICIT, CONF_HEDGED, CONF_INFERRED = 0.9, 0.5, 0.3


@dataclass
class Candidate:
    """One extracted statement about the user (not yet checked against memory)."""

    predicate: str
    object: str
    content: str
    type: str = "fact"
    subject: str = "user"
    confidence: float = CONF_EXPLICIT
    explicitness: float = 1.0
    hedged: bool = False
    negated: bool = False
    source_type: str = "user-stated"
    event_time: datetime | None = None
    language: str = "en"
    evidence: str = ""
    extractor: str = "rules"
    meta: dict[str, Any] = field(default_factory=dict)
    #: set by the pipeline: the passage vector of ``content`` and {memory id: similarity} of its nearest memories
    vector: Any = field(default=None, repr=False, compare=False)
    neighbours: dict[str, float] = field(default_factory=dict, repr=False, compare=False)

    @property
    def single_valued(self) -> bool:
        return self.predicate in SINGLE_VALUED

    @property
    def impact(self) -> float:
        return PREDICATES.get(self.predicate, ("fact", False, 0.5, None))[2]

    @property
    def profile_field(self) -> str | None:
        """Only statements about the user themself reach their profile (never a wife's taste or a friend's city)."""
        if self.subject != "user":
            return None
        return PREDICATES.get(self.predicate, ("fact", False, 0.5, None))[3]

    def key(self) -> tuple[str, str, str]:
        return (self.subject, self.predicate, norm_object(self.object))


def a_or_an(word: str) -> str:
    """The indefinite article a memory writes before ``word`` ("an accident", "a painting"): by its first letter, which
    is what the offline grammar can see."""
    return "an" if word[:1].lower() in "aeiou" else "a"


#: a sentence's end mark after a quote that already ends on one
_END_IN_QUOTE = re.compile(r"([.!?][\"”’])\.$")


def make(predicate: str, obj: str, content: str, *, lang: str, evidence: str, **kw: Any) -> Candidate:
    mtype = PREDICATES.get(predicate, ("fact",))[0]
    return Candidate(
        predicate=predicate,
        object=obj.strip(),
        content=_END_IN_QUOTE.sub(r"\1", content),  # '… called "Finding Home.".' ends inside its quote
        type=kw.pop("type", mtype),
        language=lang,
        evidence=evidence.strip(),
        **kw,
    )


# -- object normalisation ------------------------------------------------------------------------------------
_CITY_ALIASES = {
    "杭州": "hangzhou",
    "上海": "shanghai",
    "北京": "beijing",
    "深圳": "shenzhen",
    "广州": "guangzhou",
    "成都": "chengdu",
    "南京": "nanjing",
    "苏州": "suzhou",
    "武汉": "wuhan",
    "西安": "xian",
    "重庆": "chongqing",
    "天津": "tianjin",
    "厦门": "xiamen",
    "青岛": "qingdao",
    "长沙": "changsha",
    "香港": "hong kong",
    "台北": "taipei",
    "东京": "tokyo",
    "纽约": "new york",
    "伦敦": "london",
    "巴黎": "paris",
    "新加坡": "singapore",
    "大连": "dalian",
    "昆明": "kunming",
    "郑州": "zhengzhou",
    "合肥": "hefei",
    "宁波": "ningbo",
    "无锡": "wuxi",
}
CN_CITIES = frozenset(_CITY_ALIASES) | frozenset(
    [
        "沈阳",
        "哈尔滨",
        "长春",
        "济南",
        "福州",
        "南昌",
        "贵阳",
        "南宁",
        "海口",
        "三亚",
        "兰州",
        "西宁",
        "银川",
        "乌鲁木齐",
        "拉萨",
        "呼和浩特",
        "石家庄",
        "太原",
        "珠海",
        "佛山",
        "东莞",
        "温州",
        "绍兴",
        "嘉兴",
        "常州",
        "扬州",
        "徐州",
        "烟台",
        "洛阳",
        "桂林",
        "丽江",
        "大理",
        "首尔",
        "悉尼",
        "多伦多",
        "旧金山",
        "洛杉矶",
        "柏林",
        "澳门",
    ]  # noqa: E501 (pattern table)
)
_ARTICLES = re.compile(r"^(?:a|an|the|some|my)\s+", re.IGNORECASE)


def norm_object(obj: str) -> str:
    """Comparable form of an object: lower case, no articles or punctuation, Chinese city names in pinyin."""
    o = obj.strip().strip("。.!！,，;；\"'“”").lower()
    o = _ARTICLES.sub("", o)
    o = re.sub(r"市$", "", o)
    o = _CITY_ALIASES.get(o, o)
    return re.sub(r"[\s_\-]+", " ", o).strip()


# -- hedges, negation, intensity -----------------------------------------------------------------------------
#: a hedge on what the speaker says; not "as you might be able to tell" (the listener's), nor "that kind of
#: determination", "a different kind of magic" (a kind, not a hedge: "Possibly, User likes basketball" came of it)
_A_KIND = "".join(
    rf"(?<!\b{d} )"
    for d in (
        *("a", "the", "that", "this", "what", "which", "same", "different", "any", "some", "every", "one", "my"),
        *("your", "our", "their", "his", "her", "new", "other", "certain", "right", "wrong", "best"),
    )
)
HEDGE_EN = re.compile(
    r"\b(?:maybe|perhaps|probably|possibly|hopefully|(?<!\byou )might|not sure|i guess|i think|i suppose|considering|"
    rf"thinking about|thinking of|haven'?t decided|undecided|not decided|{_A_KIND}kind of|{_A_KIND}sort of|"
    r"(?:may|could) (?:be|go|move|have|get|try|need|want|start|switch|visit|travel|not|become|change|take))\b",
    re.IGNORECASE,
)
HEDGE_ZH = re.compile(
    r"可能|也许|或许|大概(?![\d一二两三四五六七八九十])|说不定|还没决定|没决定|不确定|考虑|想过|犹豫|好像|应该会|未定"
)  # noqa: E501 (pattern table)
INTENSE_EN = re.compile(r"\b(?:really|definitely|always|never|absolutely|seriously|strictly|hate|love)\b", re.I)
INTENSE_ZH = re.compile(r"一定|绝对|非常|特别|再也不|从不|从来不|千万|坚决|最")


def hedge_of(text: str, lang: str) -> str | None:
    m = (HEDGE_ZH if lang == "zh" else HEDGE_EN).search(text)
    return m.group() if m else None


def explicitness(text: str, lang: str, hedged: bool) -> float:
    """1.0 plain statement, up to 1.0 with intensifiers, 0.5 hedged (the 'explicitness' of the importance formula)."""
    if hedged:
        return 0.5
    intense = (INTENSE_ZH if lang == "zh" else INTENSE_EN).search(text)
    return 1.0 if intense else 0.85


#: a time a "this" / "that" / "the" points at ("this winter", "that weekend"): when, not a thing a reference stands for
TIME_NOUNS = frozenset(
    ["winter", "summer", "spring", "fall", "autumn", "week", "weekend", "weekends", "month", "year", "morning"]
    + ["afternoon", "evening", "night", "time", "season", "moment", "day", "days", "weeks", "months", "years"]
)


def is_question(sentence: str) -> bool:
    s = sentence.strip()
    return s.endswith(("?", "？")) or bool(re.search(r"[吗呢嘛]\s*[?？。]?$", s))
