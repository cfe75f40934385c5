"""Split a sentence into statements and find whom each one is about.

"I love my job but hate commuting" holds two statements with opposite polarity; "我很喜欢看电影，但是不喜欢看恐怖片"
too. Each clause is returned in the speaker's voice ("I hate commuting", "我不喜欢看恐怖片"), so the per-predicate
rules see a whole statement. A clause that opens with someone the user mentions ("My wife loves sushi", "我同事小王是
程序员") is rewritten to first person with a :class:`Person` attached: the rules then read it as if the user said it,
and the caller re-labels the result as a fact about *that person* (never the user's own taste or profile).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memory.write.extract.general import COMPANIONS
from memory.write.extract.rules_en import PETS_EN

RELATIONS_EN = (
    "wife|husband|partner|spouse|boyfriend|girlfriend|fiancée?|mom|mum|mother|dad|father|parents|son|daughter|kids|"
    "children|baby|brother|sister|sibling|grandma|grandmother|grandpa|grandfather|uncle|aunt|cousin|nephew|niece|"
    "friend|best friend|colleague|coworker|co-worker|boss|manager|roommate|flatmate|neighbou?r|teammate|" + PETS_EN
)
RELATIONS_ZH = (
    "女朋友|男朋友|未婚妻|未婚夫|老婆|老公|妻子|丈夫|爱人|太太|先生|对象|妈妈|母亲|爸爸|父亲|爸妈|父母|儿子|女儿|孩子|"
    "哥哥|姐姐|弟弟|妹妹|爷爷|奶奶|外公|外婆|姥姥|姥爷|叔叔|阿姨|舅舅|表哥|表姐|表弟|表妹|堂哥|堂姐|好朋友|闺蜜|朋友|"
    "同事|老板|领导|上司|室友|邻居|同学|狗狗|狗|猫咪|猫|兔子|鹦鹉"
)
_PERSON_EN = re.compile(
    r"^(?:and |but |also )?(?:(?:i think|i guess|maybe|perhaps|probably|i believe) )?"
    r"(?:my|our) (?:(?:little|older|younger|big|best|new|old|late) )?(?P<rel>"
    + RELATIONS_EN
    + r")(?:,? (?P<name>(?-i:[A-Z][a-z]+)),?)? (?P<rest>.+)$",
    re.IGNORECASE,
)
_PERSON_ZH = re.compile(
    r"^(?:而且|但是|不过)?(?:可能|好像|也许)?我(?:的|家|家的)?(?P<rel>"
    + RELATIONS_ZH
    + r")(?P<name>[\u4e00-\u9fff]{0,3}?)"
    r"(?P<rest>(?:也|都|还|很|非常|特别|最|一直|现在|目前|已经|不|从不|是|在|住|喜欢|爱|讨厌|对|养|有|会|要|打算|"
    r"准备|计划|去|来|刚|上周|上个月|上星期|昨天|前天|今天|去年|前年|最近|刚刚|这周|本周).+)$"
)
#: third person → first person, for the verb that follows the person ("loves" → "love", "is" → "am")
_VERB_EN = {
    "is": "am",
    "isn't": "am not",
    "was": "was",
    "has": "have",
    "hasn't": "haven't",
    "does": "do",
    "doesn't": "don't",
    "goes": "go",
    "'s": "am",
}
_PAST_EN = frozenset(
    {"ran", "went", "had", "got", "began", "made", "took", "saw", "met", "bought", "flew", "won", "grew"}
)
_ADVERBS = r"(?:(?:really|also|absolutely|just|still|now|currently|totally|actually|always|never|usually|recently) )*"


@dataclass(frozen=True)
class Person:
    """Someone the user talks about: ``name`` when given ("Anna"), and the relation to the user ("sister")."""

    relation: str
    name: str | None = None

    @property
    def subject(self) -> str:
        return self.name or self.relation


def _first_person_en(rest: str) -> str | None:
    m = re.match(r"(" + _ADVERBS + r")([\w'’]+)(.*)$", rest, re.IGNORECASE)
    if not m:
        return None
    adverbs, verb, tail = m.group(1), m.group(2).lower().replace("’", "'"), m.group(3)
    if verb in _VERB_EN:
        first = _VERB_EN[verb]
    elif re.fullmatch(r"\w+(?:ss|sh|ch|x|o)es", verb):
        first = verb[:-2]
    elif re.fullmatch(r"\w+[^aeiou]ies", verb):
        first = verb[:-3] + "y"
    elif re.fullmatch(r"\w+[^s]s", verb):
        first = verb[:-1]
    elif verb in _PAST_EN or verb.endswith("ed"):
        first = verb
    else:
        return None  # not a present-tense verb right after the person: leave the clause alone
    return f"I {adverbs}{first}{tail}"


def about_person(clause: str, lang: str) -> tuple[str, Person | None]:
    """(clause in the speaker's voice, the person it is about or None)."""
    if lang == "zh":
        m = _PERSON_ZH.match(clause)
        if not m:
            return clause, None
        name = m.group("name") or None
        return "我" + m.group("rest"), Person(m.group("rel"), name)
    m = _PERSON_EN.match(clause)
    if not m:
        return clause, None
    rewritten = _first_person_en(m.group("rest"))
    if rewritten is None:
        return clause, None
    return rewritten, Person(m.group("rel").lower(), m.group("name"))


_SPLIT_EN = re.compile(
    r",?\s+(?:but|though|although|whereas|while|yet)\s+|;\s*|,\s+(?:and\s+)?(?=(?:i|i'm|i’m|my)\b)"
    r"|\s+and\s+(?=(?:i|i'm|i’m|my)\b|(?:also |really |absolutely )?(?:love|like|hate|enjoy|work|live|am|don't|"
    r"do not|can't|prefer|dislike|play|collect)\b)",
    re.IGNORECASE,
)
_SPLIT_ZH = re.compile(r"[，,；;]\s*(?:但是|但|不过|可是|而且|并且|同时|然而)?|(?<=[\u4e00-\u9fff])(?:但是|不过|可是)")
_VERB_START_EN = re.compile(
    r"^(?:also |really |absolutely |just |still )*(?:love|like|hate|enjoy|work|live|am|don't|do not|can't|cannot|"
    r"prefer|dislike|play|collect|adore|detest|eat|drink|speak|moved|grew|have|never)\b",
    re.IGNORECASE,
)
_LIKE_VERB = re.compile(r"\b(?:like|love|enjoy|adore)s?\b", re.IGNORECASE)
_HAS_SUBJECT_ZH = re.compile(r"^(?:我|咱|他|她|它|你|您)|^(?:" + RELATIONS_ZH + r")")


def split_clauses(sentence: str, lang: str) -> list[str]:
    """One statement per clause, each with its subject ("but hate commuting" → "I hate commuting")."""
    parts = [p.strip(" ,，") for p in (_SPLIT_ZH if lang == "zh" else _SPLIT_EN).split(sentence)]
    parts = [p for p in parts if p]
    if len(parts) < 2:
        return [sentence]
    out = [parts[0]]
    for part in parts[1:]:
        if lang == "en" and _COMPANIONS_EN.match(out[-1]) and re.match(r"(?:I|me)\b", part):
            out[-1] = f"{out[-1]} and {part}"  # "My colleagues and I went …": one subject, not two clauses
            continue
        if lang == "en" and _NAMED_BEFORE_EN.search(out[-1]) and _KIND_AFTER_EN.match(part):
            out[-1] = f"{out[-1]}, {part}"  # "Oscar, my guinea pig.": the name and what it names, one clause
            continue
        if lang == "zh" and _NAMES_IT_ZH.match(part):  # "我养了一只猫，叫咪咪": the cat's name, never the user's
            out[-1] = f"{out[-1]}，{part}"
            continue
        out.append(_with_subject(part, out[-1], lang))
    return out


#: the others a speaker did something with, before "and I" ("My colleagues", "Yesterday my sister")
_COMPANIONS_EN = re.compile(
    r"^(?:(?:yesterday|today|recently|then|so|also|last \w+|this \w+),?\s+)?" + COMPANIONS + "$", re.I
)
#: a clause ending on a name, and one that is only "my <relation>": an appositive ("Oscar, my guinea pig")
_NAMED_BEFORE_EN = re.compile(r"(?:^|[\s\-–—:])(?-i:[A-Z][a-z]+)$")
_KIND_AFTER_EN = re.compile(r"^my (?:" + RELATIONS_EN + r")\s*[.!]*$", re.I)
#: a subject-less clause that names what the clause before it mentioned (a pet, a person), not the speaker
_NAMES_IT_ZH = re.compile(r"^(?:它|他|她)?(?:叫做|名叫|叫|名字叫|名字是)")


def _with_subject(part: str, previous: str, lang: str) -> str:
    if lang == "zh":
        return part if _HAS_SUBJECT_ZH.match(part) else "我" + part
    not_x = re.match(r"not (.+)$", part, re.IGNORECASE)
    if not_x and _LIKE_VERB.search(previous):  # "I like cats but not dogs"
        return f"I don't like {not_x.group(1)}"
    verb = _VERB_START_EN.match(part)
    if (
        verb
        and re.match(r"(?:and |but |also )?(?:i|i'm|i’m|i've|i’ve)\b", previous, re.I)
        and not _OTHER_SUBJECT_EN.search(previous)  # "… and it was awesome - so much energy and love everywhere"
        and not _FRAMED_OTHER_EN.search(previous)  # "I'm sure people will recognise you … and love the book"
        and not re.search(r"\b" + re.escape(verb.group().split()[-1]) + r"\b", previous, re.I)
    ):  # the same verb twice is a noun the second time: "I love the self-acceptance and love theme"
        return "I " + part  # "I love my job and hate commuting"; never "hope and love exist"
    return part


#: the speaker frames what someone else will do or does ("I'm sure people will recognise you …", "I bet they
#: would …"): a verb after it is that someone's, not the speaker's
_FRAMED_OTHER_EN = re.compile(
    r"\bI(?:'m|’m| am)?\s+(?:sure|think|bet|guess|hope|believe|know|reckon|wish)\s+(?:that\s+)?"
    r"(?!I\b|I'|I’)[A-Za-z]+\s+(?:will|'ll|would|can|could|should|might|must|are|is|were|was|do|does|did|have|has)\b",
    re.IGNORECASE,
)
#: the clause before went on with another subject: the verb that follows is not the speaker's
_OTHER_SUBJECT_EN = re.compile(
    r"\b(?:it|he|she|they|there|this|that|we|you|it's|that's|there's)\s+(?:is|was|'s|are|were|has|had)\b"
    r"|\b(?:it's|that's|there's)\b|\s[-–—]+\s",
    re.IGNORECASE,
)
