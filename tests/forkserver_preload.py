"""Imported once by the tests' forkserver (``conftest.worker_context``): LanceDB, through MemLens's own deferred
import, so that every child forked from the server starts with it loaded instead of importing it again (about
3.5 s of CPU and 5 s of wall time per child). Nothing is opened: no table, no connection, no query."""

import os

from memory.storage.lance import import_lancedb

import_lancedb()

# this folder was put on the server's PYTHONPATH only so that it finds this module: its children do not keep it
_here = os.path.dirname(os.path.abspath(__file__))
_rest = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and os.path.abspath(p) != _here]
if _rest:
    os.environ["PYTHONPATH"] = os.pathsep.join(_rest)
else:
    os.environ.pop("PYTHONPATH", None)
