"""REST import of relevance labels (issue #31): the labelled-query suite fed over HTTP, each row checked before
anything is stored, per-user isolation by the key, hostile input refused with a clear 4xx (never a 500), the route
documented in OpenAPI. Through a real uvicorn server."""

from __future__ import annotations

import httpx
import pytest
from actors import ADMIN, CURATOR
from doors_helpers import free_port, serve_in_thread

from agent.serve.api import create_app
from memory import apikeys, audit
from memory.desk import labels_gate
from memory.errors import InvalidInput
from memory.vocab import SEMANTIC_TYPES, AuditAction

ROUTE = "/v1/eval/labels/import"


def _memory(svc, user: str, needle: str) -> str:
    return next(m.id for m in svc.list_memories(svc.get_user(user), types=SEMANTIC_TYPES) if needle in m.content)


@pytest.fixture
def desk(plumbing_svc):
    svc = plumbing_svc
    svc.remember("alice", "I live in Porto")
    svc.remember("alice", "I love green tea")
    svc.remember("王芳", "我住在杭州")
    svc.remember("bob", "I live in Lisbon")
    keys = {
        "all": apikeys.create(svc.storage, "backend", actor=ADMIN)[0],
        "alice": apikeys.create(svc.storage, "alice-app", ["alice"], actor=ADMIN)[0],
    }
    gen = serve_in_thread(create_app(svc), free_port())
    base = next(gen)
    clients = {
        name: httpx.Client(base_url=base, headers={"Authorization": f"Bearer {k}"}, timeout=60)
        for name, k in keys.items()
    }
    yield svc, clients, base
    for c in clients.values():
        c.close()
    next(gen, None)


def _stored(svc) -> int:
    return svc.desk.eval_labels(actor=CURATOR)["labels"]


def test_json_and_csv_rows_are_imported_as_the_lab_stores_them(desk):
    svc, c, _ = desk
    porto, tea = _memory(svc, "alice", "Porto"), _memory(svc, "alice", "tea")
    hz = _memory(svc, "王芳", "杭州")
    rows = [
        {"user_id": "alice", "query": "where does she live?", "memory_id": porto, "relevant": True},
        {"user_id": "alice", "query": "where does she live?", "memory_id": tea, "relevant": False},
    ]
    r = c["alice"].post(ROUTE, json={"labels": rows})
    assert r.status_code == 200, r.text
    assert r.json()["labels"] == 2 and r.json()["queries"] == 1 and len(r.json()["retrieval_ids"]) == 1
    csv_text = f"user_id,query,memory_id,relevant\n王芳,她住在哪里？,{hz},yes\n"
    r = c["all"].post(ROUTE, json={"csv": csv_text})
    assert r.status_code == 200, r.text
    suite = svc.desk.eval_labels(actor=CURATOR)
    assert suite["queries"] == 2 and suite["labels"] == 3
    by_query = {q["query"]: q for q in suite["per_query"]}
    assert by_query["where does she live?"]["labelled"] == 2 and by_query["她住在哪里？"]["user_id"] == "王芳"
    labelled = audit.events(svc.storage, action=AuditAction.LABEL)
    assert {e.via for e in labelled} == {"api:alice-app", "api:backend"} and len(labelled) == 3


def test_hostile_imports_are_refused_whole_and_store_nothing(desk):
    svc, c, base = desk
    porto, bob = _memory(svc, "alice", "Porto"), _memory(svc, "bob", "Lisbon")
    good = {"user_id": "alice", "query": "where does she live?", "memory_id": porto, "relevant": True}

    def row(**change):
        return {**good, **change}

    cases = [  # (client, body, status, what the error says)
        ("alice", {"labels": [good, row(user_id="bob", memory_id=bob)]}, 403, "label 2: this key may not act"),
        ("alice", {"csv": f"user_id,query,memory_id,relevant\nbob,where?,{bob},1\n"}, 403, "may not act for user"),
        ("all", {"labels": [good, row(memory_id=bob)]}, 400, "label 2: no memory"),  # bob's memory as alice's
        ("all", {"labels": [row(memory_id="f" * 32)]}, 400, "label 1: no memory"),  # one answer: absent or foreign
        ("all", {"labels": [row(user_id="nobody")]}, 400, "label 1: no memory"),
        ("all", {"labels": [good, row(relevant=False)]}, 400, "label 2: contradicts label 1"),
        ("all", {"labels": [good] * 1001}, 422, "labels"),
        ("all", {"labels": [row(query="q" * 2001)]}, 422, "query"),
        ("all", {"labels": [row(query="where\x00?")]}, 422, "query"),
        ("all", {"labels": [row(query=" \n\t")]}, 422, "query"),
        ("all", {"labels": [row(relevant="yes")]}, 422, "relevant"),  # JSON rows are typed
        ("all", {"labels": [row(memory_id="x" * 65)]}, 422, "memory_id"),
        ("all", {"labels": [{**good, "labeled_by": "ada"}]}, 422, "labeled_by"),
        ("all", {"labels": [good], "csv": "user_id\n"}, 422, "either labels or csv"),
        ("all", {}, 422, "either labels or csv"),
        ("all", {"labels": []}, 422, "labels"),
        ("all", {"csv": "user_id,query,memory_id,relevant\nalice,q\x00,m,1\n"}, 400, "NUL"),
        ("all", {"csv": "user_id,query,memory_id,relevant\nalice," + "q" * 200_000 + ",m,1\n"}, 400, "not CSV"),
        ("all", {"csv": "user_id,query,memory_id,relevant\nalice,where?,m,maybe\n"}, 400, "true or false"),
        ("all", {"csv": "name,age\nalice,3\n"}, 400, "label 1: missing"),
        ("all", {"csv": "user_id,query,memory_id,relevant\n"}, 400, "no labels"),
        ("all", {"csv": "user_id,query,memory_id,relevant\n" + f"alice,q{{}},{porto},1\n" * 1001}, 400, "at most"),
        ("all", {"labels": [{"user_id": "alice", "query": {"$ne": 1}, "memory_id": porto, "relevant": True}]}, 422, ""),
    ]
    for who, body, status, says in cases:
        r = c[who].post(ROUTE, json=body)
        assert r.status_code == status, (body if len(str(body)) < 300 else str(body)[:300], r.text[:300])
        assert says in r.text and "Traceback" not in r.text, r.text[:300]
    deep = '{"labels": ' + "[" * 2000 + "]" * 2000 + "}"
    r = c["all"].post(ROUTE, content=deep, headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and "Traceback" not in r.text
    assert httpx.post(base + ROUTE, json={"labels": [good]}).status_code == 401
    assert _stored(svc) == 0  # nothing of any refused import was stored
    refused = [e.reason for e in audit.events(svc.storage, action=AuditAction.DENIED)]
    by_service = sum(status in (400, 403) for _, _, status, _ in cases)  # the schema's 422s never reach it
    assert sum("labels import refused" in r for r in refused) == by_service  # each with its reason
    assert any("label 2: no memory" in r for r in refused)


def test_openapi_documents_the_import(desk):
    _, c, _ = desk
    spec = c["all"].get("/openapi.json").json()
    op = spec["paths"][ROUTE]["post"]
    assert {"200", "400", "401", "403", "413", "422"} <= set(op["responses"])
    body = op["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    schema = spec["components"]["schemas"][body]
    assert set(schema["properties"]) == {"labels", "csv"} and schema.get("additionalProperties") is False
    row = spec["components"]["schemas"]["LabelRow"]
    assert set(row["required"]) == {"user_id", "query", "memory_id", "relevant"}
    assert row["properties"]["query"]["maxLength"] == 2000 and "examples" in schema
    assert "refused import stores nothing" in op["description"]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"labels": {"user_id": "a"}}', "list of objects"),
        ("[1, 2]", "label 1: expected an object"),
        ('[{"user_id": "a", "query": 5, "memory_id": "m", "relevant": true}]', "query must be text"),
        ('[{"user_id": "a", "query": "\\ud800", "memory_id": "m", "relevant": true}]', "not valid Unicode"),
        ('user_id,query,memory_id,relevant\na,"unclosed,m,1\n' + "x" * 200_000, "not CSV"),
    ],
)
def test_the_parser_turns_every_hostile_file_into_one_clear_refusal(text, says):
    with pytest.raises(InvalidInput, match=says):
        labels_gate.parse_labels(text)
