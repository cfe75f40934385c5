"""What episodic memory costs per chat turn: the turn's write (the user's message and the agent's reply through the
one write path, as the background job runs it) against the embedder alone on the same two passages, and the storage
1,000 turns take (SQL + LanceDB), on real conversation (LoCoMo dev: one speaker as the user, the other as the agent).

    python bench/episodes_cost.py [--turns 1000] [--data ../shared/data/locomo_dev.json]

Prints p50/p95 per turn, turns/s, bytes per 1,000 turns, and writes ``bench/results/episodes_cost.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from memory.config import Settings
from memory.evaluation.locomo import load
from memory.lifecycle.export import reclaim
from memory.service import MemoryService
from memory.storage.embed import E5Embedder
from memory.storage.passages import passage
from memory.vocab import MemoryType


def pct(values: list[float], q: float) -> float:
    return round(statistics.quantiles(values, n=100)[int(q) - 1], 2) if len(values) > 1 else round(values[0], 2)


def folder_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def turns_of(data: Path, n: int) -> list[tuple[str, str, object]]:
    """(what the user said, what the agent answered, when) from LoCoMo dev, speaker A as the user."""
    out = []
    for sample in load(data):
        for ls in sample.sessions:
            for said, answer in zip(ls.turns[::2], ls.turns[1::2], strict=False):
                out.append((said.message(), answer.message(), said.at))
                if len(out) >= n:
                    return out
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=1000)
    ap.add_argument("--data", default=str(Path(__file__).parents[2] / "shared" / "data" / "locomo_dev.json"))
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "episodes_cost.json"))
    args = ap.parse_args()
    turns = turns_of(Path(args.data), args.turns)
    embedder = E5Embedder()
    embedder.embed_passages(["warm up"])
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp)
        svc = MemoryService(Settings(data_dir=data_dir), embedder=embedder)
        user = svc.ensure_user("bench-episodes")
        session = svc.ensure_session(user, "bench")
        _ = svc.storage.index
        reclaim(svc.storage)
        empty = folder_bytes(data_dir)
        write_ms, embed_ms = [], []
        t_all = time.perf_counter()
        for said, answer, at in turns:
            msg = svc.add_message(session, "user", said, created_at=at)  # stored before the reply, as a turn does
            reply = svc.add_message(session, "assistant", answer, created_at=at)
            t0 = time.perf_counter()
            svc.write_turn(user, session, [msg, reply])
            write_ms.append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()  # the floor: the two episodes' embeddings the write cannot avoid
            embedder.embed_passages([passage(MemoryType.EPISODE, t, "User", at) for t in (said, answer)])
            embed_ms.append((time.perf_counter() - t0) * 1000)
        total_s = time.perf_counter() - t_all
        raw = folder_bytes(data_dir) - empty  # as left: LanceDB keeps old versions for 7 days, SQLite its WAL
        reclaim(svc.storage)  # what the data itself takes (old index versions and free pages reclaimed)
        used = folder_bytes(data_dir) - empty
        counts = {t: len(svc.list_memories(user, types=[t])) for t in ("episode", "fact", "preference", "event")}
        svc.close()
    result = {
        "turns": len(turns),
        "path": "MemoryService.write_turn (the chat turn's background write: message + reply, facts from the message)",
        "write_p50_ms": pct(write_ms, 50),
        "write_p95_ms": pct(write_ms, 95),
        "embed_floor_p50_ms": pct(embed_ms, 50),
        "embed_floor_p95_ms": pct(embed_ms, 95),
        "ratio_p95_write_over_embed": round(pct(write_ms, 95) / max(pct(embed_ms, 95), 1e-9), 2),
        "turns_per_s": round(len(turns) / total_s, 1),
        "bytes_per_1000_turns": int(used * 1000 / max(len(turns), 1)),
        "bytes_per_1000_turns_before_reclaim": int(raw * 1000 / max(len(turns), 1)),
        "memories": counts,
        "load_avg_1_5_15": [round(x, 2) for x in os.getloadavg()],
    }
    print(
        f"{result['turns']} turns: write p50 {result['write_p50_ms']} ms p95 {result['write_p95_ms']} ms | embedder "
        f"floor p50 {result['embed_floor_p50_ms']} p95 {result['embed_floor_p95_ms']} ms → ratio p95 "
        f"{result['ratio_p95_write_over_embed']} | {result['turns_per_s']} turns/s | "
        f"{result['bytes_per_1000_turns'] / 1e6:.1f} MB per 1,000 turns | {counts} | load {result['load_avg_1_5_15']}"
    )
    Path(args.out).write_text(json.dumps(result, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
