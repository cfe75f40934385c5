"""Erasure receipts: what deleting a user removed from each store, said once and kept.

Before the erasure, :func:`inventory` notes the ids the user had (memories, sessions, messages) and the vectors the
index held for them; after it, :func:`make` writes the receipt: counts per SQL table, vectors removed from LanceDB,
agent checkpoints, every id only as a hash (sha256 of the id, first 16 hex digits: enough to answer "was memory X
erased?" for someone who holds X, useless to anyone who does not), the time and the actor. The receipt is kept in
the ``delete-user`` row of the audit trail (which the erasure itself leaves without the user's id or any free
text), so it can be downloaded again later from the back office.
"""

from __future__ import annotations

import hashlib
import uuid
from typing import TYPE_CHECKING, Any

from sqlmodel import col, select

from memory.storage.models import ErasureJob, Memory, Message, Session, User, id_hash, utcnow
from memory.vocab import Actor, Role

if TYPE_CHECKING:
    from memory.storage.store import Storage


def hashed(value: object) -> str:
    return hashlib.sha256(str(value).encode()).hexdigest()[:16]


#: who finishes an interrupted erasure in ``memlens repair`` (no person asked for that run)
REPAIR = Actor(name="memlens repair", role=Role.ADMIN, via="maintenance")

#: what a receipt says when the id was written again after the erasure began (a new user the erasure cannot reach)
RECREATED_STAYS = (
    "the user was written again after this erasure began (a new user with the same id); that user still exists: "
    "delete the user again to erase it"
)

#: the inventory of an erasure resumed after a crash: its rows were read by the run that died
NOTHING_READ: dict[str, Any] = {"memories": [], "sessions": [], "messages": [], "vectors": 0}


def inventory(store: Storage, user: User) -> dict[str, Any]:
    """What the user has now, by store (read just before the erasure)."""
    with store.db() as db:
        memories = list(db.exec(select(Memory.id).where(Memory.user_key == user.key)).all())
        sessions = list(db.exec(select(Session.id).where(Session.user_key == user.key)).all())
        messages = list(db.exec(select(Message.id).where(col(Message.user_key) == user.key)).all())
    return {
        "memories": memories,
        "sessions": sessions,
        "messages": messages,
        "vectors": store.index.count(user.key),
    }


def make(
    store: Storage, user_id: str, user_key: str, before: dict[str, Any], counts: dict[str, int], actor: Actor
) -> dict[str, Any]:
    """The receipt, once the erasure has run (``counts``: rows deleted per table, as the erasure returns them)."""
    left = store.index.count(user_key)
    sql = {k: int(v) for k, v in counts.items() if k != "checkpoints"}
    return {
        "receipt_id": uuid.uuid4().hex,
        "kind": "erasure",
        "user_hash": id_hash(user_id),
        "at": utcnow().isoformat(),
        "actor": {"name": actor.name, "role": str(actor.role), "via": actor.via},
        "removed": {
            "sql": sql,
            "lancedb": {"vectors": int(before["vectors"]) - left},
            "checkpoints": int(counts.get("checkpoints", 0)),
        },
        "totals": {"sql_rows": sum(sql.values()), "vectors": int(before["vectors"]) - left},
        "left_behind": {"vectors": left},
        "hashed_ids": {
            "memories": sorted(hashed(i) for i in before["memories"]),
            "sessions": sorted(hashed(i) for i in before["sessions"]),
            "messages": sorted(hashed(i) for i in before["messages"]),
        },
        "hash": "sha256 of the id, first 16 hex digits",
    }


def recreated_part(store: Storage, user_key: str, before: dict[str, Any], counts: dict[str, int]) -> dict[str, Any]:
    """The part of a rerun's receipt about the user written again after the erasure began, erased by the rerun."""
    left = store.index.count(user_key)
    sql = {k: int(v) for k, v in counts.items() if k != "checkpoints"}
    return {
        "what": "the user was written again after this erasure began (a new user with the same id): erased too",
        "removed": {"sql": sql, "lancedb": {"vectors": int(before["vectors"]) - left}},
        "left_behind": {"vectors": left},
        "hashed_ids": {
            "memories": sorted(hashed(i) for i in before["memories"]),
            "sessions": sorted(hashed(i) for i in before["sessions"]),
            "messages": sorted(hashed(i) for i in before["messages"]),
        },
    }


def finished_by_repair(store: Storage, job: ErasureJob, recreated_key: str | None) -> dict[str, Any]:
    """The receipt of an erasure a crash interrupted and ``memlens repair`` finished: its rows were read (and the
    receipt's counts lost) by the run that died; says whether the id holds a user again, who stays."""
    paper: dict[str, Any] = {
        "receipt_id": uuid.uuid4().hex,
        "kind": "erasure",
        "user_hash": job.user_hash,
        "at": utcnow().isoformat(),
        "actor": {"name": REPAIR.name, "role": str(REPAIR.role), "via": REPAIR.via},
        "resumed": "finished by `memlens repair` after a crash; the counts died with the run that read them",
        "left_behind": {"vectors": store.index.count(job.erased_key)},
        "hash": "sha256 of the id, first 16 hex digits",
    }
    if recreated_key is not None:
        with store.db() as db:
            memories = len(db.exec(select(Memory.id).where(Memory.user_key == recreated_key)).all())
        paper["recreated"] = {"what": RECREATED_STAYS, "still_there": {"memories": memories}}
        paper["complete"] = False
    else:
        paper["complete"] = True
    return paper
