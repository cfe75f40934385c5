"""Name a he / she / him / her from the one person the sentence before names as the speaker's (issue 44).

"We were all freaked when my son got into an accident. We were so lucky he was okay." — the second sentence alone
gives "User and others were so lucky he was okay", which a reader of the memory cannot place (``references.unresolved``
flags "he"); the extractor would abstain on it (resolve or abstain). The person
is named one sentence before, as the speaker's: "my son". This module names them there: "User and others were so
lucky their son was okay." Chinese alike: "我妈妈做饭很好吃。我每周都去看她。" → "用户每周都去看用户的妈妈。"

It guesses only where one person fits: every unresolved reference of the memory is a he / him / she / her (他 / 她)
of one gender; the sentence just before it in the same message names exactly one person of the speaker's ("my …",
"our …"; 我 / 我的 …) that the pronoun can stand for — a kin word of that gender ("son" for he, "mom" for she) or a
word for a person or a pet of either ("friend", "boss", "dog"); and what replaces the reference leaves nothing
unresolved. A name the speaker gives them is kept ("my friend Anna" → "User's friend Anna"). Two such people ("my
dad and my brother … him"), none, or another kind of reference: nothing is guessed. A name said alone ("I met Anna.
She …") is not used: a capitalised word at the head of a clause is as often a place, a brand or the other speaker.
"""

from __future__ import annotations

import re

from memory.text.language import has_cjk
from memory.write.extract.antecedent import only_interjections, quoted_at, said_before
from memory.write.extract.kin import EITHER, FEMALE, MALE
from memory.write.extract.references import ZH_PERSON_PRONOUN, head, unresolved

__all__ = ["OBJECT_AFTER", "name_person_from_message"]

#: "my son", "my older brother", "my best friend Anna" (a modifier, the noun, a name); "your …" in the message answered
_PERSON_NP = re.compile(
    r"\b(?P<det>[Mm]y|[Oo]ur|[Yy]our)\s+(?:(?:little|big|older|younger|oldest|youngest|eldest|baby|best|late|new|dear|sweet)\s+)?"
    r"(?P<noun>[a-z-]+)(?:\s+(?P<name>[A-Z][a-z]+)(?!\s*'))?",
)
_GENDER = {"he": MALE, "him": MALE, "she": FEMALE, "her": FEMALE}
_REF = re.compile(r"\b(?P<ref>he|him|she|her)\b")
#: after an object "her" (not a possessive one: "her lasagna"): "I visit her every summer", "I took her to …", "saw
#: her play live"; one test for every namer of a "her" (here and memory.write.extract.recent)
OBJECT_AFTER = re.compile(
    r"^(?:\s*(?:[,.;:!?)]|$)|\s+(?:a|an|the|to|for|with|and|or|but|at|in|on|up|out|off|back|about|so|too|again|now|"
    r"from|every|each|this|that|these|those|some|all|more|over|into|around|when|because|since|after|before|while|"
    r"if|as|yesterday|today|tonight|tomorrow|last|next|once|twice|here|there|home|play|sing|perform|speak|\w+ly)\b)"
)


#: "he'd be happy" → "User's friend David would be happy" (not "David'd")
_CONTRACTED = re.compile(r"^'(d|ll)\b", re.I)
_EXPANDED = {"d": " would", "ll": " will"}


def _people(sentence: str, pronoun: str, whose: tuple[str, ...] = ("my", "our")) -> list[str]:
    """The people of the speaker's (``whose``: "my" / "our"; in the message answered, "your") the sentence names that
    ``pronoun`` can stand for ("son", "friend Anna")."""
    out = []
    for m in _PERSON_NP.finditer(sentence):
        noun = m.group("noun").lower()
        if m.group("det").lower() not in whose:
            continue
        if noun in _GENDER[pronoun] or noun in EITHER:
            out.append(f"{m.group('noun')} {m.group('name')}" if m.group("name") else m.group("noun"))
    return out


def name_person_from_message(content: str, evidence: str, message: str, previous: str | None = None) -> str | None:
    """``content`` with its he / him / she / her named by the one person of the speaker's the sentence of
    ``message`` before it names, or None. When the speaker said nothing before it but interjections, the message it
    answers may name them instead, as the speaker's ("How's your son doing?" → "Great, I'm so proud of him!")."""
    if not message or not evidence:
        return None
    if has_cjk(content):
        return _named_zh(content, evidence, message)
    refs = [r.lower() for r in unresolved(content, evidence)]
    if not refs or any(r not in _GENDER for r in refs) or len({_GENDER[r] for r in refs}) != 1:
        return None
    sentence = said_before(evidence, message)
    people = _people(sentence, refs[0]) if sentence else []
    at = quoted_at(evidence, message)
    if not people and previous and at >= 0 and only_interjections(message[:at]):
        sentence, people = previous, _people(previous, refs[0], ("your",))
    if len(people) != 1:
        return None  # none or several people the pronoun could stand for
    text = head(content)
    m = next((r for r in _REF.finditer(text) if r.group("ref") == refs[0]), None)
    if m is None:
        return None
    owner = "their" if re.search(r"\buser\b", text[: m.start()], re.I) else "User's"
    person = f"{owner} {people[0]}"
    if m.group("ref") == "her" and not OBJECT_AFTER.match(text[m.end() :]):
        person += "'s"  # "I love her lasagna" → "User loves their mom's lasagna"
    rest = _CONTRACTED.sub(lambda c: _EXPANDED[c.group(1).lower()], content[m.end() :], count=1)
    named = f"{content[: m.start()]}{person}{rest}"
    # the memory now carries the sentence before's words too ("my son"): its first person is the speaker's
    return named if not unresolved(named, f"{sentence} {evidence}") else None


_ZH_MALE = (
    "儿子",
    "哥哥",
    "弟弟",
    "爸爸",
    "父亲",
    "老公",
    "丈夫",
    "男朋友",
    "男友",
    "爷爷",
    "外公",
    "姥爷",
    "叔叔",
    "舅舅",
    "侄子",
)
_ZH_FEMALE = (
    "女儿",
    "姐姐",
    "妹妹",
    "妈妈",
    "母亲",
    "老婆",
    "妻子",
    "女朋友",
    "女友",
    "奶奶",
    "外婆",
    "姥姥",
    "阿姨",
    "姑姑",
    "侄女",
)
_ZH_EITHER = ("朋友", "同事", "老板", "室友", "邻居", "老师", "同学", "孩子", "宝宝", "表哥", "表姐", "堂哥")
_ZH_PERSON = re.compile(r"我(?:的|们的|们)?(?P<noun>" + "|".join(_ZH_MALE + _ZH_FEMALE + _ZH_EITHER) + ")")


def _named_zh(content: str, evidence: str, message: str) -> str | None:
    """The Chinese side: a 他 / 她 (not 他们 / 她们) named by the one 我(的)<person> of the sentence before."""
    refs = unresolved(content, evidence)
    if not refs or any(r not in ("他", "她") for r in refs) or len(set(refs)) != 1:
        return None
    sentence = said_before(evidence, message)
    fits = _ZH_MALE if refs[0] == "他" else _ZH_FEMALE
    people = [m.group("noun") for m in _ZH_PERSON.finditer(sentence or "") if m.group("noun") in fits + _ZH_EITHER]
    pronoun = next((m for m in ZH_PERSON_PRONOUN.finditer(head(content)) if m.group() == refs[0]), None)
    if len(people) != 1 or pronoun is None:
        return None
    i = pronoun.start()
    named = f"{content[:i]}用户的{people[0]}{content[i + 1 :]}"
    return named if not unresolved(named, evidence) else None
