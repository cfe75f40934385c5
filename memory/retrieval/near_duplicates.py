"""Near-duplicates among one search's candidates: what the agent passes over so the next memory takes the place.

A conversation says the same thing many times ("see you tomorrow!", a plan restated, a fact extracted twice from two
messages). Two candidates whose vectors are within ``near_duplicate_cosine`` of each other bring the prompt one thing
at twice the price and push the memory that would say something new out of the top k. So the cut
(:func:`memory.retrieval.recall.rank_and_cut`) passes over a candidate that close to a better-ranked *selected* one:
it passed, it is not selected, it takes no place (``drop_reason`` :data:`NEAR_DUPLICATE`), and the retrieval log shows
it like every other verdict. Measured on left-out LoCoMo conversations (docs/retrieval.md): with the ±3 window and
the composer's rank-order cap, open-domain recall@10 45.3 → 52.1 at fewer tokens.

Only what the agent injects passes over (the setting is on the agent's policy); a door's search (mem0, the LangGraph
store, MCP, REST) returns every match its contract promises, near-identical ones included
(``MemoryService.door_search`` turns it off).

The pairs are computed once per search, among the candidates, at the policy's cosine (so the evaluation can replay
that cosine, or a stricter one, on cached questions without asking again). Vectors come from this process's vector
cache when it holds the user, else from the index: the same stored float32 vectors either way, so the verdicts
agree.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memory.retrieval.hits import Hit
    from memory.storage.store import Storage
    from memory.storage.vector_cache import UserVectors

#: why a candidate passed but was left out: a better-ranked selected one says nearly the same (cosine ≥ the setting)
NEAR_DUPLICATE = "near-duplicate of"
Pairs = dict[str, dict[str, float]]  # memory id → {near-identical memory id: cosine}


def pairs(store: Storage, user_key: str, ids: Iterable[str], cosine: float, cached: UserVectors | None) -> Pairs:
    """Every pair of the user's memories ``ids`` whose vectors are within ``cosine`` (symmetric; empty when ``cosine``
    is 0, off). ``cached``: the user's cached vectors the search used, if any."""
    import numpy as np

    wanted = list(dict.fromkeys(ids))
    if cosine <= 0 or len(wanted) < 2:
        return {}
    found = cached.unit_vectors(wanted) if cached is not None else {}
    if missing := [i for i in wanted if i not in found]:  # not cached, or rows another process added since
        found.update(store.index.unit_vectors(user_key, missing))
    held = [i for i in wanted if i in found]
    if len(held) < 2:
        return {}
    matrix = np.stack([found[i] for i in held])
    sims = matrix @ matrix.T
    out: Pairs = {}
    for a, b in zip(*np.nonzero(np.triu(sims >= cosine, k=1)), strict=True):
        s = float(sims[a, b])
        out.setdefault(held[a], {})[held[b]] = s
        out.setdefault(held[b], {})[held[a]] = s
    return out


def twin(near: Mapping[str, float], chosen: Mapping[str, int], cosine: float) -> int | None:
    """The rank of the best-ranked selected memory (``chosen``: id → rank) within ``cosine`` of a candidate whose
    near-identical candidates are ``near`` (id → cosine), if any."""
    if cosine <= 0:
        return None
    ranks = [chosen[o] for o, s in near.items() if s >= cosine and o in chosen]
    return min(ranks) if ranks else None


def passed_over(hit: Hit) -> bool:
    """Whether the cut passed this hit over as a near-duplicate (a ranking of what the agent draws from leaves it out,
    as the LongMemEval evaluation does)."""
    return (hit.drop_reason or "").startswith(NEAR_DUPLICATE)
