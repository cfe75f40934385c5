"""Worst-case cost of ONE maximum-size message through a whole agent turn (target ≤ 5 s on this machine).

    python bench/max_message.py [--runs 3]
    python bench/max_message.py --rest [--sizes 2000,20000,200000]   # one REST add per size → max_message_rest.json

A message of exactly ``MEMLENS_MAX_MESSAGE_CHARS`` characters (20,000 by default), mixed English and Chinese with
digits, phone-, card- and e-mail-shaped text every few hundred characters (so masking works hard), goes through the
real agent: store, mask, recall (real offline e5), compose, the offline model's reply, the write pipeline
(extraction, dedupe, embedding) and the summary scheduling — each run in a fresh data folder. Wall and CPU time are
reported (p50 / p95 / max) with the machine load beside them.

``--rest``: the cost of ONE ``POST /v1/memories`` per message size on a real uvicorn server (real e5, fresh data
folder each): the server process's CPU time and the wall time from request to answer, the status, and the
message's tokens. Before the bound, a 200,000-character add ran the whole write path (~89 s of CPU); now anything
over ``MEMLENS_API_MAX_REQUEST_TOKENS`` is a 413, so the largest accepted add is the most one request costs.
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
REST_RESULTS = RESULTS.with_name("max_message_rest.json")
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


def one_rest_add(e5: E5Embedder, text: str) -> dict[str, float | int]:
    """One REST add of ``text`` on a fresh server: (status, server-process CPU s, wall s)."""
    import httpx

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from doors_helpers import free_port, serve_in_thread

    from agent.serve.api import create_app
    from memory import apikeys
    from memory.cli.common import cli_actor

    with tempfile.TemporaryDirectory() as tmp:
        svc = MemoryService(Settings(data_dir=Path(tmp) / "data"), embedder=e5)
        key = apikeys.create(svc.storage, "bench", actor=cli_actor())[0]
        server = serve_in_thread(create_app(svc), free_port())
        url = next(server)
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=900) as c:
            c.post("/v1/memories", json={"messages": "hello, I like tea.", "user_id": "bench"})  # warm
            wall, cpu = time.perf_counter(), time.process_time()
            r = c.post("/v1/memories", json={"messages": text, "user_id": "bench", "run_id": "big"})
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        next(server, None)
        svc.close()
    return {"status": r.status_code, "cpu_s": round(cpu, 3), "wall_s": round(wall, 3)}


def rest(sizes: list[int]) -> None:
    from memory.text.tokens import count_tokens

    e5 = E5Embedder()
    rows = []
    for chars in sizes:
        text = max_message(chars)
        row = {"chars": chars, "tokens": count_tokens(text), **one_rest_add(e5, text)}
        print(row)
        rows.append(row)
    s = Settings()
    result = {
        "door": "POST /v1/memories, one message, infer=true (real uvicorn server, real e5, fresh folder per size)",
        "max_request_tokens": getattr(s, "api_max_request_tokens", None),
        "tokens_per_minute": getattr(s, "api_tokens_per_minute", None),
        "adds": rows,
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    REST_RESULTS.write_text(json.dumps(result, indent=2) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rest", action="store_true", help="the cost of one REST add per message size")
    parser.add_argument("--sizes", default="2000,9000,20000,200000", help="message sizes for --rest (characters)")
    args = parser.parse_args()
    if args.rest:
        rest([int(x) for x in args.sizes.split(",")])
        return
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
