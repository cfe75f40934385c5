"""Imports are validated like live input: the file's user is the only user, every user key is replaced, hashes are
recomputed, ids validated, text masked again, and a bad file gets a clear error naming the first bad row."""

from __future__ import annotations

import copy

import pytest
from actors import ADMIN
from sqlmodel import select

from memory.errors import InvalidInput
from memory.storage.models import Memory, ProfileField, User, id_hash


def _export(svc, user_id="alice"):
    user = svc.ensure_user(user_id)
    svc.add_memory(user, "User likes green tea")
    data = svc.export_user(user_id, actor=ADMIN)
    svc.delete_user(user_id, actor=ADMIN)
    return data


def test_rows_claiming_another_user_land_in_the_files_user(plumbing_svc):
    svc = plumbing_svc
    victim = svc.ensure_user("victim")
    svc.add_memory(victim, "Victim likes coffee")
    data = _export(svc)
    forged = copy.deepcopy(data["tables"]["memory"][0])
    forged.update(id="f" * 32, user_key=victim.key, content="Victim's card is 4242 4242 4242 4242")
    data["tables"]["memory"].append(forged)
    svc.import_user(data, actor=ADMIN)
    with svc.storage.db() as db:
        victim_rows = db.exec(select(Memory).where(Memory.user_key == victim.key)).all()
        imported = db.get(Memory, "f" * 32)
    assert [m.content for m in victim_rows] == ["Victim likes coffee"]
    assert imported.user_key == data["user"]["key"] and "4242 4242" not in imported.content
    assert "[bank-card ***4242]" in imported.content
    assert not any("4242 4242" in h.content for h in svc.recall("alice", "card", log=False).hits)


def test_hashes_are_recomputed_so_no_user_is_squatted(plumbing_svc):
    svc = plumbing_svc
    data = _export(svc)
    data["user"]["external_hash"] = id_hash("future-user")
    svc.import_user(data, actor=ADMIN)
    with svc.storage.db() as db:
        alice = db.exec(select(User).where(User.external_id == "alice")).one()
    assert alice.external_hash == id_hash("alice")
    svc.remember("future-user", "I live in Porto.")  # the squatted id works
    svc.delete_user("alice", actor=ADMIN)  # and the imported user can be deleted


@pytest.mark.parametrize("bad", ["../../../etc/passwd", "a b", "x" * 200, "abc\n"])
def test_a_bad_id_is_refused_naming_the_row(plumbing_svc, bad):
    svc = plumbing_svc
    data = _export(svc)
    data["tables"]["memory"][0]["id"] = bad
    with pytest.raises(InvalidInput, match=r"memory row 1.*id"):
        svc.import_user(data, actor=ADMIN)
    assert svc.storage.index.count() == 0


def test_profile_values_and_texts_are_masked_again(plumbing_svc):
    svc = plumbing_svc
    data = _export(svc)
    data["tables"].setdefault("profilefield", []).append(
        {"user_key": "someone-else", "field": "city", "value": "call 139 0144 0461", "confidence": 1.0}
    )
    svc.import_user(data, actor=ADMIN)
    with svc.storage.db() as db:
        row = db.exec(select(ProfileField)).one()
    assert row.value == "call [phone ***0461]"


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.pop("user"), "no 'user'"),
        (lambda d: d["user"].pop("external_id"), "user.*external_id"),
        (lambda d: d["tables"].__setitem__("memory", [42]), "memory row 1"),
        (lambda d: d["tables"]["memory"][0].__setitem__("agent_id", "x\n"), "memory row 1.*agent"),
    ],
)
def test_malformed_files_get_clear_errors(plumbing_svc, mutate, message):
    data = _export(plumbing_svc)
    mutate(data)
    with pytest.raises(InvalidInput, match=message):
        plumbing_svc.import_user(data, actor=ADMIN)


@pytest.mark.parametrize("bad", ["agent\n", "agent\r\n"])
def test_ids_with_a_trailing_newline_are_refused(plumbing_svc, bad):
    """``$`` matches before a final newline; the patterns anchor with ``\\Z``."""
    from memory.storage.vectors import sql_literal

    with pytest.raises(InvalidInput):
        plumbing_svc.remember("u", "I like tea", agent_id=bad)
    with pytest.raises(ValueError):
        sql_literal("abc\n")
