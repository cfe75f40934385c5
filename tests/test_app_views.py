"""The back office's queries and corrections (memory.views, memory.lifecycle.curation): bounded reads, logged edits."""

from __future__ import annotations

import pytest
from sqlmodel import select

from bench.synthetic import Plan, populate
from memory import views
from memory.errors import Conflict
from memory.lifecycle import curation
from memory.storage.models import MemoryEvent
from memory.vocab import Actor, Role

PERSON = Actor("tester", Role.CURATOR, "test")


@pytest.fixture
def store(plumbing_svc):
    populate(plumbing_svc, Plan(users=1, memories_per_user=60))
    return plumbing_svc


def _key(svc) -> str:
    return svc.get_user("synthetic-user-0000").key


def test_write_log_pages_cover_every_event_once(store):
    key = _key(store)
    first, total = views.write_log(store.storage, key, limit=25)
    second, _ = views.write_log(store.storage, key, limit=25, offset=25)
    last, _ = views.write_log(store.storage, key, limit=25, offset=50)
    ids = [r["event_id"] for r in first + second + last]
    assert total == 60 and len(ids) == len(set(ids)) == 60
    assert ids == sorted(ids, reverse=True)


def test_write_log_filters_by_status_now(store):
    rows, total = views.write_log(store.storage, _key(store), views.WriteFilter(statuses=["superseded"]), limit=100)
    assert total == len(rows) > 0 and {r["status"] for r in rows} == {"superseded"}


def test_edit_rewrites_in_place_and_logs_the_old_text(store):
    mem = store.list_memories(store.get_user("synthetic-user-0000"), limit=1)[0]
    edited = curation.edit_memory(
        store.storage, mem.id, "User lives in 成都 now, email a@b.com", actor=PERSON, reason="phone call"
    )
    assert edited.id == mem.id and edited.version == mem.version + 1
    assert "a@b.com" not in edited.content and "成都" in edited.content  # masked before storing
    with store.storage.db() as db:
        event = db.exec(select(MemoryEvent).where(MemoryEvent.memory_id == mem.id, MemoryEvent.op == "EDIT")).one()
    assert event.detail["old_content"] == mem.content and event.reason == "phone call"
    hits = store.recall("synthetic-user-0000", "User lives in 成都 now", log=False, threshold=-1.0).hits
    assert hits[0].memory_id == mem.id  # re-embedded under the new text


def test_supersede_keeps_the_old_row_and_points_to_the_new(store):
    mem = store.list_memories(store.get_user("synthetic-user-0000"), limit=1)[0]
    new = curation.supersede_memory(store.storage, mem.id, "User moved to Lisbon", actor=PERSON)
    old = store.get_memory(mem.id)
    assert old.status == "superseded" and old.superseded_by == new.id and new.status == "active"
    with pytest.raises(Conflict):
        curation.edit_memory(store.storage, mem.id, "too late", actor=PERSON)


def test_a_label_can_be_set_changed_and_cleared(store):
    key = _key(store)
    retrieval = views.recent_retrievals(store.storage, key, limit=1)[0]
    hit = views.retrieval_hits(store.storage, retrieval["id"])[0]
    views.set_label(store.storage, key, retrieval["id"], hit["memory_id"], True)
    views.set_label(store.storage, key, retrieval["id"], hit["memory_id"], False)
    assert views.labelled_similarities(store.storage, key) == [(hit["similarity"], False)]
    views.set_label(store.storage, key, retrieval["id"], hit["memory_id"], None)
    assert views.labelled_similarities(store.storage, key) == []


def test_a_facts_source_words_are_its_own_users_messages_only(plumbing_svc):
    """The card's "Words it came from" (views.source_words): the sentence read and each source message whole — and a
    source id naming another user's message (a door caller can set source ids) shows nothing of that message."""
    from memory.storage import records
    from memory.vocab import SEMANTIC_TYPES

    svc = plumbing_svc
    svc.remember("ann", "I live in Lisbon. **Not markup** here.", session_id="a")
    svc.remember("bob", "My secret plan is to move to Oslo.", session_id="b")
    fact = svc.list_memories(svc.get_user("ann"), types=SEMANTIC_TYPES)[0]
    words = views.source_words(svc.storage, fact.id)
    assert words["evidence"] == "I live in Lisbon"
    assert [m["content"] for m in words["messages"]] == ["I live in Lisbon. **Not markup** here."]
    bobs = views.write_log(svc.storage, svc.get_user("bob").key)[0][-1]["message_id"]
    planted = records.add_memory(svc.storage, svc.get_user("ann"), "User plans a move.", source_message_ids=[bobs])
    assert views.source_words(svc.storage, planted.id) is None  # no evidence, and bob's message is not ann's
    ann = svc.get_user("ann").key
    assert views.message_with_context(svc.storage, bobs, user_key=ann) is None  # the Source message tab alike
    episode = next(m for m in svc.list_memories(svc.get_user("ann")) if m.type == "episode")
    assert views.source_words(svc.storage, episode.id) is None  # an episode is the words
