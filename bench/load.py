"""Load: N simulated users chatting at once through the whole agent loop (offline model), on SQLite and PostgreSQL.

Each user is a thread with its own ``Agent`` over one shared ``MemoryService`` (what one app process serving many
people looks like); every turn is recall → budgeted context → reply → memory write → checkpoint. Users alternate
statements (English and Chinese, so the write path runs) and questions (so recall has something to find), for a
bounded time. Reported per backend: turns, throughput, p50/p95/p99 turn latency, errors (target 0), and after the
run: SQL and LanceDB agree (repair finds nothing) and no user's turn ever retrieved another user's memory.

    python bench/load.py [--users 8] [--seconds 30] [--embedder e5|hash] [--pg-url postgresql+psycopg://…]

PostgreSQL runs when ``--pg-url`` or ``MEMLENS_LOAD_PG_URL`` / ``MEMLENS_TEST_PG_URL`` is set: a fresh database is
created on that server for the run and dropped after it.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # the embedder's serving setting
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402
from collections import Counter  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from memory.config import Settings  # noqa: E402
from memory.service import MemoryService  # noqa: E402
from memory.storage.embed import make_embedder  # noqa: E402
from memory.storage.models import Memory, RetrievalHit  # noqa: E402

SCRIPT = [
    "I live in {city} and I work as a {job}",
    "What do you remember about me?",
    "我不吃辣，喜欢{food}",
    "My budget for the trip is {budget}",
    "Where do I live?",
    "I like {sport} on weekends",
    "推荐一个周末活动吧",
    "Actually I moved to {city2}",
    "What is my budget?",
]
CITIES = ["Hangzhou", "Lisbon", "Oslo", "Kyoto", "Austin", "Nairobi", "Lima", "Porto", "Seoul", "Tbilisi"]
FOODS = ["火锅", "饺子", "面条", "寿司"]
SPORTS = ["tennis", "climbing", "rowing", "chess", "surfing"]


def user_lines(n: int) -> list[str]:
    fill = {
        "city": CITIES[n % len(CITIES)],
        "city2": CITIES[(n + 3) % len(CITIES)],
        "job": f"engineer no. {n}",
        "food": FOODS[n % len(FOODS)],
        "budget": f"{(n + 1) * 1000}",
        "sport": SPORTS[n % len(SPORTS)],
    }
    return [line.format(**fill) for line in SCRIPT]


def simulate(bot, n: int, start: threading.Event, deadline: list[float], out: dict[str, Any]) -> None:
    """One user: an untimed warm-up turn (first graph compile, checkpointer tables), then chat until the deadline."""
    lines, turn = user_lines(n), 0
    bot.chat(f"load-user-{n}", "warm-up", "hello")
    out["ready"] = True
    start.wait()
    while time.perf_counter() < deadline[0]:
        text = lines[turn % len(lines)]
        session = f"session-{turn // len(lines)}"
        t0 = time.perf_counter()
        try:
            bot.chat(f"load-user-{n}", session, text)
            out["latencies"].append((time.perf_counter() - t0) * 1000)
        except Exception as exc:  # noqa: BLE001 - a load test counts every failure instead of stopping
            out["errors"].append(f"{type(exc).__name__}: {str(exc)[:200]}")
        turn += 1


def run_backend(name: str, settings: Settings, users: int, seconds: float) -> dict[str, Any]:
    from agent.runtime import Agent

    svc = MemoryService(settings, embedder=make_embedder(settings))
    svc.storage.embedder.embed_query("warm up")
    outs: list[dict[str, Any]] = [{"latencies": [], "errors": []} for _ in range(users)]
    bots = [Agent(svc) for _ in range(users)]
    go, deadline = threading.Event(), [0.0]
    threads = [threading.Thread(target=simulate, args=(bots[n], n, go, deadline, outs[n])) for n in range(users)]
    for t in threads:
        t.start()
    while not all(o.get("ready") for o in outs) and any(t.is_alive() for t in threads):
        time.sleep(0.05)
    start = time.perf_counter()
    deadline[0] = start + seconds
    go.set()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    for bot in bots:
        bot.close()
    lat = sorted(x for o in outs for x in o["latencies"])
    errors = [e for o in outs for e in o["errors"]]
    result = {
        "backend": name,
        "users": users,
        "seconds": round(wall, 1),
        "turns": len(lat),
        "throughput_turns_per_s": round(len(lat) / wall, 2),
        "p50_ms": round(statistics.median(lat), 1) if lat else None,
        "p95_ms": round(lat[int(0.95 * (len(lat) - 1))], 1) if lat else None,
        "p99_ms": round(lat[int(0.99 * (len(lat) - 1))], 1) if lat else None,
        "max_ms": round(lat[-1], 1) if lat else None,
        "errors": len(errors),
        "error_kinds": dict(Counter(e.split(":")[0] for e in errors)),
        "error_samples": errors[:3],
        "turns_per_user": [len(o["latencies"]) for o in outs],
    }
    result.update(check(svc))
    svc.close()
    return result


def check(svc: MemoryService) -> dict[str, Any]:
    """After the run: the index agrees with SQL, and every logged retrieval hit belongs to the user who searched."""
    from memory.storage.models import Retrieval

    repair = svc.repair()
    with svc.storage.db() as db:
        leaks = db.exec(
            RetrievalHit.__table__.select()
            .join(Retrieval.__table__, RetrievalHit.retrieval_id == Retrieval.id)
            .join(Memory.__table__, RetrievalHit.memory_id == Memory.id)
            .where(Memory.user_key != Retrieval.user_key)
        ).all()
        memories = db.exec(Memory.__table__.select().where(Memory.status == "active")).all()
    return {"repair_after_run": repair, "cross_user_hits": len(leaks), "active_memories": len(memories)}


def pg_database(url: str) -> tuple[str, str]:
    """A fresh database on the server of ``url``: (its URL, its name)."""
    import psycopg

    name = "memlens_load_" + uuid.uuid4().hex[:8]
    admin = url.replace("+psycopg", "")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return url.rsplit("/", 1)[0] + "/" + name, name


def drop_pg_database(url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(url.replace("+psycopg", ""), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--embedder", choices=["e5", "hash"], default="e5")
    ap.add_argument("--pg-url", default=os.environ.get("MEMLENS_LOAD_PG_URL") or os.environ.get("MEMLENS_TEST_PG_URL"))
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "load.json"))
    args = ap.parse_args()
    load_before = [round(x, 2) for x in os.getloadavg()]
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        base = {"embedder": args.embedder}
        results.append(run_backend("sqlite", Settings(data_dir=Path(tmp) / "sqlite", **base), args.users, args.seconds))
        if args.pg_url:
            url, name = pg_database(args.pg_url)
            try:
                settings = Settings(data_dir=Path(tmp) / "pg", database_url=url, **base)
                results.append(run_backend("postgres", settings, args.users, args.seconds))
            finally:
                drop_pg_database(args.pg_url, name)
    for r in results:
        print(
            f"{r['backend']:<9} {r['users']} users · {r['turns']} turns in {r['seconds']} s · "
            f"{r['throughput_turns_per_s']} turns/s · p50 {r['p50_ms']} ms · p95 {r['p95_ms']} ms · "
            f"p99 {r['p99_ms']} ms · errors {r['errors']} · cross-user hits {r['cross_user_hits']} · "
            f"repair {r['repair_after_run']}"
        )
    print(f"machine load (1/5/15 min) before {load_before}, after {[round(x, 2) for x in os.getloadavg()]}")
    if not args.pg_url:
        print("postgres: skipped (no --pg-url / MEMLENS_LOAD_PG_URL / MEMLENS_TEST_PG_URL)")
    payload = {
        "embedder": args.embedder,
        "model": "offline",
        "results": results,
        "cpu_count": os.cpu_count(),
        "load_avg_before": load_before,
        "load_avg_after": [round(x, 2) for x in os.getloadavg()],
        "at": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(payload, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
