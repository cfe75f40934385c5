"""Request bodies of the REST API (validated by pydantic; the service validates the text itself again)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Id = Field(min_length=1, max_length=10_000)


class Message(BaseModel):
    role: Literal["user", "assistant", "system", "tool"] = "user"
    content: str


class AddRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
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
    messages: str | list[Message] = Field(description="Text, or a conversation of {role, content} messages.")
    user_id: str = Id
    agent_id: str | None = None
    run_id: str | None = Field(None, description="Session the messages belong to (default: memory-api).")
    metadata: dict[str, Any] | None = None
    infer: bool = Field(True, description="True: the write pipeline extracts memories; False: store user text as is.")


class SearchRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"query": "where does she live?", "user_id": "alice", "limit": 5}]},
    )
    query: str
    user_id: str = Id
    agent_id: str | None = None
    limit: int | None = Field(None, ge=1, le=100)
    threshold: float | None = Field(None, ge=-1.0, le=1.0, description="Similarity cut (default: the live setting).")
    filters: dict[str, Any] | None = Field(None, description="Equality filters on the metadata given at add time.")


class UpdateRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"text": "Lives in Hangzhou"}]})
    text: str


class ChatRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [{"user_id": "alice", "session_id": "trip", "message": "Any hotel ideas for my next visit?"}]
        },
    )
    user_id: str = Id
    session_id: str = Id
    message: str
    agent_id: str | None = None
    idempotency_key: str | None = Field(None, max_length=128, description="Repeat it to retry a turn safely.")
