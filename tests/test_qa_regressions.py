"""Regressions for bugs found by QA through the CLI (each test names the symptom a user saw)."""

from __future__ import annotations

import math

import pytest
from actors import ADMIN

from memory.errors import InvalidInput
from memory.lifecycle.stats import parse_amount
from memory.sessions import prompt as ctxmod
from memory.storage.models import ContextSnapshot, utcnow
from memory.vocab import SEMANTIC_TYPES
from memory.write.extract.extractor import extract_rules


def test_name_stops_at_lowercase_words_so_following_clause_is_still_extracted():
    """'My name is Alice and I love hiking' stored the name 'Alice And I' and lost the 'likes hiking'."""
    found = {(c.predicate, c.object) for c in extract_rules("My name is Alice and I love hiking.", at=utcnow())}
    assert ("name", "Alice") in found and ("likes", "hiking") in found
    full = {(c.predicate, c.object) for c in extract_rules("My name is Mary Jane Watson.", at=utcnow())}
    assert ("name", "Mary Jane Watson") in full


def test_context_snapshot_prompt_is_masked(plumbing_svc):
    """The stored prompt of a turn held the raw input: phone, e-mail and card in the clear in the SQLite file."""
    raw = "我的手机号是13812345678，邮箱 alice.w@example.com，银行卡 4111111111111111"
    comp = ctxmod.compose(ctxmod.ContextRequest(input=raw), plumbing_svc.settings)
    snap_id = ctxmod.save_snapshot(plumbing_svc.storage, comp, user_key="k", session_key=None, turn_id=None)
    with plumbing_svc.storage.db() as db:
        prompt = db.get(ContextSnapshot, snap_id).prompt
    for secret in ("13812345678", "alice.w@example.com", "4111111111111111"):
        assert secret not in prompt
    assert "***5678" in prompt and "***1111" in prompt


@pytest.mark.parametrize("threshold", [2.0, -1.5, math.nan, math.inf])
def test_recall_refuses_threshold_out_of_range(plumbing_svc, threshold):
    """`memlens recall --threshold nan` leaked an IntegrityError; `--threshold 2` silently dropped every hit."""
    plumbing_svc.remember("alice", "I love tea.")
    with pytest.raises(InvalidInput, match="threshold"):
        plumbing_svc.recall("alice", "tea", threshold=threshold)
    assert plumbing_svc.recall("alice", "tea", threshold=-1.0).hits  # the bounds themselves are accepted


@pytest.mark.parametrize(
    ("text", "amount"), [("一万", 10_000), ("五千", 5_000), ("两千五", 2_500), ("¥5,000 元", 5_000)]
)
def test_stats_reads_chinese_numeral_budgets(text, amount):
    """`memlens stats` skipped the profile change '一万' as 'not an amount' while the memory counted it as 10000."""
    assert parse_amount(text) == amount


def test_compaction_keeps_different_likes_apart_so_a_negation_removes_only_one(plumbing_svc):
    """'likes tea' and 'likes coffee' must not merge: 'I no longer like tea' would then supersede coffee too."""
    svc = plumbing_svc
    svc.remember("bob", "I love tea.")
    svc.remember("bob", "I love coffee.")
    svc.lifecycle.compact("bob", actor=ADMIN)
    svc.remember("bob", "I no longer like tea.")
    active = [m.content for m in svc.list_memories(svc.get_user("bob"), types=SEMANTIC_TYPES)]
    assert any("coffee" in c for c in active)
    assert [c for c in active if "tea" in c] == ["User no longer likes tea."]
