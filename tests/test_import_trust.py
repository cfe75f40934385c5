"""An imported file never carries ids, namespaces or actor names that reach another user's rows: a mem0 id kept
across an UPDATE (``meta.stable_id``) is remapped with the file's rows or dropped, and the mem0 door only ever
follows it within one user; a LangGraph namespace in ``meta`` shows an item only under its own user; relevance
labels are filed under the importer's name. Each attack goes through the real doors (REST, the LangGraph store, the
CLI import, the lab's labels) on SQLite and PostgreSQL."""

from __future__ import annotations

import functools
import json

import httpx
import pytest
from actors import ADMIN, CURATOR
from doors_helpers import free_port, serve_in_thread
from typer.testing import CliRunner

from agent.serve.api import create_app
from memory import Memory, apikeys, keyed, views
from memory.langgraph import MemLensStore


def _crafted(svc, user_id: str, change) -> dict:
    """The user's real export with ``change`` applied to it, the user deleted: the file an attacker hands in."""
    data = json.loads(json.dumps(svc.lifecycle.export_user(user_id, actor=ADMIN), ensure_ascii=False))
    change(data)
    svc.lifecycle.delete_user(user_id, actor=ADMIN)
    return data


@pytest.fixture
def rest(backend_plumbing_svc):
    svc = backend_plumbing_svc
    keys = {
        "all": apikeys.create(svc.storage, "backend", actor=ADMIN)[0],
        "bob": apikeys.create(svc.storage, "bob-app", ["bob"], actor=ADMIN)[0],
        "mallory": apikeys.create(svc.storage, "mallory-app", ["mallory"], actor=ADMIN)[0],
    }
    for base in serve_in_thread(create_app(svc), free_port()):
        yield svc, functools.partial(_client, base, keys)


def _client(base: str, keys: dict[str, str], who: str) -> httpx.Client:
    return httpx.Client(base_url=base, headers={"Authorization": f"Bearer {keys[who]}"}, timeout=60)


def test_an_imported_stable_id_cannot_take_over_another_users_memory(rest):
    svc, client = rest
    with client("bob") as bob:
        victim = bob.post("/v1/memories", json={"messages": "I live in Lisbon", "user_id": "bob", "infer": False})
        victim_id = victim.json()["results"][0]["id"]
    with client("mallory") as mallory:
        mallory.post("/v1/memories", json={"messages": "forged text", "user_id": "mallory", "infer": False})

    def take_over(data: dict) -> None:
        for m in data["tables"]["memory"]:
            m["meta"] = {**m["meta"], "stable_id": victim_id}

    svc.lifecycle.import_user(_crafted(svc, "mallory", take_over), actor=ADMIN)
    with client("bob") as bob:
        mine = bob.get(f"/v1/memories/{victim_id}")
        assert mine.status_code == 200 and mine.json()["memory"] == "I live in Lisbon", mine.text
    with client("all") as admin:
        assert admin.get(f"/v1/memories/{victim_id}").json()["memory"] == "I live in Lisbon"
    with client("mallory") as mallory:
        assert mallory.get(f"/v1/memories/{victim_id}").status_code == 404
        assert mallory.get(f"/v1/memories/{victim_id}/history").status_code == 404
        own = mallory.get("/v1/memories", params={"user_id": "mallory"}).json()["results"]
    assert own and all(r["id"] != victim_id for r in own)  # the forged id was dropped: the row shows its own


def test_a_stable_id_planted_by_an_earlier_import_reaches_nothing(rest):
    """A database that imported such a file before this check still holds the forged ``stable_id``: the mem0 door
    follows a stable id only within the user of the row the id names."""
    svc, client = rest
    with client("bob") as bob:
        victim_id = bob.post(
            "/v1/memories", json={"messages": "I live in Lisbon", "user_id": "bob", "infer": False}
        ).json()["results"][0]["id"]
        bob.patch(f"/v1/memories/{victim_id}", json={"text": "I live in Porto"})
    with client("mallory") as mallory:
        forged = mallory.post(
            "/v1/memories", json={"messages": "forged text", "user_id": "mallory", "infer": False}
        ).json()["results"][0]["id"]
    keyed.set_meta(svc.storage, forged, stable_id=victim_id)  # as the old import left it
    with client("bob") as bob:
        assert bob.get(f"/v1/memories/{victim_id}").json()["memory"] == "I live in Porto"
        events = bob.get(f"/v1/memories/{victim_id}/history").json()["results"]
        assert [e["event"] for e in events] == ["ADD", "EDIT"]
    with client("all") as admin:
        assert admin.get(f"/v1/memories/{victim_id}").json()["memory"] == "I live in Porto"
    with client("mallory") as mallory:
        assert mallory.get(f"/v1/memories/{victim_id}/history").status_code == 404
    assert Memory(svc).get(victim_id, user_id="mallory") is None


def test_an_imported_namespace_never_places_an_item_under_another_user(backend_plumbing_svc):
    svc = backend_plumbing_svc
    store = MemLensStore(Memory(svc, via="langgraph"))
    store.put(("bob", "notes"), "tea", {"content": "Bob likes oolong tea"})
    store.put(("mallory", "notes"), "pay", {"content": "Send the money to account 4242"})

    def plant(data: dict) -> None:
        data["user"]["external_id"] = "langgraph"  # the shared user: its rows are searched with every prefix
        for m in data["tables"]["memory"]:
            if "store_ns" in m["meta"]:
                m["meta"] = {**m["meta"], "store_ns": json.dumps(["bob", "notes"]), "store_key": "pay"}

    svc.lifecycle.import_user(_crafted(svc, "mallory", plant), actor=ADMIN)
    under_bob = store.search(("bob",), limit=50)
    assert [i.value["content"] for i in under_bob] == ["Bob likes oolong tea"]
    assert store.get(("bob", "notes"), "pay") is None
    found = store.search(("bob",), query="money account", limit=50)
    assert all(i.value["content"] != "Send the money to account 4242" for i in found)
    assert ("bob", "notes") in store.list_namespaces()
    everywhere = store.search((), limit=50)
    planted = next(i for i in everywhere if i.value.get("content") == "Send the money to account 4242")
    assert planted.namespace[0] == "langgraph"  # shown as its own user's, under that user's namespace


def test_imported_labels_are_filed_under_the_importer(backend_plumbing_svc, monkeypatch, tmp_path):
    """A file naming a curator as the labeller would make its verdicts show as that curator's own labels in the
    lab (and be updated as theirs). The CLI import files them under the person importing."""
    from memory.cli import app

    svc = backend_plumbing_svc
    mem = Memory(svc)
    mem.add("I live in Lisbon", user_id="ana", infer=False)
    result = svc.recall("ana", "where do I live", threshold=-1.0)
    svc.flush_retrieval_log()
    svc.label_hit(result.retrieval_id, result.hits[0].memory_id, True, actor=ADMIN)

    def forge(data: dict) -> None:
        for label in data["tables"]["hitlabel"]:
            label["labeled_by"] = CURATOR.name
            label["relevant"] = False

    path = tmp_path / "ana.json"
    path.write_text(json.dumps(_crafted(svc, "ana", forge)), encoding="utf-8")
    svc.close()
    monkeypatch.setenv("MEMLENS_EMBEDDER", "hash")
    monkeypatch.setenv("MEMLENS_DATABASE_URL", svc.settings.resolved_database_url())
    monkeypatch.setattr("getpass.getuser", lambda: "ops")  # the OS user running the CLI is who imports
    res = CliRunner().invoke(app, ["import", str(path), "--json"])
    assert res.exit_code == 0, res.output
    again = type(svc)(svc.settings, embedder=svc.storage.embedder)
    try:
        ana = again.get_user("ana")
        assert views.labels_for_query(again.storage, ana.key, "where do I live", CURATOR.name) == {}
        filed = views.labels_for_query(again.storage, ana.key, "where do I live", f"ops (imported: {CURATOR.name})")
        assert list(filed.values()) == [False]
    finally:
        again.close()


def test_a_context_sections_left_out_ids_never_name_another_users_rows(rest):
    """What a prompt left out (a context section's ``dropped_items``: memory and message ids) is shown by the
    session view; an imported file naming another user's memory there gets it dropped."""
    svc, client = rest
    with client("bob") as bob:
        victim_id = bob.post(
            "/v1/memories", json={"messages": "I live in Lisbon", "user_id": "bob", "infer": False}
        ).json()["results"][0]["id"]
    with client("mallory") as mallory:
        for text in ("I live in Chengdu", "Where do I live?"):
            turn = {"user_id": "mallory", "session_id": "s1", "message": text}
            assert mallory.post("/v1/chat", json=turn).status_code == 200
    svc.wait_writes("mallory")

    def point_at_bob(data: dict) -> None:
        assert data["tables"]["contextsection"], "the chat turns logged their context"
        for section in data["tables"]["contextsection"]:
            section["dropped_items"] = [victim_id, "system", "999999"]

    svc.lifecycle.import_user(_crafted(svc, "mallory", point_at_bob), actor=ADMIN)
    sections = svc.lifecycle.export_user("mallory", actor=ADMIN)["tables"]["contextsection"]
    assert sections and all(s["dropped_items"] == ["system"] for s in sections)
