"""Is what a user tells the agent in chat remembered in a later session? Ordinary things people say (English and
Chinese, `bench/data/chat_recall_set.json`, written for this benchmark and never tuned on), each told in a session of
its own through the agent's turn loop with the settings users have (offline engine, bundled e5 embedder, default
threshold), then asked in a later session, after all of that user's sessions. Per question:

- **kept**: some memory of the user (episode or fact) holds the answer;
- **injected**: a memory holding the answer passed the relevance threshold into the prompt (and which layer: episode or
  fact), with its rank among the hits;
- **answered**: the offline reply says the answer;
- per told session, whether its bridge says something ("Last time you mentioned …") rather than "you didn't tell me
  anything new".

    python bench/chat_recall.py [--set bench/data/chat_recall_set.json] [--out bench/results/chat_recall.json]

Prints the figures per language and writes the JSON result (every question with what was injected).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from agent.runtime import Agent
from memory.config import Settings
from memory.prompts import BRIDGE_WORDS
from memory.service import MemoryService
from memory.storage.embed import E5Embedder

HERE = Path(__file__).parent
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def holds(text: str, answers: list[str]) -> bool:
    low = text.lower()
    return any(a.lower() in low for a in answers)


def run_user(agent: Agent, user: dict) -> tuple[list[dict], list[dict]]:
    """Tell every story (a session a day), then ask every question (a new session each, days later)."""
    uid, told, asked = user["id"], [], []
    nothing = {w["nothing"] for w in BRIDGE_WORDS.values()}
    for i, story in enumerate(user["stories"]):
        at = START + timedelta(days=i)
        for j, text in enumerate(story["said"]):
            agent.chat(uid, f"told-{i}", text, at=at + timedelta(minutes=j))
        agent.wait()
        bridge = agent.end_session(uid, f"told-{i}") or ""
        told.append({"story": i, "bridge": bridge, "says_something": bool(bridge) and bridge not in nothing})
    kept_texts = [m.content for m in agent.service.list_memories(agent.service.get_user(uid))]
    for i, story in enumerate(user["stories"]):
        at = START + timedelta(days=30 + i)
        res = agent.chat(uid, f"asked-{i}", story["asked"], at=at)
        agent.wait()
        agent.end_session(uid, f"asked-{i}")
        hits = res.recall.hits if res.recall else []
        holding = [h for h in hits if holds(h.content, story["answer"])]
        injected = [h for h in holding if h.injected]
        asked.append(
            {
                "user": uid,
                "lang": user["lang"],
                "asked": story["asked"],
                "answer": story["answer"],
                "kept": any(holds(t, story["answer"]) for t in kept_texts),
                "retrieved": bool(holding),
                "rank": holding[0].rank if holding else None,
                "injected": bool(injected),
                "layer": injected[0].type if injected else None,
                "relevance": round(holding[0].relevance, 4) if holding and holding[0].relevance is not None else None,
                "injected_count": sum(1 for h in hits if h.injected),
                "answered": holds(res.reply, story["answer"]),
                "reply": res.reply,
            }
        )
    return told, asked


def share(rows: list[dict], key: str) -> float:
    return round(100 * sum(1 for r in rows if r[key]) / len(rows), 1) if rows else 0.0


def summary(asked: list[dict], told: list[dict]) -> dict:
    out = {}
    for lang in ("all", "en", "zh"):
        rows = [r for r in asked if lang in ("all", r["lang"])]
        out[lang] = {
            "questions": len(rows),
            **{f"{k}_pct": share(rows, k) for k in ("kept", "retrieved", "injected", "answered")},
            "injected_from_episode": sum(1 for r in rows if r["layer"] == "episode"),
            "injected_from_fact": sum(1 for r in rows if r["injected"] and r["layer"] != "episode"),
            "mean_injected_per_turn": round(sum(r["injected_count"] for r in rows) / len(rows), 2) if rows else 0,
        }
    out["bridges_saying_something_pct"] = share(told, "says_something")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", default=str(HERE / "data" / "chat_recall_set.json"))
    ap.add_argument("--out", default=str(HERE / "results" / "chat_recall.json"))
    args = ap.parse_args()
    data = json.loads(Path(args.set).read_text(encoding="utf-8"))
    embedder = E5Embedder()
    told: list[dict] = []
    asked: list[dict] = []
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        svc = MemoryService(Settings(data_dir=Path(tmp)), embedder=embedder)
        agent = Agent(svc)
        try:
            for user in data["users"]:
                t, a = run_user(agent, user)
                told += t
                asked += a
        finally:
            agent.close()
            svc.close()
    result = {
        "set": Path(args.set).name,
        "path": "agent.runtime.Agent.chat (the turn loop `memlens chat` runs), offline engine, default settings",
        "seconds": round(time.perf_counter() - t0, 1),
        "summary": summary(asked, told),
        "questions": asked,
        "bridges": told,
    }
    Path(args.out).write_text(json.dumps(result, ensure_ascii=False, indent=1), encoding="utf-8")
    for lang, row in result["summary"].items():
        print(lang, row)
    for r in asked:
        if not r["injected"]:
            print("missed:", r["user"], r["asked"], "kept" if r["kept"] else "NOT KEPT", "rank", r["rank"])


if __name__ == "__main__":
    main()
