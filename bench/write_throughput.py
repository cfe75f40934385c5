"""Write-pipeline throughput on the offline e5 embedder: messages/s through classify → extract → mask → dedupe →
persist → profile, beside the embedder's own throughput on the same texts.

Two paths over the same corpus (the labelled user utterances, two users):
- per message: ``svc.remember(user, text)`` one message at a time (store the message, then the whole pipeline);
- batch: the messages stored with ``add_message``, then ``svc.write_from_messages`` on chunks of BATCH messages
  (long-conversation ingest).

"The pipeline's own work" = total time − time spent inside the embedder, measured by wrapping the embedder, so it
is exact for the same texts in the same calls. The machine is shared (load average high), so the shares are also
given from CPU time (time.process_time, all threads of this process), which other processes disturb far less.
Target: own work ≤ 25% of the time. Run: python bench/write_throughput.py
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from memory.config import Settings  # noqa: E402
from memory.service import MemoryService  # noqa: E402
from memory.storage.embed import E5Embedder  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "results" / "write_throughput.json"
BATCH = 32
TARGET = 0.25


class TimedEmbedder:
    """Wraps an embedder and accounts the wall and CPU time spent inside it, and what it embedded."""

    def __init__(self, inner) -> None:
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self.wall = self.cpu = 0.0
        self.calls: list[list[str]] = []

    def reset(self) -> None:
        self.wall = self.cpu = 0.0
        self.calls = []

    def _timed(self, fn, arg):
        w, c = time.perf_counter(), time.process_time()
        try:
            return fn(arg)
        finally:
            self.wall += time.perf_counter() - w
            self.cpu += time.process_time() - c

    def embed_query(self, text: str) -> np.ndarray:
        return self._timed(self.inner.embed_query, text)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return self._timed(self.inner.embed_passages, texts)


def corpus(n_users: int = 2) -> list[tuple[str, str]]:
    items = json.loads((ROOT / "tests" / "data" / "extraction_labelled.json").read_text(encoding="utf-8"))["items"]
    return [(f"user{u}", i["text"]) for u in range(n_users) for i in items if i["role"] == "user"]


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def _service(tmp: str, emb: TimedEmbedder) -> MemoryService:
    svc = MemoryService(Settings(data_dir=Path(tmp)), embedder=emb)
    svc.remember("warmup", "I live in Hangzhou.")  # connect, migrate, open the index, load the tokenizer
    emb.reset()
    return svc


def per_message(emb: TimedEmbedder, msgs: list[tuple[str, str]]) -> tuple[dict, list[float]]:
    with tempfile.TemporaryDirectory() as tmp:
        svc = _service(tmp, emb)
        lat = []
        w0, c0 = time.perf_counter(), time.process_time()
        for user, text in msgs:
            t = time.perf_counter()
            svc.remember(user, text, session_id="bench")
            lat.append((time.perf_counter() - t) * 1000)
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        svc.close()
    return {
        "latency_ms_p50": round(pct(lat, 0.5), 2),
        "latency_ms_p95": round(pct(lat, 0.95), 2),
        **_totals(emb, len(msgs), wall, cpu),
    }, lat


def batched(emb: TimedEmbedder, msgs: list[tuple[str, str]], size: int = BATCH) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        svc = _service(tmp, emb)
        lat = []
        w0, c0 = time.perf_counter(), time.process_time()
        for user in dict.fromkeys(u for u, _ in msgs):
            texts = [t for u, t in msgs if u == user]
            u = svc.ensure_user(user)
            s = svc.ensure_session(u, "bench")
            for start in range(0, len(texts), size):
                t = time.perf_counter()
                stored = [svc.add_message(s, "user", text) for text in texts[start : start + size]]
                svc.write_from_messages(u, s, stored, keep_unparsed=True)  # as `remember` does
                lat.append((time.perf_counter() - t) * 1000)
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        svc.close()
    return {
        "batch_size": size,
        "batch_latency_ms_p50": round(pct(lat, 0.5), 1),
        "batch_latency_ms_p95": round(pct(lat, 0.95), 1),
        "amortised_ms_per_message": round(wall * 1000 / len(msgs), 2),
        **_totals(emb, len(msgs), wall, cpu),
    }


def _totals(emb: TimedEmbedder, n: int, wall: float, cpu: float) -> dict:
    calls = list(emb.calls)
    alone_w, alone_c = time.perf_counter(), time.process_time()
    for texts in calls:  # the embedder alone on the same texts, in the same calls
        emb.inner.embed_passages(texts)
    alone_w, alone_c = time.perf_counter() - alone_w, time.process_time() - alone_c
    n_texts = sum(len(t) for t in calls)
    return {
        "messages": n,
        "passages_embedded": n_texts,
        "embed_calls": len(calls),
        "msgs_per_s": round(n / wall, 2),
        "total_s": round(wall, 2),
        "embed_s_in_pipeline": round(emb.wall, 2),
        "own_work_s": round(wall - emb.wall, 2),
        "own_work_share": round(1 - emb.wall / wall, 3),
        "cpu_total_s": round(cpu, 2),
        "cpu_embed_s": round(emb.cpu, 2),
        "own_work_share_cpu": round(1 - emb.cpu / cpu, 3),
        "embedder_alone_s_same_texts": round(alone_w, 2),
        "embedder_passages_per_s_same_texts": round(n_texts / alone_w, 2) if alone_w else None,
        "own_work_share_vs_embedder_alone": round(1 - alone_w / wall, 3),
        "own_work_share_cpu_vs_embedder_alone": round(1 - alone_c / cpu, 3),
    }


def main() -> dict:
    emb = TimedEmbedder(E5Embedder())
    emb.inner.embed_passages(["warm-up"])
    msgs = corpus()
    one, _ = per_message(emb, msgs)
    many = batched(emb, msgs)
    result = {
        "target_own_work_share": TARGET,
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "cpus": os.cpu_count(),
        "per_message": one,
        "batch": many,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, indent=2))
    for name in ("per_message", "batch"):
        print(f"-- {name}")
        for k, v in result[name].items():
            print(f"   {k:<40} {v}")
    print(f"load average {result['load_average']} on {result['cpus']} cpus; target own-work share ≤ {TARGET}")
    return result


if __name__ == "__main__":
    main()
