"""The speaker's advice, asked for, as one memory (issue 44, nineteenth round).

"Do you have any advice for someone like me who wants to pursue writing?" — "Definitely! Read lots and try out
different genres. Build a solid understanding of literature. …" Read sentence by sentence, the answer has no "I":
the general path had put one back ("User read lots and try out different genres", read false by blind readers), and
without it nothing is kept. What the sentences are is advice, and what someone advises is what they believe: "User's
advice for someone who wants to pursue writing: read lots and try out different genres; build a solid understanding
of literature." LoCoMo's annotators note such answers too ("Joanna's advice for someone pursuing writing includes
reading lots …").

Only where advice was asked for (``context.advice_asked``) or the speaker announces it ("My advice? Don't be scared to
reach out …"), only sentences in the imperative (a verb of a closed list first, "don't" / "never" / "always" before it
allowed) and without a first person, at most ``MOST`` of them. What the advice is for is taken from the request when it
says so without pointing ("advice for someone like me who wants to pursue writing" → "for someone who wants to pursue
writing"; "tips for getting started on it" names nothing and is left out), or, first, from the speaker's own opener
("When picking endorsements, make sure they …" → "User's advice on picking endorsements: make sure the endorsements
…", the advice's "they" named by the topic's plural; twentieth round). "You should get a couch …" is advice as well;
a motto given as advice ("Stay open to learning and improving") is a pep talk. Chinese is read by the same shape: a
request ("有什么建议吗？"), imperatives without 我 ("多读书，多尝试不同的类型。" → "用户的建议：多读书，多尝试不同的类
型。"); tested, not measured (no labelled Chinese conversation).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from memory.text.language import has_cjk
from memory.text.sentences import sentences
from memory.write.extract.base import Candidate, is_question, make
from memory.write.extract.context import advice_asked
from memory.write.extract.general import FIRST_PERSON

__all__ = ["advice"]

#: at most this many imperatives make the memory; more is a lecture the episode keeps
MOST = 3
#: an imperative's words at most (a longer sentence is rarely advice alone)
LONGEST = 24
#: the verbs advice opens with
_IMPERATIVE = re.compile(
    r"^(?:(?:just|also|and|so|then|always|never|really|definitely|first|first of all|most importantly),?\s+)*"
    r"(?:(?:don't|do not|never|always)\s+)?"
    r"(?:do|find|gather|read|try|build|be|have|keep|take|start|make|get|stay|focus|reach|ask|talk|remember|look|"
    r"write|practice|practise|set|give|believe|trust|join|use|go|check|follow|learn|listen|surround|prepare|plan|"
    r"research|stick|push|enjoy|treat|let|eat|drink|sleep|rest|exercise|save|spend|invest|network|connect|share|"
    r"celebrate|embrace|forget|hang|lean|seek|consider|think|breathe|pace|schedule|visit|bring|pack|wear|"
    r"watch|avoid|stop|paint|draw|cook|bake|run|walk|call|sign|book|travel|study|apply|volunteer|meet|buy|choose|"
    r"pick|create|record|note|track|journal|meditate|stretch|warm|see|hire|contact|email|post|dance|sing|play|"
    r"remind|limit|cut|add|wait|rely)\b",
    re.IGNORECASE,
)
#: an opener before the advice: "Definitely!", "Yep!", "Sure thing,"
_OPENER = re.compile(
    r"^(?:(?:yes|yeah|yep|yup|sure|sure thing|definitely|absolutely|of course|totally|well|honestly|ok|okay),?\s*)+",
    re.IGNORECASE,
)
#: words to the listener on leaving, not advice: "Talk to you soon!", "Take care!", "Have fun!"
_LEAVING = re.compile(
    r"^(?:talk to you|take care|have (?:fun|a (?:good|great|nice|lovely)\b)|enjoy(?: it| yourself| the)?\s*[.!]*$|"
    r"keep (?:me|us) (?:posted|updated)|let me know|stay (?:safe|tuned))",
    re.IGNORECASE,
)
#: what the advice is for, said by the speaker as the imperative's opener: "When picking endorsements, make sure …",
#: "If you're starting out, find …" (a doing, or a time of the asker's: not "When I did it, …")
_OWN_TOPIC = re.compile(
    r"^(?:when|while|before|if you're|if you are)\s+(?P<doing>[a-z]+ing\b[^,;.!?]{2,50}),\s*(?=\S)", re.IGNORECASE
)
#: advice said to the listener as what they should do: "For one, you should get a couch …" reads as "get a couch …"
_YOU_SHOULD = re.compile(
    r"^(?:for one,?\s+)?(?:you should|you'll want to|you need to|you gotta|you have to|you could)\s+", re.IGNORECASE
)
#: a connective opening an imperative: "And stay open to learning …"
_CONNECTIVE = re.compile(r"^(?:and|so|then|also|plus),?\s+", re.IGNORECASE)
#: the words of a pep talk: advice made only of them names nothing ("Keep going and don't give up!")
_PEP = frozenset(
    word
    for line in (
        "keep going don't do not never give up stop believe in yourself your dreams dream and push pushing on it at",
        "stay positive strong focused motivated be brave hang there just always follow chase go for",
        "passionate resilient open to learning improving growing patient persistent humble true kind grateful",
        "curious consistent confident calm hopeful determined yourself with",
    )
    for word in line.split()
)
#: the speaker announcing advice: "My advice?", "My advice is:", "My tip:"
_ANNOUNCED = re.compile(r"\bmy (?:best |one |biggest )?(?:advice|tip|suggestion)\b", re.IGNORECASE)
#: what the advice is for, as the request says it
_FOR = re.compile(r"\b(?:advice|tips?|suggestions?|pointers)\s+(?P<topic>(?:for|on|about)\s+[^?.!]{3,60})", re.I)
#: a topic that points at what only the conversation names, or at the asker
_POINTING = re.compile(r"\b(?:it|this|that|these|those|them|there|me|my|mine|I|you|your)\b", re.IGNORECASE)


def advice(text: str, previous: str | None) -> Candidate | None:
    """The advice ``text`` gives, as one memory, when ``previous`` asked for it or ``text`` announces it; else None."""
    if has_cjk(text):
        return _advice_zh(text, previous)
    if not (advice_asked(previous) or _ANNOUNCED.search(text)):
        return None
    told, quoted = _one_run(text, _imperative_en)
    body = "; ".join(t[:1].lower() + t[1:] for t in told)
    if not told or all(w in _PEP for w in re.findall(r"[a-z']+", body.lower())):
        return None  # "Keep going and don't give up!": a pep talk, whoever it is said to
    topic = _own_topic(quoted) or _topic(previous)
    body = _named_by_topic(body, topic)
    c = make("advises", body, f"User's advice{' ' + topic if topic else ''}: {body}.", lang="en", evidence=quoted)
    c.extractor = "rules:advice"
    return c


def _imperative_en(said: str) -> tuple[str, str] | None:
    """(the advice, the words it quotes) of one sentence, or None when it is no imperative of advice."""
    bare = _YOU_SHOULD.sub("", _OWN_TOPIC.sub("", _OPENER.sub("", said).strip()))
    if (
        not _IMPERATIVE.match(bare)
        or is_question(bare)  # "Do you need advice on anything?", "Have you seen …?"
        or FIRST_PERSON.search(bare)  # "I did the same": the speaker's own
        or _LEAVING.match(bare)
        or len(bare.split()) > LONGEST
    ):
        return None
    return _CONNECTIVE.sub("", bare).rstrip(" .!~"), said


def _one_run(text: str, read: Callable[[str], tuple[str, str] | None]) -> tuple[list[str], str]:
    """The advice of ``text``'s first run of sentences ``read`` takes (at most ``MOST``: what follows the run is
    something else), and the words of ``text`` from its first quote to the end of its last, as its evidence."""
    told: list[str] = []
    quoted: list[str] = []
    for s in sentences(text):
        got = read(s.strip())
        if got is None:
            if told:
                break
            continue
        told.append(got[0])
        quoted.append(got[1])
        if len(told) == MOST:
            break
    if not told:
        return [], ""
    start, end = text.find(quoted[0]), text.find(quoted[-1]) + len(quoted[-1])
    return told, text[start:end] if 0 <= start < end else quoted[0]


def _own_topic(quoted: str) -> str:
    """What the speaker says their advice is for, opening it: "on picking endorsements" (from "When picking
    endorsements, make sure …"), "on starting out" (from "If you're starting out, …"), else ""."""
    m = _OWN_TOPIC.match(_OPENER.sub("", quoted.strip()))
    if not m or _POINTING.search(m.group("doing")):
        return ""
    return f"on {m.group('doing').strip()}"


#: the plural a topic ends on ("on picking endorsements"): what a "they" / "them" of its advice is
_TOPIC_PLURAL = re.compile(r"\b(?P<noun>[a-z]{3,}s)$", re.IGNORECASE)


def _named_by_topic(body: str, topic: str) -> str:
    """The advice with its "they" / "them" named by the plural its topic ends on ("… on picking endorsements: make
    sure they align …" → "make sure the endorsements align …"); else as said."""
    m = _TOPIC_PLURAL.search(topic)
    if not m or m.group("noun").lower().endswith("ss"):
        return body
    return re.sub(r"\b(?:they|them)\b", f"the {m.group('noun')}", body)


def _topic(previous: str | None) -> str:
    """What the request asked advice for, when it says so without pointing: "for someone who wants to pursue
    writing" (from "for someone like me who wants to pursue writing"), else ""."""
    m = _FOR.search(previous or "")
    if not m:
        return ""
    topic = re.sub(r"\s+like me\b", "", m.group("topic")).strip(" ,")
    return "" if _POINTING.search(topic) else topic


#: a request for advice in Chinese: "有什么建议吗？", "给我点建议", "怎么开始比较好？"
_ASKED_ZH = re.compile(r"(?:什么|点|些|一些|个)(?:建议|窍门|诀窍|技巧|经验)|怎么(?:开始|入门|准备)|该怎么(?:做|办)")
#: the speaker announcing advice: "我的建议是", "我建议"
_ANNOUNCED_ZH = re.compile(r"我的建议|我建议")
#: how a Chinese imperative opens: "多读书", "别怕", "先…", "一定要…", "记得…", "试试…"
_IMPERATIVE_ZH = re.compile(r"^(?:多|少|别|不要|先|一定要|千万|记得|试试|试着|每天|坚持|找|去|把|早点|尽量|可以先)")
_OPENER_ZH = re.compile(r"^(?:当然|好啊|好的|嗯+|有啊|有的|可以|我的建议是|我建议)[，,！!：:\s]*")


def _advice_zh(text: str, previous: str | None) -> Candidate | None:
    """The same in Chinese: "有什么建议吗？" — "当然！多读书，多尝试不同的类型。" → "用户的建议：多读书，多尝试不同的
    类型。"."""
    if not ((previous and _ASKED_ZH.search(previous)) or _ANNOUNCED_ZH.search(text)):
        return None
    told, quoted = _one_run(text, _imperative_zh)
    if not told:
        return None
    body = "；".join(told)
    c = make("advises", body, f"用户的建议：{body}。", lang="zh", evidence=quoted)
    c.extractor = "rules:advice"
    return c


def _imperative_zh(said: str) -> tuple[str, str] | None:
    bare = _OPENER_ZH.sub("", said).strip()
    if not bare or not _IMPERATIVE_ZH.match(bare) or "我" in bare or re.search(r"[?？吗]", bare):
        return None
    told = bare.rstrip("。！!；;")
    return told, told
