"""Shadow-store replay (issue #31): a user's recorded messages written again into throw-away stores under the live
configuration (A) and another embedder or extractor (B), compared on their logged queries — the live store is only
read, the shadows are gone afterwards."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from actors import ADMIN, CURATOR

from memory.errors import InvalidInput
from memory.storage.models import Memory, Message, Retrieval

SAID = [
    "I live in Porto",
    "My sister Anna lives in Berlin",
    "I love green tea",
    "我不吃辣",
    "I work at Siemens as an engineer",
    "My dog is called Rex",
]
QUERIES = ["where do I live?", "what do I like to drink?", "我吃辣吗？"]


def _counts(svc) -> tuple[int, int, int]:
    with svc.storage.db() as db:
        return tuple(len(db.query(t).all()) for t in (Memory, Message, Retrieval))  # type: ignore[return-value]


@pytest.fixture
def lin(plumbing_svc):
    for n, text in enumerate(SAID):
        plumbing_svc.remember("lin", text, session_id=f"s{n // 3}")
    plumbing_svc.remember("bo", "I live in Lisbon")
    for q in QUERIES:
        plumbing_svc.recall("lin", q)
    plumbing_svc.flush_retrieval_log()
    return plumbing_svc


def _shadows_left() -> list[Path]:
    return list(Path(tempfile.gettempdir()).glob("memlens-shadow-*"))


def test_another_embedder_is_replayed_into_a_shadow_and_compared(lin, e5):
    before, left = _counts(lin), _shadows_left()
    out = lin.desk.shadow_replay("lin", embedder="e5", embedder_b=e5, actor=CURATOR)
    assert out["a"] == {"embedder": "hash", "extractor": "rules"}
    assert out["b"]["embedder"].startswith("e5") and out["b"]["extractor"] == "rules"
    assert out["messages"] == len(SAID) and out["sessions"] == 2 and out["queries"] == len(QUERIES)
    # same messages, same extractor: the same memories are kept; only what recall selects may move
    assert out["stored"]["a"] == out["stored"]["b"] > 0 and out["stored"]["only_a"] == out["stored"]["only_b"] == []
    assert {q["query"] for q in out["per_query"]} == set(QUERIES)
    assert all("Lisbon" not in h["content"] for q in out["per_query"] for h in q["gained"] + q["lost"])  # lin only
    by_query = {q["query"]: q for q in out["per_query"]}
    porto = by_query["where do I live?"]
    assert porto["tokens_b"] > 0  # e5 finds the answer the hash embedder only matches by words
    assert out["changed_queries"] >= 1, out["per_query"]
    assert "embedder hash → e5" in out["summary"] and f"{len(QUERIES)} logged queries" in out["summary"]
    assert _counts(lin) == before  # the live store was only read (no memory, message or logged retrieval added)
    assert _shadows_left() == left  # the shadow stores are gone


def test_the_same_configuration_changes_nothing(lin):
    """A is B when only the extractor A already uses is named: a replay that found differences here would be noise.
    (Relevance cut off, so the hash embedder selects something to compare.)"""
    lin.set_live_settings({"relevance_threshold": 0.0}, actor=ADMIN)
    out = lin.desk.shadow_replay("lin", extractor="rules", actor=CURATOR)
    assert out["changed_queries"] == out["gained"] == out["lost"] == 0
    assert out["tokens_a"] == out["tokens_b"] > 0 and out["stored"]["only_a"] == out["stored"]["only_b"] == []


def test_a_model_extractor_is_the_fake_model_boundary(lin):
    """B's extractor is a chat model: here one that extracts nothing, so B keeps only the episodes."""
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    silent = FakeListChatModel(responses=['{"facts": []}'] * 50)
    out = lin.desk.shadow_replay("lin", extractor="model", model_b=silent, actor=CURATOR)
    assert out["b"]["extractor"] == "model" and out["stored"]["b"] < out["stored"]["a"]
    assert out["stored"]["only_a"] and "extractor rules → model" in out["summary"]


@pytest.mark.parametrize(
    ("kwargs", "says"),
    [
        ({}, "another embedder or extractor"),
        ({"embedder": "bert"}, "embedder must be one of"),
        ({"extractor": "gpt"}, "extractor must be one of"),
        ({"extractor": "model"}, "needs a configured chat model"),
        ({"embedder": "hash", "sample": 0}, "sample must be"),
    ],
)
def test_refusals_are_clear(lin, kwargs, says):
    with pytest.raises(InvalidInput, match=says):
        lin.desk.shadow_replay("lin", **kwargs, actor=CURATOR)


def test_cli_and_rest_doors(lin, monkeypatch):
    import httpx
    from doors_helpers import free_port, serve_in_thread
    from typer.testing import CliRunner

    from agent.cli import app as cli_app
    from agent.serve.api import create_app
    from memory import apikeys

    keys = {
        "lin": apikeys.create(lin.storage, "lin-app", ["lin"], actor=ADMIN)[0],
        "bo": apikeys.create(lin.storage, "bo", ["bo"], actor=ADMIN)[0],
    }
    gen = serve_in_thread(create_app(lin), free_port())
    base = next(gen)
    try:
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {keys['lin']}"}, timeout=120) as c:
            r = c.post("/v1/users/lin/replay/shadow", json={"extractor": "rules", "sample": 50})
            assert r.status_code == 200, r.text
            assert r.json()["messages"] == len(SAID) and r.json()["changed_queries"] == 0
            assert c.post("/v1/users/lin/replay/shadow", json={}).status_code == 400
            assert c.post("/v1/users/lin/replay/shadow", json={"embedder": "bert"}).status_code == 422
            assert c.post("/v1/users/lin/replay/shadow", json={"extractor": "rules", "sample": 0}).status_code == 422
        bo = httpx.post(
            f"{base}/v1/users/lin/replay/shadow",
            json={"extractor": "rules"},
            headers={"Authorization": f"Bearer {keys['bo']}"},
        )
        assert bo.status_code == 403  # another user's messages are not this key's to replay
    finally:
        next(gen, None)
    lin.close()
    monkeypatch.setenv("MEMLENS_DATA_DIR", str(lin.settings.data_dir))
    monkeypatch.setenv("MEMLENS_EMBEDDER", "hash")
    res = CliRunner().invoke(cli_app, ["replay", "--user", "lin", "--extractor", "rules", "--json"])
    assert res.exit_code == 0, res.output
    assert '"changed_queries": 0' in res.output
    bad = CliRunner().invoke(cli_app, ["replay", "--extractor", "rules"])
    assert bad.exit_code != 0 and "--user" in bad.output
