"""AppTest smoke test of the lifecycle page on a seeded data folder (hash embedder, real SQLite + LanceDB)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from actors import ADMIN
from streamlit.testing.v1 import AppTest

from memory.config import Settings
from memory.service import MemoryDraft, MemoryService
from memory.storage.embed import HashEmbedder
from memory.storage.models import utcnow

PAGE = Path(__file__).resolve().parents[1] / "pages" / "lifecycle.py"


@pytest.fixture
def seeded(plumbing_svc, monkeypatch):
    svc = plumbing_svc
    user = svc.ensure_user("lin")
    svc.add_memories(
        user,
        [
            MemoryDraft("trip to Paris last month", type="event", event_time=utcnow() - timedelta(days=45)),
            MemoryDraft("concert next week", type="event", event_time=utcnow() + timedelta(days=7)),
            MemoryDraft("likes tea", predicate="likes", object="tea"),
        ],
    )
    svc.close()
    monkeypatch.setenv("MEMLENS_EMBEDDER", "hash")
    return svc


def test_lifecycle_page_shows_plan_expiry_and_deletes_with_confirmation(seeded, monkeypatch):
    monkeypatch.syspath_prepend(str(PAGE.parents[1]))
    at = AppTest.from_file(str(PAGE), default_timeout=60)
    at.session_state["ml_user"] = seeded.get_user("lin").key
    at.session_state["ml_actor"] = ADMIN  # opened without the frame: say who is signed in
    at.run()
    assert not at.exception
    assert "Lifecycle" in at.title[0].value
    frames = [f.value for f in at.dataframe]
    plan = next(f for f in frames if "rule" in f.columns)
    assert list(plan["rule"]) == ["expired"] and "Paris" in plan["content"].iloc[0]
    expiring = next(f for f in frames if "expires_at" in f.columns)
    assert set(expiring["content"]) == {"trip to Paris last month", "concert next week"}
    interests = next(f for f in frames if "last_seen" in f.columns)
    assert interests["value"].iloc[0] == "tea"

    at.text_input(key="lc_confirm").input("someone else")
    at.button[-1].click().run()  # the form's submit button
    assert at.error and "does not match" in at.error[0].value
    at.text_input(key="lc_confirm").input("lin")
    at.button[-1].click().run()
    assert not at.exception
    assert any("Deleted" in s.value for s in at.success)
    assert seeded.list_users() == []


def test_lifecycle_page_is_registered_in_the_app_frame(seeded):
    from app_helpers import no_exception, open_page

    at = open_page("pages/lifecycle.py")
    no_exception(at)
    assert at.title[0].value.startswith("Lifecycle · ")
    assert at.button(key="lc_forget") and at.get("download_button")


def test_the_episodes_tab_shows_the_cap_and_the_summaries_folded_from_archived_episodes(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMLENS_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("MEMLENS_EMBEDDER", "hash")
    monkeypatch.setenv("MEMLENS_MAX_ACTIVE_EPISODES", "1")
    svc = MemoryService(Settings(data_dir=tmp_path, max_active_episodes=1), embedder=HashEmbedder())
    user = svc.ensure_user("fold-page")
    old = datetime(2026, 2, 1, tzinfo=UTC)
    for sid, words, at in (("feb", "My sister Lena got her pilot's licence.", old), ("now", "Hello again.", None)):
        session = svc.ensure_session(user, sid)
        svc.write_from_messages(user, session, [svc.add_message(session, "user", words, created_at=at or utcnow())])
    svc.lifecycle.forget("fold-page", actor=ADMIN)
    svc.close()
    monkeypatch.syspath_prepend(str(PAGE.parents[1]))
    at = AppTest.from_file(str(PAGE), default_timeout=60)
    at.session_state["ml_user"] = user.key
    at.session_state["ml_actor"] = ADMIN
    at.run()
    assert not at.exception
    assert any("1 active episodes · cap 1" in c.value for c in at.caption)
    folded = next(f.value for f in at.dataframe if "folded_at" in f.value.columns)
    assert list(folded["content"]) == ["Said on 2026-02-01: User: My sister Lena got her pilot's licence."]
    assert list(folded["episodes"]) == [1]
