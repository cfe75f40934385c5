"""Cross-lingual ranking: a query in one language must rank the memory stated in the other language first when it is
the direct answer. `python bench/crosslingual.py` → bench/results/crosslingual.json (first-place rate per direction
and mode, with the real offline e5 embedder, in a scratch store).

The pairs live in tests/data/crosslingual_pairs.json (also used by tests/test_crosslingual.py): a query, the direct
answer in the other language, and distractors on the same topic in that language.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: (query, direct answer, distractors): English queries over Chinese memories, then the reverse (shared with the tests)
PAIRS = [
    (p["query"], p["answer"], tuple(p["distractors"]))
    for p in json.loads((ROOT / "tests" / "data" / "crosslingual_pairs.json").read_text(encoding="utf-8"))
]


def direction(query: str) -> str:
    return "zh→en" if any("\u4e00" <= ch <= "\u9fff" for ch in query) else "en→zh"


def first_place(svc, modes=("hybrid", "vector")) -> dict:
    """Per mode and direction: how often the direct answer is ranked first among its distractors."""
    out: dict = {}
    for n, (query, answer, others) in enumerate(PAIRS):
        user = svc.ensure_user(f"xl-{n}")
        ids = {svc.add_memory(user, text, type="fact").content: text for text in (answer, *others)}
        assert ids
        for mode in modes:
            hits = svc.recall(user.external_id, query, threshold=-1.0, mode=mode, log=False).hits
            top = hits[0].content if hits else None
            row = out.setdefault(mode, {}).setdefault(direction(query), {"pairs": 0, "first": 0})
            row["pairs"] += 1
            row["first"] += int(top == answer)
    for mode in out.values():
        for row in mode.values():
            row["rate"] = round(row["first"] / row["pairs"], 3)
    return out


def main() -> None:
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from memory.config import Settings
    from memory.service import MemoryService

    with tempfile.TemporaryDirectory() as tmp:
        svc = MemoryService(Settings(data_dir=Path(tmp)))
        result = first_place(svc)
        svc.close()
    for mode, rows in result.items():
        for d, row in rows.items():
            print(f"{mode:<7} {d}: direct answer first {row['first']}/{row['pairs']} ({100 * row['rate']:.0f}%)")
    out = ROOT / "bench" / "results" / "crosslingual.json"
    out.write_text(
        json.dumps({"benchmark": "crosslingual", "embedder": "e5-small-q4", "first_place": result}, indent=1)
    )


if __name__ == "__main__":
    main()
