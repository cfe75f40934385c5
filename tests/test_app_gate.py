"""The sign-in gate and the safe error boundary through Streamlit's AppTest (fast; the browser test drives the same)."""

from __future__ import annotations

import logging

from actors import ADMIN
from app_helpers import APP, no_exception, open_page
from streamlit import config
from streamlit.testing.v1 import AppTest

from memory import accounts, audit
from memory.vocab import Actor, AuditAction, Role

PASSWORD = "long-enough-pw"


def _seed(monkeypatch, svc) -> str:
    monkeypatch.setenv("MEMLENS_EMBEDDER", "hash")
    svc.remember("zoe-secret-user", "I live in Valparaíso")
    for name, role in [("vi", "viewer"), ("cu", "curator")]:
        accounts.add(svc.storage, name, role, PASSWORD, actor=ADMIN)
    return "zoe-secret-user"


def _everything(at: AppTest) -> str:
    parts = [
        e.value for kind in ("title", "markdown", "caption", "text", "error", "info", "warning") for e in at.get(kind)
    ]
    parts += [str(o) for s in at.selectbox for o in s.options]
    return "\n".join(map(str, parts))


def test_with_accounts_only_a_sign_in_form_until_the_password_is_right(monkeypatch, plumbing_svc):
    uid = _seed(monkeypatch, plumbing_svc)
    at = open_page()
    no_exception(at)
    assert [t.label for t in at.text_input] == ["Username", "Password"]
    assert at.button[0].label == "Sign in"
    assert uid not in _everything(at) and "Valparaíso" not in _everything(at) and not at.dataframe
    at.text_input[0].input("vi")
    at.text_input[1].input("not the password")
    at.button[0].click().run()
    assert [e.value.replace("\\", "") for e in at.error] == [accounts.GENERIC_FAILURE]  # shown as plain text
    assert uid not in _everything(at)
    at.text_input[1].input(PASSWORD)
    at.button[0].click().run()
    no_exception(at)
    assert uid in _everything(at)  # the sidebar's user picker: signed in
    assert [e.actor for e in audit.events(plumbing_svc.storage, action=AuditAction.SIGN_IN)] == ["vi"]


def test_a_viewer_gets_no_correction_controls_and_a_curator_does(monkeypatch, plumbing_svc):
    _seed(monkeypatch, plumbing_svc)
    labels = {}
    for name, role in [("vi", Role.VIEWER), ("cu", Role.CURATOR)]:
        config.set_option("server.address", "localhost")
        at = AppTest.from_file(APP, default_timeout=60)
        at.session_state["ml_actor"] = Actor(name, role, "ui")
        at.run()
        at.switch_page("pages/memories.py")
        at.run()
        no_exception(at)
        labels[name] = {b.label for b in at.button}
    assert not labels["vi"] & {"Edit", "Supersede", "Delete…", "Flag as wrong"}
    assert {"Edit", "Supersede", "Delete…", "Flag as wrong"} <= labels["cu"]


def test_none_on_every_interface_refuses_and_loopback_opens_with_the_badge(monkeypatch, plumbing_svc):
    uid = _seed(monkeypatch, plumbing_svc)
    for name in ("vi", "cu"):  # no accounts at all
        accounts.remove(plumbing_svc.storage, name, actor=ADMIN)
    monkeypatch.setenv("MEMLENS_AUTH", "none")
    refused = open_page(address="0.0.0.0")
    assert "memlens account add" in refused.error[0].value and uid not in _everything(refused)
    assert not refused.text_input and not refused.dataframe
    opened = open_page(address="127.0.0.1")
    no_exception(opened)
    assert uid in _everything(opened)
    assert "no sign-in: local only" in _everything(opened)  # st.badge is a Markdown badge


def test_an_unexpected_error_shows_an_id_and_logs_the_traceback(caplog):
    def script():
        from pages import safe

        with safe.boundary("test-page"):
            raise RuntimeError("secret detail /srv/memlens/db password=hunter2")

    at = AppTest.from_function(script, default_timeout=30)
    with caplog.at_level(logging.ERROR, logger="memlens.app"):
        at.run()
    assert not at.exception
    [shown] = [e.value for e in at.error]
    assert "error id" in shown and "hunter2" not in shown and "secret" not in shown
    error_id = shown.split("`")[1]
    [logged] = [r for r in caplog.records if error_id in r.getMessage()]
    assert "hunter2" in logged.exc_text


def test_the_audit_page_lists_person_actions_for_admins_only(monkeypatch, plumbing_svc):
    from memory.lifecycle import curation

    _seed(monkeypatch, plumbing_svc)
    memory_id = plumbing_svc.list_memories(plumbing_svc.get_user("zoe-secret-user"))[0].id
    curation.flag_memory(plumbing_svc.storage, memory_id, reason="she moved", actor=Actor("cu", Role.CURATOR, "ui"))
    config.set_option("server.address", "localhost")
    at = AppTest.from_file(APP, default_timeout=60)
    accounts.add(plumbing_svc.storage, "ada", "admin", PASSWORD, actor=ADMIN)
    at.session_state["ml_actor"] = Actor("ada", Role.ADMIN, "ui")
    at.run()
    at.switch_page("pages/audit.py")
    at.run()
    no_exception(at)
    assert not at.error, [e.value for e in at.error]
    frame = at.dataframe[0].value
    flag = frame[frame["action"] == "flag"].iloc[0]
    assert (flag["actor"], flag["role"], flag["user"], flag["reason"]) == (
        "cu",
        "curator",
        "zoe-secret-user",
        "she moved",
    )
