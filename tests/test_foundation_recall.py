"""Foundation: storage round trip, meaning-aware ranking, isolation, hostile ids, threshold semantics, reindex."""

from __future__ import annotations

import pytest
from actors import ADMIN
from sqlmodel import select

from memory.errors import InvalidInput, NotFound
from memory.retrieval.recall import near_miss_floor
from memory.storage import records
from memory.storage.models import Retrieval, RetrievalHit

HOSTILE_IDS = [
    "x' OR '1'='1",
    'a"; DROP TABLE memory; --',
    "../../etc/passwd",
    "🦊🔥 user",
    "u" * 10_000,
    "user_key = 'x' OR 1=1 --",
]


def test_round_trip_returns_scores(svc):
    user = svc.ensure_user("alice")
    mem = svc.add_memory(user, "I live in Hangzhou and walk around West Lake every weekend")
    assert svc.get_memory(mem.id).indexed is True
    result = svc.recall("alice", "Which city does the user live in?", threshold=0.0)
    top = result.hits[0]
    assert top.memory_id == mem.id
    assert top.content == mem.content
    assert 0.0 < top.similarity <= 1.0
    assert top.passed and top.selected and top.rank == 1
    assert result.retrieval_id is not None


def test_chinese_query_finds_chinese_memory_and_close_english_beats_unrelated(svc):
    user = svc.ensure_user("lin")
    zh = svc.add_memory(user, "我不吃辣，平时喜欢清淡的江浙菜")
    en_close = svc.add_memory(user, "She avoids spicy food and prefers mild dishes")
    unrelated = svc.add_memory(user, "The quarterly report is due on Friday")
    hits = svc.recall("lin", "用户能吃辣吗？", threshold=0.0, mode="vector").hits
    order = [h.memory_id for h in hits]
    assert order[0] == zh.id
    assert order.index(en_close.id) < order.index(unrelated.id)
    fts = svc.recall("lin", "吃辣", threshold=0.0, mode="fulltext").hits
    assert fts and fts[0].memory_id == zh.id and fts[0].fts_score > 0


def test_users_never_see_each_others_memories(svc):
    a, b = svc.ensure_user("a"), svc.ensure_user("b")
    svc.add_memory(a, "Alice's passport is kept in the blue drawer")
    svc.add_memory(b, "Bob likes hiking in the Alps")
    for mode in ("vector", "fulltext", "hybrid"):
        hits = svc.recall("b", "where is the passport kept", threshold=-1.0, mode=mode).hits
        assert all("passport" not in h.content for h in hits), mode


@pytest.mark.parametrize("hostile", HOSTILE_IDS, ids=range(len(HOSTILE_IDS)))
def test_hostile_user_ids_neither_leak_nor_crash(plumbing_svc, hostile):
    svc = plumbing_svc
    victim = svc.ensure_user("victim")
    svc.add_memory(victim, "victim secret: the vault code is 4711")
    attacker = svc.ensure_user(hostile)
    svc.add_memory(attacker, "attacker note about the vault")
    for mode in ("vector", "fulltext", "hybrid"):
        hits = svc.recall(hostile, "vault code secret", threshold=-1.0, mode=mode).hits
        assert [h.content for h in hits] == ["attacker note about the vault"], mode
    assert svc.get_user(hostile).external_id == hostile


@pytest.mark.parametrize("bad", ["", "   ", "a\x00b", "\ud800", "u" * 10_001])
def test_unusable_user_ids_get_a_clear_error(plumbing_svc, bad):
    with pytest.raises(InvalidInput):
        plumbing_svc.ensure_user(bad)


def test_unknown_user_is_not_found(plumbing_svc):
    with pytest.raises(NotFound):
        plumbing_svc.recall("nobody", "anything")


def test_recall_finds_the_user_by_key_alone_even_for_hostile_ids(plumbing_svc):
    """Recall reads only the user's key (records.user_key): the same user get_user finds, never another one whose id
    merely looks alike, and an unusable id is refused as everywhere else."""
    svc = plumbing_svc
    ids = ["o'brien", "o'brien' OR '1'='1", "王芳", "O'BRIEN"]
    for uid in ids:
        svc.add_memory(svc.ensure_user(uid), f"{uid} likes tea")
    for uid in ids:
        assert records.user_key(svc.storage, uid) == svc.get_user(uid).key
        assert [h.content for h in svc.recall(uid, "tea", threshold=0.0).hits] == [f"{uid} likes tea"]
    with pytest.raises(NotFound):
        records.user_key(svc.storage, "o'brien' --")
    with pytest.raises(InvalidInput):
        records.user_key(svc.storage, "a\x00b")


def test_agents_keep_separate_memories_of_one_user(plumbing_svc):
    svc = plumbing_svc
    user = svc.ensure_user("u")
    svc.add_memory(user, "planner agent: trip to Kyoto in May", agent_id="planner")
    svc.add_memory(user, "reviewer agent: budget looks fine")
    planner = svc.recall("u", "trip Kyoto budget", threshold=-1.0, agent_id="planner").hits
    default = svc.recall("u", "trip Kyoto budget", threshold=-1.0).hits
    assert [h.content for h in planner] == ["planner agent: trip to Kyoto in May"]
    assert [h.content for h in default] == ["reviewer agent: budget looks fine"]
    with pytest.raises(InvalidInput):
        svc.recall("u", "x", agent_id="bad agent'; --")


def test_threshold_semantics(svc):
    user = svc.ensure_user("t")
    for text in [
        "I play tennis on Sundays",
        "My sister lives in Berlin",
        "I am allergic to peanuts",
        "We adopted a cat named Miso",
        "I work as a nurse",
    ]:
        svc.add_memory(user, text)
    q = "what sports does the user play"
    everything = svc.recall("t", q, threshold=-1.0, k=50, mode="vector").hits
    assert all(0.0 <= h.relevance <= 1.0 for h in everything)
    rels = sorted(h.relevance for h in everything)
    cut = (rels[-3] + rels[-2]) / 2
    result = svc.recall("t", q, threshold=cut, k=1, mode="vector")
    for h in result.hits:
        assert h.passed == (h.relevance >= cut)
    assert sum(h.passed for h in result.hits) == 2
    assert len(result.selected) == 1  # top-k of those that passed
    assert result.selected[0].rank == min(h.rank for h in result.hits if h.passed)
    assert all(h.drop_reason == "below threshold" for h in result.hits if not h.passed)
    assert not svc.recall("t", q, threshold=1.0, mode="vector").selected
    near = svc.recall("t", q, threshold=min(1.0, rels[-1] + 0.01), mode="vector").near_misses
    t = min(1.0, rels[-1] + 0.01)
    assert near and all(near_miss_floor(t) <= h.relevance < t and h.drop_reason == "below threshold" for h in near)
    floor = sorted(h.similarity for h in everything)[-1]  # raw similarity floor: only the closest survives
    floored = svc.recall("t", q, threshold=0.0, similarity_floor=floor, k=5, mode="vector")
    assert [h.similarity for h in floored.selected] == [floor]
    assert {h.drop_reason for h in floored.hits if not h.passed} == {"below similarity floor"}


def test_relevance_falls_back_to_raw_similarity_without_a_fit_and_says_so(plumbing_svc):
    plumbing_svc.add_memory(plumbing_svc.ensure_user("f"), "tea with milk")
    result = plumbing_svc.recall("f", "tea", threshold=-1.0, log=False)
    assert result.calibration == "fallback" and "no relevance calibration for embedder 'hash'" in result.notice
    assert all(h.relevance == round(min(1.0, max(0.0, h.similarity)), 6) for h in result.hits)


def test_relative_cut_keeps_only_hits_close_to_the_best(svc):
    user = svc.ensure_user("r")
    svc.add_memory(user, "I play tennis on Sundays")
    svc.add_memory(user, "The invoice number is on page two")
    hits = svc.recall("r", "tennis", threshold=0.0, relative_cut=0.0, mode="vector").hits
    assert [h.passed for h in hits] == [True, False]
    assert hits[1].drop_reason == "below relative cut"


def test_every_candidate_is_logged_with_scores(svc):
    user = svc.ensure_user("log")
    svc.add_memory(user, "I love jazz concerts")
    svc.add_memory(user, "I drive a red bicycle to work")
    result = svc.recall("log", "music taste", threshold=0.5)
    with svc.storage.db() as db:
        row = db.get(Retrieval, result.retrieval_id)
        hits = db.exec(select(RetrievalHit).where(RetrievalHit.retrieval_id == row.id)).all()
    assert row.query == "music taste" and row.mode == "hybrid"
    assert {h.memory_id for h in hits} == {h.memory_id for h in result.hits}
    assert all(h.similarity is not None for h in hits)


def test_reindex_rebuilds_with_the_same_results(svc):
    user = svc.ensure_user("re")
    for text in [
        "我住在杭州",
        "I moved to Shanghai last year",
        "My budget for hotels is 800 yuan a night",
        "I prefer window seats on trains",
        "我喜欢喝龙井茶",
    ]:
        svc.add_memory(user, text)
    before = [(h.memory_id, h.similarity, h.fts_score) for h in svc.recall("re", "住在哪里 city", k=5, log=False).hits]
    assert svc.reindex() == 5
    after = [(h.memory_id, h.similarity, h.fts_score) for h in svc.recall("re", "住在哪里 city", k=5, log=False).hits]
    assert [a[0] for a in after] == [b[0] for b in before]
    assert [a[1] for a in after] == pytest.approx([b[1] for b in before], abs=1e-5)


def test_deleted_memory_is_no_longer_retrieved(plumbing_svc):
    svc = plumbing_svc
    user = svc.ensure_user("d")
    keep = svc.add_memory(user, "keep this tennis note")
    gone = svc.add_memory(user, "delete this tennis note")
    svc.delete_memory(gone.id, actor=ADMIN)
    assert [h.memory_id for h in svc.recall("d", "tennis note", threshold=-1.0).hits] == [keep.id]
    assert svc.get_memory(gone.id).status == "deleted"


def test_repair_indexes_unindexed_rows_and_drops_orphans(plumbing_svc):
    svc = plumbing_svc
    user = svc.ensure_user("crash")
    kept = svc.add_memory(user, "indexed memory about chess")
    from memory.storage.models import Memory

    with svc.storage.db() as db:  # a row written to SQL whose indexing never happened (crash between the two)
        db.add(Memory(user_key=user.key, content="never indexed chess opening"))
        db.commit()
    with svc.storage.db() as db:
        row = db.get(Memory, kept.id)
        db.delete(row)
        db.commit()
    report = svc.repair()
    assert report == {"indexed": 1, "orphans_removed": 1}
    assert [h.content for h in svc.recall("crash", "chess", threshold=-1.0).hits] == ["never indexed chess opening"]


def test_small_fragments_are_compacted_across_processes(plumbing_svc):
    """Every append is a LanceDB fragment; many of them slow every search, so the index compacts itself — also when
    the appends came from many short processes (one CLI call each)."""
    from memory.service import MemoryService
    from memory.storage import vectors

    svc = plumbing_svc
    user = svc.ensure_user("frag")
    for i in range(vectors.OPTIMIZE_EVERY_APPENDS - 1):
        svc.add_memory(user, f"note number {i}")
    assert (
        svc.storage.index.table.stats()["fragment_stats"]["num_small_fragments"] >= vectors.OPTIMIZE_EVERY_APPENDS - 1
    )
    fresh = MemoryService(svc.settings, embedder=svc.storage.embedder)  # a new process opening the same index
    fresh.add_memory(fresh.get_user("frag"), "the append that tips it over")
    assert fresh.storage.index.table.stats()["fragment_stats"]["num_small_fragments"] <= 1
    assert len(fresh.recall("frag", "note number", threshold=-1.0, k=100, log=False).hits) == 50
