"""Relevance calibration on LoCoMo: `python bench/calibrate.py [PATH]` → bench/results/calibration_locomo_dev.json and
the shipped fit memory/retrieval/calibration/<embedder>.json.

Runs `memlens eval calibrate --write`: leave-one-conversation-out first (Brier, reliability data, answerable / foreign
rates against the relevance threshold on the left-out conversations, the threshold chosen there), then one fit on
every conversation. Uses the same scratch store as bench/locomo.py (ingest once; set MEMLENS_DATA_DIR to pick one)
and caches the asked candidates beside it (MEMLENS_CALIBRATION_CACHE), so refits take seconds. Numbers only.
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
    scratch = Path(os.environ.setdefault("MEMLENS_DATA_DIR", str(Path(tempfile.gettempdir()) / "memlens-locomo-bench")))
    cache = os.environ.get("MEMLENS_CALIBRATION_CACHE", str(scratch / "eval" / "asked.pkl"))
    from memory.cli import app, run

    out = ROOT / "bench" / "results" / "calibration_locomo_dev.json"
    sys.argv = ["memlens", "eval", "calibrate", str(path), "--cache", cache, "--write", "--out", str(out)]
    run(app)


if __name__ == "__main__":
    main()
