"""Chat-model factory: the one seam through which the agent gets its model.

``MEMLENS_LLM_PROVIDER=auto`` (default) picks ``ChatOpenAI`` when a base URL or an API key is configured (OpenAI,
vLLM, Ollama, llama.cpp — anything OpenAI-compatible) and the offline engine otherwise. Tests and plugins register
their own factories by name (``register_chat_model``) and select them with the same setting, so a fake model
travels exactly the path a real one does.
"""

from __future__ import annotations

from collections.abc import Callable

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage

from agent.offline import OfflineChatModel
from agent.provider import DEFAULT_MODEL, provider
from memory import prompts
from memory.config import Settings
from memory.errors import ConfigError
from memory.sessions.summary import ExtractiveSummariser

ChatFactory = Callable[[Settings], BaseChatModel]
LOCAL_PLACEHOLDER_KEY = "not-needed"  # local servers ignore the key, but ChatOpenAI refuses to start without one
_REGISTRY: dict[str, ChatFactory] = {}


def register_chat_model(name: str, factory: ChatFactory) -> None:
    """Make ``MEMLENS_LLM_PROVIDER=<name>`` build the agent's model with ``factory(settings)``."""
    if name in ("auto", "offline", "openai"):
        raise ConfigError(f"{name!r} is a built-in provider")
    _REGISTRY[name] = factory


def unregister_chat_model(name: str) -> None:
    _REGISTRY.pop(name, None)


def make_chat_model(settings: Settings) -> BaseChatModel:
    name = provider(settings)
    if name == "offline":
        return OfflineChatModel()
    if name == "openai":
        return _openai(settings)
    if name in _REGISTRY:
        return _REGISTRY[name](settings)
    raise ConfigError(f"MEMLENS_LLM_PROVIDER={name!r} is neither built in nor registered")


def _openai(settings: Settings) -> BaseChatModel:
    from langchain_openai import ChatOpenAI

    key = settings.api_key()
    if not key and not settings.llm_base_url:
        raise ConfigError("the openai provider needs MEMLENS_LLM_API_KEY (or OPENAI_API_KEY) or MEMLENS_LLM_BASE_URL")
    return ChatOpenAI(
        model=settings.llm_model or DEFAULT_MODEL,
        base_url=settings.llm_base_url,
        api_key=key or LOCAL_PLACEHOLDER_KEY,
        temperature=settings.llm_temperature,
        max_retries=1,
        timeout=120,
    )


def is_offline(model: BaseChatModel) -> bool:
    return isinstance(model, OfflineChatModel)


class LLMSummariser:
    """Summaries and bridges by the configured chat model (memory.sessions.summary.Summariser protocol)."""

    def __init__(self, model: BaseChatModel) -> None:
        self.model = model

    def _ask(self, instruction: str, lines: list[tuple[str, str]], extra: str = "") -> str:
        """The conversation goes in fenced like memory text in a prompt: data, never instructions."""
        reply = self.model.invoke([SystemMessage(instruction), HumanMessage(prompts.fenced_conversation(lines, extra))])
        return str(reply.content).strip()

    def summarise(self, lines: list[tuple[str, str]], previous_goal: str | None, max_tokens: int) -> str:
        text = self._ask(prompts.summary_request(previous_goal, max_tokens), lines)
        if not text:
            return ExtractiveSummariser().summarise(lines, previous_goal, max_tokens)
        return text

    def bridge(self, lines: list[tuple[str, str]], summary: str | None, max_tokens: int) -> str:
        extra = prompts.BRIDGE_CONTEXT.format(summary=summary) if summary else ""
        text = self._ask(prompts.bridge_request(max_tokens), lines, extra)
        return text or ExtractiveSummariser().bridge(lines, summary, max_tokens)


def make_summariser(model: BaseChatModel) -> ExtractiveSummariser | LLMSummariser:
    """The offline engine summarises extractively; any real model summarises itself."""
    return ExtractiveSummariser() if is_offline(model) else LLMSummariser(model)
