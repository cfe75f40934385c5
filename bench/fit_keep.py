"""Fit the worth-keeping decision (memory.write.keep) on LoCoMo dev and measure it leaving one conversation out.

    python bench/fit_keep.py /work/shared/data/locomo_dev.json [--out FILE] [--cache FILE.npz]

1. Every turn of every conversation goes through the write path's extraction (``pipeline.prepare``, read after the
   other speaker's turn of the session, as ``bench/facts_standalone.py`` and ``memlens eval facts`` do); each
   candidate is embedded by ``embed_passages`` (the vector the write path computes for it) and labelled by the
   benchmark's agreement (``memory.evaluation.facts``: does it agree with an observation citing its source turn —
   what precision counts). ``--cache`` keeps candidates and vectors for re-fitting without re-running extraction.
2. Only the candidates the decision judges (``keep.judged``) are fitted and decided; the others are always kept.
3. Leave one conversation out: for each conversation, a model is fitted on the others and its keep-threshold is
   chosen on them only (leave one of *them* out in turn: the highest F1 of precision and recall, a rule with no
   number of its own to tune); the held-out conversation is then decided by that model and threshold.
   Precision, recall and memories per 100 messages are reported per held-out conversation and summed over the
   conversations left out of rule tuning (``facts.TUNE``).
4. The shipped model: fitted on all conversations, threshold chosen the same way over all of them.

Writes ``memory/write/keeping/<embedder>.json`` (weights, threshold, and the figures above) unless ``--out``.
"""

from __future__ import annotations

import json
import os
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
L2 = 1.0  # the ridge on the weights (not on the bias)
GRID = np.round(np.arange(0.30, 0.705, 0.01), 2)


def candidates(path: str, embedder: Any) -> dict[str, Any]:
    """Candidates of every turn with flags, judged mask, vector and the observations each agrees with."""
    from memory.evaluation import facts
    from memory.storage.models import Message
    from memory.write import keep
    from memory.write.pipeline import Item, prepare

    rows: list[dict[str, Any]] = []
    cands = []
    nobs, nturns = {}, {}
    for conv in facts.load(path):
        nobs[conv.sample_id], nturns[conv.sample_id] = len(conv.observations), len(conv.turns)
        per_turn: dict[str, list[dict[str, Any]]] = {}
        for turn, previous, recent in facts.read_in_session(conv.turns):
            message = Message(session_id="f", user_key="f", role="user", content=turn.text, created_at=turn.at)
            for c in prepare(Item(message, previous=previous, recent=recent)).cands:
                r = {
                    "conversation": conv.sample_id,
                    "dia_id": turn.dia_id,
                    "content": c.content,
                    "evidence": c.evidence,
                    "said": facts.as_speaker(c.content, turn.speaker),
                    "speaker": turn.speaker,
                    "judged": keep.judged(c),
                    "flags": keep.flags(c),
                    "hits": [],
                }
                rows.append(r)
                cands.append(c)
                per_turn.setdefault(turn.dia_id, []).append(r)
        pairs = [
            (r, i)
            for i, o in enumerate(conv.observations)
            for dia in sorted(o.dia_ids)
            for r in per_turn.get(dia, [])
            if r["speaker"] == o.speaker
        ]
        mems = list({id(r): r for r, _ in pairs}.values())
        obs = sorted({i for _, i in pairs})
        v = embedder.embed_passages([r["said"] for r in mems] + [conv.observations[i].text for i in obs])
        vm = {id(r): v[k] for k, r in enumerate(mems)}
        vo = {i: v[len(mems) + k] for k, i in enumerate(obs)}
        words = {id(r): facts.content_words(r["said"], conv.speakers) for r in mems}
        owords = {i: facts.content_words(conv.observations[i].text, conv.speakers) for i in obs}
        for r, i in pairs:
            if facts._agree(float(vm[id(r)] @ vo[i]), len(words[id(r)] & owords[i])):
                r["hits"].append(f"{conv.sample_id}/{i}")
    vectors = np.asarray(embedder.embed_passages([c.content for c in cands]), dtype=np.float64)
    return {"rows": rows, "vectors": vectors, "observations": nobs, "turns": nturns}


def fit(x: np.ndarray, y: np.ndarray, l2: float = L2) -> np.ndarray:
    """L2-regularised logistic regression by Newton's method; the last weight is the bias."""
    xb = np.hstack([x, np.ones((len(x), 1))])
    w = np.zeros(xb.shape[1])
    ridge = l2 * np.eye(len(w))
    ridge[-1, -1] = 1e-6  # the bias all but unpenalised (and a solvable system when a fold has no examples)
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(xb @ w)))
        step = np.linalg.solve((xb * (p * (1 - p))[:, None]).T @ xb + ridge, xb.T @ (p - y) + ridge @ w)
        w -= step
        if np.abs(step).max() < 1e-7:
            break
    return w


class Data:
    """The cached candidates as arrays, and the figures of a keep-mask."""

    def __init__(self, d: dict[str, Any]) -> None:
        from memory.write import keep

        self.rows = d["rows"]
        self.vectors = d["vectors"]
        self.observations, self.turns = d["observations"], d["turns"]
        self.conv = np.array([r["conversation"] for r in self.rows])
        self.judged = np.array([bool(r["judged"]) for r in self.rows])
        flags = [r["flags"] for r in self.rows]
        self.flags = np.array(flags, dtype=np.float64).reshape(len(self.rows), len(keep.FLAGS))
        self.y = np.array([float(bool(r["hits"])) for r in self.rows])

    def design(self, idx: np.ndarray, mean: np.ndarray, scale: np.ndarray) -> np.ndarray:
        return np.hstack([self.vectors[idx], (self.flags[idx] - mean) / scale])

    def model(self, convs: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        idx = np.where(self.judged & np.isin(self.conv, convs))[0]
        if len(idx):
            mean, scale = self.flags[idx].mean(0), self.flags[idx].std(0) + 1e-6
        else:  # nothing to judge in these conversations
            mean, scale = np.zeros(self.flags.shape[1]), np.ones(self.flags.shape[1])
        return fit(self.design(idx, mean, scale), self.y[idx]), mean, scale

    def probabilities(self, m: tuple[np.ndarray, np.ndarray, np.ndarray], convs: list[str]) -> np.ndarray:
        w, mean, scale = m
        p = np.ones(len(self.rows))  # not judged: always kept
        idx = np.where(self.judged & np.isin(self.conv, convs))[0]
        x = np.hstack([self.design(idx, mean, scale), np.ones((len(idx), 1))])
        p[idx] = 1.0 / (1.0 + np.exp(-(x @ w)))
        return p

    def figures(self, keep: np.ndarray, convs: list[str]) -> dict[str, Any]:
        idx = np.where(keep & np.isin(self.conv, convs))[0]
        hits = {h for i in idx for h in self.rows[i]["hits"]}
        n, turns = len(idx), sum(self.turns[c] for c in convs)
        return {
            "memories": n,
            "precision": round(100 * sum(bool(self.rows[i]["hits"]) for i in idx) / n, 1) if n else None,
            "recall": round(100 * len(hits) / max(1, sum(self.observations[c] for c in convs)), 1),
            "memories_per_100_messages": round(100 * n / turns, 1) if turns else None,
        }

    def threshold(self, convs: list[str]) -> float:
        """Chosen on ``convs`` only: leave one of them out in turn (in-sample when there is only one)."""
        p = np.ones(len(self.rows))
        for c in convs:
            rest = [x for x in convs if x != c] or [c]
            p = np.where(self.conv == c, self.probabilities(self.model(rest), [c]), p)
        best = (-1.0, float(GRID[0]))
        for t in GRID:
            f = self.figures(p >= t, convs)
            precision, recall = f["precision"] or 0.0, f["recall"]
            f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
            if f1 > best[0]:
                best = (f1, float(t))
        return best[1]


def run(d: dict[str, Any]) -> dict[str, Any]:
    from memory.evaluation import facts
    from memory.write import keep

    data = Data(d)
    convs = list(data.observations)
    decided = np.zeros(len(data.rows), bool)
    by_conv: dict[str, Any] = {}
    for c in convs:
        train = [x for x in convs if x != c]
        t = data.threshold(train)
        decided |= (data.probabilities(data.model(train), [c]) >= t) & (data.conv == c)
        by_conv[c] = {"threshold": t, **data.figures(decided, [c])}
    everything = np.ones(len(data.rows), bool)
    left = [c for c in convs if c not in facts.TUNE]
    tune = [c for c in convs if c in facts.TUNE]
    w, mean, scale = data.model(convs)
    return {
        "format": 1,
        "version": f"{keep.EMBEDDER}-locomo-dev-{datetime.now(UTC):%Y%m%d}",
        "embedder": keep.EMBEDDER,
        "dim": int(data.vectors.shape[1]),
        "flags": list(keep.FLAGS),
        "l2": L2,
        "threshold_rule": "highest F1 of precision and recall, on training folds",
        "threshold": data.threshold(convs),
        "fitted_on": convs,
        "figures": {
            "candidates": len(data.rows),
            "judged": int(data.judged.sum()),
            "left_out_by_conversation": by_conv,
            "left_out": {"conversations": left, **data.figures(decided, left)},
            "tune_conversations_held_out": {"conversations": tune, **data.figures(decided, tune)},
            "every_candidate_kept": {c: data.figures(everything, [c]) for c in convs},
        },
        "mean": [round(float(v), 6) for v in mean],
        "scale": [round(float(v), 6) for v in scale],
        "weights": [round(float(v), 6) for v in w[:-1]],
        "bias": round(float(w[-1]), 6),
    }


def main(argv: list[str]) -> None:
    if not argv or argv[0].startswith("-"):
        raise SystemExit(__doc__)
    sys.path.insert(0, str(ROOT))
    from memory.write import keep

    out = Path(argv[argv.index("--out") + 1]) if "--out" in argv else keep.SHIPPED_DIR / f"{keep.EMBEDDER}.json"
    cache = Path(argv[argv.index("--cache") + 1]) if "--cache" in argv else None
    if cache and cache.exists():
        z = np.load(cache, allow_pickle=False)
        d = {**json.loads(str(z["meta"])), "vectors": z["vectors"]}
    else:
        from memory.storage.embed import E5Embedder

        d = candidates(argv[0], E5Embedder())
        if cache:
            meta = {k: v for k, v in d.items() if k != "vectors"}
            np.savez(cache, vectors=d["vectors"], meta=json.dumps(meta))
    report = run(d)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, ensure_ascii=False) + "\n", encoding="utf-8")
    figs = report["figures"]
    for c, f in figs["left_out_by_conversation"].items():
        print(f"{c:<10} {f}")
    print(f"left out   {figs['left_out']}")
    print(f"shipped threshold {report['threshold']}  -> {out}")


if __name__ == "__main__":
    main(sys.argv[1:])
    sys.stdout.flush()
    os._exit(0)  # the embedder's worker threads can hold the interpreter's exit for minutes
