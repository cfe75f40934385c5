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


# -- cost per request and per key (issue 45: one REST add of 200,000 characters cost ~89 s of server CPU) ----------
_PIECES = (
    "I live in Lisbon and I love sardines, call me on 415 555 0132. ",
    "我住在杭州，喜欢喝龙井茶，周末常去西湖边散步。",
)


def max_message(chars: int) -> str:
    """English and Chinese text of ``chars`` characters (as bench/max_message.py builds it)."""
    return ("".join(_PIECES) * (chars // 40 + 1))[:chars]


def _stored(svc) -> int:
    from sqlmodel import func, select

    from memory.storage.models import Message

    with svc.storage.db() as db:
        return db.exec(select(func.count()).select_from(Message)).one()


def test_a_200k_character_add_is_refused_at_once_and_nothing_is_stored(api, plumbing_svc):
    """Before: the server embedded ~125 episodes of it (~89 s of CPU, a client timeout here); now a 413 at once."""
    import time

    before = _stored(plumbing_svc)
    start = time.perf_counter()
    r = api.post("/v1/memories", json={"messages": max_message(200_000), "user_id": "big"}, timeout=20)
    took = time.perf_counter() - start
    assert r.status_code == 413 and "MEMLENS_API_MAX_REQUEST_TOKENS" in r.json()["error"], r.text[:300]
    assert took < 5 and _stored(plumbing_svc) == before
    talk = [{"role": "user", "content": max_message(6_000)} for _ in range(3)]  # each fits; together they do not
    r = api.post("/v1/memories", json={"messages": talk, "user_id": "big"}, timeout=20)
    assert r.status_code == 413 and _stored(plumbing_svc) == before
    r = api.post("/v1/chat", json={"message": max_message(30_000), "user_id": "big", "session_id": "s"}, timeout=20)
    assert r.status_code == 413 and _stored(plumbing_svc) == before


def test_a_request_at_the_token_bound_is_served(api, plumbing_svc):
    from memory.text.tokens import count_tokens

    limit = plumbing_svc.settings.api_max_request_tokens
    text = max_message(20_000)
    while count_tokens(text) > limit:
        text = text[: int(len(text) * 0.9)]
    r = api.post("/v1/memories", json={"messages": text, "user_id": "fits", "infer": False}, timeout=120)
    assert r.status_code == 200, r.text[:300]


@pytest.fixture
def thrifty(tmp_path, hash_embedder):
    """A server whose keys may send 300 tokens a minute."""
    from memory.config import Settings
    from memory.service import MemoryService

    svc = MemoryService(Settings(data_dir=tmp_path / "thrifty", api_tokens_per_minute=300), embedder=hash_embedder)
    for url in serve_in_thread(create_app(svc), free_port()):
        yield svc, url
    svc.close()


def test_a_key_past_its_tokens_per_minute_gets_429_with_retry_after_and_others_are_served(thrifty):
    svc, url = thrifty
    first = apikeys.create(svc.storage, "first", actor=ADMIN)[0]
    second = apikeys.create(svc.storage, "second", actor=ADMIN)[0]
    text = "I like green tea and long walks by the river in the evening. " * 4  # ~60 tokens
    codes = []
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {first}"}, timeout=60) as c:
        for _ in range(8):
            r = c.post("/v1/memories", json={"messages": text, "user_id": "u", "infer": False})
            codes.append(r.status_code)
            if r.status_code == 429:
                assert int(r.headers["Retry-After"]) >= 1 and "MEMLENS_API_TOKENS_PER_MINUTE" in r.json()["error"]
    assert codes[0] == 200 and 429 in codes and codes.count(200) <= 6, codes
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {second}"}, timeout=60) as c:
        assert c.post("/v1/memories", json={"messages": text, "user_id": "u", "infer": False}).status_code == 200


def test_the_token_budget_refills_with_time():
    now = [0.0]
    budget = limits.TokenBudget(600, clock=lambda: now[0])  # 10 tokens a second
    budget.charge("k", 600)
    with pytest.raises(limits.TooCostly) as refused:
        budget.charge("k", 50)
    assert refused.value.status == 429 and refused.value.retry_after == 5
    now[0] = 5.0
    budget.charge("k", 50)
    budget.charge("other", 600)


def test_the_mcp_door_bounds_a_request_too(plumbing_svc):
    import asyncio

    from mcp.server.fastmcp.exceptions import ToolError

    from agent.serve.mcp import create_server

    before = _stored(plumbing_svc)
    with pytest.raises(ToolError, match="MEMLENS_API_MAX_REQUEST_TOKENS"):
        asyncio.run(create_server(plumbing_svc).call_tool("add_memory", {"text": max_message(50_000), "user_id": "m"}))
    assert _stored(plumbing_svc) == before
