"""MemLens back office: ``streamlit run app.py`` (after ``memlens seed-demo`` for demo users).

The frame and its pages are in backoffice.py. This file makes Streamlit serve it as an ASGI app (``st.App``) whose
start-up, before the first visitor is let in, loads what the pages would otherwise load on first use: the service
with its SQL engine, the pages' libraries (pandas, plotly, the agent's LangGraph stack), the LanceDB index and the
agent (``pages.common.warm_process``). The first page then pays for its own work only, and no warm-up competes
with the first visits. A warm-up that fails is logged and the server starts anyway: each page then loads what it
needs itself, and shows its own error if that fails again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import streamlit as st

log = logging.getLogger("memlens.app")


def _warm() -> None:
    from pages.common import warm_process  # imported here: importing it is part of the warm-up

    warm_process()


def _navigation_only() -> None:
    """The app's pages are ``st.navigation``'s (backoffice.py), never the ``pages/`` folder's. Streamlit runs a
    process's first script run through its old folder-based navigation while a ``pages/`` folder exists, until
    ``st.navigation`` is first called; a deep link (``/recent-writes``) opened as that first run was answered with
    "Page not found" over the sign-in form. This is the switch ``st.navigation`` itself flips, flipped before the
    first visitor."""
    from streamlit.runtime.pages_manager import PagesManager

    PagesManager.uses_pages_directory = False


@asynccontextmanager
async def warm_start(_app: Any) -> AsyncIterator[None]:
    _navigation_only()
    try:
        await asyncio.to_thread(_warm)  # off the event loop: Streamlit's runtime keeps running meanwhile
    except Exception:  # noqa: BLE001 - a cold page is better than no server; the page reports the real error
        log.exception("warm start failed: pages will load what they need on first use")
    yield


app = st.App("backoffice.py", lifespan=warm_start)
