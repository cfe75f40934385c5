"""Batch ingest on every core: e5 passages/s and LoCoMo turns/s with 1 thread against N, side by side.

    python bench/ingest_threads.py [--data ../shared/data/locomo_dev.json] [--samples 1] [--threads 2]
    python bench/ingest_threads.py --quick    # a subset for a re-run on a quiet machine (~1-2 min)

Two measures, each alternating 1 thread and N threads (A B A B) so both see the same machine load:

- the embedder alone on the LoCoMo turns, twice: on what was said (the messages) and on the turns' episode passages
  (speaker and day in front: what the write path embeds for each turn), ``embed_passages`` inside ``embed_threads(n)``;
- the real ingest path (``memory.evaluation.ingest.ingest_sample``: messages, then ``write_from_messages`` per
  session: an episode of every turn and the facts read from it), into a fresh store each time, with
  ``MEMLENS_EMBED_THREADS`` = 1 or N.

``ingest_over_said`` is ingest turns/s over the embedder's turns/s on the messages at the same thread count: what the
write path costs against embedding only what was said.

The data set is read where it lies (never copied). Prints the rates and their ratio and writes
``bench/results/ingest_threads.json`` with the machine's load (``uptime`` before and after the run: a 2-core machine
shared with other work gives a second thread nothing to run on, so the ratio only means something when it was quiet).
``--quick`` measures the first 2 sessions of one conversation and 64 passages, one repeat.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memory.config import Settings  # noqa: E402
from memory.evaluation.ingest import ingest_sample  # noqa: E402
from memory.evaluation.locomo import load  # noqa: E402
from memory.service import MemoryService  # noqa: E402
from memory.storage.embed import E5Embedder, available_cores, embed_threads  # noqa: E402

#: ../shared beside the repository (or beside the folder of worktrees)
DATA = next(
    (p / "shared" / "data" / "locomo_dev.json" for p in (ROOT.parent, ROOT.parent.parent) if (p / "shared").is_dir()),
    ROOT.parent / "shared" / "data" / "locomo_dev.json",
)


def embed_rate(e5: E5Embedder, passages: list[str], threads: int) -> float:
    with embed_threads(threads):
        start = time.perf_counter()
        e5.embed_passages(passages)
    return len(passages) / (time.perf_counter() - start)


def ingest_rate(e5: E5Embedder, sample, threads: int) -> tuple[float, int]:
    with tempfile.TemporaryDirectory(prefix="memlens-ingest-") as tmp:
        svc = MemoryService(Settings(data_dir=Path(tmp), embed_threads=threads), embedder=e5)
        start = time.perf_counter()
        stats = ingest_sample(svc, sample)
        seconds = time.perf_counter() - start
        svc.close()
    return stats.messages / seconds, stats.messages


def uptime() -> dict[str, object]:
    """The machine's load now: ``uptime``'s line and the 1/5/15-minute load averages."""
    try:
        line = subprocess.run(["uptime"], capture_output=True, text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        line = ""
    return {"uptime": line, "load_avg_1_5_15": [round(x, 2) for x in os.getloadavg()]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(Path(os.environ.get("MEMLENS_LOCOMO", DATA))))
    ap.add_argument("--samples", type=int, default=1, help="conversations ingested per measurement")
    ap.add_argument("--sessions", type=int, default=0, help="only the first N sessions of each conversation (0 = all)")
    ap.add_argument("--passages", type=int, default=320, help="turn passages for the embedder-alone measure")
    ap.add_argument("--threads", type=int, default=available_cores())
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="2 sessions of 1 conversation, 64 passages, 1 repeat")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "ingest_threads.json"))
    args = ap.parse_args()
    if args.quick:
        args.samples, args.sessions, args.passages, args.repeats = 1, args.sessions or 2, min(args.passages, 64), 1
    before = uptime()
    print(f"load before: {before['uptime']}", flush=True)
    samples = load(args.data)[: args.samples]
    if args.sessions:
        samples = [dataclasses.replace(s, sessions=s.sessions[: args.sessions]) for s in samples]
    turns = [t for s in samples for ls in s.sessions for t in ls.turns][: args.passages]
    passages, said = [t.passage() for t in turns], [t.message() for t in turns]
    e5 = E5Embedder()
    e5.embed_passages(passages[:8])  # warm
    rates: dict[str, dict[int, list[float]]] = {
        k: {1: [], args.threads: []} for k in ("passages_per_s", "said_per_s", "turns_per_s")
    }
    for r in range(args.repeats):
        for n in (1, args.threads):
            rates["passages_per_s"][n].append(embed_rate(e5, passages, n))
            rates["said_per_s"][n].append(embed_rate(e5, said, n))
            rate, rate_said = rates["passages_per_s"][n][-1], rates["said_per_s"][n][-1]
            print(f"repeat {r + 1}: embedder {n} thread(s): {rate:.1f} passages/s, {rate_said:.1f} said/s", flush=True)
        for n in (1, args.threads):
            total = 0.0
            for sample in samples:
                rate, count = ingest_rate(e5, sample, n)
                total += count / rate
            n_turns = sum(sum(len(ls.turns) for ls in s.sessions) for s in samples)
            rates["turns_per_s"][n].append(n_turns / total)
            print(f"repeat {r + 1}: ingest {n} thread(s): {rates['turns_per_s'][n][-1]:.1f} turns/s", flush=True)
    best = {k: {n: round(max(v), 1) for n, v in d.items()} for k, d in rates.items()}
    ratio = {k: round(d[args.threads] / d[1], 2) for k, d in best.items()}
    over_said = {n: round(best["turns_per_s"][n] / best["said_per_s"][n], 3) for n in (1, args.threads)}
    after = uptime()
    load_avg = after["load_avg_1_5_15"]
    out = {
        "data": Path(args.data).name,
        "samples": [s.sample_id for s in samples],
        "sessions": sum(len(s.sessions) for s in samples),
        "turns": sum(sum(len(ls.turns) for ls in s.sessions) for s in samples),
        "passages": len(passages),
        "threads": args.threads,
        "best_of_repeats": best,
        "all_runs": {k: {n: [round(x, 1) for x in v] for n, v in d.items()} for k, d in rates.items()},
        "ratio_n_over_1": ratio,
        "ingest_over_said": over_said,
        "tokens": {"said": sum(e5.token_count(t) for t in said), "passages": sum(e5.token_count(t) for t in passages)},
        "quick": args.quick,
        "load_avg_1_5_15": load_avg,
        "uptime_before": before["uptime"],
        "uptime_after": after["uptime"],
        "cpus": os.cpu_count(),
    }
    print(
        f"embedder: {best['passages_per_s'][1]} → {best['passages_per_s'][args.threads]} passages/s "
        f"(×{ratio['passages_per_s']}); ingest: {best['turns_per_s'][1]} → {best['turns_per_s'][args.threads]} "
        f"turns/s (×{ratio['turns_per_s']}); ingest over the embedder on what was said: {over_said}; load {load_avg}"
    )
    path = Path(args.out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
