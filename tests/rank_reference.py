"""Fixed candidate sets for pinning recall's ranking: inputs (what the index and SQL would return) and what
:func:`memory.retrieval.recall.rank_signals` made of them — every feature by name, relevance, order and verdicts.

Why: the ranking's hot path is tuned for speed (cached cross-lingual concepts, vectorised arithmetic); a speed-up
must not move a single feature value or hit. ``tests/test_recall_fastpath.py`` recomputes and compares.

An intentional change of a feature's definition or of fusion re-records the reference, said so in the commit:

    PYTHONPATH=$PWD python tests/rank_reference.py
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

from memory.retrieval.policy import RecallPolicy
from memory.retrieval.recall import MemoryRow, Signals, rank_signals
from memory.retrieval.relevance import FEATURES, Calibration

DATA = Path(__file__).parent / "data"
REFERENCE = DATA / "rank_reference.json"
#: coefficients of the test calibration, by feature name (features not named here weigh 0): every feature moves
#: the relevance, so the order checks them all
COEF = {name: round(0.9 - 0.13 * i, 2) for i, name in enumerate(FEATURES)}
BASE_PARAMS = {
    "mode": "hybrid",
    "k": 5,
    "threshold": 0.3,
    "similarity_floor": None,
    "relative_cut": None,
    "fusion": "linear",
    "vector_weight": 0.3,
    "rrf_k": 60,
    "pool": 100,
    "neighbor_weight": 0.5,
    "neighbor_weight_fts": 0.3,
    "neighbor_span": 2,
    "day_boost": 1.0,
    "crosslingual": True,
    "order": "relevance",
}
QUERIES = [
    ("Does the user eat spicy food?", {}),
    ("用户住在哪里？", {}),
    ("What is the name of Alice's puppy, and did Carol run in Berlin?", {}),
    ("用户喜欢什么运动？", {"fusion": "rrf"}),
    ("Where did the user travel recently?", {"mode": "vector", "order": "fused"}),
    ("What does the user like to eat?", {"crosslingual": False}),
]


def calibration(coef: dict[str, float]) -> Calibration:
    """A fitted-looking calibration over today's feature list, weighting only the features named in ``coef``."""
    n = len(FEATURES)
    return Calibration(
        embedder="test",
        coef=tuple(coef.get(name, 0.0) for name in FEATURES),
        intercept=-0.5,
        mean=(0.0,) * n,
        scale=(1.0,) * n,
        threshold=0.3,
        version="test",
    )


def _texts() -> list[str]:
    pairs = json.loads((DATA / "crosslingual_pairs.json").read_text(encoding="utf-8"))["pairs"]
    out = [t for p in pairs for t in (p["answer"], *p["distractors"])]
    for sample in json.loads((DATA / "tiny_locomo_format.json").read_text(encoding="utf-8")):
        conv = sample["conversation"]
        out += [f"{t['speaker']}: {t['text']}" for key, turns in conv.items() if key[-1:].isdigit() for t in turns]
    return list(dict.fromkeys(out))


def build_cases(seed: int = 17) -> dict:
    """The texts and, per query, the params and signals: vector and BM25 lists, similarities, and the SQL rows as
    [text number, is a turn, day, source message or None, importance, flagged] (deterministic)."""
    rng = random.Random(seed)
    texts = _texts()
    cases = []
    for query, over in QUERIES:
        params = {**BASE_PARAMS, **over}
        chosen = sorted(rng.sample(range(len(texts)), min(100, len(texts))))
        rows = [
            [t, n % 3 != 0, n // 12, 1000 + n if n % 5 else None, round(rng.uniform(0.2, 0.9), 3), n == 7]
            for n, t in enumerate(chosen)
        ]
        sims = {f"m{t}": round(rng.uniform(0.70, 0.92), 6) for t in chosen}
        vec = sorted(sims.items(), key=lambda p: -p[1])[:80]
        fts = [] if params["mode"] == "vector" else [(f"m{t}", round(rng.uniform(0.5, 9.0), 4)) for t in chosen[::3]]
        fts.sort(key=lambda p: -p[1])
        cases.append({"query": query, "params": params, "vec": vec, "fts": fts, "sims": sims, "rows": rows})
    return {"texts": texts, "cases": cases}


def signals(case: dict, texts: list[str]) -> Signals:
    start = datetime(2026, 3, 1, 9, tzinfo=UTC)
    rows = [
        MemoryRow(
            id=f"m{t}",
            agent_id="default",
            content=texts[t],
            type="episode" if turn else "fact",
            source_type="conversation" if turn else "user-stated",
            created_at=start + timedelta(days=day, minutes=t),
            event_time=None,
            confidence=1.0,
            importance=importance,
            source_message_ids=[msg] if msg is not None else [],
            meta={"flagged": True} if flagged else {},
            predicate=None,
            object=None,
        )
        for t, turn, day, msg, importance, flagged in case["rows"]
    ]
    vec = [(i, s) for i, s in case["vec"]]
    fts = [(i, s) for i, s in case["fts"]]
    return Signals(query=case["query"], vec=vec, fts=fts, sims=dict(case["sims"]), rows=rows)


def ranked(case: dict, texts: list[str], coef: dict[str, float]) -> dict:
    """What rank_signals makes of a case: hits in order with their scores, verdicts and features (by name)."""
    hits = rank_signals(signals(case, texts), params=RecallPolicy(**case["params"]), calibration=calibration(coef))
    return {
        "order": [h.memory_id for h in hits],
        "score": [h.score for h in hits],
        "relevance": [h.relevance for h in hits],
        "verdict": [[h.passed, h.selected, h.drop_reason] for h in hits],
        "features": {name: [h.features[i] for h in hits] for i, name in enumerate(FEATURES)},
    }


def main() -> None:
    data = build_cases()
    for case in data["cases"]:
        case["expected"] = ranked(case, data["texts"], COEF)
    REFERENCE.write_text(json.dumps({"coef": COEF, **data}, ensure_ascii=False, separators=(",", ":")), "utf-8")
    print(f"wrote {REFERENCE} ({REFERENCE.stat().st_size // 1024} kB, {len(data['cases'])} cases)")


if __name__ == "__main__":
    main()
