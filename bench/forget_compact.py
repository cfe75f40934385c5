"""Benchmark: forget + compact over 100,000 memories (target < 30 s on 2 cores).

Synthetic data, inserted fast (bulk SQL + precomputed 384-d vectors straight into LanceDB; nothing is embedded with
e5): 200 users × 500 memories with mixed ages, importance, accesses and types; 20 % events (many expired), a slice of
already-archived rows past retention, near-duplicate pairs (vector + small noise) and same subject+predicate pairs,
and a per-user cap of 250 so the cap rule fires. Times one global ``forget`` then one global ``compact`` (what a
nightly job runs), plus per-user dry runs (p50/p95).

    python bench/forget_compact.py [--users 200] [--per-user 500]
"""

from __future__ import annotations

import os

# one BLAS thread: on a busy 2-core machine a multi-threaded OpenBLAS makes small matmuls ~25x slower (same reason
# the embedder runs with OMP_NUM_THREADS=1); must be set before numpy loads
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from datetime import UTC, datetime, timedelta  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402
from sqlalchemy import insert  # noqa: E402

from memory.config import Settings  # noqa: E402
from memory.service import MemoryService  # noqa: E402
from memory.storage.embed import HashEmbedder  # noqa: E402
from memory.storage.models import Memory, User, id_hash, new_id  # noqa: E402
from memory.vocab import Actor, Role  # noqa: E402

NOW = datetime(2025, 6, 1, tzinfo=UTC)
BENCH = Actor(name="bench", role=Role.ADMIN, via="bench")
DIM = 384


def _rows(rng: np.random.Generator, user_key: str, n: int) -> tuple[list[dict], np.ndarray]:
    """One user's memories and their vectors (every 10th is a near-duplicate of the one before)."""
    rows, vecs = [], rng.standard_normal((n, DIM)).astype(np.float32)
    for i in range(n):
        if i % 10 == 9:
            vecs[i] = vecs[i - 1] + 0.05 * rng.standard_normal(DIM)
        kind = rng.random()
        mtype = "event" if kind < 0.2 else "preference" if kind < 0.4 else "fact"
        created = NOW - timedelta(days=float(rng.uniform(0, 400)))
        status = "archived" if rng.random() < 0.05 else "active"
        topic = int(rng.integers(0, 40)) if rng.random() < 0.3 else None
        rows.append(
            {
                "id": new_id(),
                "user_key": user_key,
                "agent_id": "default",
                "type": mtype,
                "subject": None if topic is None else "user",
                "predicate": None if topic is None else f"topic_{topic}",
                "object": f"value {i}",
                "content": f"memory {i} of {user_key[:6]}: synthetic fact number {i}",
                "source_type": "user-stated",
                "source_message_ids": [i],
                "confidence": float(rng.uniform(0.5, 1.0)),
                "importance": float(rng.uniform(0.1, 1.0)),
                "status": status,
                "superseded_by": None,
                "event_time": created if mtype == "event" else None,
                "created_at": created,
                "updated_at": created + timedelta(days=1) if status == "archived" else created,
                "last_accessed_at": NOW - timedelta(days=float(rng.uniform(0, 60))) if rng.random() < 0.5 else None,
                "access_count": int(rng.integers(0, 5)),
                "reinforce_count": int(rng.integers(0, 3)),
                "expires_at": None,
                "indexed": status == "active",
                "version": 1,
                "meta": {},
            }
        )
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    return rows, vecs


def seed(svc: MemoryService, users: int, per_user: int) -> float:
    rng = np.random.default_rng(7)
    start = time.perf_counter()
    table = svc.storage.index.table
    for u in range(users):
        key, ext = new_id(), f"bench-user-{u}"
        rows, vecs = _rows(rng, key, per_user)
        with svc.storage.engine.begin() as conn:
            conn.execute(
                insert(User), [{"key": key, "external_id": ext, "external_hash": id_hash(ext), "created_at": NOW}]
            )
            conn.execute(insert(Memory), rows)
        active = [(r, v) for r, v in zip(rows, vecs, strict=True) if r["status"] == "active"]
        table.add(
            pa.table(
                {
                    "id": [r["id"] for r, _ in active],
                    "user_key": [key] * len(active),
                    "agent_id": ["default"] * len(active),
                    "text": [r["content"] for r, _ in active],
                    "vector": pa.FixedSizeListArray.from_arrays(
                        pa.array(np.stack([v for _, v in active]).ravel()), DIM
                    ),
                    "type": [r["type"] for r, _ in active],
                    "status": ["active"] * len(active),
                    "created_at": pa.array(
                        [r["created_at"].replace(tzinfo=None) for r, _ in active], pa.timestamp("us")
                    ),
                }
            )
        )
    svc.storage.index.optimize()
    return time.perf_counter() - start


def _pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[q - 1] if len(values) > 1 else values[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=200)
    ap.add_argument("--per-user", type=int, default=500)
    args = ap.parse_args()
    total = args.users * args.per_user
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), embedder="hash", max_active_memories=250)
        svc = MemoryService(settings, embedder=HashEmbedder(dim=DIM))
        seed_s = seed(svc, args.users, args.per_user)
        sample = [f"bench-user-{u}" for u in range(0, args.users, max(1, args.users // 50))]
        dry_forget, dry_compact = [], []
        for user in sample:
            t = time.perf_counter()
            svc.lifecycle.forget(user, dry_run=True, now=NOW)
            dry_forget.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            svc.lifecycle.compact(user, dry_run=True, now=NOW)
            dry_compact.append((time.perf_counter() - t) * 1000)
        t, c = time.perf_counter(), time.process_time()
        forgot = svc.lifecycle.forget(now=NOW, actor=BENCH)
        forget_s, forget_cpu = time.perf_counter() - t, time.process_time() - c
        t, c = time.perf_counter(), time.process_time()
        compacted = svc.lifecycle.compact(now=NOW, actor=BENCH)
        compact_s, compact_cpu = time.perf_counter() - t, time.process_time() - c
        svc.close()
    fr, cr = forgot.to_dict(), compacted.to_dict()
    result = {
        "memories": total,
        "users": args.users,
        "seed_s": round(seed_s, 2),
        "forget_s": round(forget_s, 2),
        "compact_s": round(compact_s, 2),
        "total_s": round(forget_s + compact_s, 2),
        "target_s": 30,
        "throughput_memories_per_s": round(total / (forget_s + compact_s)),
        "cpu_s": {"forget": round(forget_cpu, 2), "compact": round(compact_cpu, 2)},
        "load_average_1m": round(os.getloadavg()[0], 2),  # wall time stretches when other work shares the cores
        "archived": fr["archived"],
        "deleted": fr["deleted"],
        "by_rule": fr["by_rule"],
        "merged_groups": cr["merged_groups"],
        "superseded": cr["superseded"],
        "per_user_dry_run_ms": {
            "forget_p50": round(statistics.median(dry_forget), 1),
            "forget_p95": round(_pct(dry_forget, 95), 1),
            "compact_p50": round(statistics.median(dry_compact), 1),
            "compact_p95": round(_pct(dry_compact, 95), 1),
        },
    }
    print(json.dumps(result, indent=1))
    out = Path(__file__).parent / "results" / "forget_compact.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
