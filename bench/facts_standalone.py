"""Facts that stand on their own (issue 44): before / after on LoCoMo conversations left out of tuning, one command.

    python bench/facts_standalone.py /work/shared/data/locomo_dev.json [--before COMMIT] [--out FILE] [--seed N]

Every turn of every conversation goes through the function a user's chat turn runs (``pipeline.prepare``: classify,
mask, extract; then the planner's worth-keeping decision, ``memory.write.keep``, on each candidate's passage vector),
read after the other speaker's turn of the same session, as ``memlens eval facts`` does. "Before" is
the same extraction run by the code of ``--before`` (default: the commit this work started from), unpacked with
``git archive`` into a temporary folder and run there in a subprocess; "after" is this tree. Both lists of memories are
then scored here, by one set of measures:

- LoCoMo observations recall / precision (``memory.evaluation.facts``: the benchmark's agreement, unchanged);
- the share of memories with an unresolved reference (``memory.write.extract.references.unresolved``, the detector the
  extractor itself abstains with; its precision is read by hand on a seeded sample, see docs/extraction.md);
- the trivial share (``memory.write.extract.worth.trivial``: a reaction or an evaluation of the moment);
- memories per 100 messages;
- duplicates per user: memories one speaker would have stored twice — the write path's rule (``plan._is_duplicate``,
  i.e. ``memory.write.same.one_fact`` with the configured ``dedupe_threshold``) left out, so what remains is what
  the same rule, read on the whole list the write path kept (not only the nearest rows it searched, and in either
  order), still finds among them (pairs listed in ``left_pairs``);
  and what the hygiene queue's near-duplicate check itself (``hygiene.near_duplicates``, the same rule and threshold)
  proposes to merge among them, with its groups listed for reading by hand.

Splits are by conversation: ``facts.TUNE`` (conv-26, conv-30) is where rules were read and fitted; the others are the
headline ("left_out"). Writes bench/results/facts_standalone.json and prints one table.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
from collections import defaultdict
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BASE_COMMIT = "7d62077"  # main when issue 44 started (the third round compares with 5123b0b: --before 5123b0b)
SAMPLE = 50
SEED = 44


def dump(path: str) -> list[dict[str, Any]]:
    """Every memory the write path's extraction proposes for every turn (run by the code on ``sys.path``)."""
    from memory.evaluation import facts
    from memory.storage.models import Message
    from memory.write.pipeline import Item, prepare

    try:  # the worth-keeping decision the planner applies with the candidate's passage vector (absent before it)
        from memory.storage.embed import E5Embedder
        from memory.write import keep

        embedder: Any = E5Embedder()
    except ImportError:
        keep = embedder = None
    out = []
    for conv in facts.load(path):
        for turn, previous, recent in _read(facts, conv.turns):
            message = Message(session_id="b", user_key="b", role="user", content=turn.text, created_at=turn.at)
            more = {} if recent is None else {"recent": recent}  # the code before Item.recent has no such field
            cands = prepare(Item(message, previous=previous, **more)).cands
            if keep is not None and cands:
                for c, v in zip(cands, embedder.embed_passages([c.content for c in cands]), strict=True):
                    c.vector = v
                cands = [c for c in cands if keep.why_not(c, embedder.name) is None]
            for c in cands:
                out.append(
                    {
                        "conversation": conv.sample_id,
                        "dia_id": turn.dia_id,
                        "speaker": turn.speaker,
                        "content": c.content,
                        "evidence": c.evidence,
                        "predicate": c.predicate,
                        "object": c.object,
                        "subject": c.subject,
                        "type": str(c.type),
                        "previous": previous,
                    }
                )
    return out


def _read(facts: Any, turns: list[Any]) -> Any:
    """``facts.read_in_session``, or, run by a commit before it (``--before``), how that code read each turn: after
    the other speaker's turn of the same session only."""
    if hasattr(facts, "read_in_session"):
        return facts.read_in_session(turns)
    before = None
    out = []
    for turn in turns:
        out.append((turn, before.text if before and facts._answers(turn, before) else None, None))
        before = turn
    return out


def dump_at(commit: str, path: str) -> list[dict[str, Any]]:
    """``dump`` run by the code of ``commit`` (git archive into a temporary folder, a subprocess there)."""
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "archive", commit], cwd=ROOT, check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        out = Path(tmp) / "dump.json"
        code = (
            "import json, sys; sys.path.insert(0, sys.argv[1]); import importlib.util as u; "
            "s = u.spec_from_file_location('fs', sys.argv[2]); m = u.module_from_spec(s); s.loader.exec_module(m); "
            "open(sys.argv[4], 'w').write(json.dumps(m.dump(sys.argv[3])))"
        )
        env = {**os.environ, "PYTHONPATH": tmp}
        subprocess.run([sys.executable, "-c", code, tmp, __file__, path, str(out)], check=True, env=env, cwd=tmp)
        return json.loads(out.read_text())


def score(path: str, mems: list[dict[str, Any]], embedder: Any) -> dict[str, Any]:
    """The measures above, per split (tune / left_out) and per conversation."""
    from memory.config import Settings
    from memory.evaluation import facts
    from memory.write.extract.base import Candidate
    from memory.write.extract.references import unresolved
    from memory.write.extract.worth import trivial
    from memory.write.plan import Existing, _is_duplicate
    from memory.write.same import Said, one_fact

    convs = {c.sample_id: c for c in facts.load(path)}
    by_turn: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for m in mems:
        by_turn[(m["conversation"], m["dia_id"])].append(m)
    scored: dict[str, facts.Scored] = {}
    for cid, conv in convs.items():

        def extractor(
            text: str,
            at: datetime,
            previous: str | None,
            recent: list[str],
            _it: Any = iter(conv.turns),
            _cid: str = cid,
        ) -> list[str]:
            turn = next(_it)  # score_conversation asks for the turns in order
            return [m["content"] for m in by_turn.get((_cid, turn.dia_id), [])]

        scored[cid] = facts.score_conversation(conv, embedder, extractor)

    vecs = embedder.embed_passages([m["content"] for m in mems]) if mems else []
    threshold = Settings().dedupe_threshold
    for m, v in zip(mems, vecs, strict=True):
        m["vec"] = v
        m["unresolved"] = unresolved(m["content"], m.get("evidence") or "")
        m["trivial"] = trivial(m["content"], m["predicate"])
    # the write path, per speaker in order: a memory the write rule reinforces is not stored again
    stored: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    reinforced: dict[str, int] = defaultdict(int)
    for m in mems:
        key = (m["conversation"], m["speaker"])
        c = Candidate(predicate=m["predicate"], object=m.get("object") or "", content=m["content"])
        kept = stored[key]
        c.neighbours = {str(i): float(m["vec"] @ k["vec"]) for i, k in enumerate(kept)}
        existing = [Existing(str(i), k["content"], k["predicate"], k.get("object")) for i, k in enumerate(kept)]
        if any(_is_duplicate(c, e, threshold)[0] for e in existing):
            reinforced[m["conversation"]] += 1
        else:
            kept.append(m)
    left_dups: dict[str, int] = defaultdict(int)
    left_pairs: list[tuple[str, str, str]] = []

    def said(m: dict[str, Any]) -> Said:
        return Said(m["content"], m["predicate"], m.get("object"), m.get("subject"))

    for (cid, _), kept in stored.items():
        for i, a in enumerate(kept):
            sims = [(b, float(a["vec"] @ b["vec"])) for b in kept[:i]]
            twin = next((b for b, sim in sims if one_fact(said(a), said(b), sim, threshold)), None)
            if twin is not None:
                left_dups[cid] += 1
                left_pairs.append((cid, twin["content"], a["content"]))
    queue, groups = queue_duplicates(stored, threshold)

    def summary(ids: list[str]) -> dict[str, Any]:
        base = facts.summarise([scored[i] for i in ids])
        mine = [m for m in mems if m["conversation"] in ids]
        n = len(mine)
        speakers = sum(len(convs[i].speakers) for i in ids)
        base.update(
            {
                "memories_per_100_messages": round(100 * n / base["turns"], 1) if base["turns"] else None,
                "unresolved_share": round(sum(bool(m["unresolved"]) for m in mine) / n, 4) if n else None,
                "trivial_share": round(sum(bool(m["trivial"]) for m in mine) / n, 4) if n else None,
                "reinforced_at_write": sum(reinforced[i] for i in ids),
                "duplicates_stored_per_user": round(sum(left_dups[i] for i in ids) / speakers, 2),
                "queue_duplicates_per_user": round(sum(queue[i] for i in ids) / speakers, 2),
                "queue_groups": [g for c, g in groups if c in ids],
                "left_pairs": [[a, b] for c, a, b in left_pairs if c in ids],
                "stored": sum(len(v) for (c, _), v in stored.items() if c in ids),
            }
        )
        base.pop("unreadable_by_check", None)
        return base

    tune = [c for c in convs if c in facts.TUNE]
    left = [c for c in convs if c not in facts.TUNE]
    for m in mems:
        m.pop("vec", None)
    return {
        "splits": {"tune": summary(tune), "left_out": summary(left)},
        "by_conversation": {c: summary([c]) for c in convs},
    }


def queue_duplicates(
    stored: dict[tuple[str, str], list[dict[str, Any]]], threshold: float
) -> tuple[dict[str, int], list[tuple[str, list[str]]]]:
    """What the hygiene queue's near-duplicate check (``hygiene.near_duplicates``, the function ``memlens desk
    hygiene`` and the Audit desk run) proposes to merge among each speaker's stored memories: per conversation the
    memories a merge would fold (a group of n counts n - 1), and the groups' contents for reading by hand."""
    from datetime import UTC, timedelta

    from memory.desk.hygiene import near_duplicates
    from memory.lifecycle.retention import MemInfo

    t0 = datetime(2023, 1, 1, tzinfo=UTC)
    found: dict[str, int] = defaultdict(int)
    groups: list[tuple[str, list[str]]] = []
    for (cid, speaker), kept in stored.items():
        rows, vectors = [], {}
        for i, m in enumerate(kept):
            mid = f"{cid}/{speaker}/{i}"
            at = t0 + timedelta(minutes=i)  # stored in the order said
            rows.append(
                MemInfo(
                    id=mid,
                    user_key=f"{cid}/{speaker}",
                    agent_id="bench",
                    type=m.get("type", "fact"),
                    content=m["content"],
                    confidence=0.9,
                    importance=0.5,
                    status="active",
                    access_count=0,
                    reinforce_count=0,
                    event_time=None,
                    created_at=at,
                    updated_at=at,
                    last_accessed_at=None,
                    expires_at=None,
                    subject=m.get("subject"),
                    predicate=m["predicate"],
                    object=m.get("object"),
                )
            )
            vectors[mid] = m["vec"]
        for group, _ in near_duplicates(rows, vectors, threshold):
            found[cid] += len(group) - 1
            groups.append((cid, [g.content for g in group]))
    return found, groups


def sample(mems: list[dict[str, Any]], n: int = SAMPLE, seed: int = SEED) -> list[dict[str, Any]]:
    """A seeded random sample of left-out memories, for reading by hand (detector precision, trivial share)."""
    from memory.evaluation import facts

    left = [m for m in mems if m["conversation"] not in facts.TUNE]
    return random.Random(seed).sample(left, min(n, len(left)))


def main(argv: list[str]) -> None:
    if not argv or argv[0].startswith("-"):
        raise SystemExit(__doc__)
    sys.path.insert(0, str(ROOT))
    from memory.storage.embed import E5Embedder

    path = argv[0]
    commit = argv[argv.index("--before") + 1] if "--before" in argv else BASE_COMMIT
    out = (
        Path(argv[argv.index("--out") + 1]) if "--out" in argv else ROOT / "bench" / "results" / "facts_standalone.json"
    )
    seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else SEED
    embedder = E5Embedder()
    runs = {"before": dump_at(commit, path), "after": dump(path)}
    report: dict[str, Any] = {
        "command": "python bench/facts_standalone.py /work/shared/data/locomo_dev.json",
        "before_commit": commit,
        "sample_seed": seed,
        "tune_conversations": list(__import__("memory.evaluation.facts", fromlist=["TUNE"]).TUNE),
    }
    for name, mems in runs.items():
        report[name] = score(path, mems, embedder)
        report[name]["sample"] = [
            {k: m[k] for k in ("conversation", "dia_id", "content", "evidence", "unresolved", "trivial")}
            for m in sample(mems, seed=seed)
        ]
    out.write_text(json.dumps(report, indent=1, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    cols = (
        "recall",
        "precision",
        "memories",
        "memories_per_100_messages",
        "unresolved_share",
        "trivial_share",
        "reinforced_at_write",
        "duplicates_stored_per_user",
        "queue_duplicates_per_user",
    )
    print(f"{'':<18}" + "".join(f"{c[:14]:>16}" for c in cols))
    for name in runs:
        for split, v in report[name]["splits"].items():
            print(f"{name + ' ' + split:<18}" + "".join(f"{v[c]!s:>16}" for c in cols))


if __name__ == "__main__":
    main(sys.argv[1:])
    sys.stdout.flush()
    os._exit(0)  # the embedder's worker threads can hold the interpreter's exit for minutes
