"""The token-budgeted composer: order, priorities, drops, truncation — and a 200-turn property run."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from memory.config import Settings
from memory.prompts import HEADERS
from memory.sessions.prompt import (
    MESSAGE_OVERHEAD,
    ContextRequest,
    HistoryItem,
    MemoryItem,
    compose,
    message_tokens,
    prompt_budget,
)
from memory.text.tokens import count_tokens


def _memories(n: int, words: int = 12) -> list[MemoryItem]:
    day = datetime(2024, 5, 1, tzinfo=UTC)
    return [MemoryItem(f"m{i}", f"memory {i}: " + "detail " * words, day, "user-stated", "fact") for i in range(n)]


def _history(n: int, words: int = 20) -> list[HistoryItem]:
    roles = ("user", "assistant")
    return [HistoryItem(roles[i % 2], f"message {i} " + "word " * words, i + 1) for i in range(n)]


def _section(comp, name: str) -> dict:
    return next(s for s in comp.allocation["sections"] if s["name"] == name)


def test_sections_appear_in_the_documented_order_with_dates_and_sources():
    req = ContextRequest(
        input="酒店换便宜点的",
        profile={"city": "杭州", "interests": ["tea", "hiking"]},
        bridge="Last time: Hangzhou trip.",
        summaries=["Goal: plan 3 days in Hangzhou"],
        memories=_memories(2),
        history=_history(2),
    )
    comp = compose(req, Settings())
    assert isinstance(comp.messages[0], SystemMessage) and "memory-data" in comp.messages[0].content
    system = comp.messages[1]  # memory text: its own message, after the instructions
    assert isinstance(system, SystemMessage)
    positions = [system.content.index(HEADERS[n]) for n in ("profile", "bridge", "summary", "memories")]
    assert positions == sorted(positions)
    assert "[2024-05-01 · user-stated · fact] memory 0" in system.content
    assert [m.content for m in comp.messages[2:4]] == [h.content for h in req.history]
    assert comp.messages[-1] == HumanMessage("酒店换便宜点的")
    names = [s["name"] for s in comp.allocation["sections"]]
    assert names == ["system", "profile", "bridge", "summary", "memories", "history", "input"]
    assert comp.allocation["total_used"] == message_tokens(comp.messages)
    assert comp.injected == ["m0", "m1"] and comp.dropped == []


def test_lowest_ranked_memories_are_dropped_first():
    settings = Settings(context_memories_cap=120)
    comp = compose(ContextRequest(input="hi", memories=_memories(10)), settings)
    assert comp.injected == [f"m{i}" for i in range(len(comp.injected))]
    assert comp.dropped == [f"m{i}" for i in range(len(comp.injected), 10)]
    sec = _section(comp, "memories")
    assert sec["used"] <= sec["budget"] == 120
    assert sec["dropped_items"] == comp.dropped


def test_oldest_history_goes_first_and_the_rest_flows_from_unused_sections():
    settings = Settings(context_window=700, context_reply_reserve=100)
    comp = compose(ContextRequest(input="and now?", history=_history(30)), settings)
    sec = _section(comp, "history")
    kept = [int(m.content.split()[1]) for m in comp.messages[1:-1]]
    assert kept == list(range(30 - len(kept), 30))  # a contiguous newest suffix
    assert sec["dropped_items"] == [str(i + 1) for i in reversed(range(30 - len(kept)))]
    assert comp.allocation["total_used"] <= prompt_budget(settings)
    assert sec["budget"] > 300  # profile/bridge/summary/memories were empty: their share flowed on


def test_priority_setting_decides_who_gets_a_scarce_budget():
    req = ContextRequest(input="x", summaries=["Goal: " + "a " * 300], memories=_memories(20))
    tight = dict(context_window=600, context_reply_reserve=0, context_summary_cap=500, context_memories_cap=500)
    summary_first = compose(req, Settings(**tight))
    memories_first = compose(req, Settings(**tight, context_priority="system,memories,summary"))
    assert _section(summary_first, "summary")["used"] > _section(memories_first, "summary")["used"]
    assert len(memories_first.injected) > len(summary_first.injected)


def test_an_input_larger_than_the_budget_is_truncated_never_dropped():
    settings = Settings(context_window=512, context_reply_reserve=128)
    huge = "这是一个非常长的问题。" * 2000
    comp = compose(ContextRequest(input=huge, memories=_memories(5), history=_history(5)), settings)
    assert comp.allocation["input_truncated"] is True
    last = comp.messages[-1]
    assert isinstance(last, HumanMessage) and huge.startswith(last.content) and len(last.content) > 100
    assert comp.allocation["total_used"] <= prompt_budget(settings)


def test_zero_cap_switches_a_section_off():
    comp = compose(ContextRequest(input="hi", profile={"city": "Paris"}), Settings(context_profile_cap=0))
    assert "Paris" not in comp.prompt_text and _section(comp, "profile")["dropped_items"] == ["city"]


def _random_text(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.35:
        return " ".join(
            rng.choice(["hotel", "Hangzhou", "budget", "tea", "the", "quiet", "5000", "?"])
            for _ in range(rng.randint(1, 400))
        )
    if kind < 0.7:
        return "".join(rng.choice("杭州酒店便宜预算喜欢安静的茶我你他。，？") for _ in range(rng.randint(1, 1500)))
    if kind < 0.85:
        return "🙂 mixed 混合 text " * rng.randint(1, 3000)  # huge
    return rng.choice(["?", "好", "ok", "x" * rng.randint(1, 20000)])


@pytest.mark.slow  # 200 composed turns with texts up to 20,000 characters: 15–32 s on a busy 2-core machine
def test_property_200_random_turns_never_exceed_the_budget_and_keep_the_input():
    rng = random.Random(20240501)
    for turn in range(200):
        settings = Settings(
            context_window=rng.choice([256, 512, 1024, 4096, 8192]),
            context_reply_reserve=rng.choice([0, 64, 256]),
            context_memories_cap=rng.choice([0, 50, 400, 2000]),
            context_summary_cap=rng.choice([0, 30, 600]),
            context_history_cap=rng.choice([0, 100, 1000]),
            context_system_cap=rng.choice([0, 20, 400]),
        )
        text = _random_text(rng)
        req = ContextRequest(
            input=text,
            profile={"city": _random_text(rng)[:200], "budget": "5000"},
            bridge=_random_text(rng) if rng.random() < 0.5 else None,
            summaries=[_random_text(rng) for _ in range(rng.randint(0, 3))],
            memories=[MemoryItem(f"m{i}", _random_text(rng)) for i in range(rng.randint(0, 8))],
            history=[
                HistoryItem(rng.choice(["user", "assistant"]), _random_text(rng), i) for i in range(rng.randint(0, 12))
            ],
        )
        comp = compose(req, settings)
        budget = prompt_budget(settings)
        used = message_tokens(comp.messages)
        assert used == comp.allocation["total_used"] <= budget, f"turn {turn}: {used} > {budget}"
        last = comp.messages[-1]
        assert isinstance(last, HumanMessage) and last.content and text.startswith(last.content), f"turn {turn}"
        assert comp.allocation["input_truncated"] == (last.content != text)
        assert count_tokens(last.content) + MESSAGE_OVERHEAD == _section(comp, "input")["used"]
        # sections are counted one by one; joining them shifts a few tokens at the seams (total_used is exact)
        assert abs(sum(s["used"] for s in comp.allocation["sections"]) - used) <= 16
