"""Render time of every back-office page with 100 users × 1,000 memories (target < 1.5 s each).

Data: bench.synthetic bulk rows (100,000 memories with their write log, sessions, turns, retrievals, context
snapshots) indexed with the hash embedder — e5 would take an hour to embed them and says nothing about page speed.
Each page is rendered through Streamlit's AppTest (the real script run, minus the browser) a few times, warm; the
lab is also timed with a query typed in (one real search over the user's 1,000 memories).

    python bench/pages.py [--users 100] [--memories 1000] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)  # this file is called pages.py: keep `import pages` pointing at the app's pages/ package
PAGES = [
    "pages/chat.py",
    "pages/profile.py",
    "pages/memories.py",
    "pages/sessions.py",
    "pages/retrieval_lab.py",
    "pages/context_budget.py",
]


def build(users: int, memories: int) -> float:
    from bench.synthetic import Plan, populate
    from memory.service import MemoryService

    start = time.perf_counter()
    populate(MemoryService(), Plan(users=users, memories_per_user=memories, retrievals_per_user=10))
    return time.perf_counter() - start


def time_page(page: str, runs: int, query: str | None = None) -> list[float]:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "backoffice.py"), default_timeout=120)
    at.run()
    at.switch_page(page).run()
    if query:
        at.text_input(key="lab_query").set_value(query).run()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - start)
        if at.exception:
            raise RuntimeError(f"{page}: {at.exception[0].value}")
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=100)
    ap.add_argument("--memories", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--data", help="reuse a data folder built by an earlier run (skips the build)")
    args = ap.parse_args()
    data = args.data or tempfile.mkdtemp(prefix="memlens-bench-pages-")
    os.environ.update(MEMLENS_DATA_DIR=data, MEMLENS_EMBEDDER="hash")
    seconds = 0.0 if args.data else build(args.users, args.memories)
    print(f"data: {args.users} users × {args.memories} memories in {data} (built in {seconds:.1f} s)")
    rows = {}
    cases = [(p, None) for p in PAGES] + [("pages/retrieval_lab.py", "where does the user live")]
    for page, query in cases:
        name = Path(page).stem + (" (with a query)" if query else "")
        t = sorted(time_page(page, args.runs, query))
        rows[name] = {"p50_s": round(statistics.median(t), 3), "max_s": round(t[-1], 3), "runs": len(t)}
        ok = "ok" if t[-1] < 1.5 else "SLOW"
        print(f"{name:<34} p50 {rows[name]['p50_s']:.3f} s   max {rows[name]['max_s']:.3f} s   {ok}")
    out = {
        "users": args.users,
        "memories_per_user": args.memories,
        "total_memories": args.users * args.memories,
        "build_s": round(seconds, 1),
        "target_s": 1.5,
        "pages": rows,
        "cpu_count": os.cpu_count(),
        "python": sys.version.split()[0],
    }
    path = ROOT / "bench" / "results" / "pages.json"
    path.write_text(json.dumps(out, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
