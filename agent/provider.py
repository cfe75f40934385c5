"""Which chat model the settings choose: a rule with no model library behind it, so the back office can say what
answers without loading LangChain (``agent.llm`` builds the model and re-exports these)."""

from __future__ import annotations

from memory.config import Settings

DEFAULT_MODEL = "gpt-4o-mini"


def provider(settings: Settings) -> str:
    """The provider the settings resolve to (auto → openai or offline)."""
    if settings.llm_provider != "auto":
        return settings.llm_provider
    return "openai" if settings.llm_base_url or settings.api_key() else "offline"
