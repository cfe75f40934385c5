"""The vector cache (memory/storage/vector_cache.py): a cached search returns what LanceDB's exact scan returns; this
process's writes keep the cache right (added, replaced, deleted rows, an erased user); another process's write is
never searched stale; agents and users stay apart; the memory budget holds.

Real LanceDB in the test's folder; "another process" is a second index object on the same folder (its own
connection, as a second process has). Speed is measured in bench/recall_latency.py, never here.
"""

from __future__ import annotations

from datetime import datetime

import numpy as np
import pytest

from memory.storage.vectors import IndexRow, VectorIndex

DIM = 32
BUDGET = 8 << 20


def rows(user: str, n: int, seed: int, *, start: int = 0, agent: str = "default") -> list[IndexRow]:
    rng = np.random.default_rng(seed)
    return [
        IndexRow(
            id=f"{user}-{agent}-{start + i}",
            user_key=user,
            agent_id=agent,
            text=f"note {start + i}",
            vector=rng.normal(size=DIM).astype(np.float32),
            type="fact",
            created_at=datetime(2026, 1, 1),
        )
        for i in range(n)
    ]


@pytest.fixture
def index(tmp_path) -> VectorIndex:
    return VectorIndex(str(tmp_path / "lancedb"), DIM, cache_bytes=BUDGET)


def query(seed: int) -> np.ndarray:
    return np.random.default_rng(1000 + seed).normal(size=DIM).astype(np.float32)


def exact(index: VectorIndex, user: str, q: np.ndarray, k: int, agent: str | None = "default"):
    return index.search_vector(q, user, agent, k, exact=True)


def assert_same(got, want):
    assert [i for i, _ in got] == [i for i, _ in want]
    assert np.allclose([d for _, d in got], [d for _, d in want], atol=1e-5)


def test_a_cached_search_returns_the_exact_scans_answer(index):
    index.add(rows("u1", 300, 1) + rows("u2", 300, 2))
    assert index.preload("u1")
    hits_before = index.cache.hits
    for s in range(10):
        q = query(s)
        assert_same(index.search_vector(q, "u1", "default", 20), exact(index, "u1", q, 20))
    assert index.cache.hits == hits_before + 10  # every one of them served from memory
    # a batch of queries (the write path's dedupe) agrees too
    qs = [query(s) for s in range(4)]
    for got, q in zip(index.search_vectors(qs, "u1", "default", 5), qs, strict=True):
        assert_same(got, exact(index, "u1", q, 5))


def test_a_miss_is_answered_by_the_index_and_loads_the_user_for_the_next_search(index):
    index.add(rows("u1", 50, 1))
    q = query(0)
    assert_same(index.search_vector(q, "u1", "default", 10), exact(index, "u1", q, 10))
    assert index.cache.misses == 1
    for thread in __import__("threading").enumerate():
        if thread.name == "memlens-vcache":
            thread.join(10)
    index.search_vector(q, "u1", "default", 10)
    assert index.cache.hits == 1


def test_own_writes_keep_the_entry_and_are_found(index):
    index.add(rows("u1", 100, 1))
    assert index.preload("u1")
    loads = index.cache.loads
    new = rows("u1", 5, 9, start=100)
    index.add(new)
    q = np.asarray(new[0].vector)  # the new row's own vector: it must come first
    got = index.search_vector(q, "u1", "default", 3)
    assert got[0][0] == "u1-default-100" and got[0][1] == pytest.approx(0.0, abs=1e-5)
    assert_same(got, exact(index, "u1", q, 3))
    # replaced: the same id with another vector is found by its new vector only
    moved = IndexRow(**{**new[0].__dict__, "vector": -np.asarray(new[0].vector)})
    index.upsert([moved])
    assert "u1-default-100" not in [i for i, _ in index.search_vector(q, "u1", "default", 3)]
    assert_same(index.search_vector(q, "u1", "default", 10), exact(index, "u1", q, 10))
    # deleted
    index.delete(["u1-default-101"])
    q2 = np.asarray(new[1].vector)
    assert "u1-default-101" not in [i for i, _ in index.search_vector(q2, "u1", "default", 10)]
    assert_same(index.search_vector(q2, "u1", "default", 10), exact(index, "u1", q2, 10))
    assert index.cache.loads == loads and index.cache.drops == 0  # kept up to date, never reloaded


def test_another_processs_write_is_never_searched_stale(index, tmp_path):
    other = VectorIndex(index.uri, DIM, cache_bytes=BUDGET)
    index.add(rows("u1", 100, 1))
    assert index.preload("u1")
    fresh = rows("u1", 1, 5, start=500)
    other.add(fresh)
    q = np.asarray(fresh[0].vector)
    got = index.search_vector(q, "u1", "default", 5)
    assert got[0][0] == "u1-default-500"
    assert index.cache.drops == 1
    other.delete(["u1-default-500"])
    assert "u1-default-500" not in [i for i, _ in index.search_vector(q, "u1", "default", 5)]


def test_agents_and_users_stay_apart(index):
    index.add(rows("u1", 60, 1) + rows("u1", 60, 2, agent="coach") + rows("u2", 60, 3))
    assert index.preload("u1")
    q = query(3)
    only_default = index.search_vector(q, "u1", "default", 200)
    assert len(only_default) == 60 and all(i.startswith("u1-default-") for i, _ in only_default)
    every_agent = index.search_vector(q, "u1", None, 200)
    assert len(every_agent) == 120 and all(i.startswith("u1-") for i, _ in every_agent)
    assert_same(every_agent[:20], exact(index, "u1", q, 20, agent=None))
    assert all(i.startswith("u2-") for i, _ in index.search_vector(q, "u2", "default", 200))


def test_an_erased_user_leaves_the_cache(index):
    index.add(rows("u1", 40, 1) + rows("u2", 40, 2))
    assert index.preload("u1") and index.preload("u2")
    index.delete_user("u1")
    assert index.search_vector(query(0), "u1", "default", 10) == []
    assert len(index.search_vector(query(0), "u2", "default", 100)) == 40


def test_the_budget_holds(tmp_path):
    one_user = 200 * DIM * 4
    index = VectorIndex(str(tmp_path / "lancedb"), DIM, cache_bytes=int(one_user * 2.5))
    for u in range(3):
        index.add(rows(f"u{u}", 200, u))
    assert index.preload("u0") and index.preload("u1") and index.preload("u2")
    assert index.cache.lookup("u0", index._version()) is None  # least recently used, evicted
    big = VectorIndex(str(tmp_path / "lancedb"), DIM, cache_bytes=one_user // 2)
    assert not big.preload("u0")  # larger than the whole budget: never cached, searched through LanceDB
    q = query(1)
    assert_same(big.search_vector(q, "u0", "default", 10), exact(big, "u0", q, 10))


def test_off_when_the_budget_is_zero(tmp_path):
    index = VectorIndex(str(tmp_path / "lancedb"), DIM)
    index.add(rows("u1", 20, 1))
    assert not index.preload("u1")
    index.search_vector(query(0), "u1", "default", 5)
    assert index.cache.hits == index.cache.misses == 0


def test_similarities_read_from_the_table_match_the_exact_search(index):
    index.add(rows("u1", 50, 1))
    q = query(2)
    want = dict(exact(index, "u1", q, 50))
    got = index.similarities(q, "u1", list(want)[:7] + ["u1-default-missing"])
    assert set(got) == set(list(want)[:7])
    assert all(got[i] == pytest.approx(1.0 - want[i], abs=1e-5) for i in got)


def test_recall_gives_the_same_answer_with_and_without_the_cache(tmp_path, e5):
    """The whole recall — vector and full-text signals, similarities of full-text-only hits, ranking — through the
    cache and through LanceDB alone, on the real embedder (the full-text hits' similarities must be the same)."""
    from memory.config import Settings
    from memory.service import MemoryDraft, MemoryService

    texts = [
        "I adopted a greyhound named Pepper last spring",
        "My sister Lena got her pilot's licence",
        "我上个月去了杭州旅游",
        "We moved to Berlin in 2024 for my job",
        "I can't stand spicy food",
        "我妈妈喜欢打网球",
        "The mortgage on our flat is due in March",
        "Dinner at my in-laws was awkward again",
    ]
    answers = {}
    for mb in (0, 64):
        svc = MemoryService(Settings(data_dir=tmp_path / f"d{mb}", vector_cache_mb=mb), embedder=e5)
        user = svc.ensure_user("ann")
        svc.add_memories(user, [MemoryDraft(content=t) for t in texts])
        assert svc.storage.index.preload(user.key) is bool(mb)
        for q in ("my dog", "Lena's licence", "杭州", "where do we live", "spicy food"):
            for mode in ("vector", "hybrid"):
                res = svc.recall("ann", q, mode=mode, threshold=-1.0, k=8, log=False)
                answers.setdefault((q, mode), []).append(
                    [(h.content, round(h.similarity or 0, 4), h.fts_score, h.selected) for h in res.hits]
                )
        c = svc.storage.index.cache
        assert (c.hits, c.misses, c.drops) == ((11, 1, 0) if mb else (0, 0, 0))  # preload: a miss, a hit; 10 recalls
        svc.close()
    for key, (without, with_cache) in answers.items():
        assert with_cache == without, key


def test_the_version_check_stands_in_a_stat_only_while_the_folder_is_unchanged(index, monkeypatch):
    """A version read made long enough after the last commit is reused while the manifests' folder is unchanged; a
    read made right after a commit is not (coarse timestamps); another process's commit is always seen."""
    import time

    from memory.storage import vectors

    monkeypatch.setattr(vectors, "VERSION_STAT_SLACK_NS", 200_000_000)
    other = VectorIndex(index.uri, DIM, cache_bytes=BUDGET)
    index.add(rows("u1", 10, 1))
    first = index._version()
    assert index._seen_version is not None and index._seen_version[2] is False  # too soon after the commit
    time.sleep(0.3)
    assert index._version() == first and index._seen_version[2] is True  # a full read, now trusted …
    assert index._version() == first  # … and reused
    other.add(rows("u1", 1, 2, start=50))
    assert index._version() == first + 1  # the folder changed: read again
    assert index.search_vector(np.asarray(rows("u1", 1, 2, start=50)[0].vector), "u1", "default", 1)[0][0] == (
        "u1-default-50"
    )
