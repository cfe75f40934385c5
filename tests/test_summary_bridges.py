"""Bridges and summaries say what the user stated, decided and left open — never their questions — in the session's
language and within the token limit."""

from __future__ import annotations

from memory.sessions.summary import ExtractiveSummariser, bridge_text
from memory.text.tokens import count_tokens

S = ExtractiveSummariser()


def _user(*texts: str) -> list[tuple[str, str]]:
    return [(role, t) for text in texts for role, t in (("user", text), ("assistant", "OK."))]


def test_bridge_holds_facts_decisions_and_open_tasks_not_questions():
    lines = _user(
        "I moved to Lisbon last month.",
        "Where do I live now?",
        "I've decided to fly with TAP.",
        "Help me pack for Japan.",
        "What's the weather in Tokyo?",
    )
    text = S.bridge(lines, None, 200)
    assert "you moved to Lisbon" in text and "You decided to fly with TAP." in text
    assert "Still open: you asked me to help you pack for Japan" in text
    assert "Where do I live" not in text and "weather" not in text and "?" not in text


def test_chinese_session_gets_a_chinese_bridge():
    lines = _user("我搬到上海了。", "我现在住在哪里？", "我决定坐高铁去。", "帮我安排一下成都的行程。")
    text = S.bridge(lines, None, 200)
    assert text.startswith("上次你告诉我：你搬到了上海") and "你决定了：坐高铁去" in text
    assert "还没完成：你让我帮你安排一下成都的行程" in text and "住在哪里" not in text
    assert not any(w in text for w in ("Last time", "Still open", "User"))


def test_summary_goal_is_a_request_never_a_question_and_facts_are_stated_ones():
    lines = _user("Please plan a 3-day trip to Hangzhou for me.", "I live in Shanghai.", "Which hotel is cheapest?")
    text = S.summarise(lines, None, 200)
    assert text.splitlines()[0] == "Goal: Please plan a 3-day trip to Hangzhou for me."
    assert "Facts: User lives in Shanghai" in text and "cheapest" not in text


def test_bridge_stays_within_the_token_limit_with_whole_sentences():
    facts = [f"User likes hobby number {n} very much." for n in range(12)]
    text = bridge_text(facts, [], ["Help me plan a long trip."], "en", 40)
    assert count_tokens(text) <= 40 and "Still open" in text and "…" not in text


def test_a_session_of_questions_only_says_so_plainly():
    text = S.bridge(_user("What time is it?", "How tall is Everest?"), None, 100)
    assert text == "Last time we only chatted briefly; you didn't tell me anything new."
