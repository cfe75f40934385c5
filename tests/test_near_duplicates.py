"""Near-duplicates: what the agent injects passes over a candidate nearly identical to a better-ranked selected one
(the next memory takes the place); a door's search returns every match; the lab's re-cut, the vector cache and the
evaluation's cut agree with recall's."""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest

from memory.config import Settings
from memory.errors import InvalidInput
from memory.evaluation import metrics
from memory.evaluation.metrics import Outcome, RankedRecord
from memory.retrieval.near_duplicates import NEAR_DUPLICATE, passed_over
from memory.retrieval.recall import rank_and_cut
from memory.service import MemoryDraft, MemoryService

PEPPER = "I adopted a greyhound named Pepper last spring."
PEPPER_AGAIN = "I adopted a greyhound called Pepper last spring"  # cosine 0.994 to PEPPER on the bundled e5
BERLIN = "We moved to Berlin in 2024 for my job"
TEXTS = [PEPPER, PEPPER_AGAIN, "My greyhound Pepper loves running on the beach", BERLIN]
ZH = ["好的，明天见！", "好的，明天见", "明天我们去爬山吧", "我妈妈喜欢打网球"]  # the first two: cosine 0.992


def _stored(svc: MemoryService, user_id: str, texts: list[str]) -> dict[str, str]:
    user = svc.ensure_user(user_id)
    return {m.content: m.id for m in svc.add_memories(user, [MemoryDraft(content=t) for t in texts])}


def _verdicts(res) -> dict[str, tuple[bool, str | None]]:
    return {h.content: (h.selected, h.drop_reason) for h in res.hits}


def test_recall_passes_over_a_near_duplicate_and_the_next_memory_takes_its_place(svc):
    _stored(svc, "ann", TEXTS)
    res = svc.recall("ann", "my dog Pepper", k=3, threshold=-1.0, log=False)
    got = _verdicts(res)
    kept, dup = (PEPPER, PEPPER_AGAIN) if got[PEPPER][0] else (PEPPER_AGAIN, PEPPER)
    rank_of = {h.content: h.rank for h in res.hits}
    assert got[kept] == (True, None)
    assert got[dup] == (False, f"{NEAR_DUPLICATE} #{rank_of[kept]}")
    assert [h.content for h in res.hits if passed_over(h)] == [dup]  # what the LongMemEval ranking leaves out
    assert [h.content for h in res.selected] == [h.content for h in res.hits if h.content != dup][:3]
    assert BERLIN in [h.content for h in res.selected]  # took the freed place
    # off (0): both near-identical memories are injected, as before
    off = svc.recall("ann", "my dog Pepper", k=3, threshold=-1.0, near_duplicate_cosine=0.0, log=False)
    assert {PEPPER, PEPPER_AGAIN} <= {h.content for h in off.selected}
    # a stricter cosine than the pair's passes over nothing
    strict = svc.recall("ann", "my dog Pepper", k=3, threshold=-1.0, near_duplicate_cosine=0.999, log=False)
    assert {PEPPER, PEPPER_AGAIN} <= {h.content for h in strict.selected}


def test_chinese_chit_chat_repeated_is_injected_once(svc):
    _stored(svc, "li", ZH)
    res = svc.recall("li", "明天见", k=2, threshold=-1.0, log=False)
    chosen = [h.content for h in res.selected]
    assert len({"好的，明天见！", "好的，明天见"} & set(chosen)) == 1 and len(chosen) == 2


def test_the_setting_is_the_agents_and_a_door_returns_every_match(svc):
    _stored(svc, "ann", TEXTS)
    assert svc.recall_policy().near_duplicate_cosine == Settings().near_duplicate_cosine == 0.95
    door = svc.door_search("ann", "my dog Pepper", svc.recall_policy(k=3))
    assert door is not None and {PEPPER, PEPPER_AGAIN} <= {h.content for h in door.selected}
    assert door.params.near_duplicate_cosine == 0.0
    # mem0's search, through the same door
    from memory.client import Memory

    found = Memory(service=svc).search("my dog Pepper", user_id="ann", limit=3)["results"]
    assert {PEPPER, PEPPER_AGAIN} <= {r["memory"] for r in found}


def test_a_cosine_outside_zero_to_one_is_refused(svc):
    with pytest.raises(InvalidInput, match="near-duplicate cosine"):
        svc.recall_policy(near_duplicate_cosine=1.5)
    with pytest.raises(ValueError):
        Settings(near_duplicate_cosine=-0.1)


def test_the_labs_recut_and_the_vector_cache_agree_with_recall(tmp_path, e5):
    answers = []
    for mb in (0, 64):
        svc = MemoryService(Settings(data_dir=tmp_path / f"d{mb}", vector_cache_mb=mb), embedder=e5)
        _stored(svc, "ann", TEXTS + ZH)
        assert svc.storage.index.preload(svc.get_user("ann").key) is bool(mb)
        res = svc.recall("ann", "my dog Pepper", k=3, threshold=-1.0, log=False)
        fresh = copy.deepcopy(res.hits)  # as the retrieval lab re-cuts under its slider
        for h in fresh:
            h.passed, h.selected, h.drop_reason = False, False, None
        recut = rank_and_cut(fresh, res.params)
        assert [(h.content, h.selected, h.drop_reason) for h in recut] == [
            (h.content, h.selected, h.drop_reason) for h in res.hits
        ]
        answers.append(_verdicts(res))
        svc.close()
    assert answers[0] == answers[1]
    assert any(reason and reason.startswith(NEAR_DUPLICATE) for _, reason in answers[0].values())


# -- the evaluation cuts as recall does, and counts what the composer keeps --------------------------------------------
def _rec(mid: str, near: set[str] = frozenset(), rel: float = 0.5, **kw) -> RankedRecord:  # type: ignore[assignment]
    window = frozenset(f"D:{m}" for m in kw.get("context_ids", ()))
    return RankedRecord(
        dia_ids=frozenset({f"D:{mid}"}) | window,  # as replay records it: its own evidence and its whole window's
        similarity=0.9,
        tokens=5,
        relevance=rel,
        memory_id=mid,
        near=frozenset(near),
        own_dia_ids=frozenset({f"D:{mid}"}),
        **kw,
    )


def test_the_evaluations_cut_passes_over_near_duplicates_of_selected_records_only():
    a, a2, b, c = _rec("a", {"a2"}), _rec("a2", {"a"}), _rec("b"), _rec("c")
    assert [r.memory_id for r in metrics.selected([a, a2, b, c], 3)] == ["a", "b", "c"]
    # a below the threshold is not selected, so its twin is not passed over
    low = replace(a, relevance=0.01)
    assert [r.memory_id for r in metrics.selected([low, a2, b], 2, threshold=0.1)] == ["a2", "b"]


def test_the_evaluation_counts_the_context_the_composers_cap_keeps_in_rank_order():
    # two memories, each with a three-line window (10 tokens a line); the cap leaves room for four lines
    first = _rec("m1", line_tokens=20, sources=frozenset({10}), context_ids=(8, 9, 11))
    second = _rec("m2", line_tokens=20, sources=frozenset({20}), context_ids=(19, 21, 22))
    dia = {m: f"D:{m}" for m in (8, 9, 11, 19, 21, 22)}
    cap = metrics.memories_header_tokens() + 40 + 40
    out = Outcome("c", 0, 1, frozenset({"D:22"}), [first, second], message_tokens=dict.fromkeys(dia, 10), dia_of=dia)
    uncapped = metrics.shown(out, 2)  # no cap: every window line counts
    assert metrics.hit(out.gold, uncapped) == 1.0
    capped = metrics.shown(replace(out, memory_cap=cap), 2)
    # the best memory's whole window first (nearest first: 9, 11, then 8), then the second's nearest line
    assert [r.context_ids for r in capped] == [(8, 9, 11), (19,)]  # a tie in distance: the earlier message
    assert capped[1].dia_ids == {"D:m2", "D:19"} and metrics.hit(out.gold, capped) == 0.0
    assert metrics.prompt_tokens(capped, out.message_tokens) == 5 + 5 + 40
    wide = metrics.shown(replace(out, memory_cap=cap + 20), 2)
    assert [r.context_ids for r in wide] == [(8, 9, 11), (19, 21, 22)] and metrics.hit(out.gold, wide) == 1.0


def test_explain_says_a_passed_over_memory_fell_out_as_a_near_duplicate(svc):
    ids = _stored(svc, "ann", TEXTS)
    res = svc.recall("ann", "my dog Pepper", k=3, threshold=-1.0, log=False)
    dup = next(h for h in res.hits if (h.drop_reason or "").startswith(NEAR_DUPLICATE))
    out = svc.desk.explain_recall("ann", ids[dup.content], "my dog Pepper", k=3, threshold=-1.0)
    assert out["fell_out_at"] == "near-duplicate"
    assert "says nearly the same (cosine ≥ 0.95)" in out["stages"][-1]["detail"]
