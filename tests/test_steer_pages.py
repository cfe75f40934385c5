"""The back office never changes whose data you see behind your back, states the knobs a turn used, keeps one label per
(query, memory, labeller), and shows flagged memories as flagged (AppTest, real SQLite + LanceDB, hash embedder)."""

from __future__ import annotations

import pytest
from app_helpers import PAGES, no_exception, open_page, seed, unescape
from sqlmodel import select

from memory import views
from memory.lifecycle import curation
from memory.storage.models import HitLabel
from memory.vocab import Actor, Role

ANA = Actor("ana", Role.CURATOR, "ui")
ADMIN = Actor("root", Role.ADMIN, "test")


@pytest.fixture
def seeded(monkeypatch, plumbing_svc):
    return seed(monkeypatch, plumbing_svc)


def _pick(at, svc, user_id: str) -> None:
    at.sidebar.selectbox(key="ml_user_pick").set_value(svc.get_user(user_id).key).run()


def test_the_picked_user_stays_when_the_picker_labels_change(seeded):
    at = open_page("pages/memories.py")
    _pick(at, seeded, "synthetic-user-0001")
    bob = seeded.get_user("synthetic-user-0001")
    label_before = at.sidebar.selectbox(key="ml_user_pick").format_func(bob.key)
    for m in seeded.list_memories(bob, limit=3):  # the live count in the label changes
        curation.delete_memory(seeded.storage, m.id, actor=ANA, reason="test")
    seeded.remember("synthetic-user-0001", "I live in Porto")  # and changes again
    seeded.remember("brand-new-user", "I live in Lisbon")  # a user sorted before nobody, the options change too
    at.run()
    no_exception(at)
    picker = at.sidebar.selectbox(key="ml_user_pick")
    assert picker.value == bob.key and picker.format_func(bob.key) != label_before
    assert "synthetic-user-0001" in unescape(at.title[0].value)  # the page says whose data it shows
    for page in PAGES:  # ... and so does every other page, still for the same user
        at.switch_page(page)
        at.run()
        no_exception(at)
        assert at.sidebar.selectbox(key="ml_user_pick").value == bob.key, page
        assert "synthetic-user-0001" in unescape(at.title[0].value), page


def test_chat_hit_panel_states_the_threshold_k_and_mode_of_that_turn(seeded):
    seeded.set_live_settings({"top_k": 3, "search_mode": "vector"}, actor=ADMIN)
    at = open_page("pages/chat.py")
    at.chat_input(key="chat_input").set_value("I live in Hangzhou").run()
    no_exception(at)
    live = [c.value for c in at.chat_message[-1].caption]
    assert any("k **3**" in c and "mode **vector**" in c and "threshold" in c for c in live), live
    seeded.set_live_settings({"top_k": 7}, actor=ADMIN)  # later changes do not rewrite what an earlier turn used
    at.run()
    stored = [c.value for m in at.chat_message for c in m.caption]
    assert any("k **3**" in c and "mode **vector**" in c for c in stored), stored
    assert not any("k **7**" in c for c in stored)


def test_flagged_memory_shows_as_flagged_in_the_lab(seeded):
    user = seeded.get_user("synthetic-user-0000")
    target = seeded.recall(user.external_id, "User lives in Hangzhou", log=False, threshold=-1.0).hits[0]
    curation.flag_memory(seeded.storage, target.memory_id, actor=ANA, reason="wrong")
    at = open_page("pages/retrieval_lab.py")
    at.text_input(key="lab_query").set_value("User lives in Hangzhou").run()
    no_exception(at)
    frames = [f.value for f in at.dataframe if "why not" in f.value.columns]
    whys = {w for f in frames for w in f["why not"]}
    assert "flagged" in whys


def test_relabelling_the_same_query_updates_the_one_label(seeded):
    user = seeded.get_user("synthetic-user-0000")
    first = seeded.recall(user.external_id, "User lives in Hangzhou", threshold=-1.0)
    again = seeded.recall(user.external_id, "  user lives in   hangzhou ", threshold=-1.0)  # same query, new search
    mid = first.hits[0].memory_id
    before = len(views.labelled_similarities(seeded.storage, user.key))
    views.set_label(seeded.storage, user.key, first.retrieval_id, mid, True, "ana")
    views.set_label(seeded.storage, user.key, again.retrieval_id, mid, False, "ana")  # re-label: updates, never adds
    views.set_label(seeded.storage, user.key, again.retrieval_id, mid, False, "ana")
    with seeded.storage.db() as db:
        rows = db.exec(select(HitLabel).where(HitLabel.memory_id == mid, HitLabel.labeled_by == "ana")).all()
    assert len(rows) == 1 and rows[0].relevant is False and rows[0].retrieval_id == again.retrieval_id
    assert len(views.labelled_similarities(seeded.storage, user.key)) == before + 1
    assert views.labels_for_query(seeded.storage, user.key, "USER LIVES IN HANGZHOU", "ana") == {mid: False}
    views.set_label(seeded.storage, user.key, again.retrieval_id, mid, None, "ana")  # clearing removes it
    assert views.labels_for_query(seeded.storage, user.key, "User lives in Hangzhou", "ana") == {}
