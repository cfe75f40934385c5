"""MemLens back office: the frame. Pages live in pages/; this file only wires the gate, the sidebar and navigation.

Served by ``streamlit run app.py`` (after ``memlens seed-demo`` for demo users), which warms the process first (see
app.py); ``streamlit run backoffice.py`` serves the same frame without that. Nothing is read before
``gate.admit()`` lets someone in (see docs/back_office.md, "Deploying the back office").

Give every page a ``url_path`` that differs from its file name: because a ``pages/`` folder exists, Streamlit (and
AppTest on every run) first routes through its old folder-based navigation, which would otherwise open
``pages/<name>.py`` on its own, without this frame and its sidebar (``pages.common.service`` then refuses to read).
"""

from pathlib import Path

import streamlit as st

from pages import common, gate, registry, safe, sidebar

st.set_page_config(page_title="MemLens", page_icon=str(Path(__file__).parent / "static" / "favicon.png"), layout="wide")

actor = gate.admit()  # the sign-in form or a refusal, then st.stop(), when nobody may see anything yet

PAGES = {
    section: [st.Page(p.file, title=p.title, icon=p.icon, url_path=p.url_path, default=p.default) for p in specs]
    for section, specs in registry.visible(actor.role).items()
}
page = st.navigation(PAGES)
with safe.boundary(page.url_path or "talk"):  # an unexpected error: a short message with an id, details in the log
    sidebar.render(actor)
    page.run()
common.warm_up()  # once per process, after the first page is on screen: the other pages' libraries and the index
