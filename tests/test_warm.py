"""A server warms once before its first request (memory/warm.py): `memlens serve api` and `memlens serve mcp` open
the index, load the embedder and freeze what is loaded out of later full garbage collections, so no request pays
for a collection of the libraries (85-110 ms with the engine alone)."""

from __future__ import annotations

import gc
from typing import Any

import pytest
from typer.testing import CliRunner

from agent.cli import app as cli_app
from memory.cli.common import service as real_service
from memory.warm import freeze_loaded


@pytest.fixture
def unfrozen():
    """Freezing is process-wide: give the worker its heap back afterwards."""
    gc.unfreeze()
    yield
    gc.unfreeze()


def test_warm_opens_the_index_loads_the_embedder_and_freezes_the_heap(plumbing_svc, unfrozen):
    calls: list[str] = []
    embed = plumbing_svc.storage.embedder.embed_query
    plumbing_svc.storage.embedder.embed_query = lambda text: calls.append(text) or embed(text)
    assert plumbing_svc.storage._index is None and gc.get_freeze_count() == 0
    plumbing_svc.warm()
    assert plumbing_svc.storage._index is not None  # opened, start-up check included
    assert calls == ["warm up"]  # the model is loaded before the first request needs it
    assert gc.get_freeze_count() > 10_000  # the loaded libraries are out of later full collections


def test_garbage_is_collected_before_the_freeze(unfrozen):
    class Cycle:
        pass

    a, b = Cycle(), Cycle()
    a.other, b.other = b, a  # type: ignore[attr-defined]
    del a, b
    gc.disable()  # so only the freeze's own collection can free the cycle
    try:
        freeze_loaded()
        gc.unfreeze()  # the permanent generation back among the tracked objects (get_objects does not list it)
        assert not any(isinstance(o, Cycle) for o in gc.get_objects())
    finally:
        gc.enable()


@pytest.mark.parametrize("door", ["api", "mcp"])
def test_both_servers_warm_before_they_serve(door, monkeypatch, unfrozen):
    monkeypatch.setenv("MEMLENS_EMBEDDER", "hash")
    seen: dict[str, Any] = {}
    made: list[Any] = []

    def serving(*_a: Any, **_k: Any) -> None:  # instead of listening: what the first request would find
        seen["frozen"] = gc.get_freeze_count()
        seen["index open"] = made[-1].storage._index is not None

    if door == "api":
        import uvicorn

        monkeypatch.setattr(uvicorn, "run", serving)
    else:
        import agent.serve.mcp as mcp

        monkeypatch.setattr(mcp.FastMCP, "run", serving)
    import agent.serve.cli as serve_cli

    monkeypatch.setattr(serve_cli, "service", lambda: made.append(real_service()) or made[-1])
    try:
        out = CliRunner().invoke(cli_app, ["serve", door])
    finally:
        for svc in made:
            svc.close()
    assert out.exit_code == 0, out.output
    assert seen["frozen"] > 10_000 and seen["index open"] and len(made) == 1


def test_a_failing_step_is_logged_and_the_rest_still_warms(plumbing_svc, unfrozen, caplog):
    """A remote embedder that is down at start-up must not keep the server from starting: reads still work."""

    def down(_text: str) -> None:
        raise ConnectionError("embedding endpoint unreachable")

    plumbing_svc.storage.embedder.embed_query = down
    plumbing_svc.warm()
    assert "could not load the embedder" in caplog.text and "unreachable" in caplog.text
    assert plumbing_svc.storage._index is not None and gc.get_freeze_count() > 10_000
    assert plumbing_svc.list_users() == []
