"""Worst-case cost of ONE maximum-size message through a whole agent turn (target ≤ 5 s on this machine).

    python bench/max_message.py [--runs 3]

A message of exactly ``MEMLENS_MAX_MESSAGE_CHARS`` characters (20,000 by default), mixed English and Chinese with
digits, phone-, card- and e-mail-shaped text every few hundred characters (so masking works hard), goes through the
real agent: store, mask, recall (real offline e5), compose, the offline model's reply, the write pipeline
(extraction, dedupe, embedding) and the summary scheduling — each run in a fresh data folder. Wall and CPU time are
reported (p50 / p95 / max) with the machine load beside them.
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

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent.runtime import Agent  # noqa: E402
from memory.config import Settings  # noqa: E402
from memory.service import MemoryService  # noqa: E402
from memory.storage.embed import E5Embedder  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "max_message.json"
PIECES = (
    "I live in Lisbon and I love sardines, call me on 415 555 0132 or 139 0144 0461. ",
    "我住在杭州，喜欢喝龙井茶，我的邮箱是 lin.wei@example.com，卡号 4242 4242 4242 4242。",
    "Next Friday I fly to Tokyo; my budget is 3.5万 and order #20240501-123456 shipped. ",
    "１３９ ０１４４ ０４６１ and 330106 19910422 3104, then 2025-05-01 at 14:30. ",
)


def max_message(chars: int) -> str:
    text, i = "", 0
    while len(text) < chars:
        text += PIECES[i % len(PIECES)]
        i += 1
    return text[:chars]


def one_turn(e5: E5Embedder, text: str) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        svc = MemoryService(Settings(data_dir=Path(tmp) / "data"), embedder=e5)
        agent = Agent(svc)
        agent.chat("bench", "s0", "hello, I like tea.")  # warm: tables, index and models open
        agent.wait()
        wall, cpu = time.perf_counter(), time.process_time()
        agent.chat("bench", "s1", text)
        agent.wait()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        agent.close()
        svc.close()
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    chars = Settings().max_message_chars
    text = max_message(chars)
    e5 = E5Embedder()
    walls, cpus = [], []
    for n in range(args.runs):
        wall, cpu = one_turn(e5, text)
        walls.append(wall)
        cpus.append(cpu)
        print(f"run {n + 1}: wall {wall:.2f} s, cpu {cpu:.2f} s")

    def stats(xs: list[float]) -> dict[str, float]:
        xs = sorted(xs)
        return {
            "p50": round(statistics.median(xs), 3),
            "p95": round(xs[min(len(xs) - 1, round(0.95 * (len(xs) - 1)))], 3),
            "max": round(xs[-1], 3),
        }

    result = {
        "message_chars": chars,
        "runs": args.runs,
        "wall_s": stats(walls),
        "cpu_s": stats(cpus),
        "target_s": 5.0,
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    print(json.dumps(result, indent=2))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
