"""Rolling summary anchors and session bridges, on real SQLite (plumbing embedder: meaning is not needed here)."""

from __future__ import annotations

from datetime import timedelta

from memory.sessions import summary
from memory.storage.models import Session, SessionBridge, utcnow


def _turns(svc, session, pairs):
    for user_text, reply in pairs:
        svc.add_message(session, "user", user_text)
        svc.add_message(session, "assistant", reply)


def test_turn_trigger_folds_old_messages_into_an_anchor_that_records_its_range(plumbing_svc, settings):
    svc = plumbing_svc
    s = settings.model_copy(update={"summary_trigger_turns": 4, "summary_keep_turns": 1})
    user = svc.ensure_user("u")
    session = svc.ensure_session(user, "s1")
    _turns(
        svc,
        session,
        [
            ("Please plan a 3-day trip to Hangzhou, budget 5000 yuan.", "Sure."),
            ("I prefer quiet hotels near West Lake.", "Noted."),
        ],
    )
    assert summary.maybe_summarise(svc.storage, session.id, s) is None  # 2 turns < 4
    _turns(svc, session, [("Trains from Shanghai are fine.", "OK."), ("What about food?", "Try Longjing tea.")])
    anchor = summary.maybe_summarise(svc.storage, session.id, s)
    msgs = svc.messages(session.id)
    assert (anchor.from_message_id, anchor.to_message_id) == (msgs[0].id, msgs[-3].id)  # last turn stays verbatim
    assert anchor.text.startswith("Goal: Please plan a 3-day trip to Hangzhou")
    assert anchor.tokens > 0 and summary.covered_to(svc.storage, session.id) == msgs[-3].id
    assert summary.maybe_summarise(svc.storage, session.id, s) is None  # nothing new to fold


def test_token_trigger_and_a_chinese_extractive_summary(plumbing_svc, settings):
    svc = plumbing_svc
    s = settings.model_copy(update={"summary_trigger_turns": 50, "summary_trigger_tokens": 30})
    session = svc.ensure_session(svc.ensure_user("u"), "s1")
    _turns(
        svc,
        session,
        [("请帮我规划杭州三天的旅行，预算5000元。", "好的。"), ("我不吃辣，喜欢安静的地方。" * 3, "明白。")],
    )
    anchor = summary.maybe_summarise(svc.storage, session.id, s)
    assert anchor is not None and anchor.text.startswith("目标：请帮我规划杭州三天的旅行")
    assert summary.current_goal([anchor.text]) == "请帮我规划杭州三天的旅行，预算5000元。"


def test_follow_ups_are_searched_with_the_goal_long_inputs_are_not():
    goal = "plan a 3-day trip to Hangzhou"
    assert summary.retrieval_query("make the hotel cheaper", goal) == f"make the hotel cheaper\n{goal}"
    assert summary.retrieval_query("酒店换便宜点的", "规划杭州三天的旅行").endswith("杭州三天的旅行")
    long = "I would like to talk about something entirely different now, " * 4
    assert summary.retrieval_query(long, goal) == long
    assert summary.retrieval_query("hi", None) == "hi"


def test_end_session_writes_one_bridge_and_the_next_session_takes_it(plumbing_svc):
    svc = plumbing_svc
    user = svc.ensure_user("u")
    s1 = svc.ensure_session(user, "s1")
    _turns(svc, s1, [("I want to book a hotel in Kyoto for April.", "OK."), ("Something under 100 euros.", "Sure.")])
    bridge = svc.end_session("u", "s1")
    sentences = [p for p in bridge.text.replace('"', "").split(". ") if p.strip()]
    assert "Kyoto" in bridge.text and 1 <= len(sentences) <= 3
    assert svc.end_session("u", "s1").id == bridge.id  # idempotent
    with svc.storage.db() as db:
        assert db.get(Session, s1.id).status == "ended"
    s2 = svc.ensure_session(user, "s2")
    taken = summary.take_bridge(svc.storage, s2)
    assert taken.id == bridge.id and taken.to_session_id == s2.id and taken.injected_at is not None


def test_a_new_session_ends_the_open_one_and_idle_sessions_end_after_the_timeout(plumbing_svc, settings):
    svc = plumbing_svc
    user = svc.ensure_user("u")
    s1 = svc.ensure_session(user, "s1")
    _turns(svc, s1, [("我打算下个月去成都旅游。", "好的。")])
    s2 = svc.ensure_session(user, "s2")
    written = svc.close_other_sessions(s2, settings, first_turn=True)
    assert [b.from_session_id for b in written] == [s1.id] and "成都" in written[0].text
    # s3 stays open while fresh; once idle past the timeout, any turn elsewhere ends it
    s3 = svc.ensure_session(user, "s3")
    _turns(svc, s3, [("Remind me to call Anna.", "Will do.")])
    assert svc.close_other_sessions(s2, settings, first_turn=False) == []
    with svc.storage.db() as db:
        row = db.get(Session, s3.id)
        row.last_activity_at = utcnow() - timedelta(minutes=settings.session_idle_minutes + 1)
        db.add(row)
        db.commit()
    ended = svc.close_other_sessions(s2, settings, first_turn=False)
    assert [b.from_session_id for b in ended] == [s3.id]
    with svc.storage.db() as db:
        assert db.get(SessionBridge, ended[0].id).text.count("Anna") == 1


def test_an_empty_session_has_nothing_to_bridge(plumbing_svc):
    svc = plumbing_svc
    svc.ensure_session(svc.ensure_user("u"), "empty")
    assert svc.end_session("u", "empty") is None
