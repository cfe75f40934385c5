"""Accounts, sign-in and its throttle, the audit trail and its erasure, the sign-in gate rules and OIDC role mapping."""

from __future__ import annotations

import getpass
import json

import pytest
from actors import ADMIN, CURATOR
from typer.testing import CliRunner

from memory import accounts, audit
from memory.access import decide_gate, is_loopback, oidc_role
from memory.cli import app
from memory.config import Settings
from memory.errors import Conflict, Forbidden, InvalidInput, SignInFailed
from memory.lifecycle import curation
from memory.service import MemoryService
from memory.storage.people import Account
from memory.vocab import AuditAction, Role


def test_accounts_hash_passwords_and_only_admins_manage_them(plumbing_svc):
    accounts.add(plumbing_svc.storage, "王芳", "curator", "correct horse", actor=ADMIN)
    with plumbing_svc.storage.db() as db:
        stored = db.get(Account, "王芳").password_hash
    assert stored.startswith("$argon2id$") and "correct horse" not in stored
    with pytest.raises(Conflict, match="already exists"):
        accounts.add(plumbing_svc.storage, "王芳", "viewer", "another one", actor=ADMIN)
    with pytest.raises(InvalidInput, match="8-1024"):
        accounts.add(plumbing_svc.storage, "bo", "viewer", "short", actor=ADMIN)
    with pytest.raises(InvalidInput, match="must not be empty"):
        accounts.add(plumbing_svc.storage, "   ", "viewer", "long enough", actor=ADMIN)
    with pytest.raises(InvalidInput, match="role must be one of"):
        accounts.add(plumbing_svc.storage, "bo", "root", "long enough", actor=ADMIN)
    with pytest.raises(Forbidden):
        accounts.add(plumbing_svc.storage, "eve", "admin", "long enough", actor=CURATOR)
    accounts.set_password(plumbing_svc.storage, "王芳", "battery staple", actor=ADMIN)
    assert accounts.sign_in(plumbing_svc.storage, "王芳", "battery staple").role is Role.CURATOR
    accounts.remove(plumbing_svc.storage, "王芳", actor=ADMIN)
    assert accounts.list_accounts(plumbing_svc.storage) == []
    kinds = [e.action for e in audit.events(plumbing_svc.storage, actor="test-admin")]
    assert kinds == ["account-remove", "account-password", "account-add"]


def test_sign_in_fails_with_one_message_and_is_throttled_across_processes(plumbing_svc, settings, hash_embedder):
    accounts.add(plumbing_svc.storage, "ana", "viewer", "right password", actor=ADMIN)
    messages = set()
    for name, password in [("ana", "wrong password"), ("nobody", "right password"), ("ana", "")]:
        with pytest.raises(SignInFailed) as exc:
            accounts.sign_in(plumbing_svc.storage, name, password)
        messages.add(str(exc.value))
    assert messages == {accounts.GENERIC_FAILURE}
    for _ in range(3):  # with the two above: five failures for "ana" within the minute
        with pytest.raises(SignInFailed, match="wrong username or password"):
            accounts.sign_in(plumbing_svc.storage, "ana", "still wrong")
    other = MemoryService(settings, embedder=hash_embedder)  # another process: the count lives in the database
    try:
        with pytest.raises(SignInFailed, match="Too many failed sign-ins"):
            accounts.sign_in(other.storage, "ana", "right password")  # even the right password waits out the minute
    finally:
        other.close()
    failures = audit.events(plumbing_svc.storage, action=AuditAction.SIGN_IN_FAILED)
    assert len(failures) == 7 and not any("right password" in json.dumps(audit.to_dict(e)) for e in failures)
    assert (
        accounts.sign_in(plumbing_svc.storage, "ana", "right password", per_minute=10).name == "ana"
    )  # per name and limit


def test_a_successful_sign_in_is_audited_with_the_role(plumbing_svc):
    accounts.add(plumbing_svc.storage, "cu", "curator", "right password", actor=ADMIN)
    actor = accounts.sign_in(plumbing_svc.storage, "cu", "right password")
    assert (actor.name, actor.role, actor.via) == ("cu", Role.CURATOR, "ui")
    [row] = audit.events(plumbing_svc.storage, action=AuditAction.SIGN_IN)
    assert (row.actor, row.role) == ("cu", "curator")


def test_erasing_a_user_keeps_the_audit_rows_but_not_their_id_or_text(plumbing_svc):
    svc = plumbing_svc
    mem = svc.add_memory(svc.ensure_user("张伟 <zw@example.com>"), "张伟住在成都", type="fact")
    curation.flag_memory(svc.storage, mem.id, reason="张伟 says he moved", actor=CURATOR)
    [flag] = audit.events(svc.storage, user_id="张伟 <zw@example.com>")
    assert (flag.actor, flag.role, flag.action, flag.target_ids) == ("test-curator", "curator", "flag", [mem.id])
    assert flag.user_id == "张伟 <zw@example.com>" and flag.reason == "张伟 says he moved"
    svc.lifecycle.delete_user("张伟 <zw@example.com>", actor=ADMIN)
    rows = audit.events(svc.storage, user_id="张伟 <zw@example.com>")  # still found through the hash of the id
    assert [r.action for r in rows] == ["delete-user", "flag"]
    dump = json.dumps([audit.to_dict(r) for r in audit.events(svc.storage)], ensure_ascii=False)
    assert "张伟" not in dump and "成都" not in dump
    assert mem.id not in dump  # the erased rows' ids go too: an id is as distinctive in a table file as a name


def test_the_gate_rules():
    assert decide_gate(None, 0, "localhost").mode == "open"
    assert decide_gate(None, 0, "127.0.0.1").mode == "open"
    assert decide_gate(None, 2, "localhost").mode == "local"
    assert decide_gate("oidc", 0, "0.0.0.0").mode == "oidc"
    refused = decide_gate("none", 0, "0.0.0.0")
    assert refused.mode == "refuse" and "memlens account add" in refused.reason
    assert decide_gate(None, 0, None).mode == "refuse"  # unset address = every interface
    assert decide_gate("none", 3, "::1").mode == "open"
    assert decide_gate("local", 0, "localhost").mode == "refuse"
    assert [is_loopback(a) for a in ("localhost", "::1", "[::1]", "127.0.0.2", "0.0.0.0", "10.0.0.5", "")] == [
        True,
        True,
        True,
        True,
        False,
        False,
        False,
    ]


def test_oidc_roles_map_exact_addresses_then_the_most_specific_pattern():
    mapping = {"Ana@Example.com": "admin", "*@example.com": "viewer", "*@lab.example.com": "curator", "x@y.z": "king"}
    assert oidc_role("ana@example.com", mapping) is Role.ADMIN
    assert oidc_role("bo@example.com", mapping) is Role.VIEWER
    assert oidc_role("li@lab.example.com", mapping) is Role.CURATOR
    assert oidc_role("eve@evil.com", mapping) is None
    assert oidc_role("x@y.z", mapping) is None  # an unknown role grants nothing
    assert oidc_role(None, mapping) is None and oidc_role("no-at-sign", mapping) is None
    settings = Settings(oidc_roles=json.loads('{"a@b.c": "curator"}'))
    assert oidc_role("A@B.C", settings.oidc_roles) is Role.CURATOR


def test_cli_accounts_and_audit_act_as_the_os_user(monkeypatch):
    monkeypatch.setenv("MEMLENS_EMBEDDER", "hash")

    def memlens(*args: str, stdin: str = ""):
        return CliRunner().invoke(app, list(args), input=stdin)

    added = memlens("account", "add", "ops", "--role", "admin", "--password-stdin", stdin="s3cret-words\n")
    assert added.exit_code == 0, added.output
    assert "s3cret" not in added.output
    assert json.loads(memlens("account", "list", "--json").stdout)["accounts"][0]["role"] == "admin"
    bad = memlens("account", "add", "x", "--role", "viewer", "--password-stdin", stdin="short\n")
    assert bad.exit_code != 0 and "password must be" in str(bad.exception)
    assert memlens("account", "remove", "ops").exit_code == 0
    events = json.loads(memlens("audit", "--json").stdout)["events"]
    me = getpass.getuser()
    assert [(e["action"], e["actor"], e["via"]) for e in events] == [
        ("account-remove", me, "cli"),
        ("account-add", me, "cli"),
    ]
    assert json.loads(memlens("audit", "--actor", "someone-else", "--json").stdout)["events"] == []


def _guess_at(settings_json: str, start_at: float, threads: int, out) -> None:
    """Child process: ``threads`` wrong guesses for "ana", all released at ``start_at``."""
    import threading
    import time as _time

    from memory.config import Settings
    from memory.storage.embed import HashEmbedder

    svc = MemoryService(Settings.model_validate_json(settings_json), embedder=HashEmbedder())
    refused: list[str] = []

    def guess() -> None:
        _time.sleep(max(0.0, start_at - _time.time()))
        try:
            accounts.sign_in(svc.storage, "ana", "a wrong guess")
        except SignInFailed as exc:
            refused.append(str(exc))

    workers = [threading.Thread(target=guess) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    svc.close()
    out.put(refused)


def test_forty_simultaneous_guesses_get_at_most_the_limit_of_password_checks(backend_plumbing_svc, backend_settings):
    """4 processes × 10 threads guess at once: the throttle's count and the check are one atomic step, so at most
    ``per_minute`` (5) passwords are checked and every other attempt is refused by the throttle — and audited."""
    import time

    from conftest import worker_context

    plumbing_svc, settings = backend_plumbing_svc, backend_settings
    accounts.add(plumbing_svc.storage, "ana", "viewer", "right password", actor=ADMIN)
    ctx = worker_context()
    out = ctx.Queue()
    start_at = time.time() + 4.0  # every child has imported and connected by then
    children = [ctx.Process(target=_guess_at, args=(settings.model_dump_json(), start_at, 10, out)) for _ in range(4)]
    for c in children:
        c.start()
    refused = [m for _ in children for m in out.get(timeout=120)]
    for c in children:
        c.join(30)
    assert len(refused) == 40
    failures = audit.events(plumbing_svc.storage, action=AuditAction.SIGN_IN_FAILED, limit=100)
    checked = [e for e in failures if e.reason == "wrong username or password"]
    throttled = [e for e in failures if e.reason == "throttled"]
    assert len(checked) == 5 and len(throttled) == 35, (len(checked), len(throttled))
    assert refused.count(accounts.THROTTLED) == 35
