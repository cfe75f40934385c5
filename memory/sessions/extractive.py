"""The offline (extractive) summariser and the words of summaries and bridges, in English or Chinese.

A summary anchor holds the session's goal (the newest request or stated plan — never a question), the facts the user
stated (read by the offline extractor) and what they decided. A bridge says it to the user the next time: "Last time
you told me that you moved to Lisbon. You decided to fly with TAP. Still open: you asked me to help you pack for
Japan." Whole sentences only, within the token limit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from memory.prompts import BRIDGE_WORDS, SUMMARY_LABELS
from memory.storage.models import utcnow
from memory.text.language import is_chinese
from memory.text.sentences import sentences
from memory.text.tokens import count_tokens, truncate_to_tokens

_GOAL_LINE = re.compile(r"^(?:Goal:|目标[:：])\s*(.+)$", re.MULTILINE)
_GOAL_WORDS = re.compile(
    r"\b(plan|planning|trip|travel|visit|book|looking for|want to|need|help me|going to|itinerary|organi[sz]e)\b|"
    r"规划|计划|帮我|想去|打算|旅行|旅游|预订|订|需要|想要|准备",
    re.IGNORECASE,
)


class Summariser(Protocol):
    def summarise(self, lines: list[tuple[str, str]], previous_goal: str | None, max_tokens: int) -> str: ...

    def bridge(self, lines: list[tuple[str, str]], summary: str | None, max_tokens: int) -> str: ...


_QUESTION = re.compile(
    r"[?？]\s*$|^(?:what|where|who|when|why|how|which|do|does|did|is|are|am|any)\b|吗[?？。]?$|什么|哪里|哪儿|怎么样",
    re.IGNORECASE,
)
_REQUEST = re.compile(
    r"^(?:please |could you |can you |would you |i need help with )|^(?:help|remind|book|find|plan|suggest|recommend|"
    r"give|write|make|show|list|pack|organi[sz]e|draft|translate|summari[sz]e|check|arrange)\b|"
    r"^(?:请|麻烦你?)?(?:帮我|给我|替我|提醒我|安排|规划|推荐)",
    re.IGNORECASE,
)
_DECISION = re.compile(
    r"\bi(?:'ve| have)? decided (?P<how>to|on) (?P<what>.+)|\b(?:let's|i'll|we'll|i'm) go(?:ing)? with (?P<with>.+)|"
    r"\bi chose (?P<chose>.+)|(?:我|咱们|我们)?(?:决定了?|就选|就定)(?P<zh>.+)",
    re.IGNORECASE,
)


def _is_request(sentence: str) -> bool:
    return bool(_REQUEST.search(sentence.strip()))


def _is_question(sentence: str) -> bool:
    return bool(_QUESTION.search(sentence.strip())) and not _is_request(sentence)


def _facts(said: list[str]) -> list[str]:
    """What the user stated about themself (canonical third person), via the offline extractor."""
    from memory.write.extract.extractor import extract_rules  # lazy: only summaries read statements

    out: list[str] = []
    for sentence in said:
        if _is_question(sentence) or _is_request(sentence):
            continue
        for c in extract_rules(sentence, at=utcnow()):
            if c.predicate not in _PROFILE_ONLY and c.content not in out:
                out.append(c.content)
    return out


#: facts the profile already carries into every prompt: a bridge or summary need not repeat them
_PROFILE_ONLY = frozenset({"name", "preferred_name", "communication_style", "language"})
BRIDGE_FACTS = 4


def _decisions(said: list[str]) -> list[str]:
    """'I've decided to fly with TAP' → 'to fly with TAP'; "let's go with the blue one" → 'on the blue one'."""
    out = []
    for m in (_DECISION.search(s) for s in said if not _is_question(s)):
        if m is None:
            continue
        if m.group("zh"):
            out.append(m.group("zh").strip(" 。！"))
        else:
            how = m.group("how") or "on"
            what = m.group("what") or m.group("with") or m.group("chose")
            out.append(f"{how} {what.strip(' .!')}")
    return out


def _goal(said: list[str], previous: str | None) -> str | None:
    """The newest request or stated plan — never a question the user asked."""
    for sentence in reversed(said):
        if not _is_question(sentence) and (_is_request(sentence) or _GOAL_WORDS.search(sentence)):
            return sentence
    return previous


@dataclass
class ExtractiveSummariser:
    """Offline: the session's goal, the facts the user stated and what they decided — not the questions they asked."""

    points: int = 4

    def summarise(self, lines: list[tuple[str, str]], previous_goal: str | None, max_tokens: int) -> str:
        said = [s for role, text in lines if role == "user" for s in sentences(text)]
        zh = is_chinese(" ".join(said) or (previous_goal or ""))
        t = SUMMARY_LABELS["zh" if zh else "en"]
        goal = _goal(said, previous_goal)
        facts = _facts(said)[: self.points]
        decided = _decisions(said)
        out = [t["goal"] + goal] if goal else []
        if facts:
            out.append(t["facts"] + t["sep"].join(f.rstrip("。.") for f in facts))
        if decided:
            out.append(t["decided"] + t["sep"].join(decided))
        return _cap("\n".join(out) or _fallback(lines), max_tokens)

    def bridge(self, lines: list[tuple[str, str]], summary: str | None, max_tokens: int) -> str:
        said = [s for role, text in lines if role == "user" for s in sentences(text)]
        lang = "zh" if is_chinese(" ".join(said) + (summary or "")) else "en"
        facts = _summary_items(summary, "facts") + [f.rstrip("。.") for f in _facts(said)]
        decided = _summary_items(summary, "decided") + _decisions(said)
        goal, latest = current_goal([summary] if summary else []), _goal(said, None)
        tasks = [t for t in dict.fromkeys([goal, latest]) if t]
        facts = list(dict.fromkeys(facts))[-BRIDGE_FACTS:]  # the newest few: the profile holds the rest
        # nothing a rule understood: say back what the user mentioned (their episodes), never "nothing new"
        mentioned = [] if facts or decided or tasks else _statements(said)[-BRIDGE_MENTIONED:]
        return bridge_text(facts, list(dict.fromkeys(decided)), tasks, lang, max_tokens, mentioned=mentioned)


#: statements said back in a bridge when no rule understood anything the user said
BRIDGE_MENTIONED = 2
_SMALL_TALK = re.compile(
    r"^(?:hi|hello|hey|thanks?|thank you|ok(?:ay)?|bye|good (?:morning|night|evening)|你好|谢谢|好的|再见|嗯)\b",
    re.IGNORECASE,
)


def _statements(said: list[str]) -> list[str]:
    """The user's sentences that state something: not questions, requests or small talk (whole, as said)."""
    return [
        s.strip()
        for s in said
        if len(s.split()) >= 4 or (is_chinese(s) and len(s) >= 6)
        if not (_is_question(s) or _is_request(s) or _SMALL_TALK.match(s.strip()))
    ]


def _summary_items(summary: str | None, line: str) -> list[str]:
    """The items of an offline summary's "Facts: " / "事实：" (or decided) line, in either language."""
    labels = tuple(words[line].strip() for words in SUMMARY_LABELS.values())
    out = []
    for line in (summary or "").splitlines():
        for label in labels:
            if line.startswith(label):
                out += [p.strip() for p in re.split(r"[;；]\s*", line[len(label) :]) if p.strip()]
    return out


def bridge_text(
    facts: list[str],
    decided: list[str],
    tasks: list[str],
    lang: str,
    max_tokens: int,
    *,
    mentioned: list[str] | None = None,
) -> str:
    """'Last time you told me that you live in Lisbon; …. You decided …. Still open: …' within ``max_tokens``;
    with only ``mentioned`` statements (the user's words, no fact extracted): 'Last time you mentioned that …'."""
    from memory.text.voice import said_to_you, sentence_end, you

    zh, w = lang == "zh", BRIDGE_WORDS["zh" if lang == "zh" else "en"]
    said = [you(f, lang).rstrip("。.") for f in facts]
    said = [s if zh else s[:1].lower() + s[1:] for s in said]
    if not said and mentioned:
        said = [said_to_you(m, lang).rstrip("。.!！") for m in mentioned]
        w = {**w, "told": w["mentioned"]}
    parts: list[str] = []
    asked = [_task(t, zh) for t in tasks if _is_request(t)]
    if asked:
        parts.append(w["asked"] + w["asked_sep"].join(asked))
    plans = [_task(t, zh) for t in tasks if not _is_request(t)]
    if plans:
        parts.append(w["working"] + plans[-1])
    decisions = [w["decided"] + w["decided_sep"].join(decided)] if decided else []
    for n in range(len(said), -1, -1):  # as many facts as fit, whole sentences only
        # one clause per fact, split by semicolons: a fact retracted later is dropped on its own
        lead = [w["told"] + w["told_sep"].join(said[:n])] if n else []
        text = " ".join(sentence_end(p, lang) for p in lead + decisions + parts)
        if count_tokens(text) <= max_tokens or n == 0:
            break
    return _cap(text or w["nothing"], max_tokens)


def _task(request: str, zh: bool) -> str:
    """'Help me pack for Japan.' → 'help you pack for Japan'; '帮我安排行程' → '帮你安排行程'."""
    text = request.strip().rstrip("。.!！?？")
    if zh:
        return re.sub(r"^(?:请|麻烦你?)", "", text).replace("我", "你")
    text = re.sub(r"^(?:please |could you |can you |would you )", "", text, flags=re.IGNORECASE)
    text = re.sub(r"\bme\b", "you", re.sub(r"\bmy\b", "your", text, flags=re.IGNORECASE), flags=re.IGNORECASE)
    text = re.sub(r"\bI(?:'m| am)\b", "you're", text)
    text = re.sub(r"\bI\b", "you", text)
    text = re.sub(r"\bfor you$", "", text).strip()
    return text[:1].lower() + text[1:]


def _fallback(lines: list[tuple[str, str]]) -> str:
    return " / ".join(text for _, text in lines[-2:]) or "(empty)"


def _cap(text: str, max_tokens: int) -> str:
    return text if count_tokens(text) <= max_tokens else truncate_to_tokens(text, max_tokens - 1) + "…"


def current_goal(summaries: list[str]) -> str | None:
    """The newest ``Goal:`` line of the given summaries (oldest first), if any."""
    for text in reversed(summaries):
        found = _GOAL_LINE.findall(text or "")
        if found:
            return found[-1].strip()
    return None


def retrieval_query(text: str, goal: str | None, *, short: int = 32) -> str:
    """Short follow-ups ("make the hotel cheaper") are searched together with the session's goal."""
    if not goal or goal in text or count_tokens(text) > short:
        return text
    return f"{text}\n{goal}"
