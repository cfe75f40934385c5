"""Episodes the cap archives are folded into one summary per session, in the speakers' own words: old conversation
stays findable by recall, the summary's provenance names every folded message, and erasing the conversation erases
the summary with it. Real SQLite + LanceDB + e5 (recall must find the summary by meaning)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from actors import ADMIN

from memory.config import Settings
from memory.lifecycle.fold import FOLDED, summary_text
from memory.service import MemoryService
from memory.storage.models import Memory, Message
from memory.vocab import MemoryStatus, MemoryType

NOW = datetime(2026, 6, 1, 12, tzinfo=UTC)
OLD = [  # (session, role, words, days before NOW)
    ("march", "user", "My sister Lena finally got her pilot's licence after three years of lessons.", 80),
    ("march", "assistant", "That is wonderful news, congratulations to Lena!", 80),
    ("april", "user", "我女儿这学期开始学大提琴了，每天都练一个小时。", 50),
    ("april", "assistant", "太好了，坚持练习一定会进步。", 50),
]
NEW = ("may", "user", "We repainted the kitchen a pale yellow last weekend.", 2)


@pytest.fixture
def capped(tmp_path, e5) -> MemoryService:
    svc = MemoryService(Settings(data_dir=tmp_path, max_active_episodes=1), embedder=e5)
    user = svc.ensure_user("fold")
    for sid, role, words, days in [*OLD, NEW]:
        session = svc.ensure_session(user, sid)
        msg = svc.add_message(session, role, words, created_at=NOW - timedelta(days=days))
        svc.write_from_messages(user, session, [msg])
    yield svc
    svc.close()


def _summaries(svc: MemoryService) -> list[Memory]:
    return svc.list_memories(svc.get_user("fold"), types=[MemoryType.SUMMARY])


def test_the_cap_folds_each_sessions_archived_episodes_into_a_summary_in_their_own_words(capped):
    report = capped.lifecycle.forget("fold", now=NOW, actor=ADMIN).to_dict()
    folded = {f["session_id"]: f for f in report["folded"]}
    with capped.storage.db() as db:
        said = {m.id: m for m in db.exec(Message.__table__.select()).all()}  # type: ignore[attr-defined]
        sessions = {m.session_id for m in said.values() if m.content in {w for _, _, w, _ in OLD}}
    assert set(folded) == sessions and all(f["episodes"] == 2 for f in folded.values())
    summaries = {m.id: m for m in _summaries(capped)}
    assert set(summaries) == {f["summary_id"] for f in folded.values()}
    en = next(m for m in summaries.values() if "Lena" in m.content)
    zh = next(m for m in summaries.values() if "大提琴" in m.content)
    assert en.content.startswith("Said on 2026-03-13: User: My sister Lena") and "Assistant: That is" in en.content
    assert zh.content.startswith("2026-04-12 说过：用户：我女儿") and "助手：" in zh.content
    for m in (en, zh):  # provenance: the folded messages, when the first was said, the episodes it came from
        assert m.status == MemoryStatus.ACTIVE and len(m.source_message_ids) == 2 and len(m.meta["folded_from"]) == 2
        assert m.event_time.date() == min(said[i].created_at for i in m.source_message_ids).date()
        assert m.id in capped.storage.index.ids()  # embedded and indexed: recall can find it
    # every folded episode is archived, its reason says where its words went; the newest episode stays active
    episodes = capped.list_memories(
        capped.get_user("fold"), types=[MemoryType.EPISODE], statuses=[MemoryStatus.ACTIVE, MemoryStatus.ARCHIVED]
    )
    archived = [e for e in episodes if e.status == MemoryStatus.ARCHIVED]
    assert {e.id for e in archived} == {i for m in summaries.values() for i in m.meta["folded_from"]}
    assert [e.content for e in episodes if e.status == MemoryStatus.ACTIVE] == [NEW[2]]
    why = {a["memory_id"]: a["reason"] for a in report["actions"]}
    assert all(FOLDED in why[e.id] for e in archived)
    overview = capped.lifecycle.lifecycle_overview("fold", now=NOW)
    assert {f["memory_id"] for f in overview["folded"]} == set(summaries) and overview["active_episodes"] == 1


def test_recall_finds_an_archived_episodes_words_through_its_summary(capped):
    capped.lifecycle.forget("fold", now=NOW, actor=ADMIN)
    for query, word in (("What did Lena get?", "pilot"), ("我女儿在学什么乐器？", "大提琴")):
        hits = [h for h in capped.recall("fold", query).hits if h.selected]
        assert any(h.type == MemoryType.SUMMARY and word in h.content for h in hits), query


def test_a_summary_quotes_only_what_was_said():
    day = datetime(2026, 1, 5, tzinfo=UTC)
    long_words = "I moved to Lisbon in March and " + "the tram rattles past my window every single morning " * 20
    episodes = [
        Memory(user_key="u", content=long_words, type="episode", subject="User", created_at=day),
        Memory(user_key="u", content="Lisbon sounds lovely.", type="episode", subject="Assistant", created_at=day),
    ]
    text = summary_text(episodes)
    head, body = text.split(": ", 1)
    assert head == "Said on 2026-01-05"
    lines = body.split(" / ")
    assert [ln.split(": ", 1)[0] for ln in lines] == ["User", "Assistant"]
    for ln, said in zip(lines, episodes, strict=True):
        words = ln.split(": ", 1)[1]
        assert said.content.startswith(words.removesuffix("…"))  # a prefix of the words as said, never a paraphrase
    assert lines[0].endswith("…") and lines[1] == "Assistant: Lisbon sounds lovely."


def test_deleting_the_session_or_purging_a_fact_from_it_erases_its_summary(capped):
    capped.lifecycle.forget("fold", now=NOW, actor=ADMIN)
    summaries = {m.content[:40]: m.id for m in _summaries(capped)}
    capped.lifecycle.delete_session("fold", "march", actor=ADMIN)
    left = [m.content for m in _summaries(capped)]
    assert not any("Lena" in t for t in left) and any("大提琴" in t for t in left)
    gone = [i for k, i in summaries.items() if "Lena" in k]
    assert gone and not set(gone) & capped.storage.index.ids()
    # purging a fact read from a folded message takes the message's words with it: the summary too
    facts = [m for m in capped.list_memories(capped.get_user("fold")) if m.type != MemoryType.SUMMARY]
    cello = next(m for m in facts if "大提琴" in m.content)  # read from the folded message
    capped.lifecycle.purge_memory(cello.id, actor=ADMIN)
    assert not any("大提琴" in m.content for m in _summaries(capped))


def test_export_and_import_carry_a_summary_with_its_episodes_remapped(capped):
    capped.lifecycle.forget("fold", now=NOW, actor=ADMIN)
    data = capped.lifecycle.export_user("fold", actor=ADMIN)
    capped.lifecycle.delete_user("fold", actor=ADMIN)
    capped.lifecycle.import_user(data, actor=ADMIN)
    copy = capped.get_user("fold")
    kept = capped.list_memories(
        copy, types=[MemoryType.SUMMARY, MemoryType.EPISODE], statuses=[MemoryStatus.ACTIVE, MemoryStatus.ARCHIVED]
    )
    summaries = [m for m in kept if m.type == MemoryType.SUMMARY]
    episodes = {m.id for m in kept if m.type == MemoryType.EPISODE and m.status == MemoryStatus.ARCHIVED}
    assert len(summaries) == 2 and {i for m in summaries for i in m.meta["folded_from"]} == episodes
    assert all(m.id in capped.storage.index.ids() for m in summaries)  # recallable in the copy too
    # a fact names the episode it was read from by the new id too (it kept the file's id, naming nothing, before)
    facts = [m for m in capped.list_memories(copy) if m.meta.get("episode_id")]
    all_episodes = {m.id for m in kept if m.type == MemoryType.EPISODE}
    assert facts and all(m.meta["episode_id"] in all_episodes for m in facts)
