"""The REST API through httpx against a real uvicorn server on 127.0.0.1 (service on the hash embedder)."""

from __future__ import annotations

import httpx
import pytest
from actors import ADMIN
from doors_helpers import free_port, serve_in_thread

from agent.serve.api import create_app
from memory import apikeys, views


@pytest.fixture
def server(plumbing_svc):
    yield from serve_in_thread(create_app(plumbing_svc), free_port())


@pytest.fixture
def keys(plumbing_svc) -> dict[str, str]:
    return {
        "all": apikeys.create(plumbing_svc.storage, "backend", actor=ADMIN)[0],
        "alice": apikeys.create(plumbing_svc.storage, "alice-app", ["alice"], actor=ADMIN)[0],
    }


def client(base: str, key: str | None) -> httpx.Client:
    return httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"} if key else {}, timeout=30)


def test_memories_round_trip_with_provenance(server, keys, plumbing_svc):
    with client(server, keys["all"]) as c:
        assert c.get("/v1/health").json() == {"status": "ok"}
        added = c.post("/v1/memories", json={"messages": "I moved to Hangzhou last month", "user_id": "alice"})
        assert added.status_code == 200, added.text
        [row] = added.json()["results"]
        found = c.post(
            "/v1/memories/search", json={"query": "Hangzhou", "user_id": "alice", "threshold": -1, "cut": "calibrated"}
        )
        assert found.json()["results"][0]["id"] == row["id"]
        assert found.json()["results"][0]["context"] == []  # a single message: no conversation around it
        talk = [{"role": "user", "content": "我养了一只猫"}, {"role": "assistant", "content": "它叫什么名字？"}]
        c.post("/v1/memories", json={"messages": talk, "user_id": "carol"})
        cat = c.post(
            "/v1/memories/search",
            json={"query": "猫", "user_id": "carol", "threshold": -1, "cut": "calibrated", "limit": 1},
        )
        assert [r["text"] for r in cat.json()["results"][0]["context"]] == ["它叫什么名字？"]
        assert c.get("/v1/memories", params={"user_id": "alice"}).json()["results"][0]["via"] == "api:backend"
        assert c.get("/v1/users/alice/profile").json()["profile"]["city"] == "Hangzhou"
        assert c.patch(f"/v1/memories/{row['id']}", json={"text": "Lives in Hangzhou"}).status_code == 200
        assert c.get(f"/v1/memories/{row['id']}").json()["memory"] == "Lives in Hangzhou"
        events = c.get(f"/v1/memories/{row['id']}/history").json()["results"]
        assert [e["event"] for e in events] == ["ADD", "EDIT"] and {e["via"] for e in events} == {"api:backend"}
        assert c.delete(f"/v1/memories/{row['id']}").status_code == 200
        left = c.get("/v1/memories", params={"user_id": "alice"}).json()["results"]
        assert [r["type"] for r in left] == ["episode"]  # the fact is gone; what was said stays until erased
        assert c.delete("/v1/users/alice").status_code == 200
    rows, _ = views.write_log(plumbing_svc.storage, plumbing_svc.ensure_user("alice").key)
    assert rows == []  # erased


def test_chat_turn_is_one_agent_turn(server, keys, plumbing_svc):
    with client(server, keys["alice"]) as c:
        r = c.post("/v1/chat", json={"user_id": "alice", "session_id": "s1", "message": "I live in Chengdu"})
        assert r.status_code == 200, r.text
        assert r.json()["reply"] and r.json()["session_id"] == "s1"
    rows, _ = views.write_log(
        plumbing_svc.storage, plumbing_svc.get_user("alice").key, views.WriteFilter(vias=["api:alice-app"])
    )
    assert any("Chengdu" in r["content"] for r in rows)


def test_keys_and_errors(server, keys, plumbing_svc):
    with client(server, None) as anon:
        assert anon.post("/v1/memories/search", json={"query": "x", "user_id": "a"}).status_code == 401
    with client(server, "mlk_not-a-key") as bad:
        r = bad.get("/v1/memories", params={"user_id": "alice"})
        assert r.status_code == 401 and r.json() == {"error": "missing or invalid API key"}
    with client(server, keys["alice"]) as c:
        assert c.get("/v1/memories", params={"user_id": "bob"}).status_code == 403
        assert c.post("/v1/chat", json={"user_id": "bob", "session_id": "s", "message": "hi"}).status_code == 403
        empty = c.post("/v1/memories", json={"messages": "   ", "user_id": "alice"})
        assert empty.status_code == 422 and empty.json()["detail"][0]["where"].startswith("body.messages")
        wrong = c.post("/v1/memories/search", json={"query": "x", "user_id": "alice", "limit": -1, "extra": 1})
        assert wrong.status_code == 422 and {d["where"] for d in wrong.json()["detail"]} == {"body.limit", "body.extra"}
        big = c.post("/v1/memories", json={"messages": "x" * 1_100_000, "user_id": "alice"})
        assert big.status_code == 413 and "error" in big.json()
        assert c.get("/v1/memories/nope").status_code == 404
        broken = c.post("/v1/memories", content=b"{not json", headers={"content-type": "application/json"})
        assert broken.status_code == 422 and "Traceback" not in broken.text
    apikeys.revoke(plumbing_svc.storage, "alice-app", actor=ADMIN)
    with client(server, keys["alice"]) as c:
        assert c.get("/v1/memories", params={"user_id": "alice"}).status_code == 401


def test_two_users_never_cross(server, keys):
    with client(server, keys["all"]) as c:
        c.post("/v1/memories", json={"messages": "I love green tea", "user_id": "alice"})
        [bob] = c.post("/v1/memories", json={"messages": "I love green tea", "user_id": "bob"}).json()["results"]
    with client(server, keys["alice"]) as c:
        hits = c.post(
            "/v1/memories/search", json={"query": "green tea", "user_id": "alice", "threshold": -1, "cut": "calibrated"}
        ).json()
        assert hits["results"] and all(h["user_id"] == "alice" for h in hits["results"])
        for call in (c.get, c.delete):
            assert call(f"/v1/memories/{bob['id']}").status_code == 404  # another user's memory: not even confirmed
        assert c.patch(f"/v1/memories/{bob['id']}", json={"text": "hacked"}).status_code == 404
    with client(server, keys["all"]) as c:
        assert c.get(f"/v1/memories/{bob['id']}").json()["memory"] == bob["memory"]


def test_openapi_has_examples(server):
    spec = httpx.get(f"{server}/openapi.json").json()
    assert {"/v1/memories", "/v1/memories/search", "/v1/chat", "/v1/users/{user_id}"} <= set(spec["paths"])
    assert spec["components"]["schemas"]["AddRequest"]["examples"]
