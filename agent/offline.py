"""The offline chat model: deterministic, honest about being offline, and it shows what it remembered.

It is a real LangChain ``BaseChatModel`` (invoke and stream), so the graph treats it exactly like ``ChatOpenAI``. It
reads only the composed prompt — the same sections a real model would see — which makes it a faithful window into
what the memory layer injected.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage, SystemMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult

from memory.sessions.prompt import HEADERS
from memory.sessions.summary import current_goal, is_chinese

_QUESTION = re.compile(
    r"[?？]\s*$|^(what|where|who|when|why|how|which|do|does|did|is|are|can|could|should|would|will)\b|"
    r"吗|什么|哪|怎么|多少|几|谁|是否|呢",
    re.IGNORECASE,
)
_CHUNK = re.compile(r"\S{1,6}\s*|\s+")
SHOWN_MEMORIES = 3


def sections(system: str) -> dict[str, list[str]]:
    """Split the composed system message back into its sections (lines under each header)."""
    out: dict[str, list[str]] = {}
    current = None
    names = {v: k for k, v in HEADERS.items()}
    for line in system.splitlines():
        if line in names:
            current = names[line]
            out[current] = []
        elif current and line.strip():
            out[current].append(line.strip())
    return out


def _quote(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def offline_reply(messages: list[BaseMessage]) -> str:
    """The whole reply, from the prompt alone (deterministic)."""
    system = next((str(m.content) for m in messages if isinstance(m, SystemMessage)), "")
    user = next((str(m.content) for m in reversed(messages) if isinstance(m, HumanMessage)), "")
    found = sections(system)
    zh = is_chinese(user)
    t = _ZH if zh else _EN
    parts = [t["offline"]]
    if found.get("bridge"):
        parts.append(t["bridge"] + " ".join(found["bridge"]))
    if found.get("profile"):
        parts.append(t["profile"] + t["sep"].join(line.removeprefix("- ") for line in found["profile"]))
    goal = current_goal(["\n".join(found.get("summary", []))])
    if goal:
        parts.append(t["goal"] + goal)
    memories = [m.removeprefix("- ") for m in found.get("memories", [])][:SHOWN_MEMORIES]
    if memories:
        parts.append(t["memories"] + "".join(f"\n- {m}" for m in memories))
    if not (found.get("bridge") or found.get("profile") or memories or goal):
        parts.append(t["nothing"])
    parts.append(_answer(user, memories, t, known=bool(found.get("profile") or found.get("bridge"))))
    return "\n\n".join(parts)


def _answer(user: str, memories: list[str], t: dict[str, str], *, known: bool) -> str:
    said = _quote(user)
    if _QUESTION.search(user.strip()):
        if memories:
            best = memories[0].split("] ", 1)[-1]
            return t["answer"].format(q=said, m=_quote(best, 300))
        return t["above" if known else "unknown"].format(q=said)
    return t["noted"].format(q=said)


_EN = {
    "offline": "(Offline mode: no language model is configured, so this reply is assembled from what I remember, "
    "not written by a model.)",
    "bridge": "Carried over from our last session: ",
    "profile": "What I know about you: ",
    "sep": "; ",
    "goal": "What we are working on: ",
    "memories": "What I remember that may be relevant:",
    "nothing": "I do not remember anything about you yet.",
    "answer": 'You asked: "{q}". The closest thing I remember: {m}',
    "unknown": 'You asked: "{q}". I have nothing stored that answers it yet.',
    "above": 'You asked: "{q}". No stored memory matches it closely; what I know about you is above.',
    "noted": 'Noted: "{q}".',
}
_ZH = {
    "offline": "（离线模式：没有配置语言模型，这条回复是根据我记住的内容拼出来的，不是模型写的。）",
    "bridge": "上次会话的衔接：",
    "profile": "我知道的关于你的信息：",
    "sep": "；",
    "goal": "我们正在做的事：",
    "memories": "可能相关的记忆：",
    "nothing": "我还没有记住关于你的任何信息。",
    "answer": "你问：“{q}”。我记得最相关的是：{m}",
    "unknown": "你问：“{q}”。我还没有能回答它的记忆。",
    "above": "你问：“{q}”。没有特别匹配的记忆；我知道的关于你的信息都在上面。",
    "noted": "记下了：“{q}”。",
}


class OfflineChatModel(BaseChatModel):
    """Deterministic stand-in for a chat model; streams its reply in small chunks."""

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
        return ChatResult(generations=[ChatGeneration(message=AIMessage(offline_reply(messages)))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for piece in _CHUNK.findall(offline_reply(messages)):
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=piece))
            if run_manager:
                run_manager.on_llm_new_token(piece, chunk=chunk)
            yield chunk
