"""Request and error bodies of the REST API (validated by pydantic; the service validates the text itself again)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints

VISIBLE = r"^[^\x00]*[^\s\x00-\x1f][^\x00]*$"
#: what ``memory.validate`` accepts, said in the schema: an id or a text has something visible in it and no NUL
#: (a text longer than the server's MEMLENS_MAX_MESSAGE_CHARS is still a 400: the limit is a setting)
IdText = Annotated[str, StringConstraints(min_length=1, max_length=10_000, pattern=VISIBLE)]
Text = Annotated[str, StringConstraints(min_length=1, pattern=VISIBLE)]
#: an agent id, as ``memory.validate.AGENT_ID_RE``
AgentId = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_.:-]{1,64}$")]
Id = Field(min_length=1, max_length=10_000, pattern=VISIBLE)


def whole(value: Any) -> Any:
    """JSON Schema counts 5.0 as an integer; strict pydantic would not (and must still refuse true and "5")."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


#: a result count (mem0's top_k / limit)
Count = Annotated[int, Field(ge=0, le=1000), BeforeValidator(whole)]


class Message(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    role: Literal["user", "assistant", "system", "tool"] = "user"
    content: Text


class AddRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        json_schema_extra={
            "examples": [
                {"messages": "I moved to Hangzhou last month", "user_id": "alice"},
                {
                    "messages": [{"role": "user", "content": "我不吃辣"}, {"role": "assistant", "content": "记住了"}],
                    "user_id": "王芳",
                    "agent_id": "travel-bot",
                    "metadata": {"app": "trip-planner"},
                },
            ]
        },
    )
    messages: Text | Annotated[list[Message], Field(min_length=1)] = Field(
        description="Text, or a conversation of {role, content} messages."
    )
    user_id: str = Id
    agent_id: AgentId | None = None
    run_id: IdText | None = Field(None, description="Session the messages belong to (default: memory-api).")
    metadata: dict[str, Any] | None = None
    infer: bool = Field(True, description="True: the write pipeline extracts memories; False: store user text as is.")


class SearchRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        json_schema_extra={"examples": [{"query": "where does she live?", "user_id": "alice", "limit": 5}]},
    )
    query: Text
    user_id: str = Id
    agent_id: AgentId | None = Field(None, description="Only this agent's memories (default: every agent of the user).")
    run_id: IdText | None = Field(None, description="Only memories written in this session.")
    limit: Count | None = Field(None, description="Most results (mem0's default: 20); top_k is the same.")
    top_k: Count | None = None
    threshold: float | None = Field(
        None,
        ge=-1.0,
        le=1.0,
        description="mem0's cut (default 0.1, on the cosine-similarity score, 0 to 1); with cut=calibrated, the cut "
        "on calibrated relevance (-1 turns it off).",
    )
    cut: Literal["mem0", "calibrated"] | None = Field(None, description="mem0 (default) or MemLens's calibrated cut.")
    filters: dict[str, Any] | None = Field(
        None,
        description="mem0 filters on the metadata given at add time (eq ne gt gte lt lte in nin contains "
        "icontains, '*', AND/OR/NOT), applied before the limit.",
    )


class UpdateRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid", strict=True, json_schema_extra={"examples": [{"text": "Lives in Hangzhou"}]}
    )
    text: Text


class ChatRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        json_schema_extra={
            "examples": [{"user_id": "alice", "session_id": "trip", "message": "Any hotel ideas for my next visit?"}]
        },
    )
    user_id: str = Id
    session_id: str = Id
    message: Text
    agent_id: AgentId | None = None
    idempotency_key: str | None = Field(None, max_length=128, description="Repeat it to retry a turn safely.")


class Problem(BaseModel):
    where: str = Field(description="The field, e.g. body.user_id or query.limit.")
    problem: str


class ErrorBody(BaseModel):
    """Every error the API answers: a clear message and, for a refused request, what was wrong where."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"error": "missing or invalid API key"}]})
    error: str
    detail: list[Problem] | None = None
