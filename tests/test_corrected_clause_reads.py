"""Text with a corrected clause left out still reads as a sentence (issue #45, item 6), in English and Chinese.

Before: ``consistency.consistent_text`` carried a bridge's lead ("Last time you told me that") into the next
sentence whatever it was ("Last time you told me that From what you've told me: …",
"上次你告诉我：根据你告诉过我的：…"),
left the ";" of the clause before a removed last clause dangling ("…(April 2027); Still open: …"), and re-joined
what it kept with spaces (a "；" inside a bracket got a space after it, paragraph breaks were lost).

The statements are retracted the way ``profile_sync.retracted_statements`` keys them (the real extractor); the last
test walks the demo's path through the agent: a reply that repeated a bridge, then a person's correction.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from actors import CURATOR
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.runtime import Agent
from memory.sessions.extractive import ExtractiveSummariser
from memory.text.privacy import mask_pii
from memory.write.consistency import consistent_text, retracted_key
from memory.write.extract.extractor import extract_rules

AT = datetime(2026, 11, 18, 10, 0, tzinfo=UTC)
#: what a reader must never see once a clause went
NO_CLAUSE = "a lead with no clause of its own"
BROKEN = [
    (re.compile(r"(?:told|mentioned) me that\s+(?:From|Last|Still|You decided)\b"), NO_CLAUSE),
    (re.compile(r"(?:上次你告诉我|上次你提到)：\s*(?:根据|上次|还没完成|你决定了)"), NO_CLAUSE),
    (re.compile(r"[;；]\s*$"), "a dangling semicolon at the end"),
    (re.compile(r"[;；]\s*(?:\n|[A-Z]|还没完成|你决定了|根据|上次)"), "a semicolon before the next sentence"),
    (re.compile(r"[;；]\s*[.!?。！？]"), "a semicolon before an end mark"),
    (re.compile(r"； "), "a space after a Chinese semicolon"),
    (re.compile(r"^\s*[;；.。]"), "text starting with a mark"),
]


def _keys(sentence: str) -> set[tuple[str, str]]:
    return {k for c in extract_rules(sentence, at=AT) if (k := retracted_key(c.predicate, mask_pii(c.object)))}


def _broken(text: str) -> list[str]:
    return [why for pattern, why in BROKEN if pattern.search(text)]


ISSUE_CASES = [
    (  # the demo's reply that repeated a bridge, after the city was corrected
        "Last time you told me that you moved to Lisbon and live there now.\n\nFrom what you've told me: You are "
        "planning a trip to Japan (April 2027) — you told me on 22 November.",
        "I live in Lisbon.",
        "From what you've told me: You are planning a trip to Japan (April 2027) — you told me on 22 November.",
    ),
    (
        "上次你告诉我：你搬到了上海，现在住在那里。\n\n根据你告诉过我的：你计划去成都玩（2026年12月；11月22日告诉我的）。",
        "我住在上海。",
        "根据你告诉过我的：你计划去成都玩（2026年12月；11月22日告诉我的）。",
    ),
    (  # the last clause of the lead's sentence goes: the sentence ends on its own mark
        "Last time you told me that you don't eat spicy food; you are vegetarian; your budget is 3000 euros. "
        "Still open: you asked me to suggest a first day in Tokyo.",
        "My budget is 3000 euros.",
        "Last time you told me that you don't eat spicy food; you are vegetarian. "
        "Still open: you asked me to suggest a first day in Tokyo.",
    ),
    (  # the first clause goes: the lead moves to the next clause of the same sentence
        "Last time you told me that you live in Berlin; you are vegetarian. Still open: you asked me to help you.",
        "I live in Berlin.",
        "Last time you told me that you are vegetarian. Still open: you asked me to help you.",
    ),
    (
        "上次你告诉我：你的职业是设计师；你不吃辣；你的预算是5000元。\n\n好的，记下了。",
        "我是一名设计师。",
        "上次你告诉我：你不吃辣；你的预算是5000元。\n\n好的，记下了。",
    ),
    (
        "上次你告诉我：你不吃辣；你的预算是5000元。还没完成：你让我帮你安排一下成都的行程。",
        "我的预算是5000元。",
        "上次你告诉我：你不吃辣。还没完成：你让我帮你安排一下成都的行程。",
    ),
]


@pytest.mark.parametrize(("text", "retracted", "expected"), ISSUE_CASES)
def test_a_corrected_clause_leaves_a_sentence(text, retracted, expected):
    keys = _keys(retracted)
    assert keys, retracted
    shown = consistent_text(text, {}, keys)
    assert shown == expected
    assert not _broken(shown), (shown, _broken(shown))


def test_nothing_corrected_leaves_the_text_as_it_is():
    text = "上次你告诉我：你不吃辣；你的预算是5000元。\n\n好的，记下了。"
    assert consistent_text(text, {}, _keys("I live in Berlin.")) == text


STATEMENTS = [
    "I live in Berlin.",
    "I am vegetarian.",
    "My budget is 3000 euros.",
    "I work as a nurse.",
    "I like jazz.",
    "I have a dog named Biscuit.",
]
STATEMENTS_ZH = ["我住在杭州。", "我不吃辣。", "我的预算是5000元。", "我是一名设计师。", "我喜欢爵士乐。"]
TASKS = ["Help me pack for Japan.", "帮我安排一下成都的行程。"]


@st.composite
def bridges(draw):
    zh = draw(st.booleans())
    picked = draw(st.lists(st.sampled_from(STATEMENTS_ZH if zh else STATEMENTS), min_size=2, max_size=5, unique=True))
    said = [("user", s) for s in picked]
    if draw(st.booleans()):
        said.append(("user", TASKS[1 if zh else 0]))
    gone = draw(st.lists(st.integers(0, len(picked) - 1), min_size=1, max_size=len(picked), unique=True))
    reply = draw(st.sampled_from(["", "\n\nGot it — thanks for telling me.", "\n\n好的，记下了。"]))
    return said, [picked[n] for n in gone], reply


@settings(max_examples=150, deadline=None)
@given(case=bridges())
def test_any_bridge_with_corrected_clauses_still_reads(case):
    said, gone, reply = case
    bridge = ExtractiveSummariser().bridge(said, None, 400) + reply  # a reply that repeated the bridge, too
    keys = set().union(*(_keys(s) for s in gone))
    shown = consistent_text(bridge, {}, keys)
    assert not _broken(shown), (bridge, shown, _broken(shown))
    if reply.strip():
        assert shown.endswith(reply.strip())  # what was not corrected is kept as it was written


def test_the_demo_path_through_the_agent_reads(svc):
    """The demo's path: alice moves to Lisbon, the next session's first reply repeats its bridge ("Last time you
    told me that you moved to Lisbon…") before answering; a curator corrects the city to Porto. The offline engine's
    replies that repeated a bridge are transcript only (never recalled, so never a second copy of a corrected claim);
    every memory recall returns (each read through the same filter), the bridge and the reply read as sentences."""
    bot = Agent(svc)
    for session, said in (
        ("s1", ["I live in Berlin and I work as a nurse.", "I'm planning a trip to Japan in April."]),
        ("s2", ["I moved to Lisbon last month."]),
        ("s3", ["Help me pack for my trip to Japan."]),
    ):
        for text in said:
            bot.chat("cc-alice", session, text)
        bot.end_session("cc-alice", session)
    bot.wait()
    svc.update_profile("cc-alice", "city", "Porto", actor=CURATOR, reason="she phoned")
    result = bot.chat("cc-alice", "s4", "Where do I live now?")
    wide = svc.recall("cc-alice", "Lisbon Japan trip pack", threshold=-1.0, k=100, log=False)
    repeated = [h.content for h in wide.hits if "told me that" in h.content or "From what" in h.content]
    sessions = svc.list_sessions(svc.get_user("cc-alice"))
    transcript = [m.content for s in sessions if s.external_id in ("s2", "s3") for m in svc.messages(s.id)]
    assert any("told me that" in t or "From what" in t for t in transcript)  # the replies did repeat a bridge
    assert repeated == []  # … and recall never returns them
    assert [h for h in wide.hits if "Japan" in h.content]  # recall returns what was said
    assert not [h for h in wide.hits if h.selected and "Lisbon" in h.content]  # the corrected clause is gone
    texts = [h.content for h in wide.hits] + [result.reply, result.bridge or ""]
    problems = {t: _broken(t) for t in texts if _broken(t)}
    assert not problems, problems
    assert "Porto" in result.reply
    bot.close()
