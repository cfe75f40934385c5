"""Shared fixtures: every test gets its own data folder (real SQLite + real LanceDB) and isolated settings.

``e5`` is the real offline embedder, loaded once per run; ``hash_embedder`` is the deterministic one for plumbing.
"""

from __future__ import annotations

import os
import sys

import pytest

from memory.config import Settings
from memory.service import MemoryService
from memory.storage.embed import E5Embedder, HashEmbedder

_PYTEST_MAIN = sys.modules["__main__"]  # captured before any AppTest replaces it


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch, tmp_path):
    """No MEMLENS_* or OpenAI variable from the developer's shell leaks into a test."""
    import os

    for key in list(os.environ):
        if key.startswith("MEMLENS_") or key in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("MEMLENS_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)


@pytest.fixture(autouse=True, scope="session")
def _one_component_scan():
    """Each new Streamlit ``AppTest`` scans every installed package's metadata for custom components (0.4–0.5 s of
    CPU; about a minute over a run). The installed packages do not change during a run, so the first scan's answer
    is kept for this process. Only when a collected test module has imported Streamlit."""
    if "streamlit" not in sys.modules:
        yield
        return
    import functools

    from streamlit.components.v2 import manifest_scanner

    once = functools.cache(manifest_scanner.scan_component_manifests)
    original = manifest_scanner.scan_component_manifests
    manifest_scanner.scan_component_manifests = lambda *args, **kwargs: list(once(*args, **kwargs))
    yield
    manifest_scanner.scan_component_manifests = original


@pytest.fixture(scope="session")
def e5() -> E5Embedder:
    return E5Embedder()


@pytest.fixture
def hash_embedder() -> HashEmbedder:
    return HashEmbedder()


@pytest.fixture
def settings(tmp_path) -> Settings:
    return Settings(data_dir=tmp_path / "data")


def _service(settings: Settings, embedder):
    service = MemoryService(settings, embedder=embedder)
    yield service
    service.close()


@pytest.fixture
def svc(settings, e5) -> MemoryService:
    """A service on the real offline embedder."""
    yield from _service(settings, e5)


@pytest.fixture
def plumbing_svc(settings, hash_embedder) -> MemoryService:
    """A service on the deterministic hash embedder: for tests where meaning does not matter."""
    yield from _service(settings, hash_embedder)


# -- storage backends (stream S): the same test on SQLite and on a real PostgreSQL -------------------------------
#: read at import, before ``_isolated_env`` clears MEMLENS_* (set by .ci/postgres.sh)
PG_URL = os.environ.get("MEMLENS_TEST_PG_URL")


def fresh_pg_database(name_hint: str) -> str:
    """CREATE DATABASE on the test server; returns its SQLAlchemy URL (drop it with :func:`drop_pg_database`)."""
    import re
    import uuid

    import psycopg

    name = "mlt_" + re.sub(r"[^a-z0-9]", "", name_hint.lower())[:30] + "_" + uuid.uuid4().hex[:8]
    with psycopg.connect(PG_URL.replace("+psycopg", ""), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return PG_URL.rsplit("/", 1)[0] + "/" + name


def drop_pg_database(url: str) -> None:
    import psycopg

    with psycopg.connect(PG_URL.replace("+psycopg", ""), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{url.rsplit("/", 1)[1]}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def backend(request) -> str:
    """Parametrises a test over the SQL backends; the postgres case skips when no server is configured."""
    if request.param == "postgres" and not PG_URL:
        pytest.skip("MEMLENS_TEST_PG_URL is not set (source .ci/postgres.sh to start a throwaway PostgreSQL)")
    return request.param


@pytest.fixture
def backend_settings(backend, tmp_path, request) -> Settings:
    """Settings on the chosen backend: a temp SQLite file, or a fresh PostgreSQL database dropped afterwards."""
    if backend == "sqlite":
        yield Settings(data_dir=tmp_path / "data")
        return
    url = fresh_pg_database(request.node.name)
    yield Settings(data_dir=tmp_path / "data", database_url=url)
    drop_pg_database(url)


@pytest.fixture
def backend_svc(backend_settings, e5) -> MemoryService:
    """``svc`` on each backend (real offline embedder)."""
    yield from _service(backend_settings, e5)


@pytest.fixture
def backend_plumbing_svc(backend_settings, hash_embedder) -> MemoryService:
    """``plumbing_svc`` on each backend (hash embedder)."""
    yield from _service(backend_settings, hash_embedder)


def worker_context():
    """A multiprocessing context for tests that need several real processes: a forkserver that imports the engine
    and LanceDB once per run (a spawned child would spend seconds importing them; see forkserver_preload.py). The
    server imports LanceDB but never opens it, so it forks with no LanceDB work in flight (LanceDB resets its async
    runtime in a forked child); its fork warning is silenced."""
    import multiprocessing as mp

    # Streamlit's AppTest installs the app script as ``__main__`` and leaves it there; a child started afterwards
    # would re-run backoffice.py as its main module. Children must start from pytest's own main module.
    sys.modules["__main__"] = _PYTEST_MAIN
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(["memory.service", "memory.write.batch", "memory.profile", "forkserver_preload"])
    os.environ.setdefault("PYTHONWARNINGS", "ignore:lancedb fork support:RuntimeWarning")
    # Python 3.11's forkserver does not take this process's sys.path, so it is started (once) with this folder on
    # its PYTHONPATH, where it finds forkserver_preload (which takes the folder off again for the children).
    from multiprocessing import forkserver

    before = os.environ.get("PYTHONPATH")
    # the checkout under test goes first too: the children must run this code, not an installed copy elsewhere
    here = os.path.dirname(os.path.abspath(__file__))
    os.environ["PYTHONPATH"] = os.pathsep.join([here, os.path.dirname(here), *([before] if before else [])])
    try:
        forkserver.ensure_running()
    finally:
        if before is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = before
    return ctx
