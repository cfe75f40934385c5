"""The LanceDB side: one table of retrievable memories with cosine vectors and a full-text index.

The table is derived from SQL (``Memory`` rows with status ``active``) and can be rebuilt at any time. Filters are
SQL strings in LanceDB, so only validated keys go into them, and every literal is quoted by :func:`sql_literal`.
Full text uses the ICU word segmenter, which splits Chinese into words (the default tokenizer finds nothing in
Chinese) and English with stemming.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import re
import shutil
import threading
import time
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal

from tenacity import retry, retry_if_exception, stop_after_attempt, wait_random_exponential

from memory.errors import ConfigError
from memory.storage.lance import import_lancedb
from memory.storage.vector_cache import UserVectors, VectorCache, unit_rows
from memory.text.stopwords import STOP_WORDS
from memory.vocab import MemoryStatus

if TYPE_CHECKING:  # lancedb + pyarrow (+ numpy) cost ~2 s of CPU to import: only commands that touch the index pay
    import numpy as np
    import pyarrow as pa
    from lancedb.table import Table

log = logging.getLogger(__name__)

TABLE = "memories"
#: how long after the manifests' folder last changed a version read must be made to stand in for later reads while
#: the folder stays unchanged (:meth:`VectorIndex._version`): a commit after that read moves the folder's mtime
VERSION_STAT_SLACK_NS = 2_000_000_000
_KEY_RE = re.compile(r"^[A-Za-z0-9_.:-]{1,128}\Z")
#: unindexed rows tolerated before the FTS index is refreshed (they are still searched, only slower)
OPTIMIZE_EVERY = 2000
#: appends (each one a new small fragment) tolerated before compacting: 300 one-row fragments made a 10k-row user's
#: search 5× slower (31 → 154 ms); compacting costs 0.3-0.7 s, i.e. ~10 ms per append amortised
OPTIMIZE_EVERY_APPENDS = 50

#: scalar indices of the prefilter's columns, so a search's ``where`` is answered from indices and never reads a
#: column row by row (at 100k memories per user, checking status and agent id on every row of the user cost ~50 ms)
SCALAR_INDICES: dict[str, Literal["BTREE", "BITMAP"]] = {
    "user_key": "BTREE",
    "status": "BITMAP",
    "agent_id": "BITMAP",
    "type": "BITMAP",
}

# The vector index (docs/retrieval.md, "Latency at 10k and 100k memories per user"). Below the threshold a search
# scans the user's rows exactly (the BTREE on user_key finds them); past it, an IVF_SQ index (8-bit scalar
# quantisation: a quarter of the bytes of a float32 scan, and measured top-10 = the exact search's) is searched with
# the user prefilter, and the best ``REFINE_FACTOR`` × limit candidates are re-ranked on their full vectors, so the
# distances returned stay exact. IVF_PQ lost a quarter of the exact top-10 at refine 5 (e5 vectors crowd into a narrow
# cone) and took 260 s to train at 200k rows; IVF_RQ took 110 s; IVF_SQ 10-20 s.
#: rows in the table from which vector search goes through the IVF_SQ index
VECTOR_INDEX_MIN_ROWS = 20_000
#: rows per IVF partition when (re)training: ~100 partitions at 200k rows
VECTOR_PARTITION_ROWS = 2048
#: the index is trained again once the table holds this many times the rows it was trained on (in between,
#: ``optimize`` files new rows into the existing partitions): partitions stay near their size, at log-many rebuilds
VECTOR_INDEX_REGROW = 2.0
#: partitions probed at least; more (up to all) when those hold fewer of the user's rows than the limit asks for
NPROBES = 40
#: candidates scored on the quantised codes per row returned, then re-ranked on the full vectors
REFINE_FACTOR = 2
#: where the row count the vector index was trained on is kept: the vector column's metadata, in the table manifest
TRAINED_ROWS_KEY = "lancedb:tag:memlens-trained-rows"


def _commit_conflict(exc: BaseException) -> bool:
    """Lance commits optimistically: a writer preempted by another process's commit gets a retryable error (nothing
    of its own was committed, so doing it again is safe)."""
    text = str(exc).lower()
    return isinstance(exc, RuntimeError | OSError | ValueError) and ("commit conflict" in text or "preempted" in text)


#: decorator for every index write: several app processes share one LanceDB table
retry_conflicts = retry(
    retry=retry_if_exception(_commit_conflict),
    stop=stop_after_attempt(8),
    wait=wait_random_exponential(multiplier=0.02, max=1.0),
    reraise=True,
)


def sql_literal(value: str) -> str:
    """Quote a value for a LanceDB (DataFusion SQL) filter; refuses anything but plain key characters."""
    if not _KEY_RE.match(value):
        raise ValueError(f"refusing to put {value!r} into an index filter")
    return "'" + value.replace("'", "''") + "'"


@dataclass(frozen=True)
class IndexRow:
    id: str
    user_key: str
    agent_id: str
    text: str
    vector: np.ndarray
    type: str
    created_at: datetime
    status: str = MemoryStatus.ACTIVE


class VectorIndex:
    """Add, search (vector / full text), delete and rebuild over one LanceDB table."""

    def __init__(self, uri: str, dim: int, cache_bytes: int = 0) -> None:
        self.uri = uri
        self.dim = dim
        #: users' vectors in this process's memory (:mod:`memory.storage.vector_cache`); 0 bytes = off
        self.cache = VectorCache(cache_bytes)
        #: ((inode, mtime) of the manifests' folder, the version read then, whether that read may stand in later)
        self._seen_version: tuple[tuple[int, int], int, bool] | None = None
        self._db = import_lancedb().connect(uri, read_consistency_interval=timedelta(0))
        self._tbl: Table | None = None
        self._since_optimize = 0
        self._appends = 0
        self._lock = threading.Lock()  # threads of one process share the index: open or create the table once
        local = "://" not in uri
        if local:
            os.makedirs(uri, exist_ok=True)
        self._lock_path = os.path.join(uri, ".memlens-index.lock") if local else None

    @contextlib.contextmanager
    def locked(self, exclusive: bool = False):
        """Cross-process lock on the index folder: every read and write holds it shared; the maintenance that
        unlinks old files (:meth:`reclaim`, :meth:`drop`) holds it exclusive, so it never removes a file another
        process is still reading or about to commit. (Remote object stores have no such lock: nothing is unlinked
        early there, old versions age out.)"""
        if self._lock_path is None:
            yield
            return
        try:
            fd = os.open(self._lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        except PermissionError:  # a read-only data folder (memory.storage.db.read_only_reason): this process reads
            try:
                fd = os.open(self._lock_path, os.O_RDONLY)  # flock needs no write access
            except OSError:  # no lock file, and none can be made: no MemLens process has written this index here
                yield
                return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
            yield
        finally:
            os.close(fd)  # closing the descriptor releases the lock

    # -- table lifecycle -------------------------------------------------------------------------------------
    def _schema(self) -> pa.Schema:
        import pyarrow as pa

        return pa.schema(
            [
                pa.field("id", pa.string(), nullable=False),
                pa.field("user_key", pa.string(), nullable=False),
                pa.field("agent_id", pa.string(), nullable=False),
                pa.field("text", pa.string(), nullable=False),
                pa.field("vector", pa.list_(pa.float32(), self.dim)),
                pa.field("type", pa.string()),
                pa.field("status", pa.string()),
                pa.field("created_at", pa.timestamp("us")),
            ]
        )

    @property
    def table(self):
        if self._tbl is None:
            with self._lock:
                if self._tbl is None:
                    with self.locked():
                        self._tbl = self._open_or_create()
        return self._tbl

    def _open_or_create(self):
        if TABLE in self._db.list_tables().tables:
            tbl = self._db.open_table(TABLE)
            have = tbl.schema.field("vector").type.list_size
            if have != self.dim:
                raise ConfigError(
                    f"the index holds {have}-d vectors but the embedder gives {self.dim}-d: run `memlens reindex`"
                )
            # appends by earlier processes (one CLI call = one fragment) count towards the next compaction
            self._appends = tbl.stats()["fragment_stats"]["num_small_fragments"]
            return tbl
        return self._create()

    @retry_conflicts
    def _create(self):
        tbl = self._db.create_table(TABLE, schema=self._schema(), exist_ok=True)
        self._ensure_indices(tbl)
        return tbl

    @classmethod
    def _ensure_indices(cls, tbl: Table) -> None:
        """Every index a new (or rewritten) table needs: full text, the prefilter's scalar indices, and the vector
        index when the table is already past :data:`VECTOR_INDEX_MIN_ROWS`."""
        cls._create_text_index(tbl)
        for column, kind in SCALAR_INDICES.items():
            tbl.create_scalar_index(column, index_type=kind, replace=True)
        cls._maintain_vector_index(tbl, None)

    @staticmethod
    def _create_text_index(tbl: Table) -> None:
        """The full-text index: ICU words (Chinese segmented too), lower-cased, English stems, and our own stop words
        (:mod:`memory.text.stopwords`: ICU's default list drops ordinary English words)."""
        from lancedb.index import FTS

        config = FTS(base_tokenizer="icu", language="English", stem=True, custom_stop_words=list(STOP_WORDS))
        tbl.create_index("text", config=config, replace=True)

    @staticmethod
    def _text_index_current(cfg: Any) -> bool:
        """Whether the table's full-text index was built with today's stop words (a table made before
        :mod:`memory.text.stopwords` has ICU's default list)."""
        details = getattr(cfg, "index_details", None) or {}
        return set(details.get("custom_stop_words") or []) == set(STOP_WORDS)  # as a set: order is not ours to keep

    @classmethod
    def _refresh_text_index(cls, tbl: Table, cfg: Any) -> bool:
        """Rebuild the full-text index ``cfg`` when it was built with other stop words; True when it was."""
        if cfg is None or cls._text_index_current(cfg):
            return False
        cls._create_text_index(tbl)
        return True

    @retry_conflicts
    def refresh_text_index(self) -> bool:
        """The start-up check's step (``memory.storage.integrity``): an index built before today's stop words is
        rebuilt once, when a process first opens it, so an upgrade finds "dog" at once (not at the next optimize)."""
        with self.locked():
            tbl = self.table
            return self._refresh_text_index(tbl, next((c for c in tbl.list_indices() if c.columns == ["text"]), None))

    @classmethod
    def _maintain_indices(cls, tbl: Table) -> None:
        """Add the scalar indices a table made by an older version lacks, rebuild a full-text index made with other
        stop words, and build or retrain the vector index (:meth:`_maintain_vector_index`). Runs in :meth:`optimize`,
        never on a read path."""
        have = {cfg.columns[0]: cfg for cfg in tbl.list_indices()}
        cls._refresh_text_index(tbl, have.get("text"))
        for column, kind in SCALAR_INDICES.items():
            if column not in have:
                tbl.create_scalar_index(column, index_type=kind, replace=True)
        cls._maintain_vector_index(tbl, "vector" in have)

    @retry_conflicts
    def build_vector_index(self) -> None:
        """Train the vector index now, whatever the table's size (the latency bench times it; the product builds it
        only through :meth:`optimize`)."""
        self.cache.clear()
        with self.locked():
            self._maintain_vector_index(self.table, exists=False, force=True)

    @staticmethod
    def _maintain_vector_index(tbl: Table, exists: bool | None, force: bool = False) -> None:
        """Build the IVF_SQ index once the table passes :data:`VECTOR_INDEX_MIN_ROWS`, and train it again when the
        table has grown :data:`VECTOR_INDEX_REGROW` times past the rows it was trained on. ``exists`` None: look.
        (Rows added since the last build are searched exactly until ``optimize`` files them into the index; a
        smaller table is always searched exactly.)"""
        rows = tbl.count_rows()
        if rows < VECTOR_INDEX_MIN_ROWS and not force:
            return
        if exists is None:
            exists = any(cfg.columns == ["vector"] for cfg in tbl.list_indices())
        trained = int((tbl.schema.field("vector").metadata or {}).get(TRAINED_ROWS_KEY.encode(), b"0"))
        if exists and rows < trained * VECTOR_INDEX_REGROW and not force:
            return
        from lancedb.index import IvfSq

        config = IvfSq(distance_type="cosine", target_partition_size=VECTOR_PARTITION_ROWS)
        tbl.create_index("vector", config=config, replace=True)
        tbl.update_field_metadata({"path": "vector", "metadata": {TRAINED_ROWS_KEY: str(rows)}})

    def drop(self) -> None:
        """Remove the table, also when it is damaged (a data file or the version folder gone): the index is derived
        from SQL, so ``reindex`` must be able to start from nothing whatever state the folder is in."""
        self.cache.clear()
        with self.locked(exclusive=True):
            self._tbl = None
            with contextlib.suppress(OSError, RuntimeError, ValueError):
                if TABLE in self._db.list_tables().tables:
                    self._db.drop_table(TABLE)
            folder = os.path.join(self.uri, f"{TABLE}.lance")
            if self._lock_path is not None and os.path.isdir(folder):
                shutil.rmtree(folder)
            self._db = import_lancedb().connect(self.uri, read_consistency_interval=timedelta(0))

    # -- the vector cache (memory/storage/vector_cache.py) ---------------------------------------------------
    def _version(self) -> int:
        """The table's current version. Reading it is a manifest check (~1–4 ms: the connection reads with
        consistency interval 0); in a local folder a ``stat`` of the manifests' folder (µs) stands in for it while
        that folder is unchanged since a read made :data:`VERSION_STAT_SLACK_NS` after its last change (every commit
        adds a manifest there; the slack covers file systems whose timestamps are coarse)."""
        stamp = None
        if self._lock_path is not None:
            try:
                st = os.stat(os.path.join(self.uri, f"{TABLE}.lance", "_versions"))
                stamp = (st.st_ino, st.st_mtime_ns)
            except OSError:
                stamp = None
            seen = self._seen_version
            if stamp is not None and seen is not None and seen[0] == stamp and seen[2]:
                return seen[1]
        read_at = time.time_ns()
        version = int(self.table.version)
        if stamp is not None:
            self._seen_version = (stamp, version, read_at - stamp[1] > VERSION_STAT_SLACK_NS)
        return version

    @contextlib.contextmanager
    def _writing(
        self, rows: Sequence[IndexRow] = (), removed: Sequence[str] = (), removed_users: Sequence[str] = ()
    ) -> Iterator[None]:
        """Around one commit of this process: tell the cache what it changed (applied only when it was the table's
        only commit since the cache's version). A failed write leaves the cache as it was, but stale for the next
        search only if a commit happened: the version check catches that. With no user cached there is nothing to keep
        up to date: the version is not read (two reads per write), the cache only forgets the one it held."""
        if self.cache.empty():
            self.cache.clear()  # a load still running started before this write: it is discarded
            yield
            return
        before = self._version()
        yield
        self.cache.written(
            before,
            self._version(),
            added=[(r.user_key, r.id, r.agent_id, r.vector) for r in rows if r.status == MemoryStatus.ACTIVE],
            removed=[*removed, *(r.id for r in rows if r.status != MemoryStatus.ACTIVE)],
            removed_users=removed_users,
        )

    def cached(self, user_key: str, extra: str | None = None, exact: bool = False) -> UserVectors | None:
        """The user's cached vectors as of the table's current version, when a search can use them (no extra filter,
        not the exact reference scan); on a miss, a background load of them for the next search."""
        if not self.cache.enabled or exact or extra:
            return None
        entry = self.cache.lookup(user_key, self._version())
        if entry is None:
            version, mine = self.cache.start_load(user_key)
            if mine:
                threading.Thread(
                    target=self._load, args=(user_key, version), daemon=True, name="memlens-vcache"
                ).start()
        return entry

    def preload(self, user_key: str) -> bool:
        """Load the user's vectors into the cache now (in this thread, after a background load already running);
        True when they are cached after it."""
        if not self.cache.enabled:
            return False
        deadline = time.monotonic() + 60
        while self.cache.lookup(user_key, self._version()) is None:
            version, mine = self.cache.start_load(user_key)
            if mine:
                self._load(user_key, version)
                return self.cache.lookup(user_key, self._version()) is not None
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)  # another load is running: one at a time
        return True

    def _load(self, user_key: str, version: int | None) -> None:
        """Read one user's active rows (id, agent, vector) into a cache entry."""
        entry: UserVectors | None = None
        try:
            with self.locked():
                res = (
                    self.table.search()
                    .where(self.scope_filter(user_key, None))
                    .select(["id", "agent_id", "vector"])
                    .limit(None)
                    .to_arrow()
                )
            if res.num_rows * self.dim * 4 <= self.cache.budget:
                entry = UserVectors()
                entry.append(res["id"].to_pylist(), res["agent_id"].to_pylist(), self._matrix(res))
        except Exception:  # noqa: BLE001 — a cache that fails to fill is only a slower search, never a failed one
            log.debug("vector cache: loading a user's vectors failed", exc_info=True)  # no key: logs outlive erasures
            entry = None
        finally:
            self.cache.finish_load(user_key, entry, version)

    # -- writes ----------------------------------------------------------------------------------------------
    def _arrow(self, rows: list[IndexRow]) -> pa.Table:
        import numpy as np
        import pyarrow as pa

        return pa.Table.from_pylist(
            [
                {
                    "id": r.id,
                    "user_key": r.user_key,
                    "agent_id": r.agent_id,
                    "text": r.text,
                    "vector": np.asarray(r.vector, dtype=np.float32).tolist(),
                    "type": r.type,
                    "status": r.status,
                    "created_at": r.created_at,
                }
                for r in rows
            ],
            schema=self._schema(),
        )

    @retry_conflicts
    def add(self, rows: list[IndexRow]) -> None:
        """Append rows whose ids are new (3× cheaper than an upsert; repair uses :meth:`upsert`)."""
        if rows:
            with self.locked(), self._writing(rows):
                self.table.add(self._arrow(rows))
            self._count_and_maybe_optimize(len(rows))

    @retry_conflicts
    def upsert(self, rows: list[IndexRow]) -> None:
        """Insert or replace by id (idempotent: a retried write leaves one row)."""
        if rows:
            with self.locked(), self._writing(rows):
                self.table.merge_insert("id").when_matched_update_all().when_not_matched_insert_all().execute(
                    self._arrow(rows)
                )
            self._count_and_maybe_optimize(len(rows))

    def _count_and_maybe_optimize(self, n: int) -> None:
        self._since_optimize += n
        self._appends += 1
        if self._since_optimize >= OPTIMIZE_EVERY or self._appends >= OPTIMIZE_EVERY_APPENDS:
            self.optimize()

    @retry_conflicts
    def delete(self, ids: list[str]) -> None:
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            with self.locked(), self._writing(removed=chunk):
                self.table.delete("id IN (" + ", ".join(sql_literal(i) for i in chunk) + ")")

    @retry_conflicts
    def retype(self, old: str, new: str) -> int:
        """Rename a memory type in the index's copy of it (a renaming migration); the rows renamed."""
        where = f"type = {sql_literal(old)}"
        with self.locked(), self._writing():  # types are not cached: the entries only move to the new version
            n = int(self.table.count_rows(where))
            if n:
                self.table.update(where=where, values={"type": new})
        return n

    @retry_conflicts
    def delete_user(self, user_key: str) -> None:
        with self.locked(), self._writing(removed_users=[user_key]):
            self.table.delete(f"user_key = {sql_literal(user_key)}")

    @retry_conflicts
    def optimize(self, cleanup: bool = False) -> None:
        """Compact small fragments and fold new rows into the indices. Old versions are left to age out (LanceDB's
        default: 7 days); ``cleanup`` is :meth:`reclaim`, the only way files are unlinked early."""
        if cleanup:
            self.reclaim()
            return
        self.cache.clear()  # compaction and index builds commit several versions: entries are loaded again
        with self.locked():
            self.table.optimize()
            self._maintain_indices(self.table)
        self._since_optimize = self._appends = 0

    @retry_conflicts
    def reclaim(self) -> None:
        """Make deleted text leave the disk now: rewrite the table from its live rows (fragments that held deleted
        rows are not referenced any more, and the full-text index is rebuilt without their words), then unlink
        every older file. Runs under the exclusive lock, so no other process is between reading and committing."""
        table = self.table  # opened before the exclusive lock (opening takes the shared one)
        self.cache.clear()
        with self.locked(exclusive=True):
            live = table.to_arrow()
            tbl = self._db.create_table(TABLE, live, schema=self._schema(), mode="overwrite")
            self._ensure_indices(tbl)
            with warnings.catch_warnings():
                # LanceDB warns that readers or writers of an older version would fail: none can, every other
                # process waits on the exclusive lock held here (the warning reached the terminal of every erasure)
                warnings.filterwarnings("ignore", message=r"optimize\(cleanup_older_than=0\)", category=UserWarning)
                tbl.optimize(cleanup_older_than=timedelta(0), delete_unverified=True)
            self._tbl = tbl
        self._since_optimize = self._appends = 0

    # -- reads -----------------------------------------------------------------------------------------------
    @staticmethod
    def scope_filter(user_key: str, agent_id: str | None, extra: str | None = None) -> str:
        """The per-user prefilter; ``extra`` is a clause built by the caller from validated constants only
        (:meth:`memory.retrieval.filters.RecallFilters.index_clause`)."""
        where = f"user_key = {sql_literal(user_key)} AND status = '{MemoryStatus.ACTIVE}'"
        if agent_id is not None:
            where += f" AND agent_id = {sql_literal(agent_id)}"
        if extra:
            where += f" AND ({extra})"
        return where

    def _vector_query(
        self,
        qvec: np.ndarray,
        user_key: str,
        agent_id: str | None,
        limit: int,
        extra: str | None = None,
        exact: bool = False,
    ):
        """Nearest rows of the user by cosine distance: through the vector index when the table has one (rows not
        yet in it are scanned exactly beside it), prefiltered to the user, the candidates re-ranked on their full
        vectors; ``exact`` scans every row of the user instead (the reference the index is measured against)."""
        with self.locked():
            query = (
                self.table.search(qvec, vector_column_name="vector")
                .distance_type("cosine")
                .where(self.scope_filter(user_key, agent_id, extra), prefilter=True)
                .select(["id", "_distance"])
                .limit(limit)
            )
            if exact:
                query = query.bypass_vector_index()
            else:
                query = query.minimum_nprobes(NPROBES).maximum_nprobes(0).refine_factor(REFINE_FACTOR)
            return query.to_arrow()

    def search_vector(
        self,
        qvec: np.ndarray,
        user_key: str,
        agent_id: str | None,
        limit: int,
        extra: str | None = None,
        *,
        exact: bool = False,
        cached: bool = True,
    ) -> list[tuple[str, float]]:
        """(id, cosine distance) best first (``exact``: without the vector index, see :meth:`_vector_query`;
        ``cached=False``: through LanceDB even when the user's vectors are cached, to measure the index)."""
        import numpy as np

        if cached and (entry := self.cached(user_key, extra, exact)) is not None:
            return entry.search(np.asarray(qvec, dtype=np.float32), agent_id, limit)[0]
        res = self._vector_query(np.asarray(qvec, dtype=np.float32), user_key, agent_id, limit, extra, exact)
        return list(zip(res["id"].to_pylist(), res["_distance"].to_pylist(), strict=True))

    def search_vectors(
        self, qvecs: list[np.ndarray], user_key: str, agent_id: str | None, limit: int, extra: str | None = None
    ) -> list[list[tuple[str, float]]]:
        """:meth:`search_vector` for many query vectors in ONE scan (the write path's batch dedupe): per query,
        (id, cosine distance) best first."""
        if len(qvecs) <= 1:
            return [self.search_vector(q, user_key, agent_id, limit, extra) for q in qvecs]
        import numpy as np

        stacked = np.vstack([np.asarray(q, dtype=np.float32) for q in qvecs])
        if (entry := self.cached(user_key, extra, False)) is not None:
            return entry.search(stacked, agent_id, limit)
        res = self._vector_query(stacked, user_key, agent_id, limit, extra)
        out: list[list[tuple[str, float]]] = [[] for _ in qvecs]
        cols = zip(res["query_index"].to_pylist(), res["id"].to_pylist(), res["_distance"].to_pylist(), strict=True)
        for qi, mid, dist in cols:
            out[qi].append((mid, dist))
        for hits in out:
            hits.sort(key=lambda h: h[1])
        return out

    def search_text(
        self,
        text: str,
        user_key: str,
        agent_id: str | None,
        limit: int,
        extra: str | None = None,
        *,
        vectors: bool = True,
    ) -> list[tuple[str, float, np.ndarray | None]]:
        """(id, BM25 score, vector) best first — the vector lets the caller score full-text-only hits by similarity
        without a second scan; ``vectors=False`` leaves it None (the caller holds the user's vectors in the cache:
        reading the column costs a third of the search). An empty list when the text has no searchable token."""
        if not text.strip():
            return []
        try:
            with self.locked():
                res = (
                    self.table.search(text, query_type="fts", fts_columns="text")
                    .where(self.scope_filter(user_key, agent_id, extra), prefilter=True)
                    .select(["id", "vector", "_score"] if vectors else ["id", "_score"])
                    .limit(limit)
                    .to_arrow()
                )
        except ValueError as exc:  # e.g. a query made only of punctuation: nothing to match
            if "tokens" in str(exc).lower() or "empty" in str(exc).lower():
                return []
            raise
        if not vectors:
            return [(i, score, None) for i, score in zip(res["id"].to_pylist(), res["_score"].to_pylist(), strict=True)]
        return list(zip(res["id"].to_pylist(), res["_score"].to_pylist(), self._matrix(res), strict=True))

    def _matrix(self, res: pa.Table) -> np.ndarray:
        """The ``vector`` column as one float32 (rows, dim) array: one Arrow → numpy copy (a Python float per
        component cost ~5 ms for 100 hits)."""
        import numpy as np

        flat = res["vector"].combine_chunks().flatten().to_numpy(zero_copy_only=False)
        return np.asarray(flat, dtype=np.float32).reshape(res.num_rows, self.dim)

    def similarities(self, qvec: np.ndarray, user_key: str, ids: list[str]) -> dict[str, float]:
        """Cosine similarity of the query to each of the user's rows ``ids``, read from the table (for full-text hits
        a cached entry did not hold yet: rows another process added since; ids not found are left out)."""
        found, matrix = self._unit_rows(user_key, ids)
        return dict(zip(found, (float(x) for x in matrix @ unit_rows(qvec)[0]), strict=True))

    def unit_vectors(self, user_key: str, ids: list[str]) -> dict[str, np.ndarray]:
        """The unit-length vector of each of the user's rows ``ids``, read from the table (ids not found are left
        out; one id stored twice by two racing writers keeps one of its equal vectors)."""
        found, matrix = self._unit_rows(user_key, ids)
        return dict(zip(found, matrix, strict=True))

    def _unit_rows(self, user_key: str, ids: list[str]) -> tuple[list[str], np.ndarray]:
        """(ids found, their vectors scaled to unit length as one matrix): one read of the table."""
        import numpy as np

        if not ids:
            return [], np.zeros((0, self.dim), dtype=np.float32)
        where = f"user_key = {sql_literal(user_key)} AND id IN (" + ", ".join(sql_literal(i) for i in ids) + ")"
        with self.locked():
            res = self.table.search().where(where).select(["id", "vector"]).limit(None).to_arrow()
        return res["id"].to_pylist(), unit_rows(self._matrix(res))

    def ids(self, user_key: str | None = None) -> set[str]:
        return set(self.id_list(user_key))

    def id_list(self, user_key: str | None = None) -> list[str]:
        """Every row's id (with repeats: two processes upserting one id at the same moment can both insert it)."""
        query = self.table.search().select(["id"])
        if user_key is not None:
            query = query.where(f"user_key = {sql_literal(user_key)}")
        with self.locked():
            return query.limit(None).to_arrow()["id"].to_pylist() if self.count(user_key) else []

    def owners(self) -> list[tuple[str, str]]:
        """(id, user_key) of every row, with repeats (see :meth:`id_list`): two narrow columns, for start-up."""
        with self.locked():
            if not self.count():
                return []
            res = self.table.search().select(["id", "user_key"]).limit(None).to_arrow()
        return list(zip(res["id"].to_pylist(), res["user_key"].to_pylist(), strict=True))

    def records(self, width: int) -> np.ndarray | None:
        """Every row's id + user_key as one fixed-width byte record (numpy ``S<width>``, unordered), read and joined in
        Arrow (no Python object per row); None when a row's id + user_key is not ``width`` bytes long."""
        import numpy as np
        import pyarrow as pa
        import pyarrow.compute as pc

        with self.locked():
            if not self.count():
                return np.zeros(0, dtype=f"S{width}")
            res = self.table.search().select(["id", "user_key"]).limit(None).to_arrow()
        joined = pc.binary_join_element_wise(res["id"], res["user_key"], "").combine_chunks()
        try:
            fixed = joined.cast(pa.binary(width))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return None
        data = fixed.buffers()[1]
        return np.frombuffer(data, dtype=f"S{width}", count=len(fixed), offset=fixed.offset * width)

    def count(self, user_key: str | None = None) -> int:
        with self.locked():
            return self.table.count_rows(f"user_key = {sql_literal(user_key)}" if user_key else None)
