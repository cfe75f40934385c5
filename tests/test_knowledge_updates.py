"""Knowledge updates through the product: something that changed over time (a job, a city, a car, a habit) is told
in one session and changed in a later one, then asked about in a third, through the agent's turn (offline engine,
bundled e5 embedder, default settings), in English and Chinese.

- "Where do I work?" → the newer statement ranks above the older among the selected memories, an older one that is
  still selected is labelled as earlier, and the reply never says the older value as current;
- "Where did I work before?" / 我以前在哪里工作？ → the older value is recalled, labelled as earlier, and the reply says
  it as earlier — also when the write path superseded it (then only its link to the newer memory finds it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest

from agent.runtime import Agent
from memory.config import Settings
from memory.retrieval.recall import Hit
from memory.retrieval.updates import asks_past, settle
from memory.sessions import prompt

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Change:
    name: str
    first: str  # session 1
    then: str  # session 2, weeks later
    now_q: str
    past_q: str
    old: str  # the older value, as the reply and memories write it
    new: str
    earlier_word: str  # how the reply marks a value as earlier

    def states_old(self, text: str) -> bool:
        return self.old.lower() in text.lower() and self.new.lower() not in text.lower()

    def states_new(self, text: str) -> bool:
        return self.new.lower() in text.lower()


CHANGES = [
    Change(
        "en-job",
        "I work at Acme as a nurse.",
        "I just started a new job at Globex.",
        "Where do I work?",
        "Where did I work before?",
        "Acme",
        "Globex",
        "earlier",
    ),
    Change(
        "en-city",
        "I live in Berlin.",
        "I moved to Lisbon last month.",
        "Where do I live?",
        "Where did I live before?",
        "Berlin",
        "Lisbon",
        "earlier",
    ),
    Change(
        "en-car",
        "I drive a Toyota Corolla.",
        "I sold my Corolla and now I drive a Tesla Model 3.",
        "What car do I drive?",
        "What car did I use to drive?",
        "Corolla",
        "Tesla",
        "earlier",
    ),
    Change(
        "en-habit",
        "I go running every morning.",
        "These days I swim every morning instead of running.",
        "What do I do in the mornings?",
        "What did I use to do in the mornings?",
        "running",
        "swim",
        "earlier",
    ),
    Change(
        "zh-job",
        "我在阿里巴巴当程序员。",
        "我刚换了工作，现在在腾讯上班。",
        "我在哪里工作？",
        "我以前在哪里工作？",
        "阿里巴巴",
        "腾讯",
        "以前",
    ),
    Change(
        "zh-city", "我住在杭州。", "我上个月搬到了上海。", "我住在哪里？", "我以前住在哪里？", "杭州", "上海", "以前"
    ),
    Change(
        "zh-car",
        "我开一辆丰田卡罗拉。",
        "我把卡罗拉卖了，现在开特斯拉。",
        "我开什么车？",
        "我以前开什么车？",
        "卡罗拉",
        "特斯拉",
        "以前",
    ),
    Change(
        "zh-habit",
        "我每天早上跑步。",
        "我现在每天早上游泳，不跑步了。",
        "我早上做什么运动？",
        "我以前早上做什么运动？",
        "跑步",
        "游泳",
        "以前",
    ),
]


def _sentences(reply: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.。！？!?])\s*|\n+", reply) if s.strip()]


def _told_changed_and_asked(svc, uid: str, c: Change, question: str):
    """Session 1 tells ``c.first``, session 2 (20 days later) ``c.then``; a third (20 days after that) asks."""
    agent = Agent(svc)
    try:
        agent.chat(uid, "s1", c.first, at=T0)
        agent.wait()
        agent.end_session(uid, "s1")
        agent.chat(uid, "s2", c.then, at=T0 + timedelta(days=20))
        agent.wait()
        agent.end_session(uid, "s2")
        res = agent.chat(uid, "q", question, at=T0 + timedelta(days=40))
        agent.wait()
        return res
    finally:
        agent.close()


def _label(h: Hit) -> str | None:
    return getattr(h, "update", None)


@pytest.mark.parametrize("c", CHANGES, ids=[c.name for c in CHANGES])
def test_the_newer_statement_answers_a_question_about_now(svc, c):
    res = _told_changed_and_asked(svc, f"ku-now-{c.name}", c, c.now_q)
    chosen = [h for h in res.recall.hits if h.selected]
    stating = [h for h in chosen if c.states_new(h.content) or c.states_old(h.content)]
    assert stating and c.states_new(stating[0].content), [(h.rank, h.content) for h in chosen]  # newer first
    for h in stating:  # an older value still shown is labelled as earlier, never as holding
        if c.states_old(h.content):
            assert _label(h) == "earlier", (h.content, _label(h))
    assert c.new.lower() in res.reply.lower(), res.reply
    for s in _sentences(res.reply):  # the reply never says the older value as the current one
        if c.states_old(s):
            assert c.earlier_word in s.lower(), res.reply


@pytest.mark.parametrize("c", CHANGES, ids=[c.name for c in CHANGES])
def test_the_older_statement_is_found_as_history(svc, c):
    res = _told_changed_and_asked(svc, f"ku-past-{c.name}", c, c.past_q)
    chosen = [h for h in res.recall.hits if h.selected]
    older = [h for h in chosen if c.states_old(h.content)]
    assert older, [(h.rank, h.content, h.drop_reason) for h in res.recall.hits]
    assert all(_label(h) == "earlier" for h in older), [(h.content, _label(h)) for h in older]
    assert all(h.injected for h in older), [(h.content, h.drop_reason) for h in older]  # history, not a contradiction
    said = [s for s in _sentences(res.reply) if c.states_old(s)]
    assert said and all(c.earlier_word in s.lower() for s in said), res.reply


def _hit(mid: str, content: str, day: int, rank: int, selected: bool, message: int, **kw) -> Hit:
    return Hit(
        memory_id=mid,
        content=content,
        type=kw.pop("type", "fact"),
        source_type=kw.pop("source_type", "user-stated"),
        created_at=T0 + timedelta(days=day),
        event_time=None,
        confidence=1.0,
        importance=0.5,
        similarity=0.8,
        fts_score=None,
        score=1.0 / rank,
        relevance=0.5 / rank,
        rank=rank,
        passed=selected,
        selected=selected,
        drop_reason=None if selected else "below threshold",
        source_message_ids=[message],
        **kw,
    )


def test_only_a_newer_statement_saying_it_changed_replaces_an_older_one():
    """Pure: what counts as a change, and what does not (general recall is left as it was)."""
    works = _hit("acme", "User works at Acme.", 0, 1, True, 1)
    club = _hit("club", "User joined a book club.", 20, 2, True, 2)
    couch = _hit("couch", "User moved the couch into the hall.", 21, 3, True, 3)
    asked = _hit("asked", "Where do I work now?", 22, 4, False, 4, type="episode")
    guess = _hit("guess", "User probably started a new job at Initech.", 23, 5, False, 5, source_type="inferred")
    hits = settle([works, club, couch, asked, guess], k=5)
    assert [h.memory_id for h in hits] == ["acme", "club", "couch", "asked", "guess"]
    assert all(h.update is None for h in hits)  # a club, a couch, a question, a guess: nothing changed
    newer = _hit("globex", "User just started a new job at Globex.", 20, 6, False, 6)
    hits = settle([_hit("acme", "User works at Acme.", 0, 1, True, 1), newer], k=5)
    assert [(h.memory_id, h.update, h.selected) for h in hits] == [
        ("globex", "current", True),
        ("acme", "earlier", True),
    ]
    assert hits[1].replaced_by == "globex" and hits[1].replaced_on == T0 + timedelta(days=20)
    older = _hit("run", "用户每天早上跑步。", 0, 1, True, 1)
    swim = _hit("swim", "我现在每天早上游泳，不跑步了。", 20, 2, False, 2, type="episode")
    assert [h.memory_id for h in settle([older, swim], k=1)] == ["swim", "run"]  # k holds: the older one goes
    assert older.update == "earlier" and not older.selected and older.drop_reason == "beyond top-k"
    eggs = _hit("eggs", "User has 15 dozen eggs in the fridge.", 0, 1, True, 1)
    cats = _hit("cats", "User has 2 cats.", 1, 2, True, 2)
    recount = _hit("recount", "I now have 20 dozen eggs stocked up.", 20, 3, False, 3, type="episode")
    settled = settle([eggs, cats, recount], k=5)
    assert [(h.memory_id, h.update) for h in settled] == [("recount", "current"), ("eggs", "earlier"), ("cats", None)]
    home = _hit("home", "用户住在杭州", 0, 1, True, 1)
    wish = _hit("wish", "用户想搬到深圳", 20, 2, True, 2)
    plan = _hit("plan", "User is thinking about a new job in Denver.", 21, 3, True, 3)
    assert [(h.memory_id, h.update) for h in settle([home, wish, plan], k=5)] == [
        ("home", None),
        ("wish", None),
        ("plan", None),
    ]  # a wish or a plan is not a change (tests/data/crosslingual_pairs.json's 'home' pair)
    assert asks_past("What car did I use to drive?") and asks_past("我以前住在哪里？") and not asks_past("我住在哪里？")


def test_the_prompt_shows_an_earlier_value_as_history_beside_the_profile():
    """A value a newer one replaced stays in the prompt, labelled with the day it was replaced, instead of being left
    out as a contradiction of the profile's current value."""
    when = T0 + timedelta(days=20)
    berlin = prompt.MemoryItem(
        "b", "User lives in Berlin.", T0, predicate="lives_in", object="Berlin", update="earlier", replaced_on=when
    )
    request = prompt.ContextRequest(input="Where did I live before?", profile={"city": "Lisbon"}, memories=[berlin])
    comp = prompt.compose(request, Settings())
    text = comp.prompt_text
    assert "b" in comp.injected and "b" not in comp.contradicted
    assert "earlier, replaced 2026-03-22] User lives in Berlin." in text, text


def test_the_mem0_door_finds_an_earlier_city_as_history(svc):
    """Through the mem0-shaped door: the write path superseded the older city, a question about the past still finds
    it (through its link to the newer memory), marked as earlier; a question about now does not."""
    from memory.client import Memory

    mem = Memory(svc)
    mem.add("I live in Berlin.", user_id="ku-door")
    mem.add("I moved to Lisbon last month.", user_id="ku-door")
    past = mem.search("Where did I live before?", user_id="ku-door", cut="calibrated")["results"]
    berlin = [r for r in past if "Berlin" in r["memory"]]
    assert berlin and all(r.get("update") == "earlier" and r["status"] == "superseded" for r in berlin), past
    assert any("Lisbon" in r["memory"] for r in past)
    now = mem.search("Where do I live?", user_id="ku-door", cut="calibrated")["results"]
    assert not [r for r in now if "Berlin" in r["memory"]], now
