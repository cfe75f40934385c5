"""Write-pipeline throughput: messages/s through classify → extract → mask → dedupe → persist → profile, on the
offline e5 embedder, beside the embedder's own throughput on the same candidate texts.

Target: the pipeline's own work (everything but embedding) ≤ 25% of the time. Run: python bench/write_throughput.py
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

from memory.config import Settings  # noqa: E402
from memory.embed import E5Embedder  # noqa: E402
from memory.service import MemoryService  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "results" / "write_throughput.json"


def corpus(n_users: int = 2) -> list[tuple[str, str]]:
    items = json.loads((ROOT / "tests" / "data" / "extraction_labelled.json").read_text(encoding="utf-8"))["items"]
    return [(f"user{u}", i["text"]) for u in range(n_users) for i in items if i["role"] == "user"]


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def main() -> dict:
    embedder = E5Embedder()
    embedder.embed_passages(["warm-up"])
    msgs = corpus()
    with tempfile.TemporaryDirectory() as tmp:
        svc = MemoryService(Settings(data_dir=Path(tmp)), embedder=embedder)
        svc.remember("warmup", "I live in Hangzhou.")
        per_msg, embed_ms, texts = [], 0.0, []
        start = time.perf_counter()
        for user, text in msgs:
            t0 = time.perf_counter()
            report = svc.remember(user, text, session_id="bench")
            per_msg.append((time.perf_counter() - t0) * 1000)
            embed_ms += report.timings_ms.get("embed", 0.0)
            texts.append([o["content"] for o in report.operations])
        total_ms = (time.perf_counter() - start) * 1000
        svc.close()
    t0 = time.perf_counter()
    for batch in texts:
        if batch:
            embedder.embed_passages(batch)
    embed_alone_ms = (time.perf_counter() - t0) * 1000
    n_texts = sum(len(b) for b in texts)
    result = {
        "messages": len(msgs), "candidates_embedded": n_texts,
        "pipeline_msgs_per_s": round(len(msgs) / (total_ms / 1000), 2),
        "latency_ms_p50": round(pct(per_msg, 0.5), 2), "latency_ms_p95": round(pct(per_msg, 0.95), 2),
        "embedder_passages_per_s_same_texts": round(n_texts / (embed_alone_ms / 1000), 2),
        "embed_ms_in_pipeline": round(embed_ms, 1), "total_ms": round(total_ms, 1),
        "own_work_share": round(1 - embed_ms / total_ms, 3),
        "own_work_share_vs_embedder_alone": round(1 - embed_alone_ms / total_ms, 3),
        "target_own_work_share": 0.25,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, indent=2))
    for k, v in result.items():
        print(f"{k:<38} {v}")
    return result


if __name__ == "__main__":
    main()
