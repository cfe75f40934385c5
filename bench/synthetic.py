"""Synthetic back-office data in bulk: render tests and page benchmarks need full tables fast, not meaning.

Rows go in with SQLAlchemy Core ``insert`` in batches (no ORM objects, no write pipeline), and vectors come from the
service's embedder (use the hash embedder here: e5 would take an hour for 100,000 memories). Every table a page
reads is filled: users, profile + change log, sessions, messages, turns, memories, the write log, retrievals with
hits, context snapshots with sections, summary anchors and bridges. The demo users of ``memlens seed-demo`` are made
through the real pipeline instead (agent/demo.py).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from sqlalchemy import func, insert
from sqlmodel import select

from memory.storage import indexing
from memory.storage.models import (
    ContextSection,
    ContextSnapshot,
    Memory,
    MemoryEvent,
    Message,
    ProfileChange,
    ProfileField,
    Retrieval,
    RetrievalHit,
    Session,
    SessionBridge,
    SummaryAnchor,
    Turn,
    User,
    id_hash,
    new_id,
    utcnow,
)
from memory.storage.vectors import IndexRow

FACTS = [
    "lives in {city}",
    "works as a {job}",
    "does not eat spicy food",
    "likes {hobby}",
    "has a budget of {n} yuan",
    "prefers short answers",
    "is planning a trip to {city}",
    "has a cat called Mochi",
    "is learning {lang}",
    "住在{city_zh}",
    "喜欢{hobby_zh}",
    "不吃辣",
    "预算是{n}元",
    "在学{lang_zh}",
]
FILL = {
    "city": ["Hangzhou", "Berlin", "Lisbon", "Osaka"],
    "job": ["nurse", "designer", "teacher", "engineer"],
    "hobby": ["hiking", "jazz", "chess", "baking"],
    "lang": ["Spanish", "Japanese", "Rust"],
    "city_zh": ["杭州", "北京", "成都"],
    "hobby_zh": ["爬山", "喝茶", "摄影"],
    "lang_zh": ["日语", "法语"],
}
SECTIONS = [("system", 300), ("profile", 400), ("bridge", 300), ("summary", 600), ("memories", 1200), ("history", 2000)]
BATCH = 5000


@dataclass
class Plan:
    users: int = 1
    memories_per_user: int = 60
    sessions_per_user: int = 3
    turns_per_session: int = 4
    retrievals_per_user: int = 6
    seed: int = 7
    prefix: str = "synthetic-user"
    index: bool = True
    rows: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


def _text(rng: random.Random) -> str:
    template = rng.choice(FACTS)
    return "User " + template.format(**{k: rng.choice(v) for k, v in FILL.items()}, n=rng.randrange(1000, 9000))


def _add(plan: Plan, table: str, row: dict[str, Any]) -> None:
    plan.rows.setdefault(table, []).append(row)


def _user_rows(plan: Plan, rng: random.Random, n: int) -> str:
    key = new_id()
    now = utcnow()
    _add(plan, "user", {"key": key, "external_id": f"{plan.prefix}-{n:04d}", "display_name": None, "created_at": now})
    for fld, value in (
        ("preferred_name", f"U{n}"),
        ("city", rng.choice(FILL["city"])),
        ("interests", [rng.choice(FILL["hobby"])]),
    ):
        _add(
            plan,
            "profilefield",
            {
                "user_key": key,
                "field": fld,
                "value": value,
                "confidence": 1.0,
                "source": "user-stated",
                "updated_at": now,
                "version": 1,
            },
        )
        _add(
            plan,
            "profilechange",
            {
                "user_key": key,
                "field": fld,
                "old_value": None,
                "new_value": value,
                "source": "user-stated",
                "reason": "stated by the user",
                "at": now,
            },
        )
    return key


def _memory_rows(plan: Plan, rng: random.Random, key: str, first_msg: int) -> list[str]:
    ids, start = [], utcnow() - timedelta(days=60)
    for i in range(plan.memories_per_user):
        mid, at = new_id(), start + timedelta(minutes=i * 37)
        content = _text(rng)
        status = "superseded" if i % 17 == 5 else "active"
        _add(
            plan,
            "memory",
            {
                "id": mid,
                "user_key": key,
                "agent_id": "default",
                "type": rng.choice(["fact", "preference", "event"]),
                "content": content,
                "source_type": "user-stated",
                "source_message_ids": [first_msg],
                "confidence": round(rng.uniform(0.5, 1.0), 2),
                "importance": round(rng.uniform(0.2, 0.9), 2),
                "status": status,
                "created_at": at,
                "updated_at": at,
                "access_count": 0,
                "reinforce_count": 0,
                "indexed": False,
                "version": 1,
                "meta": {},
            },
        )
        _add(
            plan,
            "memoryevent",
            {
                "user_key": key,
                "agent_id": "default",
                "memory_id": mid,
                "op": "ADD",
                "reason": "new explicit statement",
                "content": content,
                "message_id": first_msg,
                "detail": {},
                "created_at": at,
            },
        )
        if status == "active":
            ids.append(mid)
    return ids


def _session_rows(plan: Plan, key: str, msg_id: int, turn_id: int, snap_id: int) -> tuple[int, int, int]:
    prev = None
    for s in range(plan.sessions_per_user):
        sid, start = new_id(), utcnow() - timedelta(days=10 - s)
        _add(
            plan,
            "session",
            {
                "id": sid,
                "user_key": key,
                "agent_id": "default",
                "external_id": f"session-{s + 1}",
                "status": "ended" if s < plan.sessions_per_user - 1 else "active",
                "started_at": start,
                "last_activity_at": start + timedelta(minutes=30),
            },
        )
        first = msg_id
        for t in range(plan.turns_per_session):
            at = start + timedelta(minutes=t * 3)
            for role, text in (("user", f"message {t} of session {s + 1}"), ("assistant", f"reply {t}")):
                _add(
                    plan,
                    "message",
                    {
                        "id": msg_id,
                        "session_id": sid,
                        "user_key": key,
                        "role": role,
                        "content": text,
                        "tokens": 4,
                        "meta": {},
                        "created_at": at,
                    },
                )
                msg_id += 1
            _add(
                plan,
                "turn",
                {
                    "id": turn_id,
                    "session_id": sid,
                    "user_key": key,
                    "user_message_id": msg_id - 2,
                    "reply_message_id": msg_id - 1,
                    "model": "offline",
                    "created_at": at,
                },
            )
            used = [min(budget, 40 + 60 * t * (pos + 1) % budget) for pos, (_, budget) in enumerate(SECTIONS)]
            _add(
                plan,
                "contextsnapshot",
                {
                    "id": snap_id,
                    "turn_id": turn_id,
                    "session_id": sid,
                    "user_key": key,
                    "total_budget": 4800,
                    "total_used": sum(used),
                    "prompt": "",
                    "created_at": at,
                },
            )
            for pos, ((name, budget), u) in enumerate(zip(SECTIONS, used, strict=True)):
                _add(
                    plan,
                    "contextsection",
                    {
                        "snapshot_id": snap_id,
                        "name": name,
                        "position": pos,
                        "budget": budget,
                        "used": u,
                        "kept": 1 + t,
                        "dropped": int(u >= budget),
                        "dropped_items": ["older memory"] if u >= budget else [],
                    },
                )
            turn_id, snap_id = turn_id + 1, snap_id + 1
        _add(
            plan,
            "summaryanchor",
            {
                "session_id": sid,
                "user_key": key,
                "from_message_id": first,
                "to_message_id": msg_id - 1,
                "text": f"Session {s + 1}: talked about plans.",
                "tokens": 8,
                "created_at": start + timedelta(minutes=20),
            },
        )
        if prev:
            _add(
                plan,
                "sessionbridge",
                {
                    "user_key": key,
                    "agent_id": "default",
                    "from_session_id": prev,
                    "to_session_id": sid,
                    "text": f"Last time (session {s}) we made plans.",
                    "tokens": 9,
                    "created_at": start,
                },
            )
        prev = sid
    return msg_id, turn_id, snap_id


def _retrieval_rows(plan: Plan, rng: random.Random, key: str, mids: list[str], rid: int) -> int:
    for _ in range(plan.retrievals_per_user):
        _add(
            plan,
            "retrieval",
            {
                "id": rid,
                "user_key": key,
                "agent_id": "default",
                "query": _text(rng),
                "retrieval_query": "where does the user live",
                "mode": "hybrid",
                "k": 5,
                "threshold": 0.8,
                "params": {},
                "latency_ms": 12.0,
                "created_at": utcnow(),
            },
        )
        for rank, mid in enumerate(rng.sample(mids, min(8, len(mids))), 1):
            sim = round(0.9 - rank * 0.02, 4)
            _add(
                plan,
                "retrievalhit",
                {
                    "retrieval_id": rid,
                    "memory_id": mid,
                    "rank": rank,
                    "similarity": sim,
                    "fts_score": None,
                    "fused_score": sim,
                    "passed": sim >= 0.8,
                    "selected": sim >= 0.8 and rank <= 5,
                    "injected": rank <= 3,
                },
            )
        rid += 1
    return rid


def _ids(svc, model) -> int:
    with svc.storage.db() as db:
        return int(db.exec(select(func.max(model.id))).one() or 0) + 1


def populate(svc, plan: Plan | None = None) -> Plan:
    """Insert ``plan.users`` complete synthetic users; returns the plan (with the rows it wrote)."""
    plan = plan or Plan()
    rng = random.Random(plan.seed)
    msg, turn, snap, rid = (_ids(svc, m) for m in (Message, Turn, ContextSnapshot, Retrieval))
    for n in range(plan.users):
        key = _user_rows(plan, rng, n)
        mids = _memory_rows(plan, rng, key, msg)
        msg, turn, snap = _session_rows(plan, key, msg, turn, snap)
        rid = _retrieval_rows(plan, rng, key, mids, rid)
    _flush(svc, plan)
    if plan.index:
        _index(svc, plan.rows.get("memory", []))
    return plan


ORDER = [
    User,
    ProfileField,
    ProfileChange,
    Session,
    Message,
    Turn,
    Memory,
    MemoryEvent,
    Retrieval,
    RetrievalHit,
    ContextSnapshot,
    ContextSection,
    SummaryAnchor,
    SessionBridge,
]


def _flush(svc, plan: Plan) -> None:
    with svc.storage.engine.begin() as conn:
        for model in ORDER:
            rows = plan.rows.get(model.__tablename__, [])
            if "external_hash" in model.__table__.c:  # filled by an ORM hook, which Core inserts skip
                for row in rows:
                    row["external_hash"] = id_hash(row["external_id"])
            for chunk in _chunks(rows):
                conn.execute(insert(model.__table__), chunk)


def _chunks(rows: list, size: int = BATCH) -> Iterator[list]:
    for start in range(0, len(rows), size):
        yield rows[start : start + size]


def _index(svc, memories: list[dict[str, Any]]) -> None:
    """Vectors for the active rows, then mark them indexed (same order as the real write path)."""
    active = [m for m in memories if m["status"] == "active"]
    for chunk in _chunks(active, 20_000):
        vectors = svc.storage.embedder.embed_passages([m["content"] for m in chunk])
        svc.storage.index.upsert(
            [
                IndexRow(
                    id=m["id"],
                    user_key=m["user_key"],
                    agent_id=m["agent_id"],
                    text=m["content"],
                    vector=v,
                    type=m["type"],
                    created_at=m["created_at"],
                )
                for m, v in zip(chunk, vectors, strict=True)
            ]
        )
    indexing.mark_indexed(svc.storage, [m["id"] for m in active])
