"""LoCoMo retrieval quality: `python bench/locomo.py [PATH]` → bench/results/eval_locomo_dev.json.

Runs `memlens eval locomo` (tuned hybrid + BM25-only + dense-only baselines, real write path, real recall) in a
scratch data folder (reused between runs: set MEMLENS_DATA_DIR to pick one) and prints the per-category table.
Each conversation's questions are also asked of the next conversation's user (answerable vs. foreign rates at the
configured relevance threshold, leave-one-conversation-out calibration and recall). The report holds numbers only (no
dialogue or question text).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = Path(os.environ.get("MEMLENS_LOCOMO", ROOT.parent / "shared" / "data" / "locomo_dev.json"))


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    os.environ.setdefault("MEMLENS_DATA_DIR", str(Path(tempfile.gettempdir()) / "memlens-locomo-bench"))
    from memory.cli import app, run

    out = ROOT / "bench" / "results" / "eval_locomo_dev.json"
    sys.argv = ["memlens", "eval", "locomo", str(path), "--out", str(out)]
    if cache := os.environ.get("MEMLENS_EVAL_CACHE"):  # asked candidates reused by later runs (fast re-reports)
        sys.argv += ["--cache", cache]
    run(app)


if __name__ == "__main__":
    main()
