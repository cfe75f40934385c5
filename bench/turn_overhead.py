"""Per-turn memory overhead at 10,000 memories, and tokens per turn against a full-history baseline.

    python bench/turn_overhead.py            # ~3-8 min the first time (embeds ~2,500 passages), then cached

One LoCoMo dev conversation (read from ../shared/data or $MEMLENS_LOCOMO, never copied) is replayed through the real
agent: speaker A is the user, and a scripted chat model answers with speaker B's actual lines — so "the model" costs
nothing and everything else (load, recall, compose, stores, write pipeline, checkpoints, summary scheduling) is
overhead. The user owns 10,000 other memories (LoCoMo lines of the other conversations, in up to six phrasings
sharing a vector, cached in ~/.cache/memlens/bench). Targets: overhead p95 ≤ 1.5 × recall p95 of this same run; tokens
per turn in the last session ≤ 10 % of the full history.

The memory write runs after the reply (memory/write/behind.py), so a turn ends when its reply is stored. Between
turns the benchmark waits for that write (as a person reading the reply would give it time) outside the turn's
clock, and reports the write jobs' own time and that wait beside the overhead; ``bench/load.py`` measures turns
back to back, where the next turn's wait for the previous write is inside its latency.
"""

from __future__ import annotations

import hashlib
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
from langchain_core.messages import AIMessageChunk  # noqa: E402
from langchain_core.outputs import ChatGenerationChunk  # noqa: E402

from agent.offline import OfflineChatModel  # noqa: E402
from agent.runtime import Agent  # noqa: E402
from memory.config import Settings  # noqa: E402
from memory.service import MemoryDraft, MemoryService  # noqa: E402
from memory.storage.embed import E5Embedder  # noqa: E402
from memory.text.tokens import count_tokens  # noqa: E402

#: ../shared beside the repository (or beside the folder of worktrees)
SHARED = next(
    (p / "shared" for p in Path(__file__).resolve().parents[1:4] if (p / "shared" / "data").is_dir()),
    Path(__file__).resolve().parents[2] / "shared",
)
DATA = Path(os.environ.get("MEMLENS_LOCOMO", SHARED / "data" / "locomo_dev.json"))
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "memlens" / "bench"
RESULTS = Path(__file__).resolve().parent / "results" / "turn_overhead.json"
N_MEMORIES = 10_000
PHRASINGS = (
    "{s} said: {t}",
    "{s} mentioned that {t}",
    "From a chat with {s}: {t}",
    "Note about {s}: {t}",
    "{s} once told me: {t}",
    "Remember ({s}): {t}",
)


class CachedEmbedder:
    """e5 for queries; stored passages come from a precomputed table (the benchmark measures turns, not indexing)."""

    def __init__(self, e5: E5Embedder, table: dict[str, np.ndarray]) -> None:
        self.e5, self.table, self.name, self.dim = e5, table, e5.name, e5.dim

    def embed_query(self, text: str) -> np.ndarray:
        return self.e5.embed_query(text)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        missing = [t for t in texts if t not in self.table]
        if missing:
            self.table.update(zip(missing, self.e5.embed_passages(missing), strict=True))
        return np.vstack([self.table[t] for t in texts]) if texts else np.zeros((0, self.dim), np.float32)


def _sessions(conv: dict) -> list[tuple[str, list[dict]]]:
    keys = sorted(
        (k for k in conv if k.startswith("session_") and not k.endswith("date_time")),
        key=lambda k: int(k.split("_")[1]),
    )
    return [(conv.get(f"{k}_date_time", ""), conv[k]) for k in keys]


def _background_texts(data: list[dict], skip: str) -> tuple[list[str], dict[str, str]]:
    """10,000 memory texts and, for each, the base line whose vector it shares."""
    base = [
        f"{d['speaker']}: {d['text']}"
        for c in data
        if c["sample_id"] != skip
        for _, turns in _sessions(c["conversation"])
        for d in turns
    ]
    texts, base_of = [], {}
    for phrasing in PHRASINGS:
        for line in base:
            speaker, text = line.split(": ", 1)
            t = phrasing.format(s=speaker, t=text)
            if t not in base_of:
                texts.append(t)
                base_of[t] = line
            if len(texts) == N_MEMORIES:
                return texts, base_of
    return texts, base_of


def _base_vectors(e5: E5Embedder, lines: list[str]) -> dict[str, np.ndarray]:
    key = hashlib.sha1("\n".join(lines).encode()).hexdigest()[:16]
    path = CACHE / f"locomo-e5-{key}.npy"
    if path.exists():
        vecs = np.load(path)
    else:
        t0 = time.perf_counter()
        vecs = e5.embed_passages(lines)
        CACHE.mkdir(parents=True, exist_ok=True)
        np.save(path, vecs)
        print(f"embedded {len(lines)} passages in {time.perf_counter() - t0:.0f} s (cached at {path})")
    return dict(zip(lines, vecs, strict=True))


def _seed(svc: MemoryService, e5: E5Embedder, data: list[dict], skip: str) -> float:
    texts, base_of = _background_texts(data, skip)
    base = _base_vectors(e5, sorted(set(base_of.values())))
    svc.storage._embedder = CachedEmbedder(e5, {t: base[base_of[t]] for t in texts})
    user = svc.ensure_user("bench-user")
    svc.storage.index.count()  # open the index (and its start-up check) before the bulk load
    t0 = time.perf_counter()
    for start in range(0, len(texts), 2000):
        svc.add_memories(user, [MemoryDraft(content=t, source_type="user-stated") for t in texts[start : start + 2000]])
    svc.storage.index.optimize()
    return time.perf_counter() - t0


class ScriptedModel(OfflineChatModel):
    """Answers with speaker B's real lines and records how long it ran (that time is the model's, not overhead).

    It is an offline engine as far as the agent can tell, so summaries stay extractive and extraction rule-based:
    the benchmark measures the offline memory path."""

    replies: list[str] = []
    spent: list[float] = []

    def _stream(self, messages, stop=None, run_manager=None, **kwargs: Any):
        t0 = time.perf_counter()
        reply = self.replies[len(self.spent)]
        for piece in reply.split(" "):
            yield ChatGenerationChunk(message=AIMessageChunk(content=piece + " "))
        self.spent.append(time.perf_counter() - t0)


def _turns(conv: dict) -> list[tuple[int, str, str]]:
    """(session number, user text, scripted reply) for every speaker-A line; B's following lines are the reply."""
    a = conv["speaker_a"]
    out = []
    for n, (_, turns) in enumerate(_sessions(conv), 1):
        for i, d in enumerate(turns):
            if d["speaker"] != a:
                continue
            reply = []
            for nxt in turns[i + 1 :]:
                if nxt["speaker"] == a:
                    break
                reply.append(nxt["text"])
            out.append((n, d["text"], " ".join(reply) or "OK."))
    return out


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else 0.0


def _timed_recall(svc: MemoryService, text: str) -> float:
    t0 = time.perf_counter()
    svc.recall("bench-user", text)  # logged, like the turn's own recall
    return (time.perf_counter() - t0) * 1000


def _replay(svc: MemoryService, conv: dict) -> dict[str, Any]:
    turns = _turns(conv)
    model = ScriptedModel(replies=[r for _, _, r in turns], spent=[])
    agent = Agent(svc, chat_model=model)
    overhead, recall_ms, probe, ours, full, sessions = [], [], [], [], [], []
    writes: list[float] = []
    waited: list[float] = []
    history_tokens = 0
    for n, (session_no, text, reply) in enumerate(turns):
        if n % 2 == 0:  # recall alone, same input, same moment (before / after the turn in turn): the yardstick
            probe.append(_timed_recall(svc, text))
        t0 = time.perf_counter()
        result = agent.chat("bench-user", f"locomo-{session_no}", text)
        total = time.perf_counter() - t0
        overhead.append((total - model.spent[-1]) * 1000)
        t1 = time.perf_counter()
        svc.wait_writes("bench-user")  # between turns, off the turn's clock (see the module docstring)
        waited.append((time.perf_counter() - t1) * 1000)
        report = result.writes
        writes.append(report.timings_ms.get("total", 0.0) if report else 0.0)
        if n % 2 == 1:
            probe.append(_timed_recall(svc, text))
        recall_ms.append(result.recall.latency_ms)
        history_tokens += count_tokens(text) + 4
        full.append(history_tokens)  # a memoryless agent sends the whole conversation so far
        history_tokens += count_tokens(reply) + 4
        ours.append(result.context["total_used"])
        sessions.append(session_no)
    agent.close()
    return {
        "overhead": overhead,
        "recall": recall_ms,
        "probe": probe,
        "ours": ours,
        "full": full,
        "sessions": sessions,
        "writes": writes,
        "waited": waited,
    }


def main() -> None:
    load_before = [round(x, 2) for x in os.getloadavg()]
    data = json.loads(DATA.read_text())
    conv = data[0]
    with tempfile.TemporaryDirectory(prefix="memlens-bench-") as tmp:
        # 10,000 memories for one user: lift the lifecycle cap (2,000 by default) so none is archived
        settings = Settings(data_dir=Path(tmp), summary_background=True, max_active_memories=50_000)
        svc = MemoryService(settings)
        e5 = E5Embedder()
        seed_s = _seed(svc, e5, data, conv["sample_id"])
        run = _replay(svc, conv["conversation"])
        probe = run["probe"]
        memories = svc.storage.index.count()
        svc.close()
    last = max(run["sessions"])
    in_last = [i for i, s in enumerate(run["sessions"]) if s == last]
    ours_last = statistics.mean(run["ours"][i] for i in in_last)
    full_last = statistics.mean(run["full"][i] for i in in_last)
    report = {
        "conversation": conv["sample_id"],
        "turns": len(run["ours"]),
        "sessions": last,
        "memories": memories,
        "note": "overhead = turn wall time minus the model's own time; recall_ms = recall alone, interleaved",
        "seed_seconds": round(seed_s, 1),
        "overhead_ms": {"p50": round(pct(run["overhead"], 50), 1), "p95": round(pct(run["overhead"], 95), 1)},
        "recall_ms": {"p50": round(pct(probe, 50), 1), "p95": round(pct(probe, 95), 1)},
        "recall_in_turn_ms": {"p50": round(pct(run["recall"], 50), 1), "p95": round(pct(run["recall"], 95), 1)},
        "write_after_reply_ms": {
            "p50": round(pct(run["writes"], 50), 1),
            "p95": round(pct(run["writes"], 95), 1),
            "waited_between_turns_p95": round(pct(run["waited"], 95), 1),
        },
        "throughput_turns_per_s": round(1000 / statistics.mean(run["overhead"]), 2),
        "tokens_per_turn_last_session": {
            "memlens": round(ours_last),
            "full_history": round(full_last),
            "ratio": round(ours_last / full_last, 4),
        },
        "tokens_per_turn_all": {
            "memlens_mean": round(statistics.mean(run["ours"])),
            "full_history_mean": round(statistics.mean(run["full"])),
        },
    }
    report["overhead_p95_over_recall_p95"] = round(report["overhead_ms"]["p95"] / report["recall_ms"]["p95"], 2)
    report["load_avg_1_5_15"] = [round(x, 2) for x in os.getloadavg()]
    report["load_avg_before"] = load_before
    report["targets"] = {
        "overhead_p95_le_1_5x_recall_p95": report["overhead_ms"]["p95"] <= 1.5 * report["recall_ms"]["p95"],
        "tokens_le_10pct_of_full_history": report["tokens_per_turn_last_session"]["ratio"] <= 0.10,
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
