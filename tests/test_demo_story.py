"""The stakeholder demo's words (issue #32): replies that answer the question, the offline engine's introduction never
taken for memory, and one formatter for what a person reads (dates, labels, plurals, nothing)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from agent.offline import OfflineContext, Recalled, offline_reply
from memory.prompts import OFFLINE_REPLIES, offline_intro_length
from memory.retrieval.context import row_of
from memory.text.display import ago_text, day_text, label, plural, reason_text, value_text, when_text

NOW = datetime(2026, 12, 2, 15, 0, tzinfo=UTC)
WEEK_AGO = NOW - timedelta(days=12)


def _alice(**extra) -> OfflineContext:
    memories = [
        Recalled("User is planning a trip to Japan (April 2027).", WEEK_AGO, 0.7, predicate="plans", type="event"),
        Recalled("User doesn't eat spicy food.", WEEK_AGO, 0.6, predicate="dislikes", type="preference"),
        Recalled("User moved to Lisbon and lives there now.", WEEK_AGO, 0.8, predicate="lives_in"),
    ]
    profile = {"city": "Lisbon", "dietary": ["doesn't eat spicy food", "vegetarian"], "preferred_name": "Ali"}
    base = {
        "profile": profile,
        "profile_dates": dict.fromkeys(profile, WEEK_AGO),
        "memories": memories,
        "important": memories,
        "first_turn": False,
        "now": NOW,
    }
    return OfflineContext(**{**base, **extra})


def test_a_question_is_answered_from_the_memories_on_its_topic_only():
    where = offline_reply("Where do I live now?", _alice())
    assert "Lisbon" in where and "Japan" not in where and "spicy" not in where
    dinner = offline_reply("Any dinner ideas for tonight?", _alice())
    assert "vegetarian" in dinner and "Japan" not in dinner and "Lisbon" not in dinner
    trip = offline_reply("What do you remember about my trip?", _alice())
    assert "Japan" in trip and "Lisbon" not in trip and "vegetarian" not in trip
    # nothing names the question's topic: the recall's best is said (it judged it relevant), never everything
    tokyo = offline_reply("Can you suggest a first day in Tokyo?", _alice(profile={}, profile_dates={}))
    assert "Japan" in tokyo and "spicy" not in tokyo and "Lisbon" not in tokyo


def test_chinese_questions_are_answered_on_topic_too():
    memories = [
        Recalled("用户计划去成都玩（2026-12）。", WEEK_AGO, 0.7, predicate="plans", type="event"),
        Recalled("用户不吃辣。", WEEK_AGO, 0.6, predicate="dislikes", type="preference"),
    ]
    ctx = OfflineContext(profile={"city": "上海"}, memories=memories, important=memories, first_turn=False, now=NOW)
    meal = offline_reply("周末去哪里吃饭比较好？", ctx)
    assert "不吃辣" in meal and "成都" not in meal
    trip = offline_reply("你还记得我的旅行计划吗？", ctx)
    assert "成都" in trip and "不吃辣" not in trip


def test_everything_only_when_asked_what_it_remembers_about_me():
    for ask in ("What do you remember about me?", "你记得我什么？"):
        said = offline_reply(ask, _alice())
        assert "Lisbon" in said and "Japan" in said and ("spicy" in said or "vegetarian" in said), said


def test_the_introduction_comes_once_per_session_and_is_never_memory():
    first = offline_reply("Hi there", _alice(first_turn=True))
    later = offline_reply("Hi there", _alice(first_turn=False))
    assert OFFLINE_REPLIES["en"]["offline"] in first and OFFLINE_REPLIES["en"]["offline"] not in later
    zh = offline_reply("你好", OfflineContext(profile={"preferred_name": "小芳"}, first_turn=True, now=NOW))
    for reply in (first, zh):
        rest = reply[offline_intro_length(reply) :]
        assert rest and "offline" not in rest and "离线引擎" not in rest
        # as the conversation around a memory: the agent's line without the introduction, the user's as said
        assert row_of(1, "assistant", {}, NOW, reply).text == rest
        assert row_of(2, "user", {}, NOW, reply).text == reply
    assert offline_intro_length("I'm MemLens's offline engine, he said") == 0  # only the engine's own sentence


def test_dates_read_as_a_person_says_them():
    assert ago_text(NOW - timedelta(seconds=20), now=NOW) == "just now"
    assert ago_text(NOW - timedelta(minutes=5), now=NOW) == "5 minutes ago"
    assert ago_text(NOW - timedelta(hours=1), now=NOW) == "1 hour ago"
    assert ago_text(NOW - timedelta(days=1), now=NOW) == "yesterday"
    assert ago_text(NOW - timedelta(days=3), now=NOW) == "3 days ago"
    assert ago_text(NOW - timedelta(days=3), "zh", now=NOW) == "3天前"
    assert ago_text(datetime(2026, 11, 25, 5, 40), now=NOW) == "25 Nov"  # a week or more: the day (naive = UTC)
    assert day_text(datetime(2025, 11, 25, tzinfo=UTC), now=NOW) == "25 Nov 2025"
    assert day_text(datetime(2026, 11, 25, tzinfo=UTC), "zh", now=NOW) == "11月25日"
    assert when_text(datetime(2026, 11, 25, 5, 40, 37, 801503, tzinfo=UTC), now=NOW) == "25 Nov, 05:40"
    assert when_text(None) == ago_text(None) == value_text(None) == value_text([]) == "—"
    assert value_text("2026-11-25T05:40:37.801503+00:00").startswith("25 Nov")  # a stamp that travelled as text


def test_labels_and_plurals_instead_of_field_names():
    assert label("display_name") == "Name" and label("preferred_name") == "Likes to be called"
    assert label("similarity_floor") == "Similarity floor" and label("top_k").startswith("Memories per answer")
    assert label("city", "zh") == "居住城市" and label("person-edit") == "corrected by a person"
    assert label("junk_rate") == "Junk rate" and label(None) == "—"
    assert plural(1, "write") == "1 write" and plural(3, "write") == "3 writes"
    assert (
        plural(2, "memory") == "2 memories" and plural(2, "day") == "2 days" and plural(1200, "turn") == "1,200 turns"
    )


def test_a_reason_names_a_memory_by_a_short_reference_never_its_id():
    said = reason_text("superseded by 3d1c19a8a09e4af0b1c2d3e4f5a6b7c8: the user moved")
    assert said == "superseded by #3d1c19: the user moved" and reason_text("") == "—"
