"""Core profile: explicit statements and people's edits change it, hedges only lower confidence, all logged."""

from __future__ import annotations

import pytest

from memory.errors import Conflict, InvalidInput
from memory.vocab import Actor, Role

PERSON = Actor("tester", Role.CURATOR, "test")


@pytest.mark.slow
def test_profile_evolves_across_sessions_with_a_change_log(svc):
    svc.remember("lin", "I live in Hangzhou. Call me Lin. My budget is 5000.", session_id="s1")
    svc.remember("lin", "Maybe I'll move to Beijing next year.", session_id="s2")
    fields = svc.profile_fields("lin")
    assert fields["city"].value == "Hangzhou" and fields["city"].confidence < 0.9  # weak signal: confidence only
    svc.remember("lin", "I moved to Shanghai.", session_id="s3")
    svc.remember("lin", "预算五千", session_id="s3")  # same budget in Chinese: no change
    profile = svc.get_profile("lin")
    assert profile == {"city": "Shanghai", "preferred_name": "Lin", "budget": "5000"}
    city = [(c.old_value, c.new_value) for c in svc.profile_history("lin") if c.field == "city"]
    assert city == [(None, "Hangzhou"), ("Hangzhou", "Hangzhou"), ("Hangzhou", "Shanghai")]
    assert all(c.reason and c.source_message_id for c in svc.profile_history("lin"))


@pytest.mark.slow
def test_lists_grow_and_shrink_on_explicit_statements(svc):
    svc.remember("lin", "I love hiking. I'm vegetarian. 我对花生过敏。")
    assert svc.get_profile("lin")["interests"] == ["hiking"]
    assert svc.get_profile("lin")["dietary"] == ["vegetarian", "对花生过敏"]
    svc.remember("lin", "I'm no longer vegetarian. I no longer like hiking.")
    assert svc.get_profile("lin")["dietary"] == ["对花生过敏"] and svc.get_profile("lin")["interests"] == []


def test_person_edit_uses_optimistic_versions(plumbing_svc):
    svc = plumbing_svc
    svc.ensure_user("lin")
    row = svc.update_profile("lin", "notes", "prefers mornings", reason="support call", actor=PERSON)
    assert row.version == 1
    row = svc.update_profile("lin", "notes", "prefers evenings", expected_version=1, actor=PERSON)
    assert row.version == 2
    with pytest.raises(Conflict):
        svc.update_profile("lin", "notes", "stale edit", expected_version=1, actor=PERSON)
    with pytest.raises(InvalidInput):
        svc.update_profile("lin", "shoe_size", 42, actor=PERSON)
    assert [c.source for c in svc.profile_history("lin")] == ["person-edit", "person-edit"]


def test_profile_values_are_masked(plumbing_svc):
    plumbing_svc.ensure_user("lin")
    plumbing_svc.update_profile("lin", "notes", "reach me at 13812345678", actor=PERSON)
    assert plumbing_svc.get_profile("lin")["notes"] == "reach me at [phone ***5678]"
