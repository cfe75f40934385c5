"""The vector index a large table searches through (memory/storage/vectors.py): built once the table passes the
threshold and trained again when it has doubled, never on every write; rows added since are still found; the user
prefilter keeps other users' rows out; a user with a few rows among many gets all of them; hostile ids are refused.

Real LanceDB in the test's folder, with the thresholds scaled down (a thousand rows instead of twenty thousand) so the
real IVF_SQ index is trained in a moment. Speed is measured in bench/recall_latency.py, never here.
"""

from __future__ import annotations

from datetime import datetime

import numpy as np
import pytest

from memory.storage import vectors
from memory.storage.vectors import IndexRow, VectorIndex

DIM = 64
CENTRES = np.random.default_rng(0).normal(size=(16, DIM))


@pytest.fixture
def small_thresholds(monkeypatch):
    monkeypatch.setattr(vectors, "VECTOR_INDEX_MIN_ROWS", 1000)
    monkeypatch.setattr(vectors, "VECTOR_PARTITION_ROWS", 128)


@pytest.fixture
def index(tmp_path, small_thresholds) -> VectorIndex:
    return VectorIndex(str(tmp_path / "lancedb"), DIM)


def points(n: int, seed: int) -> np.ndarray:
    """Unit vectors around a few centres (clustered, as text embeddings are)."""
    rng = np.random.default_rng(seed)
    v = CENTRES[rng.integers(0, len(CENTRES), n)] + rng.normal(scale=0.6, size=(n, DIM))
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


def add(index: VectorIndex, user: str, n: int, seed: int, start: int = 0) -> np.ndarray:
    vecs = points(n, seed)
    index.add(
        [
            IndexRow(
                id=f"{user}-{start + i}",
                user_key=user,
                agent_id="default",
                text=f"note {start + i}",
                vector=v,
                type="fact",
                created_at=datetime(2025, 1, 1),
            )
            for i, v in enumerate(vecs)
        ]
    )
    return vecs


def vector_index(index: VectorIndex):
    return next((cfg for cfg in index.table.list_indices() if cfg.columns == ["vector"]), None)


def trained_rows(index: VectorIndex) -> int:
    return int(index.table.schema.field("vector").metadata[vectors.TRAINED_ROWS_KEY.encode()])


def ids(hits: list[tuple[str, float]]) -> list[str]:
    return [i for i, _ in hits]


def test_the_index_is_built_past_the_threshold_and_matches_the_exact_search(index):
    add(index, "alice", 500, seed=1)
    add(index, "bob", 400, seed=2)
    index.optimize()
    assert vector_index(index) is None  # 900 rows: every search scans the user's rows exactly
    assert {"user_key", "status", "agent_id", "type"} <= {cfg.columns[0] for cfg in index.table.list_indices()}
    add(index, "bob", 200, seed=3, start=400)
    index.optimize()
    assert vector_index(index) is not None and trained_rows(index) == 1100
    overlaps = []
    for q in points(30, seed=4):
        got = index.search_vector(q, "alice", "default", 100)
        exact = index.search_vector(q, "alice", "default", 100, exact=True)
        overlaps.append(len(set(ids(got[:10])) & set(ids(exact[:10]))) / 10)
    assert np.mean(overlaps) >= 0.95
    for q in points(5, seed=5):  # the distances returned are exact ones (re-ranked on the full vectors)
        got = dict(index.search_vector(q, "alice", "default", 10))
        exact = dict(index.search_vector(q, "alice", "default", 500, exact=True))
        assert all(got[i] == pytest.approx(exact[i], abs=1e-5) for i in got)


def test_rows_added_after_the_build_are_searched_and_filed_in_without_retraining(index):
    add(index, "alice", 1200, seed=1)
    index.optimize()
    assert trained_rows(index) == 1200
    fresh = add(index, "alice", 3, seed=9, start=5000)
    assert index.table.index_stats(vector_index(index).name).num_unindexed_rows == 3
    for i, v in enumerate(fresh):  # not in the index yet: LanceDB scans the new rows beside it
        assert index.search_vector(v, "alice", "default", 10)[0] == (f"alice-{5000 + i}", pytest.approx(0.0, abs=1e-5))
    index.optimize()
    assert index.table.index_stats(vector_index(index).name).num_unindexed_rows == 0
    assert trained_rows(index) == 1200  # filed into the existing partitions, not trained again
    assert ids(index.search_vector(fresh[0], "alice", "default", 1)) == ["alice-5000"]


def test_the_index_is_trained_again_once_the_table_has_doubled(index):
    add(index, "alice", 1000, seed=1)
    index.optimize()
    assert trained_rows(index) == 1000
    add(index, "alice", 500, seed=2, start=1000)
    index.optimize()
    assert trained_rows(index) == 1000
    add(index, "alice", 600, seed=3, start=1500)
    index.optimize()
    assert trained_rows(index) == 2100


def test_another_users_rows_never_come_back_through_the_index(index):
    add(index, "alice", 600, seed=1)
    bob = add(index, "bob", 600, seed=2)
    index.optimize()
    assert vector_index(index) is not None
    for n, v in enumerate(bob[:20]):  # bob's own vectors: the nearest row in the whole table is bob's
        assert ids(index.search_vector(v, "bob", "default", 1)) == [f"bob-{n}"]
        hits = index.search_vector(v, "alice", "default", 100)
        assert len(hits) == 100 and all(i.startswith("alice-") for i in ids(hits))
        assert all(i.startswith("alice-") for i in ids(index.search_vector(v, "alice", None, 100)))
    assert index.search_vector(bob[0], "carol", "default", 10) == []


def test_a_user_with_a_few_rows_among_many_gets_every_one_of_them(index, monkeypatch):
    """Few partitions probed hold few of a small user's rows: the search probes more until it has the limit (or
    every partition), so nothing the exact scan finds is missing."""
    monkeypatch.setattr(vectors, "NPROBES", 1)
    add(index, "big", 2000, seed=1)
    small = add(index, "small", 5, seed=2)
    index.optimize()
    assert vector_index(index) is not None
    for q in [*small, *points(10, seed=3)]:
        got = index.search_vector(q, "small", "default", 100)
        exact = index.search_vector(q, "small", "default", 100, exact=True)
        assert ids(got) == ids(exact) and len(got) == 5


@pytest.mark.parametrize("hostile", ["x' OR '1'='1", "bob' OR user_key != '", "a b", "", "u" * 200])
def test_hostile_user_ids_are_refused_with_and_without_the_index(index, hostile):
    add(index, "alice", 1100, seed=1)
    query = points(1, seed=2)[0]
    for exact in (True, False):
        with pytest.raises(ValueError, match="refusing"):
            index.search_vector(query, hostile, "default", 10, exact=exact)
    index.optimize()
    assert vector_index(index) is not None
    for exact in (True, False):
        with pytest.raises(ValueError, match="refusing"):
            index.search_vector(query, hostile, "default", 10, exact=exact)
        with pytest.raises(ValueError, match="refusing"):
            index.search_vector(query, "alice", hostile, 10, exact=exact)


def test_a_table_from_before_gets_the_prefilter_indices_at_its_next_optimize(index):
    add(index, "alice", 10, seed=1)
    for name in ("status_idx", "agent_id_idx", "type_idx"):
        index.table.drop_index(name)
    assert {cfg.columns[0] for cfg in index.table.list_indices()} == {"text", "user_key"}
    index.optimize()
    assert {cfg.columns[0] for cfg in index.table.list_indices()} == {"text", "user_key", "status", "agent_id", "type"}


@pytest.mark.filterwarnings("error::UserWarning")  # LanceDB's warning about older versions: the exclusive lock
def test_reclaim_rewrites_the_vector_index_without_the_deleted_rows(index):  # leaves none in use; no terminal noise
    vecs = add(index, "alice", 1100, seed=1)
    index.optimize()
    index.delete(["alice-0"])
    index.reclaim()
    assert vector_index(index) is not None and trained_rows(index) == 1099
    assert "alice-0" not in ids(index.search_vector(vecs[0], "alice", "default", 10))


def test_a_rebuild_can_be_asked_for_below_the_threshold(index):
    """``build_vector_index`` trains now whatever the size (the latency bench times it), recording what it saw."""
    vecs = add(index, "alice", 300, seed=1)
    index.optimize()
    assert vector_index(index) is None
    index.build_vector_index()
    assert vector_index(index) is not None and trained_rows(index) == 300
    assert ids(index.search_vector(vecs[7], "alice", "default", 1)) == ["alice-7"]
