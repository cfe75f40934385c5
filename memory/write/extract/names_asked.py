"""A pet's name the speaker gives when asked for it (issue 44, twentieth round).

"Wow, how cute! What's her name? Do she and your other dog get along?" — "Her name is Shadow! She's full of energy
…": the answer names the speaker's new dog, yet its words alone have no "I" and no kind ("Her name is Shadow!"), so
nothing was kept, and the next sentence's "She's full of energy" points at nobody. What the question asked and what
it asked about, read together with the answer, is one fact a note-taker writes: "User has a pet: dog named Shadow."
(LoCoMo's annotators: "Maria's new pup, Shadow, is full of energy …"; "Melanie has a dog named Luna and a cat named
Oliver" from "What are their names?" — "Luna and Oliver!").

Only a question for a name ("What's her name?", "What are their names?") about an animal the question's message
names (the pet words of ``rules_en.PETS_EN``, "pets"; the nearest said before the question, else after it), and only
an answer that opens on the names ("Her name is Shadow!", "Luna and Oliver!", at most four capitalised words). A
child's or a friend's name is not read here: the general path keeps "his name is Kyle" with what it is said of.
Chinese by the same shape: "它叫什么名字？" after "你的小狗好可爱！" — "叫豆豆！" → "用户有一只小狗，叫豆豆。"
(tested, not measured: no labelled Chinese conversation).
"""

from __future__ import annotations

import re

from memory.text.language import has_cjk
from memory.write.extract.antecedent import INTERJECTIONS
from memory.write.extract.base import Candidate, make
from memory.write.extract.rules_en import PETS_EN

__all__ = ["name_given"]

#: a question for a name: "What's her name?", "What are their names?", "what is his name"
_ASKED = re.compile(r"\bwhat(?:'s| is| are| was| were)\s+(?:his|her|their|its)\s+names?\b", re.IGNORECASE)
#: the animal a question's message speaks of ("your other dog", "Pets sure do bring so much joy")
_KIND = re.compile(rf"\b(?P<kind>{PETS_EN}|pet)(?P<plural>s|es)?\b", re.IGNORECASE)
#: an answer that opens on the names: "Her name is Shadow!", "Luna and Oliver!", "Their names are Bo and Mo."
_GIVEN = re.compile(
    r"^\W*(?:(?i:her|his|their|its)\s+names?(?:\s+(?:is|are)|'s)\s+)?"
    r"(?P<names>[A-Z][a-z]+(?:(?:,\s*|,?\s+and\s+)[A-Z][a-z]+){0,3})\s*(?:[!.]|$)"
)

#: the same in Chinese: "它叫什么名字？", "它们叫什么？"; the animal said around it; an answer "叫豆豆！" / "豆豆！"
_ASKED_ZH = re.compile(r"(?:它|它们|他|她)(?:叫什么(?:名字)?|的名字是什么)")
_KIND_ZH = re.compile(r"小狗|小猫|狗狗|猫咪|狗|猫|兔子|仓鼠|鹦鹉|乌龟|金鱼|宠物")
_GIVEN_ZH = re.compile(r"^(?:它|他|她)?(?:叫|名叫|叫做)?(?P<name>[\u4e00-\u9fff]{1,4}?)[！!。.]")


def name_given(text: str, previous: str | None) -> Candidate | None:
    """The pet's name ``text`` gives when ``previous`` asked for it, as "User has a pet: dog named Shadow."; else
    None (no question for a name, no animal named around it, or an answer that does not open on the names)."""
    if not previous:
        return None
    if has_cjk(text) or has_cjk(previous):
        return _name_given_zh(text, previous)
    asked = _ASKED.search(previous)
    given = _GIVEN.match(text)
    if not asked or not given:
        return None
    names = re.split(r",\s*|,?\s+and\s+", given.group("names"))
    if any(n.lower() in INTERJECTIONS for n in names):  # "Yeah!", "Thanks!": no name
        return None
    kinds = list(_KIND.finditer(previous))
    kind = next((k for k in reversed(kinds) if k.start() < asked.start()), None) or next(iter(kinds), None)
    if kind is None:
        return None
    several = len(names) > 1
    noun = kind.group("kind").lower() + ("s" if several or kind.group("plural") else "")
    if noun == "pets" and not several:
        noun = "pet"
    named = names[0] if not several else f"{', '.join(names[:-1])} and {names[-1]}"
    said = f"User has pets named {named}." if noun == "pets" else f"User has a pet: {noun} named {named}."
    c = make("pet", f"{noun} named {named}", said, lang="en", evidence=given.group().strip())
    c.extractor = "rules:general"
    return c


def _name_given_zh(text: str, previous: str) -> Candidate | None:
    """The Chinese: "你的小狗好可爱！它叫什么名字？" — "叫豆豆！" → "用户有一只小狗，叫豆豆。"."""
    asked = _ASKED_ZH.search(previous)
    given = _GIVEN_ZH.match(text.strip())
    kind = _KIND_ZH.search(previous)
    if not asked or not given or not kind:
        return None
    named = f"{kind.group()}，叫{given.group('name')}"
    c = make("pet", named, f"用户有一只{named}。", lang="zh", evidence=given.group())
    c.extractor = "rules:general"
    return c
