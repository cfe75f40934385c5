"""LLM extraction with structured output (langchain ``with_structured_output``) when a chat model is configured.

The model sees only the one message and returns ``Extraction`` (a list of facts). Models without tool calling
(``with_structured_output`` raises NotImplementedError) are asked for the same JSON in plain text. Whatever the model
says, the same guards as the rules apply: assistant text yields only low-confidence ``inferred`` candidates, hedged
facts get hedged confidence, and unknown predicates become plain ``fact``s.
"""

from __future__ import annotations

import json
import re
from datetime import datetime

from langchain_core.exceptions import OutputParserException
from pydantic import BaseModel, Field, ValidationError

from memory.write.extract.base import CONF_HEDGED, CONF_INFERRED, PREDICATES, Candidate, make

PROMPT = """Extract durable facts about the USER from one chat message (English or Chinese).
Only what the user states about themself: preferences, diet, name / how to be addressed, city and moves, job,
plans and events with dates, budget, communication style. Ignore small talk, questions and requests.
Predicates: {predicates}. Set negated=true for "I no longer ..." / "不再 ...", hedged=true for "maybe" / "可能" /
"还没决定". content: one short third-person sentence in the message's language ("User lives in Hangzhou.").
Message role: {role}. Message time: {at}.
Reply with JSON: {{"facts": [{{"predicate": ..., "object": ..., "content": ..., "hedged": false, "negated": false,
"event_time": null}}]}}
Message:
{text}"""


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


def _ask(model, prompt: str) -> Extraction:
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


def extract_llm(model, text: str, *, role: str = "user", at: datetime) -> list[Candidate]:
    prompt = PROMPT.format(predicates=", ".join(PREDICATES), role=role, at=at.isoformat(), text=text)
    out: list[Candidate] = []
    for f in _ask(model, prompt).facts:
        if not f.object.strip() or not f.content.strip():
            continue
        predicate = f.predicate if f.predicate in PREDICATES else "fact"
        lang = "zh" if re.search(r"[\u4e00-\u9fff]", f.content) else "en"
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
