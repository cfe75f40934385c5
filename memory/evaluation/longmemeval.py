"""LongMemEval-format retrieval evaluation: one MemLens user per question, its haystack sessions ingested as raw
turns, the question asked through the real recall (``as_of`` = the question date), and session / turn recall.

Format (the public release): a JSON list of questions with ``question_id``, ``question_type``, ``question``,
``question_date``, ``answer_session_ids``, ``haystack_dates``, ``haystack_session_ids`` and ``haystack_sessions``
(lists of ``{"role", "content", "has_answer"?}`` turns). Abstention questions (id ending ``_abs``) have no evidence to
retrieve and are skipped. Metrics, per question type and overall:

- session ``recall_any@k`` / ``recall_all@k``: sessions ranked by their best turn; does the top k hold any / every
  answer session;
- turn ``recall@k``: share of the ``has_answer`` turns among the top k turns; ``turn_recall_context@k`` counts
  what the prompt gets, each turn with its source context (the turns within ±``context_span`` of it,
  :mod:`memory.retrieval.context`, the same windows as recall).

The haystack goes through the product's one ingest path (an episode of each message, facts from the user's), each
session a MemLens session, like LoCoMo's, so a second run reuses what is there (an ingested session is marked ended).
A message too long to read for facts (a pasted document) is kept as several episodes, never refused.
"""

from __future__ import annotations

import gzip
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from sqlmodel import select

from memory.errors import InvalidInput
from memory.evaluation.ingest import INGEST_PATH
from memory.retrieval import context, near_duplicates
from memory.retrieval.filters import RecallFilters
from memory.service import MemoryService
from memory.storage.models import Message, utcnow
from memory.vocab import SessionStatus

if TYPE_CHECKING:
    from memory.retrieval.recall import Hit

REQUIRED = ("question_id", "question_type", "question", "haystack_session_ids", "haystack_sessions")
Progress = Callable[[int], None]


@dataclass
class LmeDialogTurn:
    """One message of a LongMemEval haystack session (``has_answer``: it holds the evidence)."""

    role: str
    content: str
    has_answer: bool


@dataclass
class LmeQuestion:
    question_id: str
    question_type: str
    question: str
    date: datetime | None
    answer_sessions: frozenset[str]
    sessions: list[tuple[str, datetime | None, list[LmeDialogTurn]]] = field(default_factory=list)

    @property
    def abstention(self) -> bool:
        return self.question_id.endswith("_abs")

    @property
    def user_id(self) -> str:
        return f"lme:{self.question_id}"


def parse_date(text: str | None) -> datetime | None:
    """LongMemEval stamps ("2023/05/20 (Sat) 02:21") as aware UTC datetimes; None when absent or unreadable."""
    if not text:
        return None
    cleaned = " ".join(part for part in str(text).split() if not part.startswith("("))
    for fmt in ("%Y/%m/%d %H:%M", "%Y/%m/%d", "%Y-%m-%d %H:%M", "%Y-%m-%d"):
        try:
            return datetime.strptime(cleaned, fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    return None


def _question(raw: dict) -> LmeQuestion:
    missing = [k for k in REQUIRED if k not in raw]
    if missing:
        raise InvalidInput(f"not a LongMemEval question: missing {', '.join(missing)}")
    ids, sessions = raw["haystack_session_ids"], raw["haystack_sessions"]
    dates = raw.get("haystack_dates") or [None] * len(ids)
    if not (len(ids) == len(sessions) == len(dates)):
        raise InvalidInput(f"question {str(raw['question_id'])[:60]!r}: haystack lists differ in length")
    q = LmeQuestion(
        question_id=str(raw["question_id"]),
        question_type=str(raw["question_type"]),
        question=str(raw["question"]),
        date=parse_date(raw.get("question_date")),
        answer_sessions=frozenset(str(s) for s in raw.get("answer_session_ids") or []),
    )
    for sid, when, turns in zip(ids, dates, sessions, strict=True):
        parsed = [
            LmeDialogTurn(str(t.get("role", "user")), str(t.get("content", "")), bool(t.get("has_answer")))
            for t in turns
            if isinstance(t, dict)
        ]
        q.sessions.append((str(sid), parse_date(when), parsed))
    return q


def load(path: str | Path) -> list[LmeQuestion]:
    """The questions of a LongMemEval JSON file, plain or gzip-compressed (the release is often shipped as .gz)."""
    try:
        raw = Path(path).read_bytes()
        data = json.loads((gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode("utf-8"))
    except (OSError, EOFError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidInput(f"cannot read LongMemEval file {str(path)[:200]!r}: {exc}") from exc
    if not isinstance(data, list):
        raise InvalidInput("a LongMemEval file holds a JSON list of questions")
    return [_question(q) for q in data]


def ingest(svc: MemoryService, q: LmeQuestion, *, user_turns_only: bool) -> int:
    """The question's haystack through the one write path, as an import of a long history is written: every
    session's messages stored (stamped with its date, each with an idempotency key), then ONE ``write_from_messages``
    call for all of them in order (an episode of each, facts from the user's; one embedding call dealt over every
    core, one transaction, one index append — the decisions a session-by-session write makes, as
    :mod:`memory.write.batch` says), then each session ended in order. Sessions already ended are reused; a run cut
    short resumes (stored messages are found again by their keys, written ones report "already written"). Returns
    the episodes kept."""
    user = svc.ensure_user(q.user_id)
    sessions, msgs = [], []
    for n, (sid, when, turns) in enumerate(q.sessions):
        session = svc.ensure_session(user, f"{n:04d}:{sid}"[:120])
        if session.status == SessionStatus.ENDED:
            continue
        for i, t in enumerate(turns):
            if (user_turns_only and t.role != "user") or not t.content.strip():
                continue
            role = "user" if t.role == "user" else "assistant"
            meta = {"source": "longmemeval", "session": sid, "turn": i, "has_answer": t.has_answer}
            key = f"lme:{q.question_id}:{n}:{i}"[:128]
            msgs.append(
                svc.add_message(session, role, t.content, created_at=when or utcnow(), meta=meta, idempotency_key=key)
            )
        sessions.append(session)
    added = sum(len(r.episodes) for r in svc.write_from_messages(user, sessions[-1], msgs)) if msgs else 0
    for session in sessions:
        svc.end_session_row(session)  # the one session end, in order
    return added


@dataclass(frozen=True)
class Truth:
    """Where the answers are, by message: the ``has_answer`` messages and each message's haystack session. A hit
    counts through its source messages, so an episode and a fact read from the same message count alike."""

    answers: frozenset[int]
    session_of: dict[int, str]


def truth(svc: MemoryService, q: LmeQuestion) -> Truth:
    user = svc.get_user(q.user_id)
    with svc.storage.db() as db:
        rows = db.exec(select(Message.id, Message.meta).where(Message.user_key == user.key)).all()
    metas = {int(i): m for i, m in rows if i is not None and isinstance(m, dict)}
    return Truth(
        answers=frozenset(i for i, m in metas.items() if m.get("has_answer")),
        session_of={i: str(m["session"]) for i, m in metas.items() if m.get("session") is not None},
    )


def _sources(h: Hit) -> set[int]:
    return set(context.source_ids(h.source_message_ids))


def _session_ranking(hits: Sequence[Hit], t: Truth) -> list[str]:
    named = (t.session_of.get(i) for h in hits for i in sorted(_sources(h)))
    return list(dict.fromkeys(s for s in named if s is not None))


def _windows(svc: MemoryService, q: LmeQuestion, hits: Sequence[Hit], span: int) -> list[set[int]]:
    """Each hit's source messages with the source-context window around them (one statement; the windows are not
    deduplicated, so the top k of any k is counted right)."""
    user = svc.get_user(q.user_id)
    wanted = [i for h in hits for i in context.source_ids(h.source_message_ids)]
    placement, _ = context.read(svc.storage.engine, user.key, wanted, span)
    return [_sources(h) | set(placement.window(h.source_message_ids, span)) for h in hits]


def score(
    q: LmeQuestion, hits: Sequence[Hit], ks: Sequence[int], t: Truth, windows: list[set[int]] | None = None
) -> dict:
    """Session recall_any/all@k and turn recall@k for one question's ranked hits (with ``windows``, from
    :func:`_windows`, also turn recall with source context)."""
    sessions = _session_ranking(hits, t)
    answer_turns = sum(1 for _, _, turns in q.sessions for t_ in turns if t_.has_answer)
    out: dict = {}
    for k in ks:
        top = set(sessions[:k])
        out[f"session_recall_any@{k}"] = float(bool(q.answer_sessions & top))
        out[f"session_recall_all@{k}"] = float(bool(q.answer_sessions) and q.answer_sessions <= top)
        found = t.answers & set().union(*(_sources(h) for h in hits[:k]))
        out[f"turn_recall@{k}"] = len(found) / answer_turns if answer_turns else None
        if windows is not None:
            covered = set().union(*windows[:k]) if windows[:k] else set()
            out[f"turn_recall_context@{k}"] = len(t.answers & covered) / answer_turns if answer_turns else None
    return out


def stratified(questions: list[LmeQuestion], per_type: int) -> list[LmeQuestion]:
    """A stratified sample: the first ``per_type`` questions of each question type, in file order."""
    seen: dict[str, int] = {}
    out = []
    for q in questions:
        if seen.get(q.question_type, 0) < per_type:
            seen[q.question_type] = seen.get(q.question_type, 0) + 1
            out.append(q)
    return out


def _mean(rows: list[dict], key: str) -> float | None:
    vals = [r[key] for r in rows if r.get(key) is not None]
    return round(100 * sum(vals) / len(vals), 2) if vals else None


def summarise(rows: list[dict], ks: Sequence[int]) -> dict:
    names = ("session_recall_any", "session_recall_all", "turn_recall", "turn_recall_context")
    keys = [f"{m}@{k}" for k in ks for m in names]
    types = sorted({r["type"] for r in rows})
    block = lambda rs: {"questions": len(rs), **{key: _mean(rs, key) for key in keys}}  # noqa: E731
    return {"overall": block(rows), "by_type": {t: block([r for r in rows if r["type"] == t]) for t in types}}


def run(
    svc: MemoryService,
    path: str | Path,
    *,
    ks: Sequence[int] = (5, 10),
    limit: int | None = None,
    per_type: int | None = None,
    types: Sequence[str] = (),
    user_turns_only: bool = False,
    bar: Callable[[str, int], Progress] | None = None,
) -> dict:
    """Ingest and ask each question in turn (one user per question); the report holds numbers only (with each
    question's id, type, ingest seconds and where its answer sessions ranked). ``types``: ask only these question
    types (a run that fits the time there is; the sample is still the first ``per_type`` of each)."""
    questions = load(path)
    asked = [q for q in questions if not q.abstention]
    unknown = set(types) - {q.question_type for q in asked}
    if unknown:
        raise InvalidInput(f"no question of type {', '.join(sorted(unknown))} in {Path(path).name}")
    if types:
        asked = [q for q in asked if q.question_type in set(types)]
    if per_type:
        asked = stratified(asked, per_type)
    asked = asked[:limit] if limit else asked
    step = bar("longmemeval", len(asked)) if bar else None
    rows, turns, start = [], 0, time.perf_counter()
    refused: list[dict] = []
    wide = svc.recall_policy(threshold=-1.0, k=max(ks))
    for q in asked:
        began = time.perf_counter()
        try:
            turns += ingest(svc, q, user_turns_only=user_turns_only)
        except InvalidInput as exc:  # reported, never fatal: the other questions still run
            refused.append({"question_id": q.question_id, "error": str(exc)[:300]})
            if step:
                step(1)
            continue
        filters = RecallFilters.build(as_of=q.date) if q.date else None
        res = svc.recall(q.user_id, q.question, policy=wide, log=False, filters=filters)
        hits = [h for h in res.hits if not near_duplicates.passed_over(h)]  # what the agent draws from
        shown = _windows(svc, q, hits[: max(ks)], res.params.context_span)
        t = truth(svc, q)
        found = score(q, hits, ks, t, shown)
        ranked = _session_ranking(hits, t)
        rows.append(
            {
                "question_id": q.question_id,
                "type": q.question_type,
                "seconds": round(time.perf_counter() - began, 1),
                "latency_ms": res.latency_ms,
                # 1-based rank of each answer session among the sessions the hits come from (None: not in the hits)
                "answer_session_ranks": sorted(
                    (ranked.index(s) + 1 if s in ranked else None for s in q.answer_sessions),
                    key=lambda r: (r is None, r or 0),
                ),
                **found,
            }
        )
        if step:
            step(1)
    return {
        "benchmark": "longmemeval",
        "dataset": Path(path).name,
        "created_at": utcnow().isoformat(),
        "settings": {
            "ks": list(ks),
            "limit": limit,
            "per_type": per_type,
            "types": sorted(types),
            "user_turns_only": user_turns_only,
        },
        "questions": len(questions),
        "asked": len(asked),
        "skipped_abstention": sum(1 for q in questions if q.abstention),
        "episodes_ingested": turns,
        "not_ingested": refused,
        "ingest_path": INGEST_PATH,
        "seconds": round(time.perf_counter() - start, 1),
        **summarise(rows, ks),
        "per_question": rows,
    }


def reports_folder(eval_dir: Path) -> Path:
    """Where ``memlens eval longmemeval`` saves its reports: ``<data_dir>/eval/longmemeval/``."""
    return Path(eval_dir) / "longmemeval"


def latest_report(eval_dir: Path) -> dict | None:
    """The newest saved report (the Evaluation page shows it beside LoCoMo's); unreadable files are passed over."""
    from memory.evaluation.runner import readable_reports

    found = readable_reports(reports_folder(eval_dir), "lme-*.json")
    return next((r for r in found if r.get("benchmark") == "longmemeval"), None)


def table_rows(report: dict) -> list[dict]:
    """One row for all questions, then one per question type: the figures docs/retrieval.md and the page show."""
    ks = report.get("settings", {}).get("ks", [5, 10])
    blocks = [("all", report.get("overall", {})), *report.get("by_type", {}).items()]
    rows = []
    for name, block in blocks:
        row: dict = {"question type": name, "questions": block.get("questions")}
        for k in ks:
            row[f"session any@{k} %"] = block.get(f"session_recall_any@{k}")
            row[f"session all@{k} %"] = block.get(f"session_recall_all@{k}")
            row[f"turn@{k} %"] = block.get(f"turn_recall@{k}")
            row[f"turn + context@{k} %"] = block.get(f"turn_recall_context@{k}")
        rows.append(row)
    return rows
