"""Plans (future) and events (past) with their resolved dates: "I'm flying to Rome next Tuesday", "我昨天跑了马拉松".

A statement in the past tense with a date phrase that resolves on or before the message day is an *event*
("User ran a marathon (yesterday, 2025-04-30)."); a plan verb, or a dated intention, is a *plan*. Dates come from
memory.text.dates, resolved against the message time; past statements read bare dates backwards.
"""

from __future__ import annotations

import re
from datetime import datetime

from memory.text.dates import DateMatch, resolve
from memory.write.extract import rules_en, rules_zh
from memory.write.extract.base import Candidate, a_or_an, make
from memory.write.extract.general import COMPANIONS, HABIT

_PLAN_EN = {
    "cancel": "User cancelled plans: {obj}",
    "have": "User has {art} {obj}",
    "plan": "User plans to {obj}",
    "event": "User {obj}",
}
_PLAN_ZH = {"cancel": "用户取消了计划：{obj}", "have": "用户有{obj}", "plan": "用户计划{obj}", "event": "用户{obj}"}
_MOVE = re.compile(
    r"(?:move|moving|relocate|relocating) to ([A-Z][\w'-]*(?: [A-Z][\w'-]*)?)"
    r"|搬(?:到|去)([\u4e00-\u9fff]{2,3})"
)
#: a plan told by its motion ("I'm moving to Berlin", "flying to Tokyo"): the verb stays in the memory, in base form
_MOTION = re.compile(r"\b(moving|flying|travell?ing|heading|leaving|relocating)\s+(to|for)\s+$", re.IGNORECASE)
_MOTION_BASE = {
    "moving": "move",
    "flying": "fly",
    "traveling": "travel",
    "travelling": "travel",
    "heading": "head",
    "leaving": "leave",
    "relocating": "relocate",
}
_EVENT_EN = re.compile(
    r"\bi (?:just |finally |recently |already |also )?(?P<obj>(?:ran|went|had|got|started|finished|visited|met|bought|"
    r"saw|quit|graduated|joined|left|lost|won|flew|travell?ed|attended|completed|signed|adopted|took|did|broke|"
    r"celebrated|passed|failed|climbed|watched|read|cooked|tried|hiked|swam|launched|sold)\b[^,.;!?]{1,60}?)"
    + rules_en._END,
    re.IGNORECASE,
)
_EVENT_ZH = re.compile(
    r"我(?P<pre>[^，。！？；,.!?;]{0,8}?)(?P<obj>(?:去了|跑了|换了|买了|看了|参加了|搬到了|搬去了|搬了|见了|学了|完成了|吃了|"
    r"感冒|生病|"
    r"辞职|毕业|结婚|离职|回了|到了|丢了|考了|做了|领了|爬了|拿到了|开始)[^，。！？；,.!?;]{0,16})"
)


#: "This book I read last year reminds me …": the event verb sits in a clause that names the sentence's subject; read
#: as an event it gave "User read reminds them …" (the general path keeps the sentence whole)
_SUBJECT_CLAUSE = re.compile(
    r"^\W*(?:this|that|these|those|the|my|a|an|one)\s+(?!(?:[\w'-]+\s+){0,3}?(?:day|days|week|weekend|month|year|"
    r"morning|afternoon|evening|night|time|summer|winter|spring|fall|autumn)\b)(?:[\w'-]+\s+){0,3}$",
    re.IGNORECASE,
)


#: "My colleagues and I …" before an event's "I": the others who did it with the speaker (in the past: the verb
#: agrees with "User and their colleagues" as it does with "User")
_WITH_OTHERS_BEFORE = re.compile(r"\b" + COMPANIONS + r"\s+and\s+$", re.IGNORECASE)


def dated_statements(sentence: str, lang: str, at: datetime, claimed: list[tuple[int, int]]) -> list[Candidate]:
    """Events (past, dated) first; otherwise plans; spans already claimed by another rule are skipped."""
    events = _EVENT_ZH if lang == "zh" else _EVENT_EN
    if events.search(sentence):
        found = resolve(sentence, at, prefer="past")
        if found and found.when.date() <= at.date():
            out = _emit(sentence, lang, found, [(m, "event") for m in events.finditer(sentence)], claimed)
            if out:
                return out
    if HABIT.search(sentence):
        return []  # "every weekend", "每周末": a habit, not one dated plan (the general path keeps it as said)
    found = resolve(sentence, at)
    phrase = found.phrase if found else None
    matches = _plan_matches_zh(sentence, phrase) if lang == "zh" else _plan_matches_en(sentence, phrase)
    return _emit(sentence, lang, found, matches, claimed)


def _emit(
    sentence: str, lang: str, found: DateMatch | None, matches: list[tuple[re.Match, str]], claimed: list
) -> list[Candidate]:
    out = []
    for m, kind in matches:
        if any(m.start() < ce and cs < m.end() for cs, ce in claimed):
            continue
        if lang == "en" and kind == "event" and _SUBJECT_CLAUSE.match(sentence[: m.start()]):
            continue
        obj = _strip_date(m.group("obj").strip(), found, lang)
        if lang == "en":
            obj = re.sub(r"^(?:to|go to)\s+|\s+(?:anymore|any more)$", "", obj).strip()
            if kind == "plan" and (motion := _MOTION.search(m.group(0)[: m.start("obj") - m.start()])):
                obj = f"{_MOTION_BASE[motion.group(1).lower()]} {motion.group(2).lower()} {obj}"  # "moving to Berlin"
        else:
            obj = re.sub(r"^(?:刚刚|刚|已经)|了$", "", obj) if kind == "event" else obj
        if len(obj) < 2 or (lang == "en" and re.fullmatch(r"(?:did|had|got|went|took|saw|made)", obj, re.I)):
            continue  # "I did last week": the answer to a question, not a fact on its own
        if lang == "en" and rules_en.cut_short(m.group("obj")):
            continue  # "making a whole day of" (cut before "it and …"): a piece of a phrase reads as garbage
        c = _candidate(kind, obj, found, lang, m.group())
        others = _WITH_OTHERS_BEFORE.search(sentence[: m.start()]) if lang == "en" and kind == "event" else None
        if others:  # "My colleagues and I went to a convention" — not "User went to a convention together"
            c.content = re.sub(r"^User\b", f"User and their {others.group('who')}", c.content, count=1)
            c.evidence = sentence[others.start() : m.end()]
        out.append(c)
        claimed.append(m.span())
    return out


def _strip_date(obj: str, found: DateMatch | None, lang: str) -> str:
    if not found:
        return obj
    if lang == "en":
        return re.sub(r"\s*\b" + re.escape(found.phrase) + r"\b", "", obj, flags=re.IGNORECASE).strip()
    return obj.replace(found.phrase, "").strip()


def _candidate(kind: str, obj: str, found: DateMatch | None, lang: str, evidence: str) -> Candidate:
    art = a_or_an(obj)
    when = found.when if found else None
    if lang == "zh":
        date_txt = f"（{found.phrase}，{found.stamp}）" if found else ""
        content = _PLAN_ZH[kind].format(obj=obj) + date_txt + "。"
    else:
        date_txt = f" ({found.phrase}, {found.stamp})" if found else ""
        template = _PLAN_EN[kind]
        if kind == "plan" and re.match(r"(?:a|an|the|some|my)\s", obj, re.IGNORECASE):
            template = "User is planning {obj}"  # "I'm planning a trip to Japan"
        elif kind == "plan" and re.match(r"[a-z]{2,}ing\b", obj, re.IGNORECASE):
            template = "User is planning on {obj}"  # "planning on submitting …", never "User plans to submitting …"
        content = template.format(obj=re.sub(r"\bmy\b", "their", obj), art=art) + date_txt + "."
    predicate = "event" if kind == "event" else "plan"
    c = make(predicate, obj, content, lang=lang, evidence=evidence, negated=kind == "cancel", event_time=when)
    move = _MOVE.search(evidence)
    if move and kind not in ("cancel", "event"):  # a planned move is a weak signal about the city, never a change
        c.meta["weak_field"] = ["city", (move.group(1) or move.group(2)).strip()]
    return c


def _plan_matches_en(sentence: str, phrase: str | None) -> list[tuple[re.Match, str]]:
    found = [(m, "cancel") for m in rules_en._PLAN_CANCEL.finditer(sentence)]
    found += [(m, "have") for m in rules_en._PLAN_HAVE.finditer(sentence)]
    for m in rules_en._PLAN_STRONG.finditer(sentence):
        strong = re.search(r"plan|intend|schedul|book|fly|trav|moving|head", m.group(0), re.I) or (
            re.search(
                r"\bgoing to (?!the\b|a\b|an\b|my\b)\w+ \w+ \w+", m.group(0), re.I
            )  # "going to run marathon 5": a concrete plan
        )
        if not rules_en._NOISE_PLAN.match(m.group("obj")) and (phrase or strong):
            found.append((m, "plan"))
    if phrase:
        found += [
            (m, "plan")
            for m in rules_en._PLAN_DATED.finditer(sentence)
            if not rules_en._NOISE_PLAN.match(m.group("obj"))
        ]
    return found


def _plan_matches_zh(sentence: str, phrase: str | None) -> list[tuple[re.Match, str]]:
    found = [(m, "cancel") for m in rules_zh.PLAN_CANCEL.finditer(sentence)]
    found += [(m, "plan") for m in rules_zh.PLAN_UNDECIDED.finditer(sentence)]
    found += [(m, "have") for m in rules_zh.PLAN_HAVE.finditer(sentence)]
    for m in rules_zh.PLAN.finditer(sentence):
        strong = m.group("verb") in ("打算", "准备", "计划") or m.group("obj").startswith(("去", "到", "搬"))
        if strong or phrase:
            found.append((m, "plan"))
    if phrase:
        found += [(m, "plan") for m in rules_zh.PLAN_GO.finditer(sentence)]
    return found
