"""PII spellings stored raw, per category and per door: the issue-#30 corpus and the issue-#45 one
(tests/pii_corpus.py, 305 + 75 spellings in 19 categories, each inside an English or a Chinese sentence) goes in
through the Python API (``Memory.add``, the text also as metadata), the REST API (``POST /v1/memories`` on a real
uvicorn server) and the LangGraph store (``put`` with the text as the key and in the value), each door into its own
throwaway data folder; then every file of the folder is scanned for each spelling's exact bytes. Also reports the
masker alone (``mask_pii``) and the ordinary text it must leave alone.

``python bench/pii_doors.py [--out bench/results/pii_doors.json]`` (hash embedder: the embedder does not matter).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))


def _scan(folder: Path, corpus: dict[str, list[tuple[str, str]]]) -> dict[str, list[str]]:
    blob = b"".join(p.read_bytes() for p in folder.rglob("*") if p.is_file())
    return {cat: [s for _, s in rows if s.encode() in blob] for cat, rows in corpus.items()}


def _service(folder: Path):
    from memory.config import Settings
    from memory.service import MemoryService

    # no per-key token budget: the corpus is sent as fast as the door takes it (this measures masking, not throttling)
    return MemoryService(Settings(data_dir=folder, embedder="hash", summary_background=False, api_tokens_per_minute=0))


def door_python(folder: Path, texts: list[str]) -> None:
    from memory.client import Memory

    svc = _service(folder)
    mem = Memory(svc)
    for i, t in enumerate(texts):
        mem.add(t, user_id="pii-python", run_id=f"s{i // 20}", metadata={"note": t})
    svc.close()


def door_rest(folder: Path, texts: list[str]) -> None:
    import httpx
    from doors_helpers import free_port, serve_in_thread

    from agent.serve.api import create_app
    from memory import apikeys
    from memory.cli.common import cli_actor

    svc = _service(folder)
    key = apikeys.create(svc.storage, "pii", actor=cli_actor())[0]
    server = serve_in_thread(create_app(svc), free_port())
    base = next(server)
    with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=60) as c:
        for i, t in enumerate(texts):
            body = {"messages": t, "user_id": "pii-rest", "run_id": f"s{i // 20}", "metadata": {"note": t}}
            r = c.post("/v1/memories", json=body)
            r.raise_for_status()
    next(server, None)
    svc.close()


def door_langgraph(folder: Path, texts: list[str]) -> None:
    from memory.client import Memory
    from memory.langgraph import MemLensStore

    svc = _service(folder)
    store = MemLensStore(Memory(svc, via="langgraph"))
    for t in texts:  # the text as the key too
        store.put(("pii-store", "default", "notes"), t, {"content": t, "extra": {"said": t}})
    svc.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "pii_doors.json"))
    args = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from pii_corpus import NOT_PII, NOT_PII_45, leaked, spellings_45, spellings_by_category

    from memory.text.privacy import mask_pii

    corpus = {**spellings_by_category(), **spellings_45()}
    texts = [t for rows in corpus.values() for t, _ in rows]
    result: dict[str, object] = {"spellings": len(texts), "categories": {c: len(r) for c, r in corpus.items()}}
    result["masker"] = {c: sum(leaked(mask_pii(t), s) for t, s in rows) for c, rows in corpus.items()}
    result["false_positives"] = [t for t in NOT_PII + NOT_PII_45 if mask_pii(t) != t]
    for name, door in (("python", door_python), ("rest", door_rest), ("langgraph", door_langgraph)):
        folder = Path(tempfile.mkdtemp(prefix=f"memlens-pii-{name}-"))
        door(folder, texts)
        raw = _scan(folder, corpus)
        result[name] = {c: len(v) for c, v in raw.items()}
        result[f"{name}_examples"] = {c: v[:3] for c, v in raw.items() if v}
    total = {d: sum(result[d].values()) for d in ("masker", "python", "rest", "langgraph")}  # type: ignore[union-attr]
    result["total_raw"] = total
    print(json.dumps({k: result[k] for k in ("masker", "python", "rest", "langgraph", "total_raw")}, indent=1))
    print("false positives:", result["false_positives"])
    Path(args.out).write_text(json.dumps(result, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
