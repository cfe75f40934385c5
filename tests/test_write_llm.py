"""The LLM extractor through langchain fake chat models (the only fake: the model boundary)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from memory.write.extract.extractor import extract
from memory.write.extract.llm import Extraction

AT = datetime(2025, 5, 1, tzinfo=UTC)
FACTS = {
    "facts": [
        {"predicate": "lives_in", "object": "Shanghai", "content": "User lives in Shanghai."},
        {"predicate": "likes", "object": "jazz", "content": "User likes jazz.", "hedged": True},
    ]
}


class ToolCallingFake(GenericFakeChatModel):
    """A fake that supports tool binding, so ``with_structured_output`` takes its real tool-call path."""

    bound: list = []

    def bind_tools(self, tools, **kwargs):
        self.bound = list(tools)  # the fake just remembers what it was asked for
        return self


def _tool_model(payload):
    msg = AIMessage(content="", tool_calls=[{"name": "Extraction", "args": payload, "id": "call_1"}])
    return ToolCallingFake(messages=iter([msg]))


def test_structured_output_via_tool_calls():
    cands = extract("I moved to Shanghai and maybe I like jazz", role="user", at=AT, model=_tool_model(FACTS))
    got = [(c.predicate, c.object, c.extractor) for c in cands]
    assert got == [("lives_in", "Shanghai", "llm"), ("likes", "jazz", "llm")]
    assert cands[1].hedged and cands[1].confidence < cands[0].confidence


def test_plain_json_reply_when_the_model_cannot_call_tools():
    model = GenericFakeChatModel(messages=iter([AIMessage(content="```json\n" + json.dumps(FACTS) + "\n```")]))
    cands = extract("I moved to Shanghai", role="user", at=AT, model=model)
    assert {c.object for c in cands} == {"Shanghai", "jazz"}


def test_assistant_text_through_the_llm_is_only_inferred():
    cands = extract("Since you live in Shanghai…", role="assistant", at=AT, model=_tool_model(FACTS))
    assert cands and all(c.source_type == "inferred" and c.confidence <= 0.3 for c in cands)


def test_garbage_reply_falls_back_to_the_rules():
    model = GenericFakeChatModel(messages=iter([AIMessage(content="sorry, I can't do JSON")]))
    cands = extract("我住在杭州。", role="user", at=AT, model=model)
    assert [(c.predicate, c.object, c.extractor) for c in cands] == [("lives_in", "杭州", "rules")]


def test_schema_is_the_structured_output_target():
    model = _tool_model(FACTS)
    extract("I moved to Shanghai", role="user", at=AT, model=model)
    assert model.bound == [Extraction]


def test_tool_call_with_invalid_arguments_falls_back_to_the_rules():
    """A model that calls the tool with arguments outside the schema must not crash the turn."""
    model = _tool_model({"facts": [{"predicate": 42, "object": None}]})
    cands = extract("我住在杭州。", role="user", at=AT, model=model)
    assert [(c.predicate, c.object, c.extractor) for c in cands] == [("lives_in", "杭州", "rules")]
