"""mem0's documented behaviour as 56 checks on ``memory.Memory`` (only the import changed).

Rebuilt from mem0ai/mem0 (Apache-2.0) at commit 8d5b7865bd, from its documentation pages
``docs/open-source/python-quickstart.mdx``, ``docs/core-concepts/memory-operations/{add,search,update,delete}.mdx``,
``docs/open-source/features/{metadata-filtering,async-memory}.mdx``, ``docs/open-source/configuration.mdx`` and the
documented contract of ``mem0/memory/main.py`` (the docstrings of ``add``, ``search``, ``get``, ``get_all``,
``update``, ``delete``, ``delete_all``, ``history``: defaults, shapes, the ``ValueError`` s they raise).

Each item is one documented behaviour. ``BY_DESIGN`` items are deliberate differences: the test expects them to
fail (strict xfail) and ``python -m tests.contracts.mem0`` prints the table of them in docs/doors.md, which
``tests/test_mem0_contract.py`` checks is current, so the table cannot drift from the contract.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from memory import AsyncMemory, Memory


@dataclass(frozen=True)
class Item:
    name: str
    source: str
    says: str
    check: Callable[..., None]
    by_design: str | None = None


ITEMS: list[Item] = []
QS, ADD, SEARCH, UPD, DEL, FILT, ASYNC, CONF, API = (
    "python-quickstart",
    "memory-operations/add",
    "memory-operations/search",
    "memory-operations/update",
    "memory-operations/delete",
    "features/metadata-filtering",
    "features/async-memory",
    "configuration",
    "main.py docstrings",
)


def item(source: str, says: str, by_design: str | None = None) -> Callable[[Callable[..., None]], Callable[..., None]]:
    def wrap(fn: Callable[..., None]) -> Callable[..., None]:
        ITEMS.append(Item(fn.__name__, source, says, fn, by_design))
        return fn

    return wrap


def _raw(m: Memory, text: str, **kw: Any) -> str:
    """Store ``text`` verbatim (infer=False) and return its id."""
    return m.add(text, infer=False, **kw)["results"][0]["id"]


def _texts(out: dict[str, Any]) -> list[str]:
    return [r["memory"] for r in out["results"]]


# -- add ----------------------------------------------------------------------------------------------------------
@item(QS, "add(list of role/content messages, user_id=) returns {'results': [{id, memory, event}]}")
def add_conversation(m: Memory, **_: Any) -> None:
    out = m.add(
        [
            {"role": "user", "content": "Hi, I'm Alex. I love basketball and gaming."},
            {"role": "assistant", "content": "Hey Alex! I'll remember your interests."},
        ],
        user_id="alex",
    )
    assert out["results"] and all({"id", "memory", "event"} <= set(r) for r in out["results"])
    assert all(r["event"] in ("ADD", "UPDATE", "DELETE", "NONE") for r in out["results"])


@item(API, "add accepts a plain string as one user message, or one message dict")
def add_string(m: Memory, **_: Any) -> None:
    assert m.add("I'm planning a trip to Tokyo next month.", user_id="alice")["results"]
    assert m.add({"role": "user", "content": "My dog's name is Biscuit."}, user_id="alice")["results"]


@item(ADD, "metadata given to add comes back on the memory")
def add_metadata(m: Memory, **_: Any) -> None:
    mid = _raw(m, "I love sci-fi movies", user_id="alice", metadata={"category": "movie_recommendations"})
    assert m.get(mid)["metadata"] == {"category": "movie_recommendations"}


@item(ADD, "infer=False stores the messages as they are (every message but system ones)")
def add_infer_false(m: Memory, **_: Any) -> None:
    out = m.add(
        [
            {"role": "system", "content": "be nice"},
            {"role": "user", "content": "I'm not a big fan of thriller movies"},
            {"role": "assistant", "content": "Got it, no thrillers."},
        ],
        user_id="alice",
        infer=False,
    )
    assert sorted(_texts(out)) == ["Got it, no thrillers.", "I'm not a big fan of thriller movies"]


@item(API, "add with user_id, agent_id and run_id keeps all three on the memory")
def add_all_ids(m: Memory, **_: Any) -> None:
    mid = _raw(m, "prefers window seats", user_id="alice", agent_id="travel", run_id="trip-1")
    got = m.get(mid)
    assert (got["user_id"], got["agent_id"], got["run_id"]) == ("alice", "travel", "trip-1")


@item(API, "add without any of user_id / agent_id / run_id raises ValueError")
def add_needs_an_id(m: Memory, **_: Any) -> None:
    with pytest.raises(ValueError):
        m.add("hello")


@item(API, "add scoped only by agent_id (no user) stores agent memory", by_design="a user id is always required")
def add_agent_only(m: Memory, **_: Any) -> None:
    assert m.add("Always answer in French.", agent_id="support-bot", infer=False)["results"]


@item(API, "messages of another type (e.g. a number) raise a validation error (ValueError here)")
def add_bad_messages(m: Memory, **_: Any) -> None:
    with pytest.raises(ValueError):
        m.add(42, user_id="alice")


@item(ADD, "a later add that contradicts an earlier one is an UPDATE of the same memory id")
def add_update_keeps_id(m: Memory, **_: Any) -> None:
    [first] = m.add("I live in Beijing", user_id="gao")["results"]
    later = m.add("I moved to Shanghai", user_id="gao")["results"]
    upd = [r for r in later if r["event"] == "UPDATE"]
    assert upd and upd[0]["id"] == first["id"] and "Shanghai" in m.get(first["id"])["memory"]


@item(API, "an integer user id is accepted as its text")
def add_int_user(m: Memory, **_: Any) -> None:
    mid = _raw(m, "likes tea", user_id=42)
    assert m.get(mid)["user_id"] == "42" and m.get_all(filters={"user_id": "42"})["results"]


@item(API, "a user id with inner whitespace raises ValueError", by_design="any printable user id is accepted")
def add_space_user(m: Memory, **_: Any) -> None:
    with pytest.raises(ValueError):
        m.add("likes tea", user_id="alice smith", infer=False)


@item(
    ADD,
    "expiration_date='YYYY-MM-DD' hides the memory after that day",
    by_design="no expiry dates (forgetting is MemLens's own lifecycle)",
)
def add_expiration(m: Memory, **_: Any) -> None:
    m.add("temporary note", user_id="alice", infer=False, expiration_date="2030-01-31")


@item(
    API, "memory_type='procedural_memory' with agent_id stores procedural memory", by_design="no procedural memory type"
)
def add_procedural(m: Memory, **_: Any) -> None:
    m.add("step 1, step 2", user_id="alice", agent_id="a", memory_type="procedural_memory")


# -- search -------------------------------------------------------------------------------------------------------
def _seed(m: Memory) -> dict[str, str]:
    return {
        "coffee": _raw(
            m, "Alice drinks black coffee every morning", user_id="alice", metadata={"category": "food", "priority": 3}
        ),
        "tennis": _raw(
            m, "Alice plays tennis on weekends", user_id="alice", metadata={"category": "sport", "priority": 8}
        ),
        "paris": _raw(
            m, "Alice is travelling to Paris in May", user_id="alice", metadata={"category": "travel", "priority": 6}
        ),
    }


@item(QS, "search(query, filters={'user_id': ...}) — mem0's current call shape — finds the user's memory")
def search_filters_shape(m: Memory, **_: Any) -> None:
    ids = _seed(m)
    assert m.search("What does Alice drink?", filters={"user_id": "alice"})["results"][0]["id"] == ids["coffee"]


@item(API, "search(query, user_id=..., limit=...) — mem0 1.x's call shape — still works beside the current one")
def search_v1_shape(m: Memory, **_: Any) -> None:
    ids = _seed(m)
    assert m.search("What does Alice drink?", user_id="alice", limit=1)["results"][0]["id"] == ids["coffee"]


@item(API, "a search hit has id, memory, score, hash, metadata, created_at, updated_at, user_id")
def search_hit_shape(m: Memory, **_: Any) -> None:
    _seed(m)
    hit = m.search("coffee", filters={"user_id": "alice"})["results"][0]
    assert {"id", "memory", "score", "hash", "metadata", "created_at", "updated_at", "user_id"} <= set(hit)


@item(API, "search returns at most 20 results by default (top_k=20); top_k caps the number")
def search_default_top_k(m: Memory, **_: Any) -> None:
    for i in range(24):
        _raw(m, f"Alice note number {i} about her garden", user_id="alice")
    assert len(m.search("Alice garden note", filters={"user_id": "alice"})["results"]) == 20
    assert len(m.search("Alice garden note", filters={"user_id": "alice"}, top_k=2)["results"]) == 2


@item(API, "the default threshold is 0.1 on the score; every hit scores at least that")
def search_default_threshold(m: Memory, **_: Any) -> None:
    _seed(m)
    hits = m.search("tennis", filters={"user_id": "alice"})["results"]
    assert hits and all(h["score"] >= 0.1 for h in hits)


@item(API, "threshold keeps only hits scoring at least it")
def search_threshold(m: Memory, **_: Any) -> None:
    _seed(m)
    everything = m.search("tennis on weekends", filters={"user_id": "alice"}, threshold=0.0)["results"]
    best = everything[0]["score"]
    strict = m.search("tennis on weekends", filters={"user_id": "alice"}, threshold=best)["results"]
    assert len(strict) < len(everything) and all(h["score"] >= best for h in strict)


@item(API, "a threshold outside [0, 1] or a negative top_k raises ValueError")
def search_bad_threshold(m: Memory, **_: Any) -> None:
    with pytest.raises(ValueError):
        m.search("x", filters={"user_id": "alice"}, threshold=1.5)
    with pytest.raises(ValueError):
        m.search("x", filters={"user_id": "alice"}, top_k=-1)


@item(API, "an empty or blank query raises ValueError")
def search_empty_query(m: Memory, **_: Any) -> None:
    _seed(m)
    with pytest.raises(ValueError):
        m.search("   ", filters={"user_id": "alice"})


@item(API, "an empty query raises ValueError for a user with no memories too")
def search_empty_query_unknown_user(m: Memory, **_: Any) -> None:
    with pytest.raises(ValueError):
        m.search("", filters={"user_id": "nobody-yet"})


@item(SEARCH, "results come back best score first")
def search_sorted_by_score(m: Memory, **_: Any) -> None:
    _seed(m)
    _raw(m, "Alice drinks green tea in the afternoon", user_id="alice")
    scores = [
        h["score"] for h in m.search("what does Alice drink", filters={"user_id": "alice"}, threshold=0.0)["results"]
    ]
    assert len(scores) == 4 and scores == sorted(scores, reverse=True)


@item(API, "search without user_id / agent_id / run_id raises ValueError")
def search_needs_an_id(m: Memory, **_: Any) -> None:
    with pytest.raises(ValueError):
        m.search("x", filters={"category": "food"})


@item(SEARCH, "a user-only search spans all the user's agents")
def search_all_agents(m: Memory, **_: Any) -> None:
    a = _raw(m, "Alice drinks green tea", user_id="alice", agent_id="chatbot")
    b = _raw(m, "Alice drinks oolong tea", user_id="alice", agent_id="helper")
    found = {h["id"] for h in m.search("what tea does Alice drink", filters={"user_id": "alice"})["results"]}
    assert {a, b} <= found


@item(SEARCH, "agent_id in filters scopes the search to that agent; a hit reports its own agent")
def search_one_agent(m: Memory, **_: Any) -> None:
    _raw(m, "Alice drinks green tea", user_id="alice", agent_id="chatbot")
    b = _raw(m, "Alice drinks oolong tea", user_id="alice", agent_id="helper")
    hits = m.search("tea", filters={"user_id": "alice", "agent_id": "helper"})["results"]
    assert [h["id"] for h in hits] == [b] and hits[0]["agent_id"] == "helper"


@item(SEARCH, "run_id in filters scopes the search to that session")
def search_run(m: Memory, **_: Any) -> None:
    _raw(m, "Alice wants sushi tonight", user_id="alice", run_id="session-1")
    b = _raw(m, "Alice wants pizza tonight", user_id="alice", run_id="session-123")
    hits = m.search("what does Alice want tonight", filters={"user_id": "alice", "run_id": "session-123"})["results"]
    assert [h["id"] for h in hits] == [b]


@item(
    SEARCH,
    "explain=True adds score_details to each hit",
    by_design="hits carry relevance, similarity, bm25 and fused_score instead",
)
def search_explain(m: Memory, **_: Any) -> None:
    _seed(m)
    assert "score_details" in m.search("coffee", filters={"user_id": "alice"}, explain=True)["results"][0]


# -- metadata filters ---------------------------------------------------------------------------------------------
def _found(m: Memory, filters: dict[str, Any], query: str = "Alice") -> set[str]:
    return {h["id"] for h in m.search(query, filters={"user_id": "alice", **filters}, threshold=0.0)["results"]}


@item(FILT, "a plain metadata key matches by equality; eq / ne")
def filter_equality(m: Memory, **_: Any) -> None:
    ids = _seed(m)
    assert _found(m, {"category": "food"}) == {ids["coffee"]}
    assert _found(m, {"category": {"eq": "sport"}}) == {ids["tennis"]}
    assert _found(m, {"category": {"ne": "sport"}}) == {ids["coffee"], ids["paris"]}


@item(FILT, "gt / gte / lt / lte compare numbers")
def filter_ranges(m: Memory, **_: Any) -> None:
    ids = _seed(m)
    assert _found(m, {"priority": {"gt": 6}}) == {ids["tennis"]}
    assert _found(m, {"priority": {"gte": 6}}) == {ids["tennis"], ids["paris"]}
    assert _found(m, {"priority": {"lt": 6}}) == {ids["coffee"]}
    assert _found(m, {"priority": {"lte": 6}}) == {ids["coffee"], ids["paris"]}


@item(FILT, "in / nin")
def filter_in_nin(m: Memory, **_: Any) -> None:
    ids = _seed(m)
    assert _found(m, {"category": {"in": ["food", "travel"]}}) == {ids["coffee"], ids["paris"]}
    assert _found(m, {"category": {"nin": ["food", "travel"]}}) == {ids["tennis"]}


@item(FILT, "contains / icontains match text")
def filter_contains(m: Memory, **_: Any) -> None:
    a = _raw(m, "Alice has a meeting", user_id="alice", metadata={"title": "Weekly Meeting notes"})
    assert _found(m, {"title": {"contains": "Meeting"}}) == {a}
    assert _found(m, {"title": {"contains": "meeting"}}) == set()
    assert _found(m, {"title": {"icontains": "MEETING"}}) == {a}


@item(FILT, "'*' matches any value of a present key")
def filter_wildcard(m: Memory, **_: Any) -> None:
    ids = _seed(m)
    _raw(m, "Alice has no category", user_id="alice")
    assert _found(m, {"category": "*"}) == set(ids.values())


@item(FILT, "'*' on run_id matches every memory that has a run id")
def filter_run_wildcard(m: Memory, **_: Any) -> None:
    a = _raw(m, "Alice wants sushi tonight", user_id="alice", run_id="session-1")
    b = _raw(m, "Alice wants pizza tomorrow", user_id="alice", run_id="session-2")
    _raw(m, "Alice wants tacos someday", user_id="alice")
    assert _found(m, {"run_id": "*"}, "what does Alice want") == {a, b}


@item(FILT, "AND: every condition")
def filter_and(m: Memory, **_: Any) -> None:
    ids = _seed(m)
    assert _found(m, {"AND": [{"category": "sport"}, {"priority": {"gte": 7}}]}) == {ids["tennis"]}


@item(FILT, "OR: any condition")
def filter_or(m: Memory, **_: Any) -> None:
    ids = _seed(m)
    assert _found(m, {"OR": [{"category": "food"}, {"priority": {"gte": 8}}]}) == {ids["coffee"], ids["tennis"]}


@item(FILT, "NOT: none of the conditions")
def filter_not(m: Memory, **_: Any) -> None:
    ids = _seed(m)
    assert _found(m, {"NOT": [{"category": "food"}, {"category": "travel"}]}) == {ids["tennis"]}


@item(FILT, "logic nests (AND of OR and NOT)")
def filter_nested(m: Memory, **_: Any) -> None:
    ids = _seed(m)
    f = {"AND": [{"OR": [{"category": "sport"}, {"category": "travel"}]}, {"NOT": [{"priority": {"lt": 7}}]}]}
    assert _found(m, f) == {ids["tennis"]}


@item(FILT, "filters apply before top_k: the one match comes back even among many better-scoring memories")
def filter_before_limit(m: Memory, **_: Any) -> None:
    for i in range(30):
        _raw(m, f"Alice drinks coffee, cup {i}", user_id="alice", metadata={"category": "food"})
    rare = _raw(m, "Alice once drank tea", user_id="alice", metadata={"category": "rare"})
    hits = m.search("Alice drinks coffee", filters={"user_id": "alice", "category": "rare"}, top_k=1, threshold=0.0)
    assert [h["id"] for h in hits["results"]] == [rare]


# -- get / get_all ------------------------------------------------------------------------------------------------
@item(API, "get(id) returns the memory with id, memory, hash, created_at, updated_at")
def get_shape(m: Memory, **_: Any) -> None:
    mid = _raw(m, "likes jazz", user_id="alice")
    got = m.get(mid)
    assert (
        got["id"] == mid and got["memory"] == "likes jazz" and got["hash"] and got["created_at"] and got["updated_at"]
    )


@item(DEL, "get of an unknown id returns None; a deleted memory is gone: get returns None")
def get_after_delete(m: Memory, **_: Any) -> None:
    assert m.get("no-such-id") is None
    mid = _raw(m, "likes jazz", user_id="alice")
    m.delete(memory_id=mid)
    assert m.get(mid) is None


@item(API, "get_all(filters={'user_id': ...}) lists the user's memories; get_all(user_id=...) too (1.x)")
def get_all_shapes(m: Memory, **_: Any) -> None:
    ids = _seed(m)
    assert {r["id"] for r in m.get_all(filters={"user_id": "alice"})["results"]} == set(ids.values())
    assert {r["id"] for r in m.get_all(user_id="alice")["results"]} == set(ids.values())


@item(API, "get_all returns at most 20 by default (top_k=20); top_k changes it")
def get_all_top_k(m: Memory, **_: Any) -> None:
    for i in range(23):
        _raw(m, f"note {i}", user_id="alice")
    assert len(m.get_all(filters={"user_id": "alice"})["results"]) == 20
    assert len(m.get_all(filters={"user_id": "alice"}, top_k=5)["results"]) == 5


@item(API, "get_all spans the user's agents; agent_id and run_id in filters narrow it")
def get_all_scopes(m: Memory, **_: Any) -> None:
    a = _raw(m, "n1", user_id="alice", agent_id="chatbot", run_id="r1")
    b = _raw(m, "n2", user_id="alice", agent_id="helper", run_id="r2")
    assert {r["id"] for r in m.get_all(filters={"user_id": "alice"})["results"]} == {a, b}
    assert [r["id"] for r in m.get_all(filters={"user_id": "alice", "agent_id": "helper"})["results"]] == [b]
    assert [r["id"] for r in m.get_all(filters={"user_id": "alice", "run_id": "r1"})["results"]] == [a]


@item(API, "get_all applies metadata filters (before top_k)")
def get_all_filters(m: Memory, **_: Any) -> None:
    ids = _seed(m)
    for i in range(25):
        _raw(m, f"filler {i}", user_id="alice")
    got = m.get_all(filters={"user_id": "alice", "priority": {"gte": 6}}, top_k=20)["results"]
    assert {r["id"] for r in got} == {ids["tennis"], ids["paris"]}


# -- update / delete / history ------------------------------------------------------------------------------------
@item(UPD, "update(memory_id=, text=) replaces the text, keeps the id, says 'Memory updated successfully!'")
def update_text(m: Memory, **_: Any) -> None:
    mid = _raw(m, "Alex prefers coffee", user_id="alex")
    out = m.update(memory_id=mid, text="Alex now prefers decaf coffee")
    assert out["message"] == "Memory updated successfully!"
    assert m.get(mid)["memory"] == "Alex now prefers decaf coffee"


@item(API, "an update changes hash and updated_at and keeps created_at")
def update_times(m: Memory, **_: Any) -> None:
    mid = _raw(m, "Alex prefers coffee", user_id="alex")
    before = m.get(mid)
    m.update(mid, text="Alex prefers tea")
    after = m.get(mid)
    assert after["hash"] != before["hash"] and after["created_at"] == before["created_at"]
    assert after["updated_at"] >= before["updated_at"]


@item(API, "update's deprecated data= still works")
def update_data_alias(m: Memory, **_: Any) -> None:
    mid = _raw(m, "Alex prefers coffee", user_id="alex")
    m.update(mid, data="Alex prefers cocoa")
    assert m.get(mid)["memory"] == "Alex prefers cocoa"


@item(UPD, "update with metadata merges it into the memory's metadata")
def update_metadata(m: Memory, **_: Any) -> None:
    mid = _raw(m, "Alex prefers coffee", user_id="alex", metadata={"source": "chat"})
    m.update(memory_id=mid, text="Alex now prefers decaf coffee", metadata={"category": "preferences"})
    assert m.get(mid)["metadata"] == {"source": "chat", "category": "preferences"}


@item(API, "update with neither text nor metadata raises ValueError")
def update_nothing(m: Memory, **_: Any) -> None:
    mid = _raw(m, "x", user_id="alex")
    with pytest.raises(ValueError):
        m.update(mid)


@item(DEL, "delete(memory_id=) says 'Memory deleted successfully!'; an unknown id raises ValueError")
def delete_one(m: Memory, **_: Any) -> None:
    mid = _raw(m, "x", user_id="alex")
    assert m.delete(memory_id=mid)["message"] == "Memory deleted successfully!"
    with pytest.raises(ValueError):
        m.delete(memory_id=mid)


@item(DEL, "delete_all(user_id=) removes all the user's memories; without any id it raises ValueError")
def delete_all(m: Memory, **_: Any) -> None:
    _seed(m)
    assert m.delete_all(user_id="alice")["message"] == "Memories deleted successfully!"
    assert m.get_all(filters={"user_id": "alice"})["results"] == []
    with pytest.raises(ValueError):
        m.delete_all()


@item(API, "history(id) lists the changes with old_memory / new_memory, the first an ADD")
def history(m: Memory, **_: Any) -> None:
    mid = _raw(m, "Alex prefers coffee", user_id="alex")
    m.update(mid, text="Alex prefers tea")
    h = m.history(mid)
    assert h[0]["event"] == "ADD" and h[-1]["new_memory"] == "Alex prefers tea"
    assert h[-1]["old_memory"] == "Alex prefers coffee"


@item(
    API,
    "reset() erases every memory",
    by_design="reset is refused unless Memory(allow_reset=True): it erases every user",
)
def reset(m: Memory, **_: Any) -> None:
    _seed(m)
    m.reset()


# -- construction -------------------------------------------------------------------------------------------------
def _mem0_config(tmp: Any) -> dict[str, Any]:
    return {
        "vector_store": {"provider": "qdrant", "config": {"collection_name": "test", "path": str(tmp / "vectors")}},
        "llm": {"provider": "openai", "config": {"model": "gpt-4.1-nano-2025-04-14", "temperature": 0.2}},
        "embedder": {"provider": "openai", "config": {"model": "text-embedding-3-small"}},
        "history_db_path": str(tmp / "history.db"),
        "version": "v1.1",
    }


@item(CONF, "Memory.from_config(<mem0 config>) builds a working memory (keys it cannot use are reported)")
def from_config(m: Memory, tmp_path: Any, **_: Any) -> None:
    with pytest.warns(UserWarning, match="embedder"):
        mem = Memory.from_config(_mem0_config(tmp_path))
    mid = _raw(mem, "likes jazz", user_id="alice")
    assert mem.get(mid)["memory"] == "likes jazz" and "llm" in mem.ignored_config
    assert (tmp_path / "history.db").exists()
    mem.service.close()


@item(ASYNC, "AsyncMemory.from_config(<mem0 config>); add / search / get_all awaited, concurrent adds all succeed")
def async_from_config(m: Memory, tmp_path: Any, **_: Any) -> None:
    with pytest.warns(UserWarning):
        amem = AsyncMemory.from_config(_mem0_config(tmp_path))

    async def run() -> tuple[Any, Any]:
        tasks = [
            amem.add(messages=[{"role": "user", "content": f"Message {i}"}], user_id=f"user_{i}", infer=False)
            for i in range(1, 4)
        ]
        assert all(isinstance(r, dict) and r["results"] for r in await asyncio.gather(*tasks, return_exceptions=True))
        got = await amem.get_all(filters={"user_id": "user_1"})
        found = await amem.search("Message", filters={"user_id": "user_1"}, threshold=0.0)
        return got, found

    got, found = asyncio.run(run())
    assert _texts(got) == ["Message 1"] and _texts(found) == ["Message 1"]
    amem.service.close()


def table() -> str:
    """The table of the deliberate differences in docs/doors.md (generated: ``python -m tests.contracts.mem0``)."""
    rows = [i for i in ITEMS if i.by_design]
    lines = [
        f"mem0 contract: {len(ITEMS)} items from mem0's documentation, {len(ITEMS) - len(rows)} behave as documented, "
        f"{len(rows)} differ by design (`tests/contracts/mem0.py`):",
        "",
        "| mem0 documents | MemLens | source |",
        "|---|---|---|",
    ]
    lines += [f"| {i.says} | {i.by_design} | {i.source} |" for i in rows]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(table())
