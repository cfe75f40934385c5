"""The pure planner: candidates + stored memories → operations with reasons, no storage involved."""

from __future__ import annotations

from datetime import UTC, datetime

from memory.config import Settings
from memory.write.extract.extractor import extract_rules
from memory.write.plan import Existing, plan_writes

AT = datetime(2025, 5, 1, tzinfo=UTC)
S = Settings(dedupe_threshold=0.96)


def _plan(text, existing, *, role="user", sims=None):
    cands = extract_rules(text, role=role, at=AT)
    for c in cands:
        c.neighbours = dict(sims or {})
    return plan_writes(cands, existing, S)


HANGZHOU = Existing(id="m1", content="User lives in Hangzhou.", predicate="lives_in", object="Hangzhou")
HIKING = Existing(id="m2", content="User likes hiking.", predicate="likes", object="hiking")


def test_new_fact_is_added_with_a_reason():
    (op,) = _plan("I live in Hangzhou.", [])
    assert op.op == "ADD" and "lives_in" in op.reason and 0 < op.importance <= 1


def test_same_fact_in_another_language_reinforces():
    (op,) = _plan("我住在杭州。", [HANGZHOU])
    assert op.op == "REINFORCE" and op.target_ids == ["m1"] and op.confidence > 0.9


def test_move_supersedes_the_single_valued_city():
    (op,) = _plan("I moved to Shanghai.", [HANGZHOU, HIKING])
    assert op.op == "UPDATE" and op.target_ids == ["m1"] and "superseded" in op.reason


def test_hedged_move_never_supersedes():
    ops = _plan("Maybe I live in Shanghai.", [HANGZHOU])
    assert [o.op for o in ops] == ["ADD"] and "does not supersede" in ops[0].reason and ops[0].confidence <= 0.5


def test_negation_takes_back_the_matching_memory_only():
    (op,) = _plan("I no longer like hiking.", [HANGZHOU, HIKING])
    assert op.op == "UPDATE" and op.target_ids == ["m2"]


def test_opposite_polarity_supersedes():
    (op,) = _plan("I hate hiking.", [HIKING])
    assert op.op == "UPDATE" and op.target_ids == ["m2"]


def test_multi_valued_likes_coexist():
    (op,) = _plan("I love swimming.", [HIKING], sims={"m2": 0.93})
    assert op.op == "ADD"


def test_unstructured_near_duplicate_uses_the_dedupe_threshold():
    free = Existing(id="f1", content="User enjoys hiking.", predicate=None)
    (above,) = _plan("I love hiking.", [free], sims={"f1": 0.985})
    (below,) = _plan("I love hiking.", [free], sims={"f1": 0.90})
    assert above.op == "REINFORCE" and "0.985" in above.reason and below.op == "ADD"


def test_assistant_inference_is_low_confidence_and_never_reinforces():
    (known,) = _plan("Since you live in Hangzhou, try West Lake.", [HANGZHOU], role="assistant")
    (new,) = _plan("Since you live in Hangzhou, try West Lake.", [], role="assistant")
    assert known.op == "NOOP" and new.op == "ADD" and new.confidence <= 0.3
    assert new.candidate.source_type == "inferred"


def test_repeat_within_one_message_is_a_noop():
    cands = extract_rules("I love hiking.", at=AT) + extract_rules("我喜欢hiking。", at=AT)
    ops = plan_writes(cands, [], S)
    assert [o.op for o in ops] == ["ADD", "NOOP"]


def test_operation_dict_has_the_contract_keys():
    d = _plan("I live in Hangzhou.", [])[0].to_dict()
    assert {"op", "reason", "memory_id", "content", "type", "confidence", "importance"} <= set(d)
