"""CPU cost of importing LanceDB in a fresh process: plain ``import lancedb`` vs ``memory.storage.lance``'s import
(the REST catalog client's API modules deferred), measured side by side, interleaved, in one run.

    python bench/index_import.py [--runs 5]

Every process that opens the index pays this once (the chat CLI, the back office, the doors). Prints p50 / max
and writes ``bench/results/index_import.json`` with the machine's load.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.cli_start import run_once  # noqa: E402  (the one way benchmarks time a fresh process's CPU)

CASES = {
    "plain": "import lancedb",
    "memlens": "from memory.storage.lance import import_lancedb\nimport_lancedb()",
    "interpreter": "pass",
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    samples: dict[str, list[float]] = {name: [] for name in CASES}
    for _ in range(args.runs):
        for name, code in CASES.items():
            samples[name].append(run_once([], env, code)[0])
    result = {
        name: {"cpu_s_p50": round(statistics.median(v), 3), "cpu_s_max": round(max(v), 3)}
        for name, v in samples.items()
    }
    saved = result["plain"]["cpu_s_p50"] - result["memlens"]["cpu_s_p50"]
    for name, r in result.items():
        print(f"{name:<12} CPU p50 {r['cpu_s_p50']:.2f} s  max {r['cpu_s_max']:.2f} s")
    load = os.getloadavg()
    print(f"saved per process {saved:.2f} s CPU · machine load {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}")
    out = {
        "runs": args.runs,
        "cases": result,
        "saved_cpu_s_p50": round(saved, 3),
        "load_avg_1_5_15": [round(x, 2) for x in load],
        "cpus": os.cpu_count(),
    }
    path = ROOT / "bench" / "results" / "index_import.json"
    path.write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
