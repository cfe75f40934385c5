"""Tried and not shipped (docs/extraction.md, fourth round): a learned "worth keeping" scorer of extracted memories,
fitted on the tuning split only.

Every turn of the tuning conversations (conv-26, conv-30) goes through the write path's extraction
(``pipeline.prepare``, read after the other speaker's turn as ``memlens eval facts`` does); each candidate of a scored
category is labelled by the benchmark's agreement (agrees with an observation citing its turn, or not) and described by
its passage vector (the real offline embedder, e5-small). A ridge-penalised logistic regression is cross-validated
between the two conversations (fit on one, threshold at a quantile of its own scores, test on the other: precision and
recall points gained or lost) and then fitted on both (weights with the standardisation folded in, and the threshold,
written to ``--write FILE``). No left-out conversation is read. Run:

    PYTHONPATH=$PWD python bench/facts_worth.py /work/shared/data/locomo_dev.json [--write FILE]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from memory.evaluation import facts
from memory.storage.embed import E5Embedder
from memory.storage.models import Message
from memory.write.pipeline import Item, prepare

#: what the scorer would judge: the rules' own-words facts, events, tastes and plans (never a name, place or budget)
SCORED = frozenset({"fact", "event", "likes", "plan"})

L2 = (100.0, 300.0, 1000.0, 3000.0)
QUANTILES = (5, 10, 15, 20)
CHOSEN = (1000.0, 5)  # (l2, quantile) with the best cross-validated trade (see the printed table)


def rows(path: str, embedder: E5Embedder) -> list[dict]:
    out = []
    for conv in facts.load(path):
        if conv.sample_id not in facts.TUNE:
            continue
        mine: list[dict] = []
        for turn, previous, recent in facts.read_in_session(conv.turns):
            message = Message(session_id="e", user_key="e", role="user", content=turn.text, created_at=turn.at)
            for c in prepare(Item(message, previous=previous, recent=recent)).cands:
                if c.predicate in SCORED:
                    mine.append({"conv": conv.sample_id, "turn": turn, "content": c.content})
        vecs = embedder.embed_passages([facts.as_speaker(r["content"], r["turn"].speaker) for r in mine])
        raw = embedder.embed_passages([r["content"] for r in mine])
        obs = conv.observations
        ov = embedder.embed_passages([o.text for o in obs])
        for r, v, x in zip(mine, vecs, raw, strict=True):
            words = facts.content_words(facts.as_speaker(r["content"], r["turn"].speaker), conv.speakers)
            r["vec"], r["n_obs"] = x, len(obs)
            r["agrees_with"] = {
                j
                for j, o in enumerate(obs)
                if o.speaker == r["turn"].speaker
                and r["turn"].dia_id in o.dia_ids
                and facts._agree(float(v @ ov[j]), len(words & facts.content_words(o.text, conv.speakers)))
            }
        out += mine
    return out


def fit(x: np.ndarray, y: np.ndarray, l2: float) -> np.ndarray:
    """Logistic regression by Newton's method, ridge penalty on every weight but the bias."""
    w = np.zeros(x.shape[1])
    reg = l2 * np.eye(x.shape[1])
    reg[0, 0] = 0
    for _ in range(30):
        p = 1 / (1 + np.exp(-x @ w))
        h = x.T @ (x * (p * (1 - p))[:, None]) + reg
        w -= np.linalg.solve(h, x.T @ (p - y) + reg @ w)
    return w


def design(rs: list[dict], mu=None, sd=None):
    x = np.array([r["vec"] for r in rs], dtype=np.float64)
    if mu is None:
        mu, sd = x.mean(0), x.std(0) + 1e-6
    return np.hstack([np.ones((len(rs), 1)), (x - mu) / sd]), mu, sd


def figures(rs: list[dict], keep) -> tuple[float, float, int]:
    kept = [r for r, k in zip(rs, keep, strict=True) if k]
    precision = sum(bool(r["agrees_with"]) for r in kept) / max(1, len(kept))
    return precision, len({j for r in kept for j in r["agrees_with"]}) / rs[0]["n_obs"], len(kept)


def main() -> None:
    data = rows(sys.argv[1], E5Embedder())
    convs = list(facts.TUNE)
    for l2 in L2:
        mean: dict[int, list[float]] = {q: [0.0, 0.0] for q in QUANTILES}
        for train, test in ((0, 1), (1, 0)):
            a = [r for r in data if r["conv"] == convs[train]]
            b = [r for r in data if r["conv"] == convs[test]]
            xa, mu, sd = design(a)
            w = fit(xa, np.array([float(bool(r["agrees_with"])) for r in a]), l2)
            sa, sb = xa @ w, design(b, mu, sd)[0] @ w
            p0, r0, _ = figures(b, [True] * len(b))
            for q in QUANTILES:
                p, r, n = figures(b, sb >= np.percentile(sa, q))
                mean[q][0] += 50 * (p - p0)
                mean[q][1] += 50 * (r - r0)
                print(
                    f"l2={l2:<6} fit {convs[train]} test {convs[test]} q={q:<2} dP={100 * (p - p0):+.1f} "
                    f"dR={100 * (r - r0):+.1f} kept {n}/{len(b)}"
                )
        print(
            f"l2={l2:<6} mean over the two folds (dP, dR):", {q: tuple(round(v, 1) for v in m) for q, m in mean.items()}
        )
    l2, q = CHOSEN
    x, mu, sd = design(data)
    w = fit(x, np.array([float(bool(r["agrees_with"])) for r in data]), l2)
    weights = w[1:] / sd
    bias = float(w[0] - (w[1:] * mu / sd).sum())
    raw = np.array([r["vec"] for r in data]) @ weights + bias
    threshold = float(np.percentile(raw, q))
    out = {
        "what": "worth-keeping scorer of extracted memories: logistic regression on the e5-small passage vector of "
        "the memory, fitted on LoCoMo conv-26 and conv-30 (bench/facts_worth.py)",
        "embedder": "e5-small-q4",
        "l2": l2,
        "quantile": q,
        "memories": len(data),
        "threshold": round(threshold, 6),
        "bias": round(bias, 6),
        "weights": [round(float(v), 6) for v in weights],
    }
    print({k: v for k, v in out.items() if k != "weights"})
    if "--write" in sys.argv:
        target = Path(sys.argv[sys.argv.index("--write") + 1])
        target.write_text(json.dumps(out) + "\n", encoding="utf-8")
        print("written", target)


if __name__ == "__main__":
    main()
