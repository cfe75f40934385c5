"""What one REST request may cost: too many messages in one add → 413, a body nested too deep → 422 (before any
parser recurses), a body over the size limit → 413; each with a clear JSON error, and the server keeps serving."""

from __future__ import annotations

import httpx
import pytest
from actors import ADMIN
from doors_helpers import free_port, serve_in_thread

from agent.serve import limits
from agent.serve.api import create_app
from memory import apikeys


@pytest.fixture
def server(plumbing_svc):
    yield from serve_in_thread(create_app(plumbing_svc), free_port())


@pytest.fixture
def api(server, plumbing_svc):
    key = apikeys.create(plumbing_svc.storage, "limits", actor=ADMIN)[0]
    with httpx.Client(base_url=server, headers={"Authorization": f"Bearer {key}"}, timeout=60) as c:
        yield c


def _nested(depth: int) -> str:
    return '{"messages": "I live in Porto", "user_id": "u", "metadata": ' + '{"a": ' * depth + "1" + "}" * depth + "}"


def test_too_many_messages_in_one_add_is_413(api):
    many = [{"role": "user", "content": f"note {i}"} for i in range(limits.MAX_MESSAGES + 1)]
    r = api.post("/v1/memories", json={"messages": many, "user_id": "u", "infer": False})
    assert r.status_code == 413 and f"the limit is {limits.MAX_MESSAGES}" in r.json()["error"]
    ok = api.post("/v1/memories", json={"messages": many[:3], "user_id": "u", "infer": False})
    assert ok.status_code == 200, ok.text


@pytest.mark.parametrize("depth", [limits.MAX_DEPTH, 500, 5_000])
def test_a_body_nested_too_deep_is_422(api, depth):
    r = api.post("/v1/memories", content=_nested(depth), headers={"content-type": "application/json"})
    assert r.status_code == 422 and "nested deeper" in r.json()["error"], r.text
    assert api.get("/v1/health").status_code == 200  # still serving


def test_ordinary_nesting_passes_and_strings_do_not_count(api):
    body = '{"messages": "I live in Porto", "user_id": "u", "metadata": {"note": "' + "[{" * 200 + '"}}'
    assert api.post("/v1/memories", content=body, headers={"content-type": "application/json"}).status_code == 200
    assert api.post("/v1/memories", content=_nested(5), headers={"content-type": "application/json"}).status_code == 200


def test_a_body_over_the_size_limit_is_413(api, plumbing_svc):
    big = "x" * (plumbing_svc.settings.api_max_body_bytes + 10)
    r = api.post(
        "/v1/memories",
        content='{"messages": "' + big + '", "user_id": "u"}',
        headers={"content-type": "application/json"},
    )
    assert r.status_code == 413 and "MEMLENS_API_MAX_BODY_BYTES" in r.json()["error"]


def test_json_depth_counts_brackets_outside_strings():
    assert limits.json_depth(b'{"a": [1, {"b": "[[[[{{{"}]}') == 3
    assert limits.json_depth(b'"\\"[[["') == 0
    assert limits.json_depth(b"[" * 100_000, stop_at=32) == 33


def test_every_refusal_of_the_api_is_audited(server, plumbing_svc):
    from memory import apikeys, audit

    alice_key = apikeys.create(plumbing_svc.storage, "alice-only", ["alice"], actor=ADMIN)[0]
    with httpx.Client(base_url=server, timeout=30) as anon:
        assert anon.get("/v1/memories", params={"user_id": "bob"}).status_code == 401
        bad = {"Authorization": "Bearer not-a-key"}
        assert anon.get("/v1/memories", params={"user_id": "bob"}, headers=bad).status_code == 401
        scoped = {"Authorization": f"Bearer {alice_key}"}
        assert anon.get("/v1/memories", params={"user_id": "bob"}, headers=scoped).status_code == 403
    denied = audit.events(plumbing_svc.storage, action="denied")
    assert len(denied) == 3 and all(e.via == "api" for e in denied)
    assert all("not-a-key" not in e.reason and alice_key not in e.reason for e in denied)
