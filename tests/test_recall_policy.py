"""Knobs that don't lie: the recall policy is one frozen, typed value; a name that is not a knob is refused, every
knob changes what recall returns, and the policy says whether relevance is a probability or a raw similarity.

Real SQLite + LanceDB in a temp folder and the real offline embedder (e5), whose shipped calibration is fitted for
hybrid mode.
"""

from __future__ import annotations

import dataclasses

import pytest
from actors import CURATOR
from sqlmodel import select

from memory.errors import InvalidInput
from memory.retrieval.policy import KNOBS, RecallPolicy, RelevanceScale
from memory.storage.models import Retrieval

FACTS = [
    "I live in Hangzhou and walk around West Lake every weekend",
    "我不吃辣，平时喜欢清淡的江浙菜",
    "She avoids spicy food and prefers mild dishes",
    "My dog Rex is a three year old border collie",
    "The quarterly report is due on Friday",
    "I work as a nurse at the city hospital",
    "我每天早上喝一杯绿茶",
    "We are planning a trip to Kyoto in April",
]
QUERY = "what food does the user avoid? spicy"


@pytest.fixture
def alice(svc):
    user = svc.ensure_user("alice")
    ids = {text: svc.add_memory(user, text).id for text in FACTS}
    return svc, ids


def test_a_misspelt_knob_is_refused_everywhere_never_ignored(alice):
    """``treshold=0.99`` used to be set on the mutable params as a new attribute and ignored: the search ran with
    the configured threshold. Now every entry point names the knob it meant."""
    svc, _ = alice
    with pytest.raises(InvalidInput, match="'treshold' is not a recall setting.*did you mean 'threshold'"):
        svc.recall_policy(treshold=0.99)  # type: ignore[call-arg]
    with pytest.raises(InvalidInput, match="'treshold' is not a recall setting"):
        svc.recall("alice", QUERY, treshold=0.99)  # type: ignore[call-arg]
    with pytest.raises(InvalidInput, match="'topk' is not a recall setting"):
        svc.recall_policy().replace(topk=3)
    with pytest.raises(InvalidInput, match="not a recall setting"):
        svc.desk.replay({"treshold": 0.5}, actor=CURATOR)
    with pytest.raises(InvalidInput, match="k must be"):
        svc.recall_policy().replace(k=0)
    with pytest.raises(InvalidInput, match="mode must be"):
        svc.recall_policy(mode="semantic")


def test_the_policy_is_frozen_and_replace_makes_a_new_one(alice):
    svc, _ = alice
    live = svc.recall_policy()
    with pytest.raises(dataclasses.FrozenInstanceError):
        live.k = 3  # type: ignore[misc]
    fewer = live.replace(k=1)
    assert (live.k, fewer.k) == (svc.effective_settings().top_k, 1)
    assert fewer.calibration is live.calibration
    assert {f.name for f in dataclasses.fields(RecallPolicy)} - {"calibration"} == KNOBS


def test_threshold_cuts(alice):
    svc, _ = alice
    everything = svc.recall("alice", QUERY, threshold=-1.0, k=20, log=False)
    assert all(h.passed for h in everything.hits) and len(everything.selected) == len(FACTS)
    nothing = svc.recall("alice", QUERY, threshold=1.0, k=20, log=False)
    assert nothing.hits and not any(h.passed for h in nothing.hits)
    assert {h.drop_reason for h in nothing.hits} == {"below threshold"}


def test_k_caps_the_selection(alice):
    svc, _ = alice
    for k in (1, 3):
        res = svc.recall("alice", QUERY, policy=svc.recall_policy(threshold=-1.0, k=k), log=False)
        assert len(res.selected) == k
        assert sum(h.drop_reason == "beyond top-k" for h in res.hits) == len(res.hits) - k


def test_mode_changes_the_candidates_and_their_scores(alice):
    svc, ids = alice
    vector = svc.recall("alice", QUERY, threshold=-1.0, k=20, mode="vector", log=False)
    fulltext = svc.recall("alice", QUERY, threshold=-1.0, k=20, mode="fulltext", log=False)
    assert len(vector.hits) == len(FACTS)  # every memory is a vector candidate
    assert all(h.score == pytest.approx(h.similarity, abs=1e-5) for h in vector.hits)
    assert 0 < len(fulltext.hits) < len(FACTS)  # only the ones sharing words with the query
    assert all(h.score == pytest.approx(h.fts_score, abs=1e-5) for h in fulltext.hits)
    assert ids["The quarterly report is due on Friday"] not in {h.memory_id for h in fulltext.hits}


def test_fusion_weights_change_the_fused_score(alice):
    svc, _ = alice
    linear = svc.recall_policy(mode="hybrid", fusion="linear", threshold=-1.0, k=20, order="fused")
    only_vec = svc.recall("alice", QUERY, policy=linear.replace(vector_weight=1.0), log=False).hits
    only_fts = svc.recall("alice", QUERY, policy=linear.replace(vector_weight=0.0), log=False).hits
    by_sim = sorted(only_vec, key=lambda h: -(h.similarity or 0.0))
    assert [h.memory_id for h in only_vec][:3] == [h.memory_id for h in by_sim][:3]  # ranked by similarity alone
    assert {h.score for h in only_fts if h.fts_score is None} == {0.0}  # no words in common: nothing at w = 0
    rrf = svc.recall_policy(mode="hybrid", fusion="rrf", threshold=-1.0, k=20, order="fused")
    tight = svc.recall("alice", QUERY, policy=rrf.replace(rrf_k=1), log=False).hits
    loose = svc.recall("alice", QUERY, policy=rrf.replace(rrf_k=60), log=False).hits
    assert max(h.score for h in tight) > 0.5 > 2 / 61 >= max(h.score for h in loose) - 1e-6


def test_similarity_floor_and_flagged(alice):
    svc, ids = alice
    floored = svc.recall("alice", QUERY, policy=svc.recall_policy(threshold=-1.0, similarity_floor=0.999), log=False)
    assert {h.drop_reason for h in floored.hits} == {"below similarity floor"}
    spicy = ids["She avoids spicy food and prefers mild dishes"]
    svc.flag_memory(spicy, actor=CURATOR)
    hidden = svc.recall("alice", QUERY, threshold=-1.0, k=20, log=False)
    assert next(h for h in hidden.hits if h.memory_id == spicy).drop_reason == "flagged"
    shown = svc.recall("alice", QUERY, threshold=-1.0, k=20, include_flagged=True, log=False)
    assert next(h for h in shown.hits if h.memory_id == spicy).selected


def test_the_policy_says_what_relevance_holds(alice):
    """e5's shipped calibration is fitted for hybrid: there relevance is a probability; in vector mode it does not
    hold, so relevance is the raw similarity (clipped) and the policy says so, as does the log."""
    svc, _ = alice
    hybrid = svc.recall_policy(mode="hybrid")
    assert hybrid.relevance == RelevanceScale.PROBABILITY and hybrid.calibration.fitted
    assert hybrid.order == "relevance"
    vector = svc.recall_policy(mode="vector")
    assert vector.relevance == RelevanceScale.SIMILARITY and not vector.calibration.fitted
    assert vector.order == "fused" and vector.threshold == vector.calibration.threshold
    res = svc.recall("alice", QUERY, policy=vector.replace(threshold=-1.0), log=False)
    assert all(h.relevance == pytest.approx(min(max(h.similarity, 0.0), 1.0), abs=1e-6) for h in res.hits)
    with pytest.raises(InvalidInput, match="fitted for hybrid mode"):
        hybrid.replace(mode="vector")  # the threshold would silently change meaning
    logged = svc.recall("alice", QUERY, policy=vector)
    rid = logged.retrieval_id
    with svc.storage.db() as db:
        row = db.exec(select(Retrieval).where(Retrieval.id == rid)).one()
    assert (row.params["relevance"], row.params["mode"]) == ("similarity", "vector")
    assert logged.to_dict()["params"]["relevance"] == "similarity"
