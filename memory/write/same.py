"""One fact once: the one rule that says two statements of one user are the same fact.

The write path (``plan``: a new statement that repeats a stored one reinforces it, a second source on one memory)
and the hygiene queue's near-duplicate check (``desk.hygiene.near_duplicates``: what a person is offered to merge)
ask the same question, so they ask it here, with the same threshold (``Settings.dedupe_threshold``): what the write
path lets through, the queue does not find again, and what the queue would merge, the write path would not have
stored twice.

Two statements are one fact when

- they have the same polarity (a negation is never the statement it takes back), and
- they name no different number, date or name ("User has 2 dogs" is not "User has 3 dogs"), and state the same value
  of a single-valued fact and the same side of a likes / dislikes, and happened on the same day when both say when;
- and they are the same statement (subject, predicate and object), or similar in meaning (passage similarity at least
  the threshold) with mostly the same words (in one language: e5 puts same-template facts about different things at
  0.92–0.97, the words tell them apart), or a paraphrase in other words (at least ``PARAPHRASE`` similar) — for
  two structured facts of one predicate, objects with mostly the same words too ("helping the community" is not
  "infrastructure in the community").

Across two languages the words cannot be compared; similarity alone decides there (the same fact said in English
and in Chinese).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from memory.text.language import CJK_RUN, has_cjk
from memory.write.extract.base import OPPOSITES, SINGLE_VALUED, norm_object

__all__ = ["DUP_WORDS", "Said", "differ_in_specifics", "one_fact", "same_fact", "share_in", "words"]

#: two similar statements are one fact only when more than this share of the shorter one's words are in the other
DUP_WORDS = 0.5
#: at least this similar (e5), a paraphrase in other words ("User loves hiking." / "User enjoys hiking." 0.991): one
#: fact without sharing words; near misses with other words are other facts ("vegetarian" / "vegan" 0.966,
#: 用户喜欢猫 / 用户喜欢狗 0.962)
PARAPHRASE = 0.98
_BRACKETS = re.compile(r"[(（][^)）]*[)）]")
_EN = re.compile(r"[a-z0-9][a-z0-9'’-]*")
_STOP_WORDS = """the a an and or of to in on at for with from by is are was were be been am has have had do does did it
its this that user user's users i me my mine we our you your he she his her they their them as about"""
_STOP = frozenset(_STOP_WORDS.split())
_NUMBER = re.compile(
    r"\d+(?:[.,:]\d+)*|[零〇一二两三四五六七八九十百千万亿]+|\b(?:one|two|three|four|five|six|seven|eight|"
    r"nine|ten|eleven|twelve|first|second|third|fourth|fifth)\b",
    re.IGNORECASE,
)
_NAME = re.compile(r"(?<![.!?。]\s)(?<!^)\b(?!User\b)[A-Z][a-z]+")


@dataclass(frozen=True)
class Said:
    """What the rule reads of a statement: a stored memory or a new candidate alike."""

    content: str
    predicate: str | None = None
    object: str | None = None
    subject: str | None = "user"
    negated: bool = False
    day: date | None = None  # when it happened, if known


def words(text: str | None) -> set[str]:
    """Content words (English: casefolded, first 4 letters as a crude stem — a word with a digit in it is an
    identifier and is kept whole, "sport1x0" is not "sport0x1" —, stop words out; Chinese: character pairs)."""
    t = (text or "").casefold()
    out = {_stem(w.strip("'’-")) for w in _EN.findall(t) if w.strip("'’-") not in _STOP}
    for run in CJK_RUN.findall(t):
        run = run.removeprefix("用户")
        out |= {run[i : i + 2] for i in range(len(run) - 1)} if len(run) > 1 else {run}
    out.discard("")
    return out


def _stem(word: str) -> str:
    return word if any(ch.isdigit() for ch in word) else word[:4]


def share_in(part: set[str], whole: set[str]) -> float:
    return len(part & whole) / len(part) if part else 1.0


def differ_in_specifics(a: str | None, b: str | None) -> bool:
    """Two statements that name different numbers, names, places or dates are two facts, however alike the rest
    ("apple tree number 2" is not "apple tree number 1"; "moved to Lyon (2024-03)" is not "… (2025-03)")."""
    x, y = a or "", b or ""
    if has_cjk(x) != has_cjk(y):
        return False  # the same fact in two languages ("杭州" / "Hangzhou"): the structured object decides
    if [m.lower() for m in _NUMBER.findall(x)] != [m.lower() for m in _NUMBER.findall(y)]:
        return True  # in order: "ran 5 km in 10 minutes" is not "ran 10 km in 5 minutes"
    return {m.lower() for m in _NAME.findall(x)} != {m.lower() for m in _NAME.findall(y)}


def _mostly_same_words(a: str, b: str) -> bool:
    wa, wb = words(_BRACKETS.sub("", a)), words(_BRACKETS.sub("", b))
    small, big = (wa, wb) if len(wa) <= len(wb) else (wb, wa)
    return share_in(small, big) > DUP_WORDS


def same_fact(a: str, b: str, similarity: float, threshold: float) -> bool:
    """Two texts of one user that state one fact: similar meaning (``similarity`` ≥ ``threshold``), mostly the same
    words (in one language), and no number, date or name that differs ("ran 5 km" is not "ran 10 km", "moved to Lyon
    (2024-03)" is not "… (2025-03)": two facts, never merged)."""
    if similarity < threshold or differ_in_specifics(a, b):
        return False
    return similarity >= max(threshold, PARAPHRASE) or has_cjk(a) != has_cjk(b) or _mostly_same_words(a, b)


def _value_key(s: Said) -> tuple[str, str]:
    """What one fact must share: the value of a single-valued fact, the side (likes / dislikes) of a polar one."""
    if s.predicate in SINGLE_VALUED and s.object:
        return "value", norm_object(s.object)
    if s.predicate in OPPOSITES:
        return "side", s.predicate or ""
    return "", ""


def _structured(s: Said) -> bool:
    return bool(s.predicate) and s.predicate != "fact" and bool(s.object)


def _same_statement(a: Said, b: Said) -> bool:
    return (
        bool(a.predicate and a.object)
        and (a.predicate, _norm(a.subject or "user")) == (b.predicate, _norm(b.subject or "user"))
        and norm_object(a.object or "") == norm_object(b.object or "")
    )


def _norm(text: str | None) -> str:
    return " ".join((text or "").casefold().split()).strip(" .。")


def one_fact(a: Said, b: Said, similarity: float | None, threshold: float) -> str | None:
    """Why ``a`` and ``b`` are one fact (``None``: two facts, or too little known to say; see the module)."""
    if a.negated != b.negated or differ_in_specifics(a.content, b.content):
        return None
    if _structured(a) and _structured(b) and _value_key(a) != _value_key(b):
        return None  # two values of a single-valued fact, or likes / dislikes: a contradiction, not a repeat
    if a.day and b.day and a.day != b.day:
        return None
    if _same_statement(a, b):
        return "same statement"
    if similarity is None or not same_fact(a.content, b.content, similarity, threshold):
        return None
    if _structured(a) and _structured(b):
        if a.predicate != b.predicate:
            return None
        oa, ob = words(a.object), words(b.object)
        small, big = (oa, ob) if len(oa) <= len(ob) else (ob, oa)
        if has_cjk(a.object or "") == has_cjk(b.object or "") and share_in(small, big) <= DUP_WORDS:
            return None
    return f"similarity {similarity:.3f} ≥ {threshold:g} and mostly the same words"
