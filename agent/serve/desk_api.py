"""The audit desk's REST routes (why (not) retrieved, the hygiene queue and its actions), in their own router so the
doors' main module stays as it is; ``create_app`` includes it. Same key rules as every route: a key restricted to
some users sees only their memories and findings; actions are a curator's, tagged ``via=api:<key name>``."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query
from pydantic import BaseModel, Field

from agent.serve.api import Key, Service, allowed
from memory.apikeys import KeyInfo
from memory.vocab import Actor, Role

router = APIRouter(prefix="/v1", tags=["audit desk"])


class ExplainRequest(BaseModel):
    memory_id: str = Field(min_length=1, max_length=64)
    query: str | None = Field(default=None, max_length=100_000, description="A typed query (or give retrieval_id).")
    retrieval_id: int | None = Field(default=None, description="Explain a logged retrieval instead.")
    agent_id: str | None = None
    k: int | None = Field(default=None, ge=1, le=1000)
    threshold: float | None = Field(default=None, ge=-1.0, le=1.0)
    mode: str | None = None


class HygieneAction(BaseModel):
    action: str = Field(description="merge | flag | delete | clear | keep")
    user_id: str | None = Field(default=None, description="The finding's user (needed by user-restricted keys).")
    target: str | None = Field(default=None, description="Which of its memories (merge: the one kept).")
    reason: str = Field(default="", max_length=2000)


def _actor(key: KeyInfo) -> Actor:
    return Actor(name=key.name, role=Role.CURATOR, via=f"api:{key.name}")


@router.post("/users/{user_id}/explain")
def explain(user_id: str, body: ExplainRequest, key: Key, doors: Service) -> dict[str, Any]:
    """Why (not)? Every recall stage one memory went through for a query, and the first one it fell out at."""
    allowed(key, user_id)
    return doors.service.explain_recall(
        user_id,
        body.memory_id,
        body.query,
        retrieval_id=body.retrieval_id,
        agent_id=body.agent_id,
        k=body.k,
        threshold=body.threshold,
        mode=body.mode,
    )


def _scope(key: KeyInfo, user_id: str | None) -> None:
    if user_id is None and key.users:
        raise HTTPException(403, "this API key is restricted to some users: give user_id")
    if user_id is not None:
        allowed(key, user_id)


@router.get("/hygiene")
def hygiene(
    key: Key,
    doors: Service,
    user_id: Annotated[str | None, Query(max_length=10_000)] = None,
    days: Annotated[float | None, Query(ge=0)] = None,
) -> dict[str, Any]:
    """The memory-hygiene review queue (one user's, or everyone's for an unrestricted key)."""
    _scope(key, user_id)
    return dict(doors.service.hygiene_review(user_id, never_recalled_days=days).to_dict())


@router.post("/hygiene/{finding_key}/actions")
def hygiene_action(finding_key: str, body: HygieneAction, key: Key, doors: Service) -> dict[str, Any]:
    """Apply merge, flag, delete, clear or keep to one finding (audited, as in the back office)."""
    _scope(key, body.user_id)
    return doors.service.hygiene_act(
        finding_key, body.action, actor=_actor(key), user_id=body.user_id, target=body.target, reason=body.reason
    )
