"""`streamlit run app.py` serves the frame (backoffice.py) as an ASGI app whose start-up warms the process:
Streamlit must recognise app.py as such, and the warm-up must leave the service cached, the pages' libraries
loaded, the index open and the loaded objects out of later garbage collections."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_streamlit_serves_app_py_as_an_asgi_app_around_the_frame():
    from streamlit.web.server.app_discovery import discover_asgi_app

    found = discover_asgi_app(ROOT / "app.py")
    assert found.is_asgi_app and found.app_name == "app"
    assert not discover_asgi_app(ROOT / "backoffice.py").is_asgi_app  # the frame itself is a plain script


def test_the_warm_start_loads_what_pages_load_on_first_use(tmp_path):
    code = """
import gc, sys
from pages import common
assert "plotly.express" not in sys.modules and "lancedb" not in sys.modules
common.warm_process()
svc = common.unchecked_service()
assert svc is common.unchecked_service()  # cached per process: the pages get this one
for name in ("pandas", "plotly.express", "agent.runtime", "lancedb", "pages.lab_tuning"):
    assert name in sys.modules, name
assert svc.storage._index is not None  # opened, with its start-up check
assert gc.get_freeze_count() > 100_000  # the libraries' objects are out of Streamlit's per-run full collection
print("ok")
"""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MEMLENS_DATA_DIR": str(tmp_path), "MEMLENS_EMBEDDER": "hash"}
    env.pop("MEMLENS_DATABASE_URL", None)
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().splitlines()[-1] == "ok"
