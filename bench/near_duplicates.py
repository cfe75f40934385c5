"""What passing over near-duplicates costs a recall: `python bench/near_duplicates.py [DATA_DIR] [--queries N]`.

Asks LoCoMo's questions of each conversation's user in a store the evaluation ingested through the product's write
path (`memlens eval calibrate …` / `bench/calibrate.py` leave one in their data folder; default
``$MEMLENS_DATA_DIR``), alternating the agent's policy with the pass-over on (``near_duplicate_cosine`` 0.95, the
default) and off (0), vector cache on as users have it, and prints p50/p95 of each, the pairs' own cost
(``near_duplicates.pairs`` on the search's candidates, from the cache and from the index) and the floor (the query's
embedding alone) measured in the same run. Writes ``bench/results/near_duplicates.json``. Numbers only.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "locomo_dev.json"


def _pct(values: list[float]) -> dict[str, float]:
    values = sorted(values)
    return {
        "p50_ms": round(statistics.median(values), 2),
        "p95_ms": round(values[int(0.95 * (len(values) - 1))], 2),
        "n": len(values),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data_dir", nargs="?", default=os.environ.get("MEMLENS_DATA_DIR"))
    ap.add_argument("--queries", type=int, default=100, help="questions per conversation")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "near_duplicates.json"))
    args = ap.parse_args()
    if not args.data_dir:
        raise SystemExit("give the data folder of an ingested LoCoMo store (or set MEMLENS_DATA_DIR)")
    from memory.config import Settings
    from memory.evaluation.locomo import load
    from memory.retrieval import near_duplicates
    from memory.retrieval.recall import gather
    from memory.service import MemoryService

    svc = MemoryService(Settings(data_dir=Path(args.data_dir)))
    on, off = svc.recall_policy(), svc.recall_policy(near_duplicate_cosine=0.0)
    times: dict[str, list[float]] = {"on": [], "off": [], "pairs_cached": [], "pairs_index": [], "embed_query": []}
    passed_over = asked = 0
    for sample in load(DATA):
        user = svc.get_user(sample.user_id)
        svc.storage.index.preload(user.key)
        for q in sample.questions[: args.queries]:
            for name, policy in (("on", on), ("off", off)) if asked % 2 else (("off", off), ("on", on)):
                t = time.perf_counter()
                res = svc.recall(sample.user_id, q.question, policy=policy, log=False)
                times[name].append((time.perf_counter() - t) * 1000)
                if name == "on":
                    passed_over += sum(near_duplicates.passed_over(h) for h in res.hits)
            sig = gather(svc.storage, user_key=user.key, agent_id=None, query=q.question, params=off)
            ids = [m.id for m in sig.rows]
            cached = svc.storage.index.cached(user.key)
            for name, source in (("pairs_cached", cached), ("pairs_index", None)):
                t = time.perf_counter()
                near_duplicates.pairs(svc.storage, user.key, ids, on.near_duplicate_cosine, source)
                times[name].append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            svc.storage.embedder.embed_query(q.question)
            times["embed_query"].append((time.perf_counter() - t) * 1000)
            asked += 1
    svc.close()
    out = {
        "benchmark": "near-duplicate pass-over cost",
        "questions": asked,
        "candidates_pool": on.pool,
        "passed_over_per_question": round(passed_over / asked, 2) if asked else 0.0,
        "load_average": os.getloadavg(),
        **{name: _pct(v) for name, v in times.items()},
    }
    Path(args.out).write_text(json.dumps(out, indent=1), encoding="utf-8")
    for name in times:
        print(f"{name:>13}: p50 {out[name]['p50_ms']:7.2f} ms  p95 {out[name]['p95_ms']:7.2f} ms  (n {out[name]['n']})")
    print(f"passed over per question (k {on.k}): {out['passed_over_per_question']}  → {args.out}")


if __name__ == "__main__":
    main()
