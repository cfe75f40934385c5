"""Cross-lingual ranking: a query in one language must rank the memory stated in the other language first when it is
the direct answer. `python bench/crosslingual.py` → bench/results/crosslingual.json: first-place rate per half
(tuning / held-out) and direction, without and with the cross-lingual lexicon (``crosslingual_lexicon``), with the
real offline e5 embedder in a scratch store, hybrid recall as the agent runs it.

The labelled pairs live in tests/data/crosslingual_pairs.json (also used by tests/test_crosslingual.py): a query,
the direct answer in the other language, same-topic distractors in that language, and the half it belongs to; every
pair's store also holds a few background memories in the answer's language.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DATA = json.loads((ROOT / "tests" / "data" / "crosslingual_pairs.json").read_text(encoding="utf-8"))
VARIANTS = {"before (no lexicon)": False, "after (lexicon)": True}


def is_zh(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def direction(query: str) -> str:
    return "zh→en" if is_zh(query) else "en→zh"


def store_texts(pair: dict) -> list[str]:
    """What the pair's user remembers: the background in the answer's language, the answer, the distractors."""
    return [*DATA["background"]["zh" if is_zh(pair["answer"]) else "en"], pair["answer"], *pair["distractors"]]


def answer_ranks(svc, variants: dict[str, bool] = VARIANTS, keep=lambda pair: True) -> dict[str, list[dict]]:
    """Per variant: for every pair (``keep`` chooses), its half, direction and the direct answer's rank (1 = first)."""
    out: dict[str, list[dict]] = {name: [] for name in variants}
    for n, pair in enumerate(DATA["pairs"]):
        if not keep(pair):
            continue
        user = svc.ensure_user(f"xl-{n}")
        for text in store_texts(pair):
            svc.add_memory(user, text, type="fact")
        for name, on in variants.items():
            hits = svc.recall(
                user.external_id, pair["query"], policy=svc.recall_policy(threshold=-1.0, crosslingual=on), log=False
            ).hits
            rank = next(r for r, h in enumerate(hits, 1) if h.content == pair["answer"])
            out[name].append(
                {"split": pair["split"], "direction": direction(pair["query"]), "topic": pair["topic"], "rank": rank}
            )
    return out


def summary(rows: list[dict]) -> dict:
    """First-place rate (and mean rank of the answer) per half and direction, and per half overall."""
    out: dict = {}
    for split in ("tune", "held"):
        for d in ("en→zh", "zh→en", "both"):
            sel = [r for r in rows if r["split"] == split and d in (r["direction"], "both")]
            first = sum(r["rank"] == 1 for r in sel)
            out.setdefault(split, {})[d] = {
                "pairs": len(sel),
                "first": first,
                "rate": round(first / len(sel), 3) if sel else None,
                "mean_rank": round(sum(r["rank"] for r in sel) / len(sel), 2) if sel else None,
            }
    return out


def main() -> None:
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from memory.config import Settings
    from memory.service import MemoryService

    with tempfile.TemporaryDirectory() as tmp:
        svc = MemoryService(Settings(data_dir=Path(tmp)))
        calibration = svc.relevance_model().version
        ranks = answer_ranks(svc)
        svc.close()
    result = {name: summary(rows) for name, rows in ranks.items()}
    for name, halves in result.items():
        for split, rows in halves.items():
            line = "  ".join(f"{d} {r['first']}/{r['pairs']} ({100 * r['rate']:.0f}%)" for d, r in rows.items())
            print(f"{name:<20} {split:<5} {line}")
    out = ROOT / "bench" / "results" / "crosslingual.json"
    load = os.getloadavg()[0]
    doc = {"benchmark": "crosslingual", "embedder": "e5-small-q4", "mode": "hybrid", "calibration": calibration}
    doc["load_1min"] = round(load, 1)
    out.write_text(json.dumps({**doc, "first_place": result}, indent=1, ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    main()
