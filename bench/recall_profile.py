"""Where one hybrid recall's milliseconds go, at 1,000 and 10,000 memories per user: the embedder, the two index
searches, the SQL join, and the pure ranking (fusion, features, cross-lingual overlap, calibration, cut), then the
top functions of a cProfile of the ranking alone.

    python bench/recall_profile.py [--sizes 1000,10000] [--users 20] [--queries 100] [--top 15]

Same data as ``bench/recall_latency.py`` (its bulk loader and queries). The ranking is re-run on the signals each
query gathered, so its cost is measured apart from the I/O that feeds it.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import json
import os
import pstats
import random
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.recall_latency import QUERIES, bulk_load, pct, sentence  # noqa: E402
from memory.config import Settings  # noqa: E402
from memory.retrieval import recall as recall_mod  # noqa: E402
from memory.service import MemoryService  # noqa: E402
from memory.storage.embed import E5Embedder  # noqa: E402


def _ms(fn, *args, **kwargs):
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, (time.perf_counter() - t0) * 1000


def stages(svc: MemoryService, user: str, n_queries: int) -> tuple[dict, list]:
    """Per query: embed alone, gather (embed + both searches + SQL join), rank_signals; p50/p95 of each."""
    params = svc.recall_policy(mode="hybrid", k=10, threshold=0.0)
    calibration = params.calibration
    key = svc.get_user(user).key
    out: dict[str, list[float]] = {"embed": [], "gather": [], "rank": [], "candidates": []}
    gathered = []
    for i in range(n_queries):
        q = QUERIES[i % len(QUERIES)] + ("" if i < len(QUERIES) else f" #{i}")
        out["embed"].append(_ms(svc.storage.embedder.embed_query, q)[1])
        sig, ms = _ms(recall_mod.gather, svc.storage, user_key=key, agent_id="default", query=q, params=params)
        out["gather"].append(ms)
        hits, ms = _ms(recall_mod.rank_signals, sig, params=params, calibration=calibration)
        out["rank"].append(ms)
        out["candidates"].append(len(hits))
        gathered.append(sig)
    summary = {k: {"p50": round(pct(v, 50), 2), "p95": round(pct(v, 95), 2)} for k, v in out.items()}
    return summary, [(sig, params, calibration) for sig in gathered]


def profile_rank(gathered: list, top: int) -> str:
    """cProfile of rank_signals over every gathered query (fresh copies of their signals)."""
    prof = cProfile.Profile()
    for sig, params, calibration in gathered:
        sig = replace(sig)
        prof.enable()
        recall_mod.rank_signals(sig, params=params, calibration=calibration)
        prof.disable()
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(top)
    return buf.getvalue()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--users", type=int, default=20)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--pool", type=int, default=300)
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "recall_profile.json"))
    args = ap.parse_args()
    rng = random.Random(7)
    embedder = E5Embedder()
    pool_vecs = embedder.embed_passages([sentence(rng) for _ in range(args.pool)])
    results: dict = {"embedder": embedder.name, "users": args.users, "runs": []}
    for size in [int(s) for s in args.sizes.split(",")]:
        with tempfile.TemporaryDirectory() as tmp:
            svc = MemoryService(Settings(data_dir=Path(tmp)), embedder=embedder)
            user = bulk_load(svc, size, args.users, pool_vecs, rng)
            svc.storage.index.optimize()  # as the product does every 2,000 rows: compaction, indices
            svc.warm()  # as a server does before its first request (memory/warm.py)
            svc.recall(user, "warm up", policy=svc.recall_policy(mode="hybrid"), log=False)
            summary, gathered = stages(svc, user, args.queries)
            rank_ms = [_ms(recall_mod.rank_signals, s, params=p, calibration=c)[1] for s, p, c in gathered]
            summary["rank_again"] = {"p50": round(pct(rank_ms, 50), 2), "p95": round(pct(rank_ms, 95), 2)}
            results["runs"].append({"memories_per_user": size, **summary})
            print(f"{size}/user hybrid, {args.queries} queries: " + "  ".join(f"{k} {v}" for k, v in summary.items()))
            print(profile_rank(gathered, args.top))
            svc.close()
            gc.unfreeze()
    results["load_avg_1_5_15"] = [round(x, 2) for x in os.getloadavg()]
    print(f"machine load {results['load_avg_1_5_15']}")
    Path(args.out).write_text(json.dumps(results, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
