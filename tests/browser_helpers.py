"""One way to run the real back office for browser tests: `streamlit run app.py` on a free port, waited for until
healthy, stopped afterwards; and Debian's Chromium through Playwright."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
#: the core pages' url paths (pages.registry): each opens with its title as heading (the chat's is "Chat · <user>")
CORE_PAGES = frozenset({"talk", "user-profile", "recent-writes", "session-timeline", "lab", "budget"})
ROOT = Path(__file__).resolve().parent.parent


def need_chromium() -> None:
    """Skip the calling test where Debian's Chromium is not installed (a developer's machine); CI installs it."""
    import pytest

    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium); .ci/run installs it")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(url: str, proc: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise TimeoutError("streamlit did not become healthy")


@contextmanager
def streamlit_server(
    data_dir: Path, log_path: Path, *, address: str | None = "127.0.0.1", env: dict[str, str] | None = None
) -> Iterator[str]:
    """``streamlit run app.py`` over ``data_dir`` (``address=None``: as the README says, no flag at all)."""
    port = free_port()
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port", str(port)]
    cmd += ["--server.fileWatcherType", "none", "--browser.gatherUsageStats", "false"]
    if address is not None:
        cmd += ["--server.address", address]
    full_env = {**os.environ, "MEMLENS_DATA_DIR": str(data_dir), "MEMLENS_EMBEDDER": "hash", **(env or {})}
    host = address if address not in (None, "0.0.0.0") else "localhost"
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=full_env, stdout=log, stderr=subprocess.STDOUT)
        try:
            wait_healthy(f"http://127.0.0.1:{port}", proc)
            yield f"http://{host}:{port}"
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()


def settle(page) -> None:
    """Wait until the script run is over: the title is there and the 'running' widget is gone."""
    page.wait_for_selector("h1", timeout=30_000)
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=30_000)
    page.wait_for_timeout(500)
