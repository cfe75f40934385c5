"""Safe failure: a page that breaks shows a short message with an error id; the traceback goes to the server log.

``.streamlit/config.toml`` turns Streamlit's own error details off (``showErrorDetails = "none"``); this boundary
adds the id that ties what the visitor sees to the log line an operator can find. MemLens's own errors
(``MemLensError``: refused input, a missing user, a role that may not act) are written for people, so their one-line
message is shown as is.
"""

from __future__ import annotations

import contextlib
import logging
import uuid
from collections.abc import Iterator

import streamlit as st

from memory.errors import Forbidden, MemLensError

log = logging.getLogger("memlens.app")
if not log.handlers:  # Streamlit configures only its own loggers: make sure ours reaches the server's stderr
    _handler = logging.StreamHandler()
    _handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    log.addHandler(_handler)
    log.setLevel(logging.INFO)


@contextlib.contextmanager
def boundary(where: str) -> Iterator[None]:
    """Run the sidebar and the page inside this (Streamlit's rerun / stop signals are not Exceptions: they pass)."""
    try:
        yield
    except Forbidden as exc:
        st.error(str(exc), icon=":material/lock:")
    except MemLensError as exc:
        st.error(str(exc), icon=":material/error:")
    except Exception:  # noqa: BLE001 - the app's last line of defence: log everything, show an id
        error_id = uuid.uuid4().hex[:10]
        log.exception("unexpected error %s on page %s", error_id, where)
        st.error(
            f"Something went wrong on this page (error id `{error_id}`). "
            "The details are in the server log under that id.",
            icon=":material/error:",
        )
