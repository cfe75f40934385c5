"""What the start-up index check costs: the (id, owner) comparison of SQL and LanceDB against the count comparison it
replaced, at 10,000 and 100,000 memories.

    python bench/startup_check.py [--memories 10000,100000] [--runs 5]

Seeds a throwaway store per size (hash embedder: vectors do not matter here; ten users), then times, best of
``--runs``: the old check (two counts), the new one (``integrity.agrees``: id + owner records of both sides, count and
digest), the detailed comparison repair uses (``integrity.compare``) and the whole ``startup_repair`` as a process
runs it on first opening the index. Prints milliseconds and writes ``bench/results/startup_check.json`` with
the machine's load. (``bench/cli_start.py`` covers the commands that never open the index.)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import func, select  # noqa: E402

from memory.config import Settings  # noqa: E402
from memory.service import MemoryDraft, MemoryService  # noqa: E402
from memory.storage import integrity  # noqa: E402
from memory.storage.embed import HashEmbedder  # noqa: E402
from memory.storage.models import Memory  # noqa: E402
from memory.vocab import MemoryStatus  # noqa: E402

USERS = 10


def best_ms(fn: Callable[[], object], runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return round(best * 1000, 1)


def seed(svc: MemoryService, n: int) -> None:
    rng = np.random.default_rng(0)
    dim = svc.storage.embedder.dim
    for u in range(USERS):
        user = svc.ensure_user(f"user-{u}")
        for start in range(0, n // USERS, 5000):
            k = min(5000, n // USERS - start)
            vecs = rng.standard_normal((k, dim)).astype(np.float32)
            vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
            drafts = [MemoryDraft(content=f"memory {u}-{start + i}") for i in range(k)]
            svc.add_memories(user, drafts, vectors=vecs)


def counts_only(svc: MemoryService) -> bool:
    """The check start-up made before: the active, indexed rows counted in SQL against the index's row count."""
    st = svc.storage
    active = (Memory.status == MemoryStatus.ACTIVE, Memory.indexed == True)  # noqa: E712
    with st.engine.connect() as conn:
        sql_count = conn.execute(select(func.count()).select_from(Memory).where(*active)).scalar_one()
    return st.index.count() == sql_count


def measure(n: int, runs: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="memlens-startup-") as tmp:
        settings = Settings(data_dir=Path(tmp), max_active_memories=10**7)
        svc = MemoryService(settings, embedder=HashEmbedder())
        start = time.perf_counter()
        seed(svc, n)
        seeded = time.perf_counter() - start
        svc.storage.index.optimize()
        st = svc.storage
        row = {
            "memories": st.index.count(),
            "seed_s": round(seeded, 1),
            "counts_only_ms": best_ms(lambda: counts_only(svc), runs),
            "records_agree_ms": best_ms(lambda: integrity.agrees(st), runs),
            "detailed_compare_ms": best_ms(lambda: integrity.compare(st), runs),
            "startup_repair_ms": best_ms(lambda: integrity.startup_repair(st), runs),
        }
        svc.close()
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--memories", default="10000,100000", help="sizes, comma-separated")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "startup_check.json"))
    args = ap.parse_args()
    load_before = [round(x, 2) for x in os.getloadavg()]
    rows = []
    for n in (int(x) for x in args.memories.split(",")):
        rows.append(measure(n, args.runs))
        r = rows[-1]
        print(
            f"{r['memories']:>7} memories: counts only {r['counts_only_ms']} ms · records agree "
            f"{r['records_agree_ms']} ms · detailed compare {r['detailed_compare_ms']} ms · "
            f"startup_repair {r['startup_repair_ms']} ms",
            flush=True,
        )
    out = {
        "runs": args.runs,
        "results": rows,
        "load_avg_before": load_before,
        "load_avg_after": [round(x, 2) for x in os.getloadavg()],
        "cpus": os.cpu_count(),
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
