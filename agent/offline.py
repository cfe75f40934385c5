"""The offline chat model: deterministic, honest about being offline, and it speaks like a person.

It is a real LangChain ``BaseChatModel`` (invoke and stream), so the graph treats it exactly like ``ChatOpenAI``. The
graph hands it the same structured data the prompt was composed from — profile fields, injected memories, the bridge,
whether this is the session's first turn — as an :class:`OfflineContext` (the ``memlens`` call argument). It never
parses the prompt text, so the prompt's format (fencing, headers, templates) may change freely. Its fixed sentences
are in :data:`memory.prompts.OFFLINE_REPLIES`. Replies are in the user's language, in plain sentences ("You live in
Lisbon — you told me on 24 November."), and say once per session that this is the offline engine. "What do you
remember about me?" gets the profile and the most important memories even when none passed the relevance threshold.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult

from memory.prompts import OFFLINE_REPLIES
from memory.retrieval.updates import asks_past
from memory.text.language import CJK_RUN, is_chinese
from memory.text.lines import corrected, spoken_line
from memory.text.voice import profile_sentence, sentence_end, told_on
from memory.vocab import MemoryType, SourceType, Update
from memory.write.extract.base import PREDICATES, is_question

_QUESTION = re.compile(
    r"[?？]\s*$|^(what|where|who|when|why|how|which|do|does|did|is|are|am|can|could|should|would|will|any)\b|"
    r"吗|什么|哪|怎么|多少|几|谁|是否|呢",
    re.IGNORECASE,
)
_REQUEST = re.compile(
    r"^(?:please |pls |could you |can you |would you )?(?:help|suggest|recommend|plan|book|find|tell|give|write|"
    r"make|show|list|remind|pack)\b|帮我|给我|推荐|安排|规划|告诉我|提醒我",
    re.IGNORECASE,
)
_ABOUT_ME = re.compile(
    r"\b(?:what do you (?:know|remember) about me|what have you (?:learned|remembered) about me|tell me about me|"
    r"who am i|what do you know of me)\b|"
    r"你(?:都)?(?:记得|知道|了解)(?:关于)?我(?:的)?(?:什么|哪些|多少)|关于我你(?:记得|知道)",
    re.IGNORECASE,
)
#: a question word → the profile fields that answer it
_FIELD_HINTS = {
    "city": r"\blive|\bcity|\bwhere\b|住",
    "display_name": r"\bname\b|叫什么|名字",
    "preferred_name": r"\bcall me\b|\bname\b|称呼|叫我",
    "budget": r"budget|afford|spend|预算|多少钱",
    "dietary": r"\beat\b|food|dinner|lunch|breakfast|restaurant|diet|吃|饭|菜|餐",
    "occupation": r"\bjob\b|\bwork\b|occupation|工作|职业",
    "interests": r"\blike\b|hobb|interest|listen|music|weekend|喜欢|爱好|周末",
}
PERSON_EDIT = str(SourceType.PERSON_EDIT)
_CHUNK = re.compile(r"\S{1,6}\s*|\s+")
SHOWN_MEMORIES = 3
ABOUT_ME_MEMORIES = 5


@dataclass
class Recalled:
    """One memory as the offline engine needs it."""

    content: str
    created_at: datetime | None = None
    importance: float = 0.5
    source_type: str = "user-stated"
    predicate: str | None = None  # a memory restating a profile field already said is not said twice
    type: str = MemoryType.FACT
    #: ``earlier``: a newer memory replaced it (on ``replaced_on``): said as history, never as the current value
    update: str | None = None
    replaced_on: datetime | None = None


@dataclass
class OfflineContext:
    """What the graph composed the prompt from, as data: the offline engine's only input besides the message."""

    profile: dict[str, Any] = field(default_factory=dict)
    profile_dates: dict[str, datetime] = field(default_factory=dict)
    #: field → where its value came from; a person's correction is said as such, never as the user's own words
    profile_sources: dict[str, str] = field(default_factory=dict)
    memories: list[Recalled] = field(default_factory=list)
    important: list[Recalled] = field(default_factory=list)
    bridge: str | None = None
    first_turn: bool = True
    now: datetime | None = None


def is_about_me(text: str) -> bool:
    """ "What do you remember about me?" / "你记得我什么" — answered from the profile and the top memories."""
    return bool(_ABOUT_ME.search(text))


def offline_reply(user: str, ctx: OfflineContext | None = None) -> str:
    """The whole reply from the user's message and the structured context (deterministic)."""
    ctx = ctx or OfflineContext()
    lang = "zh" if is_chinese(user) else "en"
    t = OFFLINE_REPLIES[lang]
    parts: list[str] = []
    if ctx.first_turn:
        name = ctx.profile.get("preferred_name") or ctx.profile.get("display_name")
        parts.append((t["hello_name"].format(name=name) if name else "") + t["offline"])
    if ctx.first_turn and ctx.bridge and is_chinese(ctx.bridge) == (lang == "zh"):  # never mix languages in a reply
        parts.append(ctx.bridge)
    if is_about_me(user):
        parts.append(_about_me(ctx, lang, t))
    elif _QUESTION.search(user.strip()) or _REQUEST.search(user.strip()):
        parts.append(_answer(user, ctx, lang, t))
    else:
        parts.append(t["noted"])
    return "\n\n".join(p for p in parts if p)


def _unsaid(memories: list[Recalled], said_fields: set[str]) -> list[Recalled]:
    """Memories that do not restate a profile field the reply already says ("You live in Lisbon"); an earlier value
    of the field is history the profile does not say."""
    return [
        m
        for m in memories
        if m.update == Update.EARLIER or PREDICATES.get(m.predicate or "", (None,) * 4)[3] not in said_fields
    ]


def in_time(memories: list[Recalled], question: str) -> list[Recalled]:
    """The memories for a question, as it asks in time: about the past ("Where did I work before?", 我以前住在哪里?)
    the earlier values come first, said as earlier; about now, an earlier value is left out (the prompt still shows
    it, labelled, to a language model)."""
    if asks_past(question):
        return sorted(memories, key=lambda m: m.update != Update.EARLIER)
    return [m for m in memories if m.update != Update.EARLIER]


def _profile_lines(ctx: OfflineContext, lang: str, names: list[str] | None = None) -> list[str]:
    out = []
    for name, value in ctx.profile.items():
        if names is not None and name not in names:
            continue
        said = profile_sentence(name, value, lang)
        if said:
            if ctx.profile_sources.get(name) == PERSON_EDIT:
                out.append(sentence_end(said + corrected(ctx.profile_dates.get(name), lang), lang))
            else:
                out.append(sentence_end(said + told_on(ctx.profile_dates.get(name), lang, ctx.now), lang))
    return out


def speakable(memories: list[Recalled]) -> list[Recalled]:
    """What the engine can say back as the user's: not the agent's own earlier words, not the user's questions."""
    return [
        m
        for m in memories
        if m.type != MemoryType.EPISODE or (m.source_type == SourceType.USER_STATED and not is_question(m.content))
    ]


_FILLER = frozenset(
    re.findall(
        r"\w+",
        "you your are is am be was were the a an and of to in on at with for that this it me told earlier today now "
        "like likes love into also there live lives moved",
    )
)


def _words(line: str) -> set[str]:
    core = re.split(r" — |（", line)[0].lower()
    return set(re.findall(r"\w+", core)) - _FILLER if core.isascii() else set(core)


def _add_new(lines: list[str], extra: list[str]) -> list[str]:
    """Append lines that say something the earlier ones did not ("You like jazz" after "You are into jazz")."""
    out = list(lines)
    for line in extra:
        seen = set().union(*(_words(x) for x in out)) if out else set()
        if line not in out and not _words(line) <= seen:
            out.append(line)
    return out


def _about_me(ctx: OfflineContext, lang: str, t: dict[str, str]) -> str:
    top = sorted(_unsaid(speakable(ctx.important), set(ctx.profile)), key=lambda m: -m.importance)
    top = top[:ABOUT_ME_MEMORIES]
    lines = _add_new(_profile_lines(ctx, lang), [spoken_line(m, lang, ctx.now) for m in top])
    if not lines:
        return t["nothing"]
    return t["about_me"] + "".join(f"\n- {line}" for line in lines)


#: words a question shares with any memory: they say nothing about what it asks
_QUESTION_FILLER = _FILLER | frozenset(
    re.findall(
        r"\w+",
        "what where who when why how which do does did can could should would will any some my i we us about "
        "remember know tell give help suggest recommend ideas idea something anything please for up now again user not "
        "does doesn don",
    )
)
#: two-character words of a question that say nothing about its topic ("你还记得我的…吗", "比较好")
_ZH_FILLER = frozenset(
    re.findall(
        r"\S+",
        "用户 你还 还记 记得 得我 我的 的吗 比较 较好 哪里 什么 怎么 一下 帮我 给我 告诉 我现 现在 在住 住在 在哪",
    )
)


def _topic_words(text: str) -> set[str]:
    """A text's topic words: English content words (and what they may be inflected from), Chinese two-character
    words, and the cross-lingual lexicon's concepts (so "dinner" meets 晚饭 and "trip" meets 旅行)."""
    from memory.retrieval.crosslingual import base_forms, chinese_groups, english_groups, lexicon

    low = text.lower()
    words = {b for w in re.findall(r"[a-z][a-z']+", low) if w not in _QUESTION_FILLER for b in base_forms(w)}
    words |= {run[i : i + 2] for run in CJK_RUN.findall(text) for i in range(len(run) - 1)} - _ZH_FILLER
    lex = lexicon()
    words |= {f"#{g}" for g in english_groups(low, lex) | chinese_groups(text, lex)}
    return {w for w in words if len(w) > 2 or CJK_RUN.match(w) or w.startswith("#")}


def on_topic(question: str, memories: list[Recalled], wanted: list[str]) -> list[Recalled]:
    """The memories that answer ``question``: those stating a profile field it asks about, or sharing a topic word
    or concept with it (the caller falls back to the best-ranked one when none does and the profile says nothing)."""
    asked = _topic_words(question)
    fields = set(wanted)
    return [
        m
        for m in memories
        if PREDICATES.get(m.predicate or "", (None,) * 4)[3] in fields or asked & _topic_words(m.content)
    ]


def _answer(user: str, ctx: OfflineContext, lang: str, t: dict[str, str]) -> str:
    wanted = [name for name, hint in _FIELD_HINTS.items() if re.search(hint, user, re.IGNORECASE)]
    said = {name for name in wanted if ctx.profile.get(name) not in (None, "", [])}
    candidates = in_time(_unsaid(speakable(ctx.memories), said), user)
    topical = on_topic(user, candidates, wanted)  # an earlier value is left for a question about the past: on topic
    shown = [m for m in candidates if m in topical or m.update == Update.EARLIER][:SHOWN_MEMORIES]
    if not shown and not said and candidates:  # nothing names the question's topic: the recall's best
        shown = candidates[:1]
    memories = [spoken_line(m, lang, ctx.now) for m in shown]
    lines = _add_new(_profile_lines(ctx, lang, wanted), memories)
    if not lines:
        return t["unknown"]
    return t["answer"] + ("" if lang == "zh" else " ") + " ".join(lines)


def _user_text(messages: list[BaseMessage]) -> str:
    return next((str(m.content) for m in reversed(messages) if isinstance(m, HumanMessage)), "")


class OfflineChatModel(BaseChatModel):
    """Deterministic stand-in for a chat model; streams its reply in small chunks.

    Pass ``memlens=OfflineContext(...)`` to ``invoke``/``stream`` (the graph does); without it the reply says only
    what the engine is and that it has nothing to go on.
    """

    @property
    def _llm_type(self) -> str:
        return "memlens-offline"

    @property
    def model_name(self) -> str:
        return "offline"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        reply = offline_reply(_user_text(messages), kwargs.get("memlens"))
        return ChatResult(generations=[ChatGeneration(message=AIMessage(reply))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for piece in _CHUNK.findall(offline_reply(_user_text(messages), kwargs.get("memlens"))):
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=piece))
            if run_manager:
                run_manager.on_llm_new_token(piece, chunk=chunk)
            yield chunk
