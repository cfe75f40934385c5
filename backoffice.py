"""MemLens back office: the frame. Pages live in pages/; this file only wires the gate, the sidebar and navigation.

Served by ``streamlit run app.py`` (after ``memlens seed-demo`` for demo users), which warms the process first (see
app.py); ``streamlit run backoffice.py`` serves the same frame without that. Nothing is read before
``gate.admit()`` lets someone in (see README, "Deploying the back office").

Give every page a ``url_path`` that differs from its file name: because a ``pages/`` folder exists, Streamlit (and
AppTest on every run) first routes through its old folder-based navigation, which would otherwise open
``pages/<name>.py`` on its own, without this frame and its sidebar (``pages.common.service`` then refuses to read).
"""

from pathlib import Path

import streamlit as st

from memory.vocab import Role
from pages import common, gate, safe, sidebar

st.set_page_config(page_title="MemLens", page_icon=str(Path(__file__).parent / "static" / "favicon.png"), layout="wide")

actor = gate.admit()  # the sign-in form or a refusal, then st.stop(), when nobody may see anything yet

PAGES = {
    "Talk": [
        st.Page("pages/chat.py", title="Chat", icon=":material/chat:", default=True, url_path="talk"),
    ],
    "Inspect": [
        st.Page("pages/profile.py", title="Profile", icon=":material/badge:", url_path="user-profile"),
        st.Page("pages/memories.py", title="Memories", icon=":material/history_edu:", url_path="recent-writes"),
        st.Page(
            "pages/sessions.py", title="Sessions & bridges", icon=":material/timeline:", url_path="session-timeline"
        ),
        st.Page("pages/lifecycle.py", title="Lifecycle", icon=":material/auto_delete:", url_path="memory-lifecycle"),
        st.Page("pages/desk.py", title="Audit desk", icon=":material/fact_check:", url_path="audit-desk"),
    ],
    "Tune": [
        st.Page("pages/retrieval_lab.py", title="Retrieval lab", icon=":material/science:", url_path="lab"),
        st.Page("pages/context_budget.py", title="Context budget", icon=":material/data_usage:", url_path="budget"),
        st.Page("pages/evaluation.py", title="Evaluation", icon=":material/leaderboard:", url_path="eval-reports"),
    ],
}
if Role(actor.role).allows(Role.ADMIN):
    PAGES["Govern"] = [
        st.Page("pages/audit.py", title="Audit", icon=":material/policy:", url_path="audit-trail"),
    ]

page = st.navigation(PAGES)
with safe.boundary(page.url_path or "talk"):  # an unexpected error: a short message with an id, details in the log
    sidebar.render(actor)
    page.run()
common.warm_up()  # once per process, after the first page is on screen: the other pages' libraries and the index
