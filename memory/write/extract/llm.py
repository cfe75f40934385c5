"""LLM extraction with structured output (langchain ``with_structured_output``) when a chat model is configured.

The model sees only the one message, fenced as data (the request's words: :mod:`memory.prompts`), and returns
``Extraction`` (a list of facts). Models without tool calling
(``with_structured_output`` raises NotImplementedError) are asked for the same JSON in plain text. Whatever the model
says, the same guards as the rules apply: assistant text yields only low-confidence ``inferred`` candidates, hedged
facts get hedged confidence, and unknown predicates become plain ``fact``s.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import TYPE_CHECKING

from langchain_core.exceptions import OutputParserException
from pydantic import BaseModel, Field, ValidationError

from memory.prompts import extraction_prompt
from memory.text.language import has_cjk
from memory.write.extract.base import CONF_HEDGED, CONF_INFERRED, PREDICATES, Candidate, make

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from memory.config import Settings


class Fact(BaseModel):
    predicate: str = Field(description="one of the listed predicates, or 'fact'")
    object: str
    content: str = Field(description="one third-person sentence")
    hedged: bool = False
    negated: bool = False
    event_time: str | None = Field(None, description="ISO date of a planned event, if any")


class Extraction(BaseModel):
    """Facts about the user stated in one message."""

    facts: list[Fact] = Field(default_factory=list)


class ExtractionFailed(Exception):
    """The model gave no usable structured answer (the caller falls back to the rules)."""


def _ask(model: BaseChatModel, prompt: str) -> Extraction:
    try:
        result = model.with_structured_output(Extraction).invoke(prompt)
    except (ValidationError, OutputParserException, json.JSONDecodeError) as exc:  # the model answered, badly
        raise ExtractionFailed(f"unparseable structured output: {exc}") from exc
    except NotImplementedError:
        reply = model.invoke(prompt)
        text = re.sub(r"^```(?:json)?|```$", "", str(reply.content).strip(), flags=re.MULTILINE).strip()
        try:
            return Extraction.model_validate(json.loads(text))
        except (json.JSONDecodeError, ValidationError) as exc:
            raise ExtractionFailed(f"unparseable extraction: {exc}") from exc
    if isinstance(result, dict):
        result = Extraction.model_validate(result)
    if not isinstance(result, Extraction):
        raise ExtractionFailed(f"unexpected structured output {type(result).__name__}")
    return result


def _event_time(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        return None
    from datetime import UTC

    return when if when.tzinfo else when.replace(tzinfo=UTC)


def extract_llm(
    model: BaseChatModel,
    text: str,
    *,
    role: str = "user",
    at: datetime,
    previous: str | None = None,
    recent: list[str] | None = None,
) -> list[Candidate]:
    """The model's facts of one message, read with the message it answers (``previous``) and the session's messages
    before that (``recent`` without ``previous``), each fenced as context (memory.prompts.extraction_prompt)."""
    earlier = [m for m in recent or [] if m != previous]
    prompt = extraction_prompt(text, role=role, at=at, predicates=list(PREDICATES), previous=previous, earlier=earlier)
    out: list[Candidate] = []
    for f in _ask(model, prompt).facts:
        if not f.object.strip() or not f.content.strip():
            continue
        predicate = f.predicate if f.predicate in PREDICATES else "fact"
        lang = "zh" if has_cjk(f.content) else "en"
        c = make(
            predicate,
            f.object,
            f.content.strip(),
            lang=lang,
            evidence=text[:200],
            negated=f.negated,
            event_time=_event_time(f.event_time),
            extractor="llm",
        )
        c.hedged = f.hedged
        c.explicitness = 0.5 if f.hedged else 0.85
        c.confidence = CONF_HEDGED if f.hedged else c.confidence
        if role == "assistant":
            c.source_type = "inferred"
            c.confidence = min(c.confidence, CONF_INFERRED)
            c.explicitness = min(c.explicitness, CONF_INFERRED)
        c.meta["display"] = f.object
        out.append(c)
    return out


def configured_model(settings: Settings) -> BaseChatModel:
    """The OpenAI-compatible chat model the settings name (``MEMLENS_LLM_BASE_URL`` and/or an API key), for
    extraction with structured output; a clear error when none is configured (the rules need no model)."""
    from langchain_openai import ChatOpenAI

    from memory.errors import ConfigError

    key = settings.api_key()
    if not key and not settings.llm_base_url:
        raise ConfigError("LLM extraction needs MEMLENS_LLM_BASE_URL or MEMLENS_LLM_API_KEY (or OPENAI_API_KEY)")
    return ChatOpenAI(
        model=settings.llm_model or "gpt-4o-mini",
        base_url=settings.llm_base_url,
        api_key=key or "not-needed",
        temperature=0,
        max_retries=1,
        timeout=120,
    )
