"""Classify (worth remembering?) and extract candidate memories from one message.

``extract(text, role=..., at=...)`` runs the offline rules (English and Chinese, chosen per sentence); with a chat
model it runs the LLM extractor instead (memory.write.extract.llm) and falls back to the rules if the model fails.
Assistant text is read only for what it says about *the user* ("you live in …"), and everything taken from it is a
low-confidence ``inferred`` candidate: the agent's own guesses never become user facts.
"""

from __future__ import annotations

import re
from datetime import datetime

from memory.text.dates import find_date
from memory.write.extract import rules_en, rules_zh
from memory.write.extract.base import (
    CONF_EXPLICIT,
    CONF_HEDGED,
    CONF_INFERRED,
    Candidate,
    explicitness,
    has_cjk,
    hedge_of,
    is_question,
    make,
    sentences,
)

__all__ = ["Candidate", "classify", "extract", "extract_rules"]

_SMALL_TALK = re.compile(
    r"^(?:hi|hello|hey|thanks|thank you|thx|ok|okay|sure|yes|no|yep|nope|cool|great|nice|lol|haha|bye|good night|"
    r"good morning|got it|i see|sounds good|alright|wow|hmm|你好|您好|谢谢|多谢|好的|好|嗯|哦|哈哈+|收到|知道了|明白了|"
    r"再见|拜拜|晚安|早上好|不客气|没问题|可以|行)[\s!！.。~～?？]*$",
    re.IGNORECASE,
)
_SELF_REF = re.compile(
    r"\b(?:i|i'm|im|i’m|my|me|i've|i'd|i'll|we|we're|our)\b|我|咱|叫我|预算|call me|budget|"
    r"please|keep|用中文|用英文|回答|回复|简洁|简短|详细|说结论|brief|concise",
    re.IGNORECASE,
)


def classify(text: str, role: str = "user") -> tuple[bool, str]:
    """Cheap gate before extraction: (worth extracting?, reason)."""
    stripped = text.strip()
    if role not in ("user", "assistant"):
        return False, f"{role} messages are not a source of user memories"
    if len(stripped) < 2:
        return False, "too short to hold a fact"
    if _SMALL_TALK.match(stripped):
        return False, "small talk"
    if not _SELF_REF.search(stripped) and not (role == "assistant" and re.search(r"\byou\b|你|您", stripped)):
        return False, "no statement about the speaker"
    if all(is_question(s) for s in sentences(stripped)):
        return False, "only questions"
    return True, "may state something about the user"


def _second_to_first(sentence: str, lang: str) -> str:
    """Rewrite what the assistant says about the user into the user's voice; its own 'I' is neutralised first."""
    if lang == "zh":
        s = sentence.replace("我", "助手").replace("您", "我").replace("你", "我")
        return s
    s = re.sub(r"\b(?:I|me|my|I'm|I’m|I've|I'll)\b", "ASSISTANT", sentence)
    s = re.sub(r"\byou(?:'re| are|’re)\b", "I'm", s, flags=re.IGNORECASE)
    s = re.sub(r"\byour\b", "my", s, flags=re.IGNORECASE)
    return re.sub(r"\byou\b", "I", s, flags=re.IGNORECASE)


def _apply_rules(sentence: str, lang: str, at: datetime) -> list[Candidate]:
    mod = rules_zh if lang == "zh" else rules_en
    out: list[Candidate] = []
    claimed: list[tuple[int, int]] = []
    for rule in mod.RULES:
        for m in rule.pattern.finditer(sentence):
            s, e = m.span()
            if any(s < ce and cs < e for cs, ce in claimed):
                continue
            implicit = "(?:我|^" in rule.pattern.pattern and "我" not in m.group()
            if lang == "zh" and implicit and "我" not in sentence[:s]:
                continue  # a subject-less clause counts only after the speaker named themself
            raw = m.groupdict().get("obj") or ""
            cleaned = mod.clean_object(raw) if raw else ""
            if cleaned is None or (raw and not cleaned) or _about_answers(cleaned, lang):
                continue
            obj = rule.obj(cleaned) if rule.obj else cleaned
            display = cleaned if lang == "zh" or rule.predicate == "budget" else obj
            art = "an" if display[:1].lower() in "aeiou" else "a"
            content = rule.template.format(obj=display, cat=m.groupdict().get("cat") or "", art=art)
            claimed.append((s, e))
            c = make(rule.predicate, obj or display, content, lang=lang, evidence=m.group(), negated=rule.negated)
            c.meta["display"] = display or c.object
            out.append(c)
    out += _styles(sentence, lang, claimed)
    out += _plans(sentence, lang, at, claimed)
    return out


def _about_answers(obj: str, lang: str) -> bool:
    """'I don't like long answers' is a communication-style statement, handled by the style rule instead."""
    pattern = r"\b(?:answers?|repl(?:y|ies)|responses?|emojis?|explanations?)\b"
    if lang == "zh":
        pattern = r"回复|回答|答案|解释|表情"
    return bool(re.search(pattern, obj, re.IGNORECASE))


def _styles(sentence: str, lang: str, claimed: list[tuple[int, int]]) -> list[Candidate]:
    style = (rules_zh if lang == "zh" else rules_en).style_of(sentence)
    if not style:
        return []
    content = f"用户喜欢{rules_zh.STYLE_ZH[style]}的回答。" if lang == "zh" else f"User prefers {style} answers."
    return [make("communication_style", style, content, lang=lang, evidence=sentence)]


def _plans(sentence: str, lang: str, at: datetime, claimed: list[tuple[int, int]]) -> list[Candidate]:
    phrase, when = find_date(sentence, at, lang)
    found = _plan_matches_zh(sentence, phrase) if lang == "zh" else _plan_matches_en(sentence, phrase)
    out = []
    for m, kind in found:
        if any(m.start() < ce and cs < m.end() for cs, ce in claimed):
            continue
        obj = m.group("obj").strip()
        if phrase:
            obj = re.sub(
                r"\s*\b" + re.escape(phrase) + r"\b" if lang == "en" else re.escape(phrase),
                "",
                obj,
                flags=re.IGNORECASE,
            ).strip()
        if lang == "en":
            obj = re.sub(r"^(?:to|go to)\s+|\s+(?:anymore|any more)$", "", obj)
        if len(obj) < 2:
            continue
        out.append(_plan_candidate(kind, obj, phrase, when, lang, m.group()))
        claimed.append(m.span())
    return out


_PLAN_EN = {"cancel": "User cancelled plans: {obj}", "have": "User has {art} {obj}", "plan": "User plans to {obj}"}
_PLAN_ZH = {"cancel": "用户取消了计划：{obj}", "have": "用户有{obj}", "plan": "用户计划{obj}"}
_MOVE = re.compile(
    r"(?:move|moving|relocate|relocating) to ([A-Z][\w'-]*(?: [A-Z][\w'-]*)?)"
    r"|搬(?:到|去)([\u4e00-\u9fff]{2,3})"
)


def _plan_candidate(
    kind: str, obj: str, phrase: str | None, when: datetime | None, lang: str, evidence: str
) -> Candidate:
    art = "an" if obj[:1].lower() in "aeiou" else "a"
    if lang == "zh":
        date_txt = f"（{phrase}{f'，{when:%Y-%m-%d}' if when else ''}）" if phrase else ""
        content = _PLAN_ZH[kind].format(obj=obj) + date_txt + "。"
    else:
        date_txt = f" ({phrase}{f', {when:%Y-%m-%d}' if when else ''})" if phrase else ""
        content = _PLAN_EN[kind].format(obj=obj, art=art) + date_txt + "."
    c = make("plan", obj, content, lang=lang, evidence=evidence, negated=kind == "cancel", event_time=when)
    move = _MOVE.search(evidence)
    if move and kind != "cancel":  # a planned move is a weak signal about the city, never a change of it
        c.meta["weak_field"] = ["city", (move.group(1) or move.group(2)).strip()]
    return c


def _plan_matches_en(sentence: str, phrase: str | None) -> list[tuple[re.Match, bool]]:
    found = [(m, "cancel") for m in rules_en._PLAN_CANCEL.finditer(sentence)]
    found += [(m, "have") for m in rules_en._PLAN_HAVE.finditer(sentence)]
    for m in rules_en._PLAN_STRONG.finditer(sentence):
        if not rules_en._NOISE_PLAN.match(m.group("obj")) and (
            phrase
            or re.search(
                r"plan|intend|schedul|book|fly|trav|"
                r"moving|head",
                m.group(0),
                re.I,
            )
        ):
            found.append((m, "plan"))
    if phrase:
        found += [
            (m, "plan")
            for m in rules_en._PLAN_DATED.finditer(sentence)
            if not rules_en._NOISE_PLAN.match(m.group("obj"))
        ]
    return found


def _plan_matches_zh(sentence: str, phrase: str | None) -> list[tuple[re.Match, bool]]:
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


def extract_rules(text: str, *, role: str = "user", at: datetime) -> list[Candidate]:
    """Offline extraction, sentence by sentence; hedges lower confidence, assistant text yields only inferences."""
    out: list[Candidate] = []
    seen: set[tuple[str, str, str, bool]] = set()
    for sentence in sentences(text):
        if is_question(sentence):
            continue
        lang = "zh" if has_cjk(sentence) else "en"
        source = _second_to_first(sentence, lang) if role == "assistant" else sentence
        hedge = hedge_of(sentence, lang)
        for c in _apply_rules(source, lang, at):
            marker = (c.predicate, c.key()[2], c.evidence, c.negated)
            if marker in seen:
                continue
            seen.add(marker)
            _grade(c, sentence, lang, hedge, role)
            out.append(c)
    return out


def _grade(c: Candidate, sentence: str, lang: str, hedge: str | None, role: str) -> None:
    c.hedged = hedge is not None
    c.explicitness = explicitness(sentence, lang, c.hedged)
    c.confidence = CONF_HEDGED if c.hedged else CONF_EXPLICIT
    if hedge:
        c.meta["hedge"] = hedge
        c.content = "可能：" + c.content if lang == "zh" else "Possibly: " + c.content[:1].lower() + c.content[1:]
    if role == "assistant":
        c.source_type = "inferred"
        c.confidence = min(c.confidence, CONF_INFERRED)
        c.explicitness = min(c.explicitness, CONF_INFERRED)
        c.evidence = sentence
        c.content = ("（助手推测）" if lang == "zh" else "(assistant's inference) ") + c.content


def extract(text: str, *, role: str = "user", at: datetime, model=None) -> list[Candidate]:
    """Rules offline; the LLM extractor when a chat model is given (rules if it fails)."""
    if model is not None:
        from memory.write.extract.llm import ExtractionFailed, extract_llm

        try:
            return extract_llm(model, text, role=role, at=at)
        except ExtractionFailed:
            pass
    return extract_rules(text, role=role, at=at)
