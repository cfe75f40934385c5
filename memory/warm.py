"""A long-running process's last step before its first request (``MemoryService.warm`` for the REST API and the MCP
server, the back office's warm-up): the loaded heap frozen out of later full garbage collections.

Why freezing matters for latency: CPython's full (generation-2) garbage collection walks every tracked object. A
process with the embedder, LanceDB and SQLAlchemy loaded holds a few hundred thousand of them, alive until exit, and
one full collection took 85-110 ms here with the engine alone (about 1 s with the back office's libraries, and
Streamlit runs one after every page's script run). It runs whenever enough new objects have survived, in the middle
of whatever allocated last: 3 of 200 recalls in ``bench/recall_latency.py``'s loop at 1,000 memories per user.
:func:`freeze_loaded` moves what is loaded into the permanent generation (``gc.freeze``), so later collections walk
only what was allocated since (3-4 ms); a collection runs first, so nothing that is garbage now is kept.
"""

from __future__ import annotations

import gc


def freeze_loaded() -> None:
    """Take what is loaded now out of every later garbage collection (what is garbage now is freed first)."""
    gc.collect()
    gc.freeze()
