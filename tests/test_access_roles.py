"""Roles are enforced in the service: every person action called directly, as each role, with no actor and forged."""

from __future__ import annotations

import pytest
from actors import ADMIN, CURATOR, VIEWER

from memory import audit
from memory.access import require
from memory.errors import Forbidden
from memory.lifecycle import curation
from memory.vocab import Actor, AuditAction, Role


@pytest.fixture
def world(plumbing_svc):
    """One user with two memories and one logged retrieval."""
    user = plumbing_svc.ensure_user("lin")
    a = plumbing_svc.add_memory(user, "Lin lives in Hangzhou", type="fact")
    b = plumbing_svc.add_memory(user, "林不吃辣", type="preference")
    res = plumbing_svc.recall("lin", "where does Lin live?")
    return plumbing_svc, a.id, b.id, res.retrieval_id


def _calls(svc, a: str, b: str, retrieval_id: int):
    """(action, needed role, call(actor)) for every guarded service method."""
    return [
        (
            "edit",
            Role.CURATOR,
            lambda who: curation.edit_memory(svc.storage, a, "Lin lives in Ningbo", reason="r", actor=who),
        ),
        ("flag", Role.CURATOR, lambda who: curation.flag_memory(svc.storage, b, reason="wrong", actor=who)),
        ("label", Role.CURATOR, lambda who: svc.label_hit(retrieval_id, a, True, actor=who)),
        ("profile", Role.CURATOR, lambda who: svc.update_profile("lin", "notes", "calls at 9", actor=who)),
        ("forget", Role.CURATOR, lambda who: svc.lifecycle.forget("lin", actor=who)),
        ("compact", Role.CURATOR, lambda who: svc.lifecycle.compact("lin", actor=who)),
        (
            "supersede",
            Role.CURATOR,
            lambda who: curation.supersede_memory(svc.storage, a, "Lin lives in Suzhou", actor=who),
        ),
        ("delete", Role.CURATOR, lambda who: svc.delete_memory(b, reason="dup", actor=who)),
        ("settings", Role.ADMIN, lambda who: svc.set_live_settings({"top_k": 3}, actor=who)),
        ("export", Role.ADMIN, lambda who: svc.lifecycle.export_user("lin", actor=who)),
        ("purge", Role.ADMIN, lambda who: svc.lifecycle.purge_memory(a, actor=who)),
        ("delete-session", Role.ADMIN, lambda who: svc.lifecycle.delete_session("lin", "nope", actor=who)),
        ("delete-user", Role.ADMIN, lambda who: svc.lifecycle.delete_user("lin", actor=who)),
    ]


def test_require_names_who_wanted_what():
    assert require(CURATOR, Role.VIEWER) is CURATOR
    with pytest.raises(Forbidden, match=r"'test-viewer' is a viewer; to flag a memory the curator role is needed"):
        require(VIEWER, Role.CURATOR, "flag a memory")
    with pytest.raises(Forbidden, match="no actor was given"):
        require(None, Role.VIEWER)
    with pytest.raises(Forbidden, match="no valid role"):
        require(Actor("mallory", "superuser"), Role.VIEWER)  # type: ignore[arg-type]


def test_a_viewer_can_change_nothing_and_each_refusal_is_audited(world):
    svc, a, b, rid = world
    before = [(m.id, m.status, m.content, m.confidence) for m in svc.list_memories(svc.get_user("lin"))]
    for _, _, call in _calls(svc, a, b, rid):
        with pytest.raises(Forbidden, match="test-viewer"):
            call(VIEWER)
        with pytest.raises(Forbidden, match="no actor"):
            call(None)
    after = [(m.id, m.status, m.content, m.confidence) for m in svc.list_memories(svc.get_user("lin"))]
    assert after == before
    assert svc.effective_settings().top_k == svc.settings.top_k
    denied = audit.events(svc.storage, action=AuditAction.DENIED)
    assert len(denied) == 2 * len(_calls(svc, a, b, rid))
    assert {e.actor for e in denied} == {"test-viewer", "(no actor)"}


def test_a_curator_edits_memories_but_not_settings_exports_or_users(world):
    svc, a, b, rid = world
    for _, needed, call in _calls(svc, a, b, rid):
        if needed is Role.ADMIN:
            with pytest.raises(Forbidden, match="the admin role is needed"):
                call(CURATOR)
        else:
            call(CURATOR)
    assert svc.get_memory(a).status == "superseded" and svc.get_memory(b).status == "deleted"
    done = {e.action for e in audit.events(svc.storage, actor="test-curator")} - {"denied"}
    assert done == {"edit", "flag", "label", "profile-edit", "forget", "compact", "supersede", "delete"}


def test_an_admin_may_do_everything(world):
    svc, a, b, rid = world
    for name, _, call in _calls(svc, a, b, rid):
        if name == "delete-session":
            continue  # no such session: NotFound, after the guard let it through
        call(ADMIN)
    assert [r["user_id"] for r in svc.list_users()] == []
    assert {e.action for e in audit.events(svc.storage, actor="test-admin")} >= {
        "settings",
        "export",
        "purge",
        "delete-user",
    }


def test_dry_runs_are_reads(world):
    svc, *_ = world
    assert (
        svc.lifecycle.forget("lin", dry_run=True).actions == []
        and svc.lifecycle.compact("lin", dry_run=True).merges == []
    )
    assert audit.events(svc.storage) == []
