"""Episodic memory in the product: every conversation message becomes a retrievable episode through the one write
path that chat, the doors and the evaluation share. Real SQLite + LanceDB + e5; the offline engine answers."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from actors import ADMIN
from sqlmodel import select

from agent.runtime import Agent
from memory.client import Memory as Mem0
from memory.config import Settings
from memory.evaluation import load
from memory.evaluation.ingest import ingest_session
from memory.lifecycle.retention import MemInfo, plan_forget
from memory.retrieval.filters import RecallFilters
from memory.retrieval.policy import RecallPolicy
from memory.retrieval.recall import IN_CONVERSATION, SAME_SOURCE, Hit, rank_and_cut
from memory.service import MemoryService
from memory.storage.models import Memory, MemoryEvent, Message
from memory.storage.passages import passage
from memory.vocab import SEMANTIC_TYPES, MemoryType, SourceType
from memory.write.episodes import chunks

TINY = Path(__file__).parent / "data" / "tiny_locomo_format.json"


def _episodes(svc: MemoryService, user_id: str) -> list[Memory]:
    return svc.list_memories(svc.get_user(user_id), types=[MemoryType.EPISODE])


def test_a_chat_turn_keeps_the_users_message_as_an_episode_and_the_offline_reply_in_the_transcript_only(svc):
    agent = Agent(svc)
    result = agent.chat("ep-1", "s1", "My sister Lena finally got her pilot's licence. Call me on 13912345678.")
    agent.wait()
    agent.close()
    eps = {m.source_type: m for m in _episodes(svc, "ep-1")}
    assert set(eps) == {SourceType.USER_STATED}  # the offline engine's canned reply is not memory (#42)
    mine = eps[SourceType.USER_STATED]
    assert mine.subject == "User" and mine.meta["role"] == "user"
    assert "Lena" in mine.content and "13912345678" not in mine.content  # PII masked before storage
    with svc.storage.db() as db:
        said = db.get(Message, mine.source_message_ids[0])
    assert said.content == mine.content and said.session_id == result.session_key
    answered = [m for m in svc.messages(result.session_key) if m.role == "assistant"]
    assert len(answered) == 1 and answered[0].meta.get("canned") is True  # kept in the transcript
    indexed = svc.storage.index.table.to_arrow().to_pylist()
    assert not [r for r in indexed if "13912345678" in r["text"]]  # nor embedded / indexed
    # the agent's own words are never read for facts about the user
    facts = svc.list_memories(svc.get_user("ep-1"), types=SEMANTIC_TYPES)
    assert all(answered[0].id not in m.source_message_ids for m in facts)


TOLD = [
    (
        "en",
        "My sister Lena finally got her pilot's licence after three years of lessons.",
        "What did Lena get?",
        "pilot",
    ),
    (
        "en",
        "Dinner at my in-laws was awkward again, they kept asking about the mortgage.",
        "What did my in-laws keep asking about at dinner?",
        "mortgage",
    ),
    ("zh", "我上周末和老同学去爬了黄山，风景特别美。", "我上周末去哪里爬山了？", "黄山"),
    ("zh", "我女儿这学期开始学大提琴了，每天都练一个小时。", "我女儿在学什么乐器？", "大提琴"),
]


@pytest.mark.parametrize(("lang", "said", "asked", "answer"), TOLD, ids=[t[3] for t in TOLD])
def test_an_ordinary_sentence_is_answered_in_a_later_session_from_its_episode(svc, lang, said, asked, answer):
    agent = Agent(svc)
    agent.chat("ep-later", "monday", said)
    agent.wait()
    agent.end_session("ep-later", "monday")
    reply = agent.chat("ep-later", "friday", asked)
    agent.close()
    injected = [h for h in reply.recall.hits if h.injected and answer in h.content]
    assert injected and answer in reply.reply  # the episode, or a fact read from it (never both: one message)
    if injected[0].type == MemoryType.EPISODE:
        assert ("You mentioned that" if lang == "en" else "你提到过") in reply.reply


def test_the_next_sessions_bridge_says_what_was_mentioned_when_no_rule_understood_it(svc):
    agent = Agent(svc)
    agent.chat("ep-bridge", "s1", "Dinner at my in-laws was awkward again, they kept asking about the mortgage.")
    agent.wait()
    bridge = agent.end_session("ep-bridge", "s1")
    agent.close()
    assert bridge and "dinner at your in-laws" in bridge.lower() and "anything new" not in bridge


def test_a_long_message_is_kept_as_several_episodes_with_their_offsets(tmp_path, e5):
    # the limits are settings: lowered so the document stays small (each 400-token episode costs the e5 embedder
    # about two seconds on one core; the splitting is the same at any size)
    settings = Settings(data_dir=tmp_path / "data", max_message_chars=2_000, episode_tokens=64)
    svc = MemoryService(settings, embedder=e5)
    paragraph = "The quarterly report covers revenue, hiring and the new office in Porto. " * 3
    document = "\n\n".join(f"Section {i}. {paragraph}" for i in range(16))  # ~3,700 characters
    assert len(document) > svc.settings.max_message_chars
    report = svc.remember("ep-long", document)
    assert not report.operations and len(report.episodes) > 10  # not read for facts: kept, never refused
    with svc.storage.db() as db:
        message = db.exec(select(Message)).one()
    parts = sorted(_episodes(svc, "ep-long"), key=lambda m: m.meta["offset"])
    assert [m.meta["part"] for m in parts] == list(range(1, len(parts) + 1))
    for m in parts:
        at = m.meta["offset"]
        assert message.content[at : at + len(m.content) + 2].strip().startswith(m.content[:50])
    assert svc.recall("ep-long", "office in Porto", threshold=-1.0).selected  # the parts are retrievable
    svc.close()


def test_chunks_cover_the_text_in_order_and_respect_the_budget():
    text = "短句。" * 400 + " ".join(["word"] * 900)
    parts = chunks(text, 100)
    assert all(len(p) > 0 for _, p in parts)
    offsets = [at for at, _ in parts]
    assert offsets == sorted(offsets) and offsets[0] == 0
    assert "".join(p for _, p in parts).replace(" ", "") == text.replace(" ", "")
    assert chunks("short", 100) == [(0, "short")]


def _kept(svc: MemoryService, user_id: str) -> set[tuple]:
    """What one user's memory holds of what the user side said: type, content, source, speaker, source text."""
    rows = [m for m in svc.list_memories(svc.get_user(user_id)) if m.source_type != SourceType.AGENT]
    with svc.storage.db() as db:
        text = {m.id: m.content for m in db.exec(select(Message)).all()}
    return {
        (m.type, m.content, m.source_type, m.subject, tuple(text[int(i)] for i in m.source_message_ids)) for m in rows
    }


def test_a_locomo_session_through_the_chat_loop_keeps_what_the_evaluation_keeps(svc):
    sample = load(TINY)[0]
    ls = sample.sessions[0]
    ingest_session(svc, svc.ensure_user("eval-path"), sample, ls, extract=True)
    assert svc.get_user("eval-path").display_name == sample.speakers[0]  # the user is the first speaker
    svc.name_user(svc.ensure_user("chat-path"), sample.speakers[0])  # the same person chatting
    agent = Agent(svc)
    for turn in ls.turns:
        agent.chat("chat-path", "session_1", turn.message(), speaker=turn.speaker, at=turn.at)
    agent.wait()
    agent.close()
    evaluated, chatted = _kept(svc, "eval-path"), _kept(svc, "chat-path")
    assert evaluated == chatted
    assert {t[0] for t in evaluated} >= {MemoryType.EPISODE, MemoryType.FACT}
    assert {t[3] for t in evaluated if t[0] == MemoryType.EPISODE} == {"Alice", "Bob"}
    # one rule for whose words are facts: only the user's (the first speaker's), never the other person's
    other = {t[4][0] for t in evaluated if t[0] == MemoryType.EPISODE and t[3] == sample.speakers[1]}
    assert other and not any(t[4][0] in other for t in evaluated if t[0] != MemoryType.EPISODE)


def test_mem0_add_with_infer_false_keeps_episodes_only(plumbing_svc):
    mem = Mem0(plumbing_svc, via="python")
    talk = [{"role": "user", "content": "I live in Porto"}, {"role": "assistant", "content": "Nice city!"}]
    out = mem.add(talk, user_id="ep-raw", infer=False)["results"]
    assert [(r["memory"], r["type"]) for r in out] == [("I live in Porto", "episode"), ("Nice city!", "episode")]
    assert not plumbing_svc.list_memories(plumbing_svc.get_user("ep-raw"), types=SEMANTIC_TYPES)


def _hit(mid: str, kind: str, source: int, relevance: float) -> Hit:
    return Hit(
        memory_id=mid,
        content=mid,
        type=kind,
        source_type=SourceType.USER_STATED,
        created_at=None,
        event_time=None,
        confidence=1.0,
        importance=0.5,
        similarity=0.9,
        fts_score=None,
        score=relevance,
        relevance=relevance,
        source_message_ids=[source],
    )


def test_the_cut_spends_no_place_on_a_fact_and_its_own_episode_or_on_the_recent_turns(settings):
    params = replace(RecallPolicy.from_settings(settings, threshold=0.1), k=2)
    hits = [
        _hit("fact-1", MemoryType.FACT, 1, 0.9),
        _hit("episode-1", MemoryType.EPISODE, 1, 0.8),  # the same message as the fact above
        _hit("episode-7", MemoryType.EPISODE, 7, 0.7),  # shown in the prompt's recent turns
        _hit("episode-3", MemoryType.EPISODE, 3, 0.6),
    ]
    cut = {h.memory_id: h for h in rank_and_cut(hits, params, frozenset({"7"}))}
    assert [m for m, h in cut.items() if h.selected] == ["fact-1", "episode-3"]
    assert cut["episode-1"].drop_reason == f"{SAME_SOURCE} #1"
    assert cut["episode-7"].drop_reason == IN_CONVERSATION
    assert RecallFilters.build(shown_messages=[7]).to_dict()["shown_messages"] == ["7"]


def test_episodes_have_a_cap_of_their_own_and_never_fade(settings):
    now = datetime(2026, 12, 1, tzinfo=UTC)
    s = settings.model_copy(update={"max_active_episodes": 2, "max_active_memories": 10})

    def row(mid: str, kind: str, days: int) -> MemInfo:
        at = now - timedelta(days=days)
        return MemInfo(
            id=mid,
            user_key="u",
            agent_id="default",
            type=kind,
            content=mid,
            confidence=1.0,
            importance=0.3,
            status="active",
            access_count=0,
            reinforce_count=0,
            event_time=at,
            created_at=at,
            updated_at=at,
            last_accessed_at=None,
            expires_at=None,
        )

    rows = [row(f"e{d}", MemoryType.EPISODE, d) for d in (400, 300, 2, 1)] + [row("f", MemoryType.FACT, 1)]
    acts = {a.memory_id: a for a in plan_forget(rows, s, now)}
    assert set(acts) == {"e400", "e300"} and {a.rule for a in acts.values()} == {"cap"}  # old ones: the cap only


def test_deleting_a_session_erases_its_episodes_from_sql_and_the_index(svc):
    svc.remember("ep-del", "zqkeepme I adopted a cat named Mimi", session_id="a")
    svc.remember("ep-del", "zqgoneword I planted an apple tree", session_id="b")
    gone = [m.id for m in _episodes(svc, "ep-del") if "zqgoneword" in m.content]
    svc.lifecycle.delete_session("ep-del", "b", actor=ADMIN)
    texts = [m.content for m in _episodes(svc, "ep-del")]
    assert any("zqkeepme" in t for t in texts) and not any("zqgoneword" in t for t in texts)
    assert gone and not set(gone) & svc.storage.index.ids()  # the episode's vector went with it
    with svc.storage.db() as db:  # the fact read from it outlives the session (facts do); its episode's log does not
        left = [e for e in db.exec(select(MemoryEvent)).all() if e.memory_id in gone]
    assert [(e.op, e.content) for e in left] == [("PURGE", "")]  # a content-free record of why it went


def test_the_index_reads_an_episode_with_its_speaker_and_day():
    at = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert passage(MemoryType.EPISODE, "I went to a support group.", "Caroline", at) == (
        "Caroline (8 May 2023): I went to a support group."
    )
    assert passage(MemoryType.FACT, "User likes tea.", "user", at) == "User likes tea."
    assert re.search(r"\(\d+ \w+ \d{4}\)", passage(MemoryType.EPISODE, "x", None, at))


ASKED = "Can you suggest a place for brunch in Bandung? I love pastries and good coffee on slow weekend mornings."
REPLY = (
    "Bandung has a lively brunch scene, with many cafes that serve fresh pastries and good coffee all morning. "
    "Here are a few places worth a visit on your next trip, each in a different part of the city. "
    "The first is Miss Bee Providore, a garden cafe known for its eggs benedict, its cakes and its quiet terrace."
)


def test_a_long_reply_is_embedded_by_its_opening_and_every_word_stays_searchable(tmp_path, e5):
    """The embedder reads an assistant reply's opening ``reply_embed_tokens`` only (its cost is most of a long
    history's ingest); the user's words are embedded whole, every word of the reply is full-text searchable, and a
    rebuilt index gives the same vectors as the write path."""
    from memory.storage.indexing import reindex
    from memory.storage.passages import embedded
    from memory.write.entry import Said

    settings = Settings(data_dir=tmp_path / "data", reply_embed_tokens=24)
    svc = MemoryService(settings, embedder=e5)
    user = svc.ensure_user("ep-reply")
    svc.write_from_messages(user, svc.ensure_session(user, "s1"), [Said("user", ASKED), Said("assistant", REPLY)])
    eps = {m.source_type: m for m in _episodes(svc, "ep-reply")}
    mine, reply = eps[SourceType.USER_STATED], eps[SourceType.AGENT]
    assert reply.content == REPLY  # kept as said

    def vectors() -> dict[str, np.ndarray]:
        rows = svc.storage.index.table.to_arrow().to_pylist()
        return {r["id"]: np.asarray(r["vector"], dtype=np.float32) for r in rows}

    def alone(text: str) -> np.ndarray:
        return e5.embed_passages([text])[0]

    def full(m: Memory) -> str:
        return passage(m.type, m.content, m.subject, m.created_at)

    head = embedded(reply.type, reply.content, reply.subject, reply.created_at, reply.source_type, 24)
    assert "Bandung" in head and "Providore" not in head and full(reply).startswith(head)
    written = vectors()
    assert np.abs(written[reply.id] - alone(head)).max() <= 1e-5  # the opening, not the whole reply
    assert np.abs(written[reply.id] - alone(full(reply))).max() > 1e-3
    assert np.abs(written[mine.id] - alone(full(mine))).max() <= 1e-5  # the user's words: all of them
    found = svc.storage.index.search_text("Providore", user.key, None, limit=5)
    assert [hit[0] for hit in found] == [reply.id]  # a word past the opening is still found by full text
    reindex(svc.storage)
    rebuilt = vectors()
    assert all(np.abs(rebuilt[k] - written[k]).max() <= 1e-5 for k in (mine.id, reply.id))
    svc.close()
