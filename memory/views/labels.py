"""People's verdicts on retrieval hits: one label per (query, memory, labeller), and the labelled scores that
the precision-recall curve and the refit read."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlmodel import Session as DBSession
from sqlmodel import col, select

from memory.errors import Conflict, NotFound
from memory.retrieval.log import flush as flush_log
from memory.storage.models import (
    HitLabel,
    Retrieval,
    RetrievalHit,
    User,
    id_hash,
    stored_id,
    utcnow,
)
from memory.vocab import ANY_AGENT

if TYPE_CHECKING:
    from memory.storage.db import Database
    from memory.storage.store import Storage


def query_key(text: str) -> str:
    """The same query whatever its spacing or case (labels are one per query, memory and labeller)."""
    return id_hash(" ".join(text.split()).casefold())


def _label_row(db: DBSession, user_key: str, qkey: str, memory_id: str, labeled_by: str) -> HitLabel | None:
    return db.exec(
        select(HitLabel).where(
            HitLabel.user_key == user_key,
            HitLabel.query_key == qkey,
            HitLabel.memory_id == memory_id,
            HitLabel.labeled_by == labeled_by,
        )
    ).first()


def set_label(
    store: Storage, user_key: str, retrieval_id: int, memory_id: str, relevant: bool | None, labeled_by: str = "team"
) -> None:
    """Record (or clear, with None) a person's verdict on one hit. One label per (query, memory, labeller):
    labelling the same query again updates that label (and moves it to this retrieval's scores), never adds one."""
    flush_log(store)  # retrievals this process logged are written on a background thread
    with store.db() as db:
        retrieval = db.get(Retrieval, retrieval_id)
        if retrieval is None or retrieval.user_key != user_key:
            raise NotFound(f"no retrieval {retrieval_id} for this user")
        qkey = query_key(retrieval.query)
        row = _label_row(db, user_key, qkey, memory_id, labeled_by)
        here = db.exec(
            select(HitLabel).where(HitLabel.retrieval_id == retrieval_id, HitLabel.memory_id == memory_id)
        ).first()
        if here is not None and here is not row:
            if here.labeled_by != labeled_by:
                raise Conflict("another person labelled this hit of this very search: search again to add yours")
            db.delete(here)  # a row from before query keys existed
            db.flush()
        if relevant is None:
            if row is not None:
                db.delete(row)
        else:
            row = row or HitLabel(
                user_key=user_key, memory_id=memory_id, relevant=True, query_key=qkey, retrieval_id=retrieval_id
            )
            row.retrieval_id, row.relevant, row.labeled_by = retrieval_id, bool(relevant), labeled_by
            row.created_at = utcnow()
            db.add(row)
        db.commit()


def labels_for_query(store: Database, user_key: str, query: str, labeled_by: str) -> dict[str, bool]:
    """memory id → this labeller's verdict for this query (shown again when the same query is searched again)."""
    with store.db() as db:
        rows = db.exec(
            select(HitLabel.memory_id, HitLabel.relevant).where(
                HitLabel.user_key == user_key,
                HitLabel.query_key == query_key(query),
                HitLabel.labeled_by == labeled_by,
            )
        ).all()
    return {m: bool(r) for m, r in rows}


def _labelled_scores(store: Storage, score: Any, user_key: str | None) -> list[tuple[float, bool]]:
    """(a hit's score at retrieval time, relevant) for every labelled hit that logged that score."""
    flush_log(store)  # retrievals this process logged are written on a background thread
    query = select(score, HitLabel.relevant).join(
        RetrievalHit,
        (col(RetrievalHit.retrieval_id) == col(HitLabel.retrieval_id))
        & (col(RetrievalHit.memory_id) == col(HitLabel.memory_id)),
    )
    if user_key:
        query = query.where(HitLabel.user_key == user_key)
    with store.db() as db:
        return [(float(s), bool(r)) for s, r in db.exec(query).all() if s is not None]


def labelled_similarities(store: Storage, user_key: str | None = None) -> list[tuple[float, bool]]:
    """(similarity, relevant) for every labelled hit: the raw-similarity PR curve's input."""
    return _labelled_scores(store, RetrievalHit.similarity, user_key)


def labelled_relevance(store: Storage, user_key: str | None = None) -> list[tuple[float, bool]]:
    """(relevance, relevant) for every labelled hit logged with a relevance: the PR curve's input."""
    return _labelled_scores(store, RetrievalHit.relevance, user_key)


def labelled_queries(store: Database, user_key: str | None = None) -> list[dict[str, Any]]:
    """Every labelled retrieval with its query, its user and the verdicts: what a refit replays."""
    query = select(HitLabel, Retrieval, User.external_id).join(
        Retrieval, col(Retrieval.id) == col(HitLabel.retrieval_id)
    )
    query = query.join(User, col(User.key) == col(Retrieval.user_key))
    if user_key:
        query = query.where(HitLabel.user_key == user_key)
    out: dict[int, dict[str, Any]] = {}
    with store.db() as db:
        for label, r, external in db.exec(query).all():
            entry = out.setdefault(
                stored_id(r.id, "retrieval"),
                {
                    "retrieval_id": r.id,
                    "user_id": external,
                    "agent_id": None if r.agent_id == ANY_AGENT else r.agent_id,
                    "retrieval_query": r.retrieval_query,
                    "mode": r.mode,
                    "labels": {},
                },
            )
            entry["labels"][label.memory_id] = bool(label.relevant)
    return list(out.values())
