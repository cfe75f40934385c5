"""Every heavy or writing action checks the role in the service, and every refusal is audited (issue #45, item 5).

Before: ``shadow_replay`` (which embeds up to 2,000 messages twice), the A/B ``replay``, the labelled suite and the
relevance refit ran for anyone, with no audit row; a refused account change raised ``Forbidden`` but wrote no
``denied`` row; API keys were made and revoked with no role and no audit row at all.

Each case calls the service as the page, the CLI or a door does: a role too low is refused, a ``denied`` row names
who tried and the role they have, and nothing was done; the right role does it and leaves its own audit row.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from actors import ADMIN, CURATOR, VIEWER

from memory import audit
from memory.errors import Forbidden
from memory.storage.models import ApiKey
from memory.storage.people import Account
from memory.vocab import Actor, AuditAction, Role


@pytest.fixture
def svc(plumbing_svc):
    for text in ("I live in Porto", "I love green tea", "我不吃辣"):
        plumbing_svc.remember("rh-user", text)
    for q in ("where do I live?", "what do I drink?"):
        plumbing_svc.recall("rh-user", q)
    plumbing_svc.flush_retrieval_log()
    plumbing_svc.people.add_account("rh-admin", "admin", "long-enough-pw", actor=ADMIN)
    return plumbing_svc


def _shadows() -> set[Path]:
    return set(Path(tempfile.gettempdir()).glob("memlens-shadow-*"))


def _key_names(svc) -> set[str]:
    with svc.storage.db() as db:
        return {k.name for k in db.query(ApiKey).all() if k.revoked_at is None}


def _accounts(svc) -> set[str]:
    with svc.storage.db() as db:
        return {a.name for a in db.query(Account).all()}


#: name → (the call, the role it needs, the audit action of a done call, what must be unchanged when refused)
CASES = {
    "shadow replay": (
        lambda svc, who: svc.desk.shadow_replay("rh-user", extractor="rules", sample=50, actor=who),
        Role.CURATOR,
        AuditAction.SHADOW_REPLAY,
        lambda svc: _shadows(),
    ),
    "A/B replay": (
        lambda svc, who: svc.desk.replay({"k": 1}, user_id="rh-user", actor=who),
        Role.CURATOR,
        AuditAction.REPLAY,
        None,
    ),
    "labelled suite": (
        lambda svc, who: svc.desk.eval_labels("rh-user", record=True, actor=who),
        Role.CURATOR,
        AuditAction.EVAL_LABELS,
        None,
    ),
    "relevance refit": (
        lambda svc, who: svc.refit_relevance(svc.get_user("rh-user").key, actor=who),
        Role.CURATOR,
        AuditAction.REFIT,
        None,
    ),
    "add an account": (
        lambda svc, who: svc.people.add_account("rh-new", "viewer", "long-enough-pw", actor=who),
        Role.ADMIN,
        AuditAction.ACCOUNT_ADD,
        _accounts,
    ),
    "change a password": (
        lambda svc, who: svc.people.set_password("rh-admin", "another-long-pw", actor=who),
        Role.ADMIN,
        AuditAction.ACCOUNT_PASSWORD,
        None,
    ),
    "remove an account": (
        lambda svc, who: svc.people.remove_account("rh-admin", actor=who),
        Role.ADMIN,
        AuditAction.ACCOUNT_REMOVE,
        _accounts,
    ),
    "create an API key": (
        lambda svc, who: svc.people.create_key("rh-key", ["rh-user"], actor=who),
        Role.ADMIN,
        AuditAction.API_KEY_CREATE,
        _key_names,
    ),
}
LOWER = {Role.CURATOR: VIEWER, Role.ADMIN: CURATOR}
ENOUGH = {Role.CURATOR: CURATOR, Role.ADMIN: Actor("rh-boss", Role.ADMIN, via="test")}  # not the fixture's


@pytest.mark.parametrize("name", list(CASES))
def test_a_role_too_low_is_refused_audited_and_nothing_is_done(svc, name):
    call, needs, done_action, state = CASES[name]
    who = LOWER[needs]
    before = state(svc) if state else None
    with pytest.raises(Forbidden, match=f"is a {who.role}"):
        call(svc, who)
    denied = audit.events(svc.storage, action=AuditAction.DENIED)
    assert [(e.actor, e.role, (e.detail or {}).get("needs")) for e in denied] == [(who.name, str(who.role), needs)]
    assert audit.events(svc.storage, action=done_action, actor=who.name) == []
    if state:
        assert state(svc) == before


@pytest.mark.parametrize("name", list(CASES))
def test_the_role_it_needs_does_it_and_is_audited(svc, name):
    call, needs, done_action, _ = CASES[name]
    who = ENOUGH[needs]
    call(svc, who)
    assert [e.actor for e in audit.events(svc.storage, action=done_action, actor=who.name)] == [who.name]
    assert audit.events(svc.storage, action=AuditAction.DENIED) == []


def test_revoking_a_key_is_an_admins_and_audited(svc):
    svc.people.create_key("rh-key", actor=ADMIN)
    with pytest.raises(Forbidden):
        svc.people.revoke_key("rh-key", actor=CURATOR)
    assert "rh-key" in _key_names(svc)
    assert [e.actor for e in audit.events(svc.storage, action=AuditAction.DENIED)] == [CURATOR.name]
    svc.people.revoke_key("rh-key", actor=ADMIN)
    assert "rh-key" not in _key_names(svc)
    assert [e.target_ids for e in audit.events(svc.storage, action=AuditAction.API_KEY_REVOKE)] == [["rh-key"]]


def test_no_actor_and_a_forged_role_are_refused_and_audited(svc):
    """A call with no actor, or with a role that does not exist, is refused like a low role, and audited."""
    with pytest.raises(Forbidden, match="no actor"):
        svc.desk.shadow_replay("rh-user", extractor="rules", actor=None)  # type: ignore[arg-type]
    with pytest.raises(Forbidden, match="no valid role"):
        svc.desk.replay({"k": 1}, actor=Actor("mallory", "superuser", via="ui"))  # type: ignore[arg-type]
    assert len(audit.events(svc.storage, action=AuditAction.DENIED)) == 2


def test_a_demoted_account_is_refused_at_its_next_heavy_call(svc):
    """A signed-in account's role is read at each call: demoted to viewer, its next shadow replay is refused and the
    refusal names the role it has now."""
    svc.people.add_account("rh-cu", "curator", "long-enough-pw", actor=ADMIN)
    cu = svc.people.sign_in("rh-cu", "long-enough-pw")
    with svc.storage.db() as db:
        row = db.get(Account, "rh-cu")
        row.role = "viewer"
        db.add(row)
        db.commit()
    with pytest.raises(Forbidden, match="is a viewer"):
        svc.desk.shadow_replay("rh-user", extractor="rules", actor=cu)
    assert [(e.actor, e.role) for e in audit.events(svc.storage, action=AuditAction.DENIED)] == [("rh-cu", "viewer")]
