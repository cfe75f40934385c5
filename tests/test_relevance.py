"""Calibrated relevance: features, the logistic fit, calibration checks, leave-one-conversation-out, the shipped file,
and the live-setting migration (pure or on a tmp SQLite file; no model)."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from actors import ADMIN

from memory.errors import InvalidInput
from memory.evaluation import crossval
from memory.evaluation.metrics import Outcome, RankedRecord
from memory.retrieval import relevance
from memory.retrieval.fit import (
    EVIDENCE_SIGNS,
    brier,
    evidence_signs,
    expected_calibration_error,
    fit_calibration,
    fit_logistic,
    reliability,
)
from memory.retrieval.relevance import FEATURES, Calibration, Scored, features
from memory.storage.db import make_engine, migrate
from memory.storage.migrations import m0004_relevance
from memory.storage.models import Setting, utcnow

COL = {name: i for i, name in enumerate(FEATURES)}


def test_features_describe_each_candidate_among_its_query_candidates():
    cands = [
        Scored("a", 0.90, 6.0, 2.0, 2.1, "episode", "Caroline went to the support group"),
        Scored("b", 0.80, None, 1.0, None, "fact", "Melanie paints sunsets"),
        Scored("c", 0.70, 3.0, 0.0, None, "episode", "a quiet day"),
    ]
    f = features(cands, "When did Caroline go to the support group with Jon?")
    assert f["a"][COL["sim"]] == 0.9 and f["a"][COL["sim_gap"]] == 0.0 and f["c"][COL["sim_gap"]] == 0.2
    assert f["a"][COL["sim_z"]] == pytest.approx(1.224745, abs=1e-5)  # (0.9 - 0.8) / std
    assert f["a"][COL["bm25_norm"]] == 1.0 and f["b"][COL["bm25_norm"]] == 0.0 and f["c"][COL["bm25_norm"]] == 0.5
    assert [f[i][COL["log_rank"]] for i in "abc"] == [0.0, round(np.log(2), 6), round(np.log(3), 6)]
    assert f["a"][COL["neighbour"]] == pytest.approx(1.2) and f["b"][COL["neighbour"]] == 0.0
    assert (f["a"][COL["is_episode"]], f["b"][COL["is_episode"]]) == (1.0, 0.0)
    assert {f[i][COL["top_sim"]] for i in "abc"} == {0.9}
    assert f["a"][COL["overlap"]] == 0.75  # caroline, support, group of {caroline, support, group, jon}
    assert f["c"][COL["overlap"]] == 0.0 and f["a"][COL["top_overlap"]] == f["a"][COL["overlap"]]
    assert f["a"][COL["names_missing"]] == 0.5  # Caroline found, Jon nowhere


def test_terms_and_names_cover_chinese_and_possessives():
    assert {"吃辣", "不吃"} <= relevance.terms("我不吃辣") and "the" not in relevance.terms("the cat")
    assert relevance.names("What is Melanie's hobby in Paris?") == {"melanie", "paris"}
    assert relevance.names("where does the user live") == set()


def test_logistic_fit_recovers_known_coefficients():
    rng = np.random.default_rng(7)
    x = rng.normal(size=(20000, 2))
    y = (rng.random(20000) < 1 / (1 + np.exp(-(1.5 * x[:, 0] - 2.0 * x[:, 1] + 0.5)))).astype(float)
    coef, intercept = fit_logistic(x, y, l2=0.0)
    assert coef == pytest.approx([1.5, -2.0], abs=0.08) and intercept == pytest.approx(0.5, abs=0.08)


def test_a_fit_held_to_evidence_signs_never_scores_more_evidence_as_less_relevant():
    """Two correlated signals (normalised and absolute BM25) where the data alone trade one against the other: the
    free fit gives absolute BM25 a negative weight (more lexical evidence, less relevant); the fact model held to
    :data:`EVIDENCE_SIGNS` keeps it ≥ 0 and every signed feature its sign, and relevance rises with the evidence."""
    rng = np.random.default_rng(3)
    n = 20000
    x = rng.normal(size=(n, len(FEATURES)))
    norm, log = FEATURES.index("bm25_norm"), FEATURES.index("bm25_log")
    x[:, log] = x[:, norm] + 0.3 * rng.normal(size=n)
    x[:, FEATURES.index("is_episode")] = 0.0
    y = (rng.random(n) < 1 / (1 + np.exp(-(2.0 * x[:, norm] - 1.0 * x[:, log] - 1.0)))).astype(float)
    free = fit_calibration(x, y, embedder="t", threshold=0.5, version="v", source="s")
    held = fit_calibration(x, y, embedder="t", threshold=0.5, version="v", source="s", signs=evidence_signs())
    assert free.coef[log] < -0.3  # the trade the data ask for
    assert held.coef[log] == 0.0 and held.coef[norm] > 0.5
    assert all(c * EVIDENCE_SIGNS.get(f, 0) >= 0 for f, c in zip(FEATURES, held.coef, strict=True))
    row = np.zeros(len(FEATURES))
    more = row.copy()
    more[log] = 2.0
    assert held.predict([more])[0] >= held.predict([row])[0] > free.predict([more])[0]


def test_term_overlap_is_a_share_and_never_saturates_at_the_clip():
    """Overlap among LoCoMo's candidates is mostly 0 (small sd), so clipped at ±3 sd a memory stating every concept of
    the query (1.0) scored as one stating half (0.5); unclipped, the fuller statement is more relevant. Other
    features are still clipped (a store unlike the fit's must not run them off)."""
    n = len(FEATURES)
    over, bm25 = FEATURES.index("overlap"), FEATURES.index("bm25_log")
    mean, scale = [0.0] * n, [1.0] * n
    mean[over], scale[over] = 0.04, 0.09
    coef = [0.0] * n
    coef[over], coef[bm25] = 0.2, 0.2
    cal = Calibration(embedder="t", coef=tuple(coef), intercept=-3.0, mean=tuple(mean), scale=tuple(scale))
    half, full, far, farther = (np.zeros(n) for _ in range(4))
    half[over], full[over] = 0.5, 1.0
    far[bm25], farther[bm25] = 3.0, 30.0
    p = cal.predict(np.vstack([half, full, far, farther]))
    assert p[1] > p[0]
    assert p[3] == pytest.approx(p[2])  # BM25 held at +3 sd


def test_a_new_fit_of_the_same_day_gets_a_name_of_its_own(monkeypatch):
    from memory.evaluation import calibrate

    day = utcnow().strftime("%Y%m%d")
    assert calibrate.dated_version("e5", "e5-locomo-20200101") == f"e5-locomo-{day}"
    assert calibrate.dated_version("e5", None) == f"e5-locomo-{day}"
    assert calibrate.dated_version("e5", f"e5-locomo-{day}") == f"e5-locomo-{day}b"
    assert calibrate.dated_version("e5", f"e5-locomo-{day}b") == f"e5-locomo-{day}c"


def test_brier_and_reliability_by_hand():
    p, y = [0.1, 0.1, 0.9, 0.9], [0, 1, 1, 1]
    assert brier(p, y) == pytest.approx((0.01 + 0.81 + 0.01 + 0.01) / 4)
    bins = reliability(p, y, bins=2)
    assert [b["n"] for b in bins] == [2, 2] and bins[0]["observed"] == 0.5 and bins[1]["observed"] == 1.0
    assert expected_calibration_error(bins) == pytest.approx((2 * 0.4 + 2 * 0.1) / 4)


def _rows(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, len(FEATURES)))
    y = (x[:, 0] + 0.3 * rng.normal(size=n) > 0.8).astype(float)
    return x, y


def test_a_fit_round_trips_through_its_file_and_refuses_a_stale_one(tmp_path):
    x, y = _rows(3000, 1)
    cal = fit_calibration(x, y, embedder="e", threshold=0.4, version="v1", source="test")
    again = Calibration.from_dict(json.loads(json.dumps(cal.to_dict())))
    assert again == cal and np.allclose(again.predict(x[:50]), cal.predict(x[:50]))
    assert cal.predict(x).min() >= 0.0 and cal.predict(x).max() <= 1.0
    stale = {**cal.to_dict(), "features": ["sim"]}
    with pytest.raises(ValueError):
        Calibration.from_dict(stale)
    with pytest.raises(ValueError):
        fit_calibration(x, np.zeros(len(x)), embedder="e", threshold=0.5, version="v", source="")


def test_episodes_and_facts_can_have_curves_of_their_own():
    """A layered fit scores each candidate with its own layer's model; the file keeps both; one layer without both
    classes falls back to one model for all."""
    rng = np.random.default_rng(5)
    x = rng.normal(size=(4000, len(FEATURES)))
    said = rng.random(4000) < 0.7
    x[:, COL["is_episode"]] = said
    # opposite signs per layer: similarity tells for episodes, overlap for facts
    y = np.where(said, x[:, COL["sim"]] > 0.8, x[:, COL["overlap"]] > 0.8).astype(float)
    one = fit_calibration(x, y, embedder="e", threshold=0.4, version="one", source="t")
    two = fit_calibration(x, y, embedder="e", threshold=0.4, version="two", source="t", layered=True)
    assert one.episodes is None and two.episodes is not None
    assert brier(two.predict(x), y) < 0.5 * brier(one.predict(x), y)
    ep_only = replace(two, coef=tuple(0.0 for _ in FEATURES), intercept=-30.0)  # facts' model says "never"
    assert ep_only.predict(x[~said]).max() < 1e-9 and ep_only.predict(x[said]).max() > 0.5
    again = Calibration.from_dict(json.loads(json.dumps(two.to_dict())))
    assert again == two and np.allclose(again.predict(x), two.predict(x))
    flat = fit_calibration(
        x, np.where(said, 0.0, y), embedder="e", threshold=0.4, version="v", source="t", layered=True
    )
    assert flat.episodes is None  # no relevant episode to learn from: one model


def test_an_embedder_without_a_fit_falls_back_to_raw_similarity():
    cal = relevance.shipped("no-such-embedder")
    assert not cal.fitted and "no relevance calibration" in cal.notice
    row = [0.0] * len(FEATURES)
    row[COL["sim"]] = 0.83
    assert cal.predict([row])[0] == pytest.approx(0.83) and cal.threshold == 0.80


def _outcomes() -> list[Outcome]:
    """Three conversations: gold candidates carry a high first feature; foreign ones never do."""
    rng = np.random.default_rng(3)
    out = []
    for conv, other in (("a", "b"), ("b", "c"), ("c", "a")):
        for q in range(20):
            ranked = []
            for i in range(10):
                gold = i == q % 3
                f = rng.normal(size=len(FEATURES))
                f[0] += 4.0 if gold else 0.0
                ranked.append(RankedRecord(frozenset({f"D{i}"}), 0.8, 10, features=tuple(f)))
            out.append(Outcome(conv, q, 1 + q % 4, frozenset({f"D{q % 3}"}), ranked))
            out.append(Outcome(conv, q, 1 + q % 4, frozenset(), ranked[3:], asked_of=other))
    return out


def test_leave_one_conversation_out_scores_each_conversation_with_a_fit_that_never_saw_it():
    outs = _outcomes()
    cv = crossval.loco(outs, embedder="e", k=5, ks=(5, 10))
    assert set(cv["folds"]) == {"a", "b", "c"}
    held = cv["outcomes"]
    assert len(held) == len(outs) and all(c.relevance is not None for o in held for c in o.ranked)
    cal = cv["calibration"]
    assert cal["brier"] < cal["brier_base_rate"]  # informative on left-out data
    chosen = cv["chosen"]
    assert chosen["answerable_hit_rate"] >= 80 and chosen["foreign_noise_rate"] <= 5
    assert [p["threshold"] for p in cv["curve"]] == sorted(p["threshold"] for p in cv["curve"])


def test_nested_threshold_is_chosen_without_the_left_out_conversation(monkeypatch):
    outs = _outcomes()
    seen: list[set[str]] = []
    real = crossval.chosen_threshold

    def spy(outcomes, k):
        seen.append({o.sample_id for o in outcomes} | {o.asked_of for o in outcomes if o.asked_of})
        return real(outcomes, k)

    monkeypatch.setattr(crossval, "chosen_threshold", spy)
    nested = crossval.nested(outs, embedder="e", k=5)
    assert set(nested["folds"]) == {"a", "b", "c"}
    assert len(seen) == 3 and all(len(convs) == 2 for convs in seen)  # each choice saw two conversations only
    left_out = [({"a", "b", "c"} - convs).pop() for convs in seen]
    assert sorted(left_out) == ["a", "b", "c"]
    pooled = nested["at_threshold"]
    assert pooled["answerable"] == sum(f["answerable"] for f in nested["folds"].values()) == 60
    assert (
        pooled["foreign"] == 60 and pooled["answerable_hit_rate"] >= 80 and pooled["foreign_noise_rate"] <= 10
    )  # honest: may exceed the cap
    with pytest.raises(ValueError, match="three conversations"):
        crossval.nested([o for o in outs if o.sample_id != "c" and o.asked_of != "c"], embedder="e", k=5)


def test_choose_threshold_caps_the_noise_then_takes_the_most_answers():
    pts = [
        {"threshold": 0.1, "answerable_hit_rate": 90.0, "foreign_noise_rate": 40.0},
        {"threshold": 0.3, "answerable_hit_rate": 75.0, "foreign_noise_rate": 9.0},
        {"threshold": 0.5, "answerable_hit_rate": 71.0, "foreign_noise_rate": 2.0},
    ]
    assert crossval.choose_threshold(pts)["threshold"] == 0.5  # 9 % noise is over the 5 % cap
    within = [{**p, "foreign_noise_rate": p["foreign_noise_rate"] / 2} for p in pts]
    assert crossval.choose_threshold(within)["threshold"] == 0.3  # 4.5 %: the most answers within the cap
    noisy = [{**p, "foreign_noise_rate": p["foreign_noise_rate"] + 20} for p in pts]
    assert crossval.choose_threshold(noisy)["threshold"] == 0.5  # none within the cap: 71 − 22 beats 75 − 29


def test_the_threshold_is_chosen_on_full_conversations_not_on_early_stores():
    """An early store's few memories make its foreign noise easy: pooled in, they would hide the full stores' noise."""

    def foreign(asked_of: str, rel: float) -> Outcome:
        return Outcome(
            "a", 0, 1, frozenset(), [RankedRecord(frozenset({"D9:9"}), 0.8, 5, relevance=rel)], asked_of=asked_of
        )

    def answerable(i: int) -> Outcome:
        rel = 0.5 if i % 2 else 0.2
        return Outcome("a", i, 1, frozenset({"D1:1"}), [RankedRecord(frozenset({"D1:1"}), 0.8, 5, relevance=rel)])

    full = [foreign("b", 0.3)] * 2 + [foreign("b", 0.01)] * 8  # 20 % noise up to 0.3 on the full store
    early = [foreign("b@s1", 0.01)] * 90  # the early store injects nothing above 0.01: pooled, 2 % up to 0.3
    chosen = crossval.chosen_threshold([*map(answerable, range(10)), *full, *early], 5)
    assert 0.3 < chosen["threshold"] <= 0.5
    assert (chosen["answerable_hit_rate"], chosen["foreign_noise_rate"]) == (50.0, 0.0)


@pytest.mark.parametrize(("stored", "floor"), [(0.8, None), (0.85, 0.85)])
def test_migration_turns_a_stored_raw_threshold_into_the_floor(settings, stored, floor):
    engine = make_engine(settings)
    migrate(engine)
    with engine.begin() as conn:  # a live setting as the previous release stored it, then step 0004 again
        conn.execute(Setting.__table__.insert().values(key="similarity_threshold", value=stored, updated_at=utcnow()))
        m0004_relevance.upgrade(conn)
    with engine.connect() as conn:
        rows = dict(conn.execute(Setting.__table__.select().with_only_columns(Setting.key, Setting.value)).all())
    assert "similarity_threshold" not in rows and rows.get("similarity_floor") == floor


def test_fit_from_labels_needs_enough_labels_then_is_judged_against_the_shipped_fit(plumbing_svc):
    from memory import views

    user = plumbing_svc.ensure_user("lab")
    for i in range(8):
        plumbing_svc.add_memory(user, f"tennis match number {i} on Sunday")
        plumbing_svc.add_memory(user, f"invoice {i} paid by bank transfer")
    assert plumbing_svc.refit_relevance(user.key, actor=ADMIN)["calibration"] is None  # nothing labelled yet
    for q in ("tennis on Sunday", "which tennis match", "Sunday tennis"):
        res = plumbing_svc.recall("lab", q, threshold=-1.0)
        for h in res.hits[:10]:
            views.set_label(plumbing_svc.storage, user.key, res.retrieval_id, h.memory_id, "tennis" in h.content)
    out = plumbing_svc.refit_relevance(user.key, actor=ADMIN)
    assert out["examples"] == 30 and 5 <= out["positives"] <= 25 and out["calibration"] is not None
    assert {"brier", "threshold", "precision", "recall", "f1"} <= set(out["shipped"]) == set(out["own"])
    own = Calibration.from_dict(out["calibration"])
    assert own.embedder == "hash" and own.fitted
    plumbing_svc.set_live_settings({"relevance_calibration": out["calibration"]}, actor=ADMIN)
    assert plumbing_svc.relevance_model().version == own.version  # applied: recall now uses the deployment's fit
    assert plumbing_svc.recall("lab", "tennis", threshold=-1.0, log=False).calibration == own.version
    with pytest.raises(InvalidInput):
        plumbing_svc.set_live_settings({"relevance_calibration": {"format": 99}}, actor=ADMIN)


def _with_early_stores(outs: list[Outcome]) -> list[Outcome]:
    """Each conversation also as an early store ("a@s1"): its first questions, and the next one's asked of it."""
    early = []
    for o in outs:
        if o.index < 5 and not o.foreign:
            early.append(replace(o, sample_id=f"{o.sample_id}@s1"))
        elif o.index < 5:
            early.append(replace(o, asked_of=f"{o.asked_of}@s1"))
    return outs + early


def test_an_early_store_goes_with_its_conversation_into_one_fold():
    outs = _with_early_stores(_outcomes())
    train, test = crossval.held_out(outs, "a")
    assert {o.sample_id for o in test} == {"a", "a@s1"}
    assert not any(o.sample_id.startswith("a") or (o.asked_of or "").startswith("a") for o in train)
    assert crossval.conversations(outs) == ["a", "b", "c"]
    nested = crossval.nested(outs, embedder="e", k=5)
    assert set(nested["folds"]) == {"a", "b", "c"}
    stores = nested["by_store"]
    assert list(stores) == ["full", "first 1 session"]
    assert stores["first 1 session"]["answerable"] == 15 and stores["first 1 session"]["foreign"] == 15
    assert stores["full"]["answerable"] + 15 == nested["at_threshold"]["answerable"]


def test_first_sessions_keeps_the_questions_its_store_can_already_answer():
    from datetime import UTC, datetime

    from memory.evaluation.locomo import DialogTurn, LocomoSession, Question, Sample, conversation_of, store_label

    at = datetime(2023, 5, 8, tzinfo=UTC)
    sessions = [
        LocomoSession(n, at, [DialogTurn(f"D{n}:{i}", "Ann", f"line {n}.{i}", None, at) for i in (1, 2)])
        for n in (1, 2, 3)
    ]
    qs = [
        Question(0, 4, "q0", frozenset({"D1:1"})),
        Question(1, 1, "q1", frozenset({"D1:2", "D2:1"})),
        Question(2, 5, "q2", frozenset()),
        Question(3, 2, "q3", frozenset({"D1:2"})),
    ]
    sample = Sample("conv-9", ("Ann", "Bo"), sessions, qs, {t.dia_id for s in sessions for t in s.turns})
    first = sample.first_sessions(1)
    assert first.sample_id == "conv-9@s1" and first.user_id == "locomo:conv-9@s1"
    assert [q.index for q in first.questions] == [0, 3] and first.turn_count == 2
    assert [q.index for q in sample.first_sessions(2).questions] == [0, 1, 3]
    assert conversation_of("conv-9@s2") == conversation_of("conv-9") == "conv-9"
    assert (store_label("conv-9"), store_label("conv-9@s1"), store_label("conv-9@s3")) == (
        "full",
        "first 1 session",
        "first 3 sessions",
    )
