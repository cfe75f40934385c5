"""Roles, deep links and the Evaluation page in a real Chromium over `streamlit run app.py` (issue #28, item 5).

Before: a curator demoted to viewer while signed in still flagged on the next click (audited as a curator); a viewer
opened the Evaluation page and could run a job on any server path; a page opened by its address while signed out
covered the sign-in form with "Page not found" and, after sign-in, landed on Chat.
"""

from __future__ import annotations

import re

import pytest
from actors import ADMIN
from browser_helpers import CHROMIUM, need_chromium
from browser_helpers import settle as _settle
from browser_helpers import streamlit_server as streamlit

from memory import accounts, audit
from memory.storage.people import Account
from memory.vocab import AuditAction, Role

pytestmark = [pytest.mark.browser, pytest.mark.slow]
PASSWORD = "long-enough-pw"
USER = "rb-user"


@pytest.fixture
def browser():
    need_chromium()
    playwright = pytest.importorskip("playwright.sync_api")
    args = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"]
    with playwright.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=args)
        yield chromium
        chromium.close()


def _fill_sign_in(page, name: str) -> None:
    page.get_by_label("Username", exact=True).fill(name)
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("button", name="Sign out").wait_for(timeout=60_000)
    _settle(page)


def _nav(page) -> list[str]:
    return [a.inner_text().splitlines()[-1].strip() for a in page.locator('[data-testid="stSidebarNavLink"]').all()]


def _set_role(svc, name: str, role: Role) -> None:
    with svc.storage.db() as db:
        row = db.get(Account, name)
        row.role = str(role)
        db.add(row)
        db.commit()


def test_deep_links_roles_at_once_and_the_admin_only_evaluation(browser, plumbing_svc, tmp_path):
    svc = plumbing_svc
    svc.remember(USER, "I live in Porto and I love jazz")
    for name, role in [("vi", "viewer"), ("cu", "curator"), ("ada", "admin")]:
        accounts.add(svc.storage, name, role, PASSWORD, actor=ADMIN)
    memory_id = svc.list_memories(svc.get_user(USER))[0].id
    with streamlit(svc.settings.data_dir, tmp_path / "streamlit.log", address="127.0.0.1") as server:
        # a deep link while signed out: the sign-in form, no "Page not found"; after sign-in, the page asked for
        page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        page.goto(f"{server}/recent-writes")
        page.get_by_label("Password", exact=True).wait_for(timeout=30_000)
        page.wait_for_timeout(1500)
        assert "Page not found" not in page.locator("body").inner_text()
        assert page.get_by_label("Username", exact=True).is_visible()
        _fill_sign_in(page, "cu")
        page.locator("h1", has_text=re.compile("^Memories")).first.wait_for(timeout=30_000)
        assert page.locator("h1").first.inner_text().startswith("Memories"), page.locator("h1").first.inner_text()
        assert page.url.rstrip("/").endswith("/recent-writes")

        # the curator is demoted while signed in: the very next click is refused, audited with the role now
        page.get_by_role("tab", name=re.compile("Correct")).click()
        page.get_by_label("Reason (logged)").fill("demoted meanwhile")
        page.get_by_label("Reason (logged)").press("Enter")
        _settle(page)
        _set_role(svc, "cu", Role.VIEWER)
        page.get_by_role("button", name="Flag as wrong").click()
        page.get_by_text("is a viewer").first.wait_for(timeout=30_000)
        assert not svc.get_memory(memory_id).meta.get("flagged")
        assert audit.events(svc.storage, action=AuditAction.FLAG) == []
        denied = audit.events(svc.storage, action=AuditAction.DENIED)
        assert [(e.actor, e.role) for e in denied] == [("cu", "viewer")]
        _settle(page)
        assert "Flag as wrong" not in [b.inner_text() for b in page.get_by_role("button").all()]  # controls follow

        # a viewer has no Evaluation page: not in the navigation, and its address does not open it
        page.get_by_role("button", name="Sign out").click()
        page.get_by_label("Password", exact=True).wait_for(timeout=30_000)
        _fill_sign_in(page, "vi")
        assert "Chat" in _nav(page) and "Evaluation" not in _nav(page) and "Audit" not in _nav(page)
        page.goto(f"{server}/eval-reports")  # a new browser session: sign in again at that address
        page.get_by_label("Password", exact=True).wait_for(timeout=30_000)
        _fill_sign_in(page, "vi")
        page.wait_for_timeout(1000)
        assert not page.locator("h1").first.inner_text().startswith("Evaluation")
        assert page.get_by_label("LoCoMo-format JSON file", exact=False).count() == 0

        # an admin has it, and its run form offers the inputs folder's files only
        page.goto(f"{server}/eval-reports")
        page.get_by_label("Password", exact=True).wait_for(timeout=30_000)
        _fill_sign_in(page, "ada")
        page.locator("h1", has_text=re.compile("^Evaluation")).first.wait_for(timeout=30_000)  # a loaded machine
        assert page.locator("h1").first.inner_text().startswith("Evaluation")
        assert "Evaluation" in _nav(page)
        assert "eval/inputs" in page.locator("body").inner_text()
        page.close()


def _open_shadows(page) -> None:
    """The desk's A/B replay tab, its shadow-store expander, B's extractor set to the rules (the live store uses
    them too: a cheap replay), chosen as a person does: open the picker, type, press Enter."""
    page.get_by_role("tab", name="A/B replay").click()
    _settle(page)
    page.get_by_text("Another embedder or extractor (shadow stores)").click()
    _settle(page)
    box = page.locator('[data-testid="stSelectbox"]').filter(has_text="Extractor B")
    box.click()
    page.keyboard.type("rules")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=\"stSelectbox\"]')].some(e =>"
        " e.textContent.includes('Extractor B') && (e.textContent + [...e.querySelectorAll('input')]"
        ".map(i => i.value || '').join(' ')).includes('rules'))",
        timeout=30_000,
    )
    _settle(page)


def test_replay_in_shadows_is_checked_by_the_service_and_audited(browser, plumbing_svc, tmp_path):
    """Issue #45, item 5: "Replay in shadows" embeds up to 2,000 messages twice. Before, a viewer (or a curator
    demoted while the page was open) ran it with no role check and no audit row. Now the click goes to the service,
    which refuses it with the role the account has now and audits the refusal; a curator's run is audited too."""
    svc = plumbing_svc
    for text in ("I live in Porto and I love jazz", "My sister Anna lives in Berlin"):
        svc.remember(USER, text)
    svc.recall(USER, "where do I live?")
    svc.flush_retrieval_log()
    accounts.add(svc.storage, "cu2", "curator", PASSWORD, actor=ADMIN)
    with streamlit(svc.settings.data_dir, tmp_path / "streamlit.log", address="127.0.0.1") as server:
        page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        page.goto(f"{server}/audit-desk")
        page.get_by_label("Password", exact=True).wait_for(timeout=30_000)
        _fill_sign_in(page, "cu2")
        _open_shadows(page)
        shadow = page.get_by_role("button", name="Replay in shadows")
        assert shadow.is_enabled()

        _set_role(svc, "cu2", Role.VIEWER)  # demoted while the page is open: the service decides on the click
        shadow.click()
        page.get_by_text("is a viewer").first.wait_for(timeout=30_000)
        denied = audit.events(svc.storage, action=AuditAction.DENIED)
        assert [(e.actor, e.role, e.detail.get("needs")) for e in denied] == [("cu2", "viewer", "curator")]
        assert audit.events(svc.storage, action=AuditAction.SHADOW_REPLAY) == []
        _settle(page)
        assert page.get_by_role("button", name="Replay in shadows").is_disabled()  # the controls follow

        _set_role(svc, "cu2", Role.CURATOR)
        page.reload()
        page.get_by_label("Password", exact=True).wait_for(timeout=30_000)
        _fill_sign_in(page, "cu2")
        _open_shadows(page)
        page.get_by_role("button", name="Replay in shadows").click()
        page.get_by_text("Shadow replay with").first.wait_for(timeout=120_000)
        done = audit.events(svc.storage, action=AuditAction.SHADOW_REPLAY)
        assert [(e.actor, e.role, e.detail["b"]["extractor"]) for e in done] == [("cu2", "curator", "rules")]
        page.close()


def test_the_sidebars_writes_are_checked_by_the_service(browser, plumbing_svc, tmp_path):
    """The sidebar's "Add a user" and "New session" write rows; before, only the page hid them from a viewer, so a
    curator demoted while the page was open still created both, unaudited. Now the service checks the role at the
    click and audits the refusal; nothing is created."""
    svc = plumbing_svc
    svc.remember(USER, "I live in Porto")
    accounts.add(svc.storage, "cu3", "curator", PASSWORD, actor=ADMIN)
    sessions = len(svc.list_sessions(svc.get_user(USER)))
    with streamlit(svc.settings.data_dir, tmp_path / "streamlit.log", address="127.0.0.1") as server:
        page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        page.goto(f"{server}/recent-writes")
        page.get_by_label("Password", exact=True).wait_for(timeout=30_000)
        _fill_sign_in(page, "cu3")
        side = page.locator('[data-testid="stSidebar"]')
        new_session = side.get_by_role("button", name="New session")
        new_session.wait_for(timeout=30_000)
        side.get_by_role("button", name="Add a user").click()
        page.get_by_label("User id").fill("rb-new-user")
        page.get_by_label("User id").press("Tab")
        _settle(page)

        _set_role(svc, "cu3", Role.VIEWER)  # demoted while the page is open
        page.get_by_role("button", name="Create").click()
        page.get_by_text("is a viewer").first.wait_for(timeout=30_000)
        _settle(page)
        assert "rb-new-user" not in {u["user_id"] for u in svc.list_users()}
        denied = audit.events(svc.storage, action=AuditAction.DENIED)
        assert [(e.actor, e.role, e.detail.get("needs")) for e in denied] == [("cu3", "viewer", "curator")]
        assert "add a user" in denied[0].reason
        page.close()

        page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        _set_role(svc, "cu3", Role.CURATOR)
        page.goto(f"{server}/recent-writes")
        page.get_by_label("Password", exact=True).wait_for(timeout=30_000)
        _fill_sign_in(page, "cu3")
        new_session = page.locator('[data-testid="stSidebar"]').get_by_role("button", name="New session")
        new_session.wait_for(timeout=30_000)
        _set_role(svc, "cu3", Role.VIEWER)
        new_session.click()
        page.get_by_text("is a viewer").first.wait_for(timeout=30_000)
        assert len(svc.list_sessions(svc.get_user(USER))) == sessions  # no session was started
        assert len(audit.events(svc.storage, action=AuditAction.DENIED)) == 2
        page.close()
