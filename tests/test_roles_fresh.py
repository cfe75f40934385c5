"""Roles are read fresh on every action (issue #28, item 5): the service re-reads a signed-in person's account on
each guarded call. Before: a curator demoted to viewer (or removed) still deleted with the role remembered at
sign-in, audited with that old role."""

from __future__ import annotations

import pytest
from actors import ADMIN
from sqlmodel import select

from memory import accounts
from memory.errors import Forbidden
from memory.service import MemoryService
from memory.storage.people import Account, AuditEvent
from memory.vocab import MemoryStatus, Role

PASSWORD = "long-enough-pw"


def _set_role(svc: MemoryService, name: str, role: Role) -> None:
    with svc.storage.db() as db:
        row = db.get(Account, name)
        row.role = str(role)
        db.add(row)
        db.commit()


def _last_audit(svc: MemoryService) -> AuditEvent:
    with svc.storage.db() as db:
        return db.exec(select(AuditEvent).order_by(AuditEvent.id.desc())).first()


def _memory(svc: MemoryService) -> str:
    svc.remember("rf-user", "I live in Porto.")
    return svc.list_memories(svc.get_user("rf-user"))[0].id


def test_a_demoted_curator_is_refused_at_once_and_audited_with_the_role_now(plumbing_svc: MemoryService):
    svc = plumbing_svc
    accounts.add(svc.storage, "cu", Role.CURATOR, PASSWORD, actor=ADMIN)
    cu = svc.people.sign_in("cu", PASSWORD)  # the page keeps this actor between clicks
    memory_id = _memory(svc)
    _set_role(svc, "cu", Role.VIEWER)
    with pytest.raises(Forbidden, match="is a viewer"):
        svc.delete_memory(memory_id, actor=cu)
    denied = _last_audit(svc)
    assert (denied.actor, denied.role, denied.action) == ("cu", "viewer", "denied")
    assert svc.get_memory(memory_id).status == MemoryStatus.ACTIVE


def test_a_promoted_person_acts_and_is_audited_with_the_new_role(plumbing_svc: MemoryService):
    svc = plumbing_svc
    accounts.add(svc.storage, "vi", Role.VIEWER, PASSWORD, actor=ADMIN)
    vi = svc.people.sign_in("vi", PASSWORD)
    memory_id = _memory(svc)
    _set_role(svc, "vi", Role.CURATOR)
    svc.flag_memory(memory_id, actor=vi)
    done = _last_audit(svc)
    assert (done.actor, done.role, done.action) == ("vi", "curator", "flag")


def test_a_removed_account_can_do_nothing(plumbing_svc: MemoryService):
    svc = plumbing_svc
    accounts.add(svc.storage, "gone", Role.ADMIN, PASSWORD, actor=ADMIN)
    gone = svc.people.sign_in("gone", PASSWORD)
    memory_id = _memory(svc)
    accounts.remove(svc.storage, "gone", actor=ADMIN)
    for act in (
        lambda: svc.delete_memory(memory_id, actor=gone),
        lambda: svc.lifecycle.export_user("rf-user", actor=gone),
        lambda: accounts.add(svc.storage, "again", Role.ADMIN, PASSWORD, actor=gone),
    ):
        with pytest.raises(Forbidden, match="no longer exists"):
            act()
    assert svc.get_memory(memory_id).status == MemoryStatus.ACTIVE
