"""Shared fixtures: every test gets its own data folder (real SQLite + real LanceDB) and isolated settings.

``e5`` is the real offline embedder, loaded once per run; ``hash_embedder`` is the deterministic one for plumbing.
"""

from __future__ import annotations

import pytest

from memory.config import Settings
from memory.embed import E5Embedder, HashEmbedder
from memory.service import MemoryService


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch, tmp_path):
    """No MEMLENS_* or OpenAI variable from the developer's shell leaks into a test."""
    import os

    for key in list(os.environ):
        if key.startswith("MEMLENS_") or key in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("MEMLENS_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)


@pytest.fixture(scope="session")
def e5() -> E5Embedder:
    return E5Embedder()


@pytest.fixture
def hash_embedder() -> HashEmbedder:
    return HashEmbedder()


@pytest.fixture
def settings(tmp_path) -> Settings:
    return Settings(data_dir=tmp_path / "data")


@pytest.fixture
def svc(settings, e5) -> MemoryService:
    """A service on the real offline embedder."""
    service = MemoryService(settings, embedder=e5)
    yield service
    service.close()


@pytest.fixture
def plumbing_svc(settings, hash_embedder) -> MemoryService:
    """A service on the deterministic hash embedder: for tests where meaning does not matter."""
    service = MemoryService(settings, embedder=hash_embedder)
    yield service
    service.close()
