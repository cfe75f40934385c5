"""Statements about other people, attribute statements and contrast clauses, through the real write pipeline."""

from __future__ import annotations

from memory.text.voice import you


def _say(svc, text, user="mia"):
    u = svc.ensure_user(user)
    s = svc.ensure_session(u, "s1")
    return svc.write_from_message(u, s, svc.add_message(s, "user", text))


def _memories(svc, user="mia"):
    return svc.list_memories(svc.get_user(user))


def test_other_peoples_tastes_are_facts_about_them_never_the_users_profile(plumbing_svc):
    svc = plumbing_svc
    _say(svc, "My wife loves sushi. My brother lives in Berlin.")
    _say(svc, "我女朋友喜欢猫。我同事小王是程序员。")
    rows = {(m.subject, m.predicate): m for m in _memories(svc)}
    assert rows[("wife", "likes")].content == "User's wife likes sushi."
    assert rows[("brother", "lives_in")].object == "Berlin"
    assert rows[("女朋友", "likes")].content == "用户的女朋友喜欢猫。"
    assert rows[("小王", "occupation")].meta.get("relation") == "同事"
    profile = svc.get_profile("mia")
    assert not profile.get("interests") and "city" not in profile and "occupation" not in profile


def test_someone_elses_city_never_supersedes_the_users(plumbing_svc):
    svc = plumbing_svc
    _say(svc, "I live in Lisbon.")
    _say(svc, "My sister Anna lives in Porto.")
    active = {(m.subject, m.object) for m in _memories(svc) if m.predicate == "lives_in"}
    assert active == {("user", "Lisbon"), ("Anna", "Porto")}
    assert svc.get_profile("mia")["city"] == "Lisbon"


def test_my_favourite_x_is_an_attribute_not_an_interest(plumbing_svc):
    svc = plumbing_svc
    _say(svc, "My favourite codeword is ZEBRAQUOKKA42.")
    _say(svc, "我最喜欢的颜色是蓝色。")
    rows = [m for m in _memories(svc) if m.predicate == "attribute"]
    assert {m.object for m in rows} == {"ZEBRAQUOKKA42", "蓝色"}
    assert {m.meta.get("attribute") for m in rows} == {"favourite codeword", "最喜欢的颜色"}
    assert not svc.get_profile("mia").get("interests")


def test_contrast_keeps_both_statements_with_their_polarity(plumbing_svc):
    svc = plumbing_svc
    _say(svc, "I love my job but hate commuting.")
    _say(svc, "我很喜欢看电影，但是不喜欢看恐怖片。")
    said = {(m.predicate, m.object) for m in _memories(svc)}
    assert {("likes", "my job"), ("dislikes", "commuting"), ("likes", "看电影"), ("dislikes", "看恐怖片")} <= said
    job = next(m for m in _memories(svc) if m.object == "my job")
    assert job.content == "User likes their job." and you(job.content, "en") == "You like your job."
