"""The audit desk's REST routes (why (not) retrieved, the hygiene queue and its actions, the labelled-query suite,
A/B replay, the relations graph, erasure receipts), in their own router so the
doors' main module stays as it is; ``create_app`` includes it. Same key rules as every route: a key restricted to
some users sees only their memories and findings; actions are a curator's, tagged ``via=api:<key name>``."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Query
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from agent.serve.api import Key, Service, allowed
from agent.serve.schemas import VISIBLE, IdText, whole
from memory.apikeys import KeyInfo
from memory.vocab import Actor, Role

router = APIRouter(prefix="/v1", tags=["audit desk"])


class ExplainRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    memory_id: str = Field(min_length=1, max_length=64)
    query: str | None = Field(default=None, max_length=100_000, description="A typed query (or give retrieval_id).")
    retrieval_id: Annotated[int, Field(ge=1, le=2**53 - 1), BeforeValidator(whole)] | None = Field(
        default=None, description="Explain a logged retrieval instead."
    )
    agent_id: str | None = None
    k: Annotated[int, Field(ge=1, le=1000), BeforeValidator(whole)] | None = None
    threshold: float | None = Field(default=None, ge=-1.0, le=1.0)
    mode: str | None = None


class HygieneAction(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
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
    return doors.service.desk.explain_recall(
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
    days: Annotated[float | None, Query(ge=0, le=36_500)] = None,
) -> dict[str, Any]:
    """The memory-hygiene review queue (one user's, or everyone's for an unrestricted key)."""
    _scope(key, user_id)
    return dict(doors.service.desk.hygiene_review(user_id, never_recalled_days=days).to_dict())


@router.post("/hygiene/{finding_key}/actions")
def hygiene_action(finding_key: str, body: HygieneAction, key: Key, doors: Service) -> dict[str, Any]:
    """Apply merge, flag, delete, clear or keep to one finding (audited, as in the back office)."""
    _scope(key, body.user_id)
    return doors.service.desk.hygiene_act(
        finding_key, body.action, actor=_actor(key), user_id=body.user_id, target=body.target, reason=body.reason
    )


class LabelsRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    user_id: str | None = Field(default=None, description="One user's labelled queries (default: all).")
    set: dict[str, Any] = Field(default_factory=dict, description="Recall settings to change, e.g. {'k': 3}.")
    baseline: dict[str, Any] | None = Field(default=None, description="A previous run to gate against.")
    tolerance: Annotated[int, BeforeValidator(whole)] = Field(default=0, ge=0, le=1_000_000)


class ReplayRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    set: dict[str, Any] = Field(
        min_length=1, description="Setting B: recall settings to change, e.g. {'k': 3, 'mode': 'vector'}."
    )
    user_id: str | None = None
    last: Annotated[int, BeforeValidator(whole)] = Field(default=20, ge=1, le=500)


def _changes(values: dict[str, Any]) -> dict[str, Any]:
    from memory.desk.replay import parse_overrides

    return parse_overrides(f"{k}={v}" for k, v in values.items())


@router.post("/eval/labels")
def eval_labels(body: LabelsRequest, key: Key, doors: Service) -> dict[str, Any]:
    """The labelled-query suite under the current settings (plus ``set``): precision, recall, per-query hits, and
    with a ``baseline`` the gate's verdict (``gate.passed``)."""
    from memory.desk import labels_gate

    _scope(key, body.user_id)
    run = doors.service.desk.eval_labels(body.user_id, actor=_actor(key), **_changes(body.set))
    verdict = labels_gate.gate(run, body.baseline, body.tolerance) if body.baseline is not None else None
    return {**run, "gate": verdict}


#: label rows one request may import (each distinct query is one search)
MAX_IMPORT = 1_000


class LabelRow(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    user_id: IdText
    query: str = Field(min_length=1, max_length=2_000, pattern=VISIBLE, description="The labelled query.")
    memory_id: str = Field(min_length=1, max_length=64, pattern=VISIBLE, description="A memory of that user.")
    relevant: bool = Field(description="True: the memory is relevant to the query; false: it is a wrong hit.")


LABELS_EXAMPLES = [
    {
        "labels": [
            {"user_id": "alice", "query": "where does she live?", "memory_id": "3a70…", "relevant": True},
            {"user_id": "王芳", "query": "她吃辣吗？", "memory_id": "9c1e…", "relevant": False},
        ]
    },
    {"csv": "user_id,query,memory_id,relevant\nalice,where does she live?,3a70…,yes\n"},
]


def _exactly_one_source(schema: dict[str, Any]) -> None:
    """Say in the schema what the validator says: exactly one of ``labels`` and ``csv``, neither null."""
    for name in ("labels", "csv"):
        prop = schema["properties"][name]
        kinds = prop.pop("anyOf", [])
        prop.update(next((k for k in kinds if k.get("type") != "null"), {}))
        prop.pop("default", None)
    schema["oneOf"] = [{"required": ["labels"]}, {"required": ["csv"]}]
    schema["examples"] = LABELS_EXAMPLES


class LabelsImport(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra=_exactly_one_source)
    labels: list[LabelRow] | None = Field(default=None, min_length=1, max_length=MAX_IMPORT, description="Label rows.")
    csv: str | None = Field(
        default=None, min_length=1, max_length=500_000, description="Or a CSV file: user_id,query,memory_id,relevant."
    )

    @model_validator(mode="after")
    def one_source(self) -> LabelsImport:
        given = [name for name in ("labels", "csv") if name in self.model_fields_set]
        if len(given) != 1 or getattr(self, given[0]) is None:
            raise ValueError("give either labels or csv")
        return self


class LabelsImported(BaseModel):
    labels: int = Field(description="Labels stored.")
    queries: int = Field(description="Distinct queries searched (and logged) to carry them.")
    retrieval_ids: list[int] = Field(description="The logged retrieval of each query, as the retrieval lab shows it.")


@router.post("/eval/labels/import", response_model=LabelsImported)
def import_labels(body: LabelsImport, key: Key, doors: Service) -> dict[str, Any]:
    """Import relevance labels into the labelled-query suite, as the retrieval lab stores them: each row names a
    user, a query, one of that user's memories and a verdict. Every row is checked before anything is stored — a
    row naming a user this key may not act for is a 403, a memory that is not that user's (or does not exist: one
    answer for both), a malformed, contradictory or over-long row or more than 1,000 rows a 400 naming the row — and
    a refused import stores nothing and is audited. Then each distinct query is searched once (logged) and its
    labels are set by this key (``api:<key name>``, curator)."""
    if body.labels is not None:
        rows: str | list[dict[str, Any]] = [row.model_dump() for row in body.labels]
    else:
        assert body.csv is not None
        rows = body.csv
    return doors.service.desk.import_labels(rows, actor=_actor(key), fmt="csv", users=key.users, limit=MAX_IMPORT)


@router.post("/replay")
def replay(body: ReplayRequest, key: Key, doors: Service) -> dict[str, Any]:
    """A/B replay of logged queries: live settings (A) against ``set`` (B), gained / lost memories and tokens."""
    _scope(key, body.user_id)
    changes = _changes(body.set)
    if not changes:
        raise HTTPException(400, "set at least one recall setting")
    return doors.service.desk.replay(changes, user_id=body.user_id, last=body.last, actor=_actor(key))


class ShadowReplayRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    embedder: Literal["e5", "openai", "hash"] | None = Field(default=None, description="B's embedder.")
    extractor: Literal["rules", "model"] | None = Field(
        default=None, description="B's extractor: the rules, or the chat model the server has configured."
    )
    sample: Annotated[int, BeforeValidator(whole)] = Field(
        default=200, ge=1, le=2_000, description="The user's last N messages, written again into both shadows."
    )
    last: Annotated[int, BeforeValidator(whole)] = Field(default=20, ge=1, le=500)


@router.post("/users/{user_id}/replay/shadow")
def shadow_replay(user_id: str, body: ShadowReplayRequest, key: Key, doors: Service) -> dict[str, Any]:
    """A/B replay of another embedder or extractor: the user's recorded messages written again into two
    throw-away stores (A: the live configuration, B: the one named), their logged queries searched in both; what
    each store kept, and per query the memories gained or lost and the tokens. The live store is only read."""
    allowed(key, user_id)
    if body.embedder is None and body.extractor is None:
        raise HTTPException(400, "name another embedder or extractor for the shadow store (B)")
    return doors.service.desk.shadow_replay(
        user_id, embedder=body.embedder, extractor=body.extractor, sample=body.sample, last=body.last, actor=_actor(key)
    )


@router.get("/users/{user_id}/graph")
def relations_graph(user_id: str, key: Key, doors: Service, agent_id: str | None = None) -> dict[str, Any]:
    """People, pets, places and organisations the user's facts mention; facts as edges (with their memory)."""
    allowed(key, user_id)
    return doors.service.desk.relations_graph(user_id, agent_id=agent_id)


@router.get("/users/{user_id}/erasure-receipts")
def erasure_receipts(user_id: str, key: Key, doors: Service) -> dict[str, Any]:
    """The receipts of this user's erasure (what each store removed, hashed ids, time, actor), from the audit trail."""
    allowed(key, user_id)
    return {"receipts": doors.service.lifecycle.erasure_receipts(user_id)}
