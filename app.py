"""MemLens back office: the frame. Pages live in pages/; this file only wires the sidebar and the navigation.

Run: ``streamlit run app.py`` (after ``memlens seed-demo`` for demo users).

Give every page a ``url_path`` that differs from its file name: because a ``pages/`` folder exists, Streamlit (and
AppTest on every run) first routes through its old folder-based navigation, which would otherwise open
``pages/<name>.py`` on its own, without this frame and its sidebar.
"""

import streamlit as st

from pages import sidebar

st.set_page_config(page_title="MemLens", page_icon=":material/memory:", layout="wide")

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
    ],
    "Tune": [
        st.Page("pages/retrieval_lab.py", title="Retrieval lab", icon=":material/science:", url_path="lab"),
        st.Page("pages/context_budget.py", title="Context budget", icon=":material/data_usage:", url_path="budget"),
        st.Page("pages/evaluation.py", title="Evaluation", icon=":material/leaderboard:", url_path="eval-reports"),
    ],
}

page = st.navigation(PAGES)
sidebar.render()
page.run()
