"""Sign-in, roles and the audit trail in a real Chromium over the real server (`streamlit run app.py`).

One server with three accounts (viewer, curator, admin) walks the whole story: nothing before sign-in, a wrong
password refused, a viewer without edit controls (and the service refusing the viewer's forged call), a curator's
flag, the admin reading it in the Audit page. Then a server on 0.0.0.0 without accounts and with MEMLENS_AUTH=none
must serve nothing, and the README's first command must open on localhost with its "local only" badge. Every
request the browser makes must go to the server itself (no font CDN, no favicon from the internet).
"""

from __future__ import annotations

import re

import pytest
from actors import ADMIN
from browser_helpers import CHROMIUM, need_chromium
from browser_helpers import settle as _settle
from browser_helpers import streamlit_server as streamlit

from memory import accounts, audit
from memory.errors import Forbidden
from memory.lifecycle import curation
from memory.vocab import Actor, AuditAction, Role

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SECRET_USER = "zoe-secret-user"
SECRET_TEXT = "Valparaíso"
PASSWORD = "long-enough-pw"


@pytest.fixture
def browser():
    need_chromium()
    playwright = pytest.importorskip("playwright.sync_api")
    args = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"]
    with playwright.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=args)
        yield chromium
        chromium.close()


def _page(browser, server: str, requests: list[str]):
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    page.on("request", lambda r: requests.append(r.url))
    return page


def _text(page) -> str:
    return page.locator("body").inner_text()


def _sign_in(page, server: str, name: str, password: str = PASSWORD) -> None:
    page.goto(server)
    page.get_by_label("Username", exact=True).fill(name)
    page.get_by_label("Password", exact=True).fill(password)
    page.get_by_role("button", name="Sign in").click()
    if password == PASSWORD:  # signed in: the sidebar says who, with a sign-out button
        page.get_by_role("button", name="Sign out").wait_for(timeout=60_000)
        page.get_by_label("Password", exact=True).wait_for(state="detached", timeout=60_000)
    else:
        page.get_by_text("Sign-in failed").wait_for(timeout=60_000)
    _settle(page)


def _seed(svc) -> None:
    svc.remember(SECRET_USER, f"I live in {SECRET_TEXT} and I love jazz")
    for name, role in [("vi", "viewer"), ("cu", "curator"), ("ada", "admin")]:
        accounts.add(svc.storage, name, role, PASSWORD, actor=ADMIN)


def _open(page, title: str) -> None:
    """Go to a page through the sidebar, as a person does (a reload is a new session: it asks for sign-in again)."""
    links = page.locator('[data-testid="stSidebarNavLink"]')  # exactly this title ("Audit", not "Audit desk")
    links.filter(has=page.get_by_text(title, exact=True)).first.click()
    page.wait_for_function(
        "t => document.querySelector('h1') && document.querySelector('h1').innerText.includes(t)",
        arg=title,
        timeout=60_000,
    )
    _settle(page)


def _assert_no_user_data(page) -> None:
    body = _text(page)
    assert SECRET_USER not in body and SECRET_TEXT not in body and "jazz" not in body
    assert page.locator('[data-testid="stSidebarNavLink"]').count() == 0


def test_sign_in_roles_and_audit_in_chromium(browser, plumbing_svc, tmp_path):
    svc = plumbing_svc
    _seed(svc)
    requests: list[str] = []
    with streamlit(svc.settings.data_dir, tmp_path / "streamlit.log", address="127.0.0.1") as server:
        # before sign-in: a form with a Password field, no user data, on every path (framed or not)
        page = _page(browser, server, requests)
        for path in ["", "recent-writes", "memories", "lifecycle", "audit-trail"]:
            page.goto(f"{server}/{path}")
            page.get_by_label("Password", exact=True).wait_for(timeout=30_000)
            _settle_form(page)
            assert page.get_by_label("Username", exact=True).count() == 1
            _assert_no_user_data(page)
        # a wrong password: refused with one generic message, still nothing shown
        _sign_in(page, server, "cu", "wrong-password")
        assert accounts.GENERIC_FAILURE in _text(page)
        _assert_no_user_data(page)

        # a viewer reads, but has no edit or delete controls anywhere
        _sign_in(page, server, "vi")
        assert "vi · viewer" in _text(page) and SECRET_TEXT in _text(page)  # the Chat page, read-only
        assert page.locator('[data-testid="stChatInputTextArea"]').count() == 0
        for title, forbidden in [
            ("Memories", ["Edit", "Delete…", "Flag as wrong", "Supersede", "Unflag"]),
            ("Profile", ["Save"]),
            ("Lifecycle", ["Delete this user", "Download everything about this user (JSON)"]),
        ]:
            _open(page, title)
            assert SECRET_USER in _text(page)
            for label in forbidden:
                assert page.get_by_role("button", name=label, exact=True).count() == 0, (title, label)
            assert page.get_by_role("tab", name=re.compile("Correct")).count() == 0
        assert "Audit" not in [a.inner_text() for a in page.locator('[data-testid="stSidebarNavLink"]').all()]
        # …and a forged mutating call with the viewer's identity is refused by the service itself
        memory_id = svc.list_memories(svc.get_user(SECRET_USER))[0].id
        with pytest.raises(Forbidden, match="'vi' is a viewer"):
            curation.flag_memory(svc.storage, memory_id, reason="forged", actor=Actor("vi", Role.VIEWER, "ui"))
        assert svc.get_memory(memory_id).meta.get("flagged") is None
        page.get_by_role("button", name="Sign out").click()
        page.get_by_label("Password", exact=True).wait_for(timeout=30_000)
        _assert_no_user_data(page)

        # a curator flags a memory
        _sign_in(page, server, "cu")
        _open(page, "Memories")
        page.get_by_role("tab", name=re.compile("Correct")).click()
        page.get_by_label("Reason (logged)").fill("she moved away")
        page.get_by_label("Reason (logged)").press("Enter")
        _settle(page)
        page.get_by_role("button", name="Flag as wrong").click()
        page.get_by_text("flag done").wait_for(timeout=30_000)
        page.get_by_role("button", name="Sign out").click()
        page.get_by_label("Password", exact=True).wait_for(timeout=30_000)

        # the admin sees the curator's flag, by name, in the Audit page
        _sign_in(page, server, "ada")
        _open(page, "Audit")
        grid = page.locator('[data-testid="stDataFrame"]').first
        grid.wait_for(timeout=30_000)
        page.wait_for_timeout(1000)
        rows = page.evaluate(  # the grid's accessible table: one list of cell texts per row
            """() => [...document.querySelectorAll('[data-testid="stDataFrame"] tr')].map(
                   tr => [...tr.querySelectorAll('td[role="gridcell"]')].map(td => td.innerText))"""
        )
        # columns: when, actor, role, via, action, user, targets, reason
        flags = [r[1:] for r in rows if len(r) == 8 and r[4] == "flag"]
        assert flags and flags[0][:5] == ["cu", "curator", "ui", "flag", SECRET_USER], rows[:5]
        assert flags[0][6] == "she moved away"
        page.close()

    flags = audit.events(svc.storage, action=AuditAction.FLAG)
    assert [(e.actor, e.role, e.user_id, e.reason) for e in flags] == [("cu", "curator", SECRET_USER, "she moved away")]
    assert {e.actor for e in audit.events(svc.storage, action=AuditAction.SIGN_IN)} == {"vi", "cu", "ada"}
    assert [e.actor for e in audit.events(svc.storage, action=AuditAction.SIGN_IN_FAILED)] == ["cu"]
    assert [e.actor for e in audit.events(svc.storage, action=AuditAction.DENIED)] == ["vi"]
    foreign = [u for u in requests if not u.startswith((server, "data:", "blob:"))]
    assert not foreign, f"fetched from outside the server: {foreign[:5]}"


def _settle_form(page) -> None:
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=30_000)
    page.wait_for_timeout(300)


def test_no_accounts_and_auth_none_on_every_interface_serves_nothing(browser, plumbing_svc, tmp_path):
    plumbing_svc.remember(SECRET_USER, f"I live in {SECRET_TEXT} and I love jazz")
    requests: list[str] = []
    env = {"MEMLENS_AUTH": "none"}
    with streamlit(plumbing_svc.settings.data_dir, tmp_path / "s.log", address="0.0.0.0", env=env) as server:
        page = _page(browser, server, requests)
        for path in ["", "recent-writes", "memories", "user-profile"]:
            page.goto(f"{server}/{path}")
            page.get_by_text("memlens account add").first.wait_for(timeout=30_000)
            _settle_form(page)
            _assert_no_user_data(page)
            assert "only runs on localhost" in _text(page)
            assert page.get_by_label("Password", exact=True).count() == 0
        page.close()


def test_the_readme_command_opens_on_localhost_with_the_local_only_badge(browser, plumbing_svc, tmp_path):
    plumbing_svc.remember(SECRET_USER, f"I live in {SECRET_TEXT}")
    requests: list[str] = []
    log = tmp_path / "readme.log"
    with streamlit(plumbing_svc.settings.data_dir, log, address=None) as server:
        page = _page(browser, server, requests)
        page.goto(f"{server}/recent-writes")
        _settle(page)
        assert "no sign-in: local only" in _text(page) and SECRET_USER in _text(page)
        assert page.get_by_label("Password", exact=True).count() == 0
        page.close()
    started = log.read_text()
    assert "localhost" in started and "Network URL" not in started, started
    foreign = [u for u in requests if not u.startswith((server, "data:", "blob:"))]
    assert not foreign, f"fetched from outside the server: {foreign[:5]}"
