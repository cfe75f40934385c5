"""The vectors of recently searched users, held in this process's memory: a recall's vector search becomes one
matrix product instead of a LanceDB query (at 1,000 memories per user ~1.5 ms against 9–20 ms).

Why it can be trusted:

- **One table version.** LanceDB numbers every commit. The cache holds rows as of one version of the table; a search
  first reads the table's current version (a ~1 ms manifest check) and, when another writer moved it, throws every
  entry away. What is stale is never searched.
- **Write-through.** This process's own writes (:class:`~memory.storage.vectors.VectorIndex`'s add, upsert, delete,
  retype, delete-user) are applied to the cached users when the write was the table's only commit (version before
  + 1 = version after); otherwise everything is dropped. A chat turn's write-behind therefore keeps its user's entry.
- **A miss costs what it cost before.** The search goes to LanceDB as without a cache, and the user's rows are loaded
  in the background (one scan) for the next search; a load that a write overtook is discarded.
- **Bounded.** Entries are evicted least-recently-used past ``budget_bytes`` (``MEMLENS_VECTOR_CACHE_MB``; 0 turns the
  cache off); a user whose vectors alone exceed the budget is never cached and keeps LanceDB's vector index.

The search is exact (cosine over every active row of the user), so it returns what an exact LanceDB scan returns;
the SQL join after it stays the truth for status and ownership either way.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

#: appended blocks are merged into one matrix past this many (a block per write keeps a write O(rows written))
MAX_BLOCKS = 16


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """``vectors`` (one vector, or rows of them) as float32 rows scaled to unit length (a zero row stays zero):
    cosine is then a dot product."""
    import numpy as np

    raw = np.atleast_2d(np.asarray(vectors, dtype=np.float32))
    norms = np.linalg.norm(raw, axis=1, keepdims=True)
    return (raw / np.where(norms > 0, norms, 1.0)).astype(np.float32, copy=False)


@dataclass
class _Block:
    ids: list[str]
    agents: np.ndarray  # str per row
    matrix: np.ndarray  # float32 (n, dim), rows scaled to unit length
    alive: np.ndarray  # bool per row: False once deleted or replaced


@dataclass
class UserVectors:
    """One user's active rows in the index."""

    blocks: list[_Block] = field(default_factory=list)
    where: dict[str, tuple[int, int]] = field(default_factory=dict)  # id → (block, row)

    @property
    def nbytes(self) -> int:
        return sum(b.matrix.nbytes + 64 * len(b.ids) for b in self.blocks)

    def append(self, ids: list[str], agents: list[str], vectors: np.ndarray) -> None:
        """Add rows (an id already held is replaced: its old row is marked dead)."""
        import numpy as np

        if not ids:
            return
        self.remove(ids)
        matrix = unit_rows(vectors)
        n = len(self.blocks)
        self.blocks.append(_Block(list(ids), np.asarray(agents, dtype=object), matrix, np.ones(len(ids), bool)))
        for row, mid in enumerate(ids):
            self.where[mid] = (n, row)
        if len(self.blocks) > MAX_BLOCKS:
            self._merge()

    def remove(self, ids: Iterable[str]) -> None:
        for mid in ids:
            at = self.where.pop(mid, None)
            if at is not None:
                self.blocks[at[0]].alive[at[1]] = False

    def _merge(self) -> None:
        import numpy as np

        ids = [i for b in self.blocks for i, a in zip(b.ids, b.alive, strict=True) if a]
        agents = np.concatenate([b.agents[b.alive] for b in self.blocks])
        matrix = np.concatenate([b.matrix[b.alive] for b in self.blocks])
        self.blocks = [_Block(ids, agents, matrix, np.ones(len(ids), bool))]
        self.where = {mid: (0, row) for row, mid in enumerate(ids)}

    def similarity(self, qvec: np.ndarray, ids: Iterable[str]) -> dict[str, float]:
        """Cosine similarity of the query to each of ``ids`` held here (ids not held are left out)."""
        q = unit_rows(qvec)[0]
        return {mid: float(v @ q) for mid, v in self.unit_vectors(ids).items()}

    def unit_vectors(self, ids: Iterable[str]) -> dict[str, np.ndarray]:
        """The unit-length vector of each of ``ids`` held here (ids not held are left out)."""
        out: dict[str, np.ndarray] = {}
        for mid in ids:
            at = self.where.get(mid)
            if at is not None:
                out[mid] = self.blocks[at[0]].matrix[at[1]]
        return out

    def search(self, qvecs: np.ndarray, agent_id: str | None, limit: int) -> list[list[tuple[str, float]]]:
        """Per query vector, the ``limit`` nearest live rows (of ``agent_id`` when given): (id, cosine distance),
        best first — what LanceDB's exact cosine search returns."""
        import numpy as np

        q = unit_rows(qvecs)
        found: list[list[tuple[str, float]]] = [[] for _ in range(len(q))]
        for b in self.blocks:
            keep = b.alive if agent_id is None else b.alive & (b.agents == agent_id)
            live = int(keep.sum())
            if not live:
                continue
            sims = q @ b.matrix.T  # (queries, rows): over the whole block, then masked (cheaper than copying rows)
            if live < len(keep):
                sims[:, ~keep] = -np.inf
            take = min(limit, live)
            for qi, s in enumerate(sims):
                top = np.argpartition(-s, take - 1)[:take] if take < len(s) else np.flatnonzero(keep)
                found[qi] += [(b.ids[t], 1.0 - float(s[t])) for t in top if keep[t]]
        return [sorted(hits, key=lambda h: (h[1], h[0]))[:limit] for hits in found]


class VectorCache:
    """Users' vectors as of one table version (module docstring). Thread-safe."""

    def __init__(self, budget_bytes: int) -> None:
        self.budget = budget_bytes
        self.version: int | None = None  # the table version every entry holds
        self._users: OrderedDict[str, UserVectors] = OrderedDict()
        self._loading: str | None = None  # the user being loaded (one load at a time)
        self._lock = threading.Lock()
        self.hits = self.misses = self.loads = self.drops = 0

    @property
    def enabled(self) -> bool:
        return self.budget > 0

    def lookup(self, user_key: str, version: int) -> UserVectors | None:
        """The user's entry when it holds ``version`` (the table's current one); a newer version empties the cache."""
        with self._lock:
            if version != self.version:
                self._clear(version)
            entry = self._users.get(user_key)
            if entry is None:
                self.misses += 1
                return None
            self._users.move_to_end(user_key)
            self.hits += 1
            return entry

    def empty(self) -> bool:
        """Holds no user (a write then has nothing to keep up to date)."""
        return not self._users

    def holds(self, user_key: str) -> bool:
        """Whether the user's vectors are cached now (for the latency bench's cold-start figure; counts nothing)."""
        return user_key in self._users

    def start_load(self, user_key: str) -> tuple[int | None, bool]:
        """(the version a load must hold to be kept, whether this caller should load: no load is running — one at a
        time, so a burst of new users costs one background scan after another, not one thread each)."""
        with self._lock:
            if self._loading is not None or user_key in self._users:
                return self.version, False
            self._loading = user_key
            return self.version, True

    def finish_load(self, user_key: str, entry: UserVectors | None, version: int | None) -> None:
        """Keep a loaded entry when no write moved the table since ``version`` was read and it fits the budget."""
        with self._lock:
            self._loading = None
            if entry is None or version is None or version != self.version or entry.nbytes > self.budget:
                return
            self._users[user_key] = entry
            self.loads += 1
            total = sum(e.nbytes for e in self._users.values())
            while total > self.budget and len(self._users) > 1:
                _, gone = self._users.popitem(last=False)
                total -= gone.nbytes

    def written(
        self,
        before: int | None,
        after: int | None,
        *,
        added: Iterable[tuple[str, str, str, np.ndarray]] = (),
        removed: Iterable[str] = (),
        removed_users: Iterable[str] = (),
    ) -> None:
        """This process committed a write: ``added`` rows (user key, id, agent, vector), ``removed`` ids,
        ``removed_users``. Applied when the cache held ``before`` and the write was the only commit since;
        otherwise every entry is dropped."""
        import numpy as np

        with self._lock:
            if before is None or after is None or before != self.version or after not in (before, before + 1):
                self._clear(None)
                return
            self.version = after
            removed = list(removed)
            for key in removed_users:
                self._users.pop(key, None)
            if removed:
                for entry in self._users.values():
                    entry.remove(removed)
            by_user: dict[str, list[tuple[str, str, np.ndarray]]] = {}
            for key, mid, agent, vec in added:
                if key in self._users:
                    by_user.setdefault(key, []).append((mid, agent, vec))
            for key, rows in by_user.items():
                self._users[key].append([r[0] for r in rows], [r[1] for r in rows], np.vstack([r[2] for r in rows]))

    def clear(self) -> None:
        with self._lock:
            self._clear(None)

    def _clear(self, version: int | None) -> None:
        if self._users:
            self.drops += 1
        self._users.clear()
        self.version = version
