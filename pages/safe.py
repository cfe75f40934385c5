"""Safe rendering: user text is plain text, and a page that breaks shows a short message with an error id.

:func:`plain` is the one helper for any user-controlled string put into something Streamlit reads as Markdown
(titles, captions, badges, alerts, toasts, widget labels): no heading, link, autolink (e-mail, URL, www.), image,
colour, emoji or ``:material/…:`` icon can come out of it. :func:`text_block` shows a text as is (``st.text``).

The error boundary:
``.streamlit/config.toml`` turns Streamlit's own error details off (``showErrorDetails = "none"``); this boundary
adds the id that ties what the visitor sees to the log line an operator can find. MemLens's own errors
(``MemLensError``: refused input, a missing user, a role that may not act) are written for people, so their one-line
message is shown as is.
"""

from __future__ import annotations

import contextlib
import logging
import re
import uuid
from collections.abc import Iterator
from typing import Any

import streamlit as st

from memory.errors import Forbidden, MemLensError

log = logging.getLogger("memlens.app")
if not log.handlers:  # Streamlit configures only its own loggers: make sure ours reaches the server's stderr
    _handler = logging.StreamHandler()
    _handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    log.addHandler(_handler)
    log.setLevel(logging.INFO)


#: every character Markdown (and Streamlit's directives :color[…], :material/…:, $LaTeX$) could read as syntax
_MARKDOWN_SYNTAX = re.compile(r"([\\`*_{}\[\]<>()#+\-.!|~:$&=^\"'])")
#: an invisible word joiner: breaks what Markdown would turn into a link or an icon *after* unescaping (GFM's
#: autolinks "www.", "scheme://", "name@host"; Streamlit's ":name:" emoji and ":material/name:" icons), which a
#: backslash escape does not stop. It shows nothing and changes no visible character.
JOINER = "\u2060"
_AUTOLINK_OR_ICON = (
    (re.compile(r"(?i)\b(www)\."), "\\1" + JOINER + "."),
    (re.compile(r"@(?=\w)"), "@" + JOINER),
    (re.compile(r":(?=[\w/+-])"), ":" + JOINER),
)


def plain(text: Any) -> str:
    """``text`` made inert inside Markdown: line breaks become spaces, links and icons are broken by an invisible
    joiner, and every syntax character is backslash-escaped, so user text can never become a heading, a colour, a
    link, an icon or a remote image. Use it for every user-provided text (messages, memories, ids, reasons, names,
    error messages that quote them) put into Markdown; where no Markdown is needed, :func:`text_block` shows it."""
    flat = " ".join(str("" if text is None else text).split())
    for pattern, repl in _AUTOLINK_OR_ICON:
        flat = pattern.sub(repl, flat)
    return _MARKDOWN_SYNTAX.sub(r"\\\1", flat)


def text_block(text: Any) -> None:
    """A user-provided text on its own line, never interpreted (no Markdown, no HTML)."""
    st.text(str("" if text is None else text))


@contextlib.contextmanager
def boundary(where: str) -> Iterator[None]:
    """Run the sidebar and the page inside this (Streamlit's rerun / stop signals are not Exceptions: they pass)."""
    try:
        yield
    except Forbidden as exc:
        st.error(plain(exc), icon=":material/lock:")
    except MemLensError as exc:
        st.error(plain(exc), icon=":material/error:")
    except Exception:  # noqa: BLE001 - the app's last line of defence: log everything, show an id
        error_id = uuid.uuid4().hex[:10]
        log.exception("unexpected error %s on page %s", error_id, where)
        st.error(
            f"Something went wrong on this page (error id `{error_id}`). "
            "The details are in the server log under that id.",
            icon=":material/error:",
        )
