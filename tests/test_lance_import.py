"""LanceDB is imported without its REST catalog client (memory.storage.lance): the index still works, and the
client's classes, if anyone uses them, are the real ones."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(code: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_the_index_works_with_the_rest_client_deferred(tmp_path):
    code = f"""
from memory.storage.lance import deferred_modules, import_lancedb
lancedb = import_lancedb()
deferred = deferred_modules()
assert len(deferred) >= 5 and all(".api." in d for d in deferred), deferred
db = lancedb.connect({str(tmp_path)!r})
tbl = db.create_table("t", data=[{{"id": "a", "vector": [1.0, 0.0]}}, {{"id": "b", "vector": [0.0, 1.0]}}])
assert tbl.search([0.9, 0.1]).limit(1).to_list()[0]["id"] == "a"
assert deferred_modules() == deferred  # using the index imported none of them
print(len(deferred))
"""
    assert int(_run(code)) >= 5


def test_a_stand_in_gives_the_real_client_class_on_use():
    code = """
from memory.storage.lance import CLIENT, deferred_modules, import_lancedb
import_lancedb()
import importlib
client = importlib.import_module(CLIENT)
before = deferred_modules()
api = client.TableApi()
module = type(api).__module__
assert module == CLIENT + ".api.table_api", module
assert type(api).__doc__ is None or "Stand-in" not in type(api).__doc__
assert module in before and module not in deferred_modules()
assert client.TableApi is type(api)  # the package's name now points at the real class
print("ok")
"""
    assert _run(code) == "ok"


def test_a_client_imported_first_is_left_alone():
    code = """
import lance_namespace_urllib3_client
from memory.storage.lance import deferred_modules, import_lancedb
import_lancedb()
assert deferred_modules() == [], deferred_modules()
print("ok")
"""
    assert _run(code) == "ok"
