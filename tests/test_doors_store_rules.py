"""MemLensStore's own rules beyond LangGraph's tests: which label is the user, concurrent puts, what a put keeps."""

from __future__ import annotations

import asyncio

import pytest

from memory import Memory
from memory.errors import InvalidInput
from memory.langgraph import MemLensStore


@pytest.fixture
def mem(backend_plumbing_svc) -> Memory:
    return Memory(backend_plumbing_svc, via="langgraph")


def test_users_template_maps_langmem_namespaces_to_real_users(mem):
    store = MemLensStore(mem, users=[("memories", "{user_id}"), ("{user_id}",)])
    store.put(("memories", "ana", "food"), "k1", {"content": "Ana likes dumplings"})
    store.put(("memories", "li"), "k1", {"content": "Li likes noodles"})
    store.put(("ops",), "k1", {"content": "shared note"})  # fits the second template: user "ops"
    users = {u["user_id"] for u in mem.service.list_users()}
    assert {"ana", "li", "ops"} <= users and "memories" not in users
    assert [r["memory"] for r in mem.get_all(user_id="ana")["results"]] == ["Ana likes dumplings"]
    assert store.get(("memories", "ana", "food"), "k1").namespace == ("memories", "ana", "food")
    assert {i.value["content"] for i in store.search(("memories",))} == {"Ana likes dumplings", "Li likes noodles"}
    assert store.user_of(("other", "x")) == "other"
    strict = MemLensStore(mem, users=("memories", "{user_id}"), shared_user="shared")
    assert strict.user_of(("ops",)) == "shared"
    with pytest.raises(InvalidInput):
        MemLensStore(mem, users=("memories", "user"))


def test_eight_concurrent_aputs_to_one_key_leave_one_live_item(mem):
    store = MemLensStore(mem)
    ns = ("erin", "prefs")

    async def race():
        await asyncio.gather(*(store.aput(ns, "color", {"content": f"color {i}", "i": i}) for i in range(8)))

    asyncio.run(race())
    live = [r for r in mem.get_all(user_id="erin")["results"] if r["key"] == "color"]
    item = store.get(ns, "color")
    assert len(live) == 1 and item.value == {"content": live[0]["memory"], "i": item.value["i"]}
    store.delete(ns, "color")
    assert store.get(ns, "color") is None and store.search(ns) == []  # gone: no older value comes back


def test_a_put_keeps_created_at_any_json_and_index_false(mem):
    store = MemLensStore(mem, index={"fields": ["title"]})
    ns = ("fay", "docs")
    store.put(ns, "empty", {})
    assert store.get(ns, "empty").value == {}
    store.put(ns, "d", {"title": "trip to Hangzhou", "body": "xyz", "n": [1, {"a": None}]})
    first = store.get(ns, "d")
    store.put(ns, "d", {"title": "trip to Suzhou", "body": "xyz", "n": [2]})
    second = store.get(ns, "d")
    assert second.created_at == first.created_at and second.updated_at >= first.updated_at
    assert second.value["n"] == [2]
    row = next(r for r in mem.get_all(user_id="fay")["results"] if r["key"] == "d")
    assert row["memory"] == "trip to Suzhou"  # the index= fields are the text MemLens embeds
    store.put(ns, "hidden", {"title": "trip to Suzhou"}, index=False)
    assert "hidden" not in [i.key for i in store.search(ns, query="Suzhou trip")]
    assert "hidden" in [i.key for i in store.search(ns)]


def test_filters_apply_before_the_limit_with_operators(mem):
    store = MemLensStore(mem)
    for i in range(30):
        store.put(("gus",), f"k{i}", {"n": i, "meta": {"even": i % 2 == 0}})
    found = store.search(("gus",), filter={"n": {"$gte": 25}, "meta.even": True}, limit=2)
    assert sorted(i.value["n"] for i in found) == [26, 28]
    assert len(store.search(("gus",), filter={"n": {"$ne": 3}}, limit=100)) == 29


@pytest.mark.parametrize("offset", [2**63, 10**12, -1])
def test_hostile_paging_is_refused_clearly(mem, offset):
    store = MemLensStore(mem)
    with pytest.raises(InvalidInput):
        store.search(("x",), offset=offset)
    with pytest.raises(InvalidInput):
        store.list_namespaces(offset=offset)
