"""Many messages through the write pipeline at once — long-conversation ingest — with the decisions a
message-by-message write would make.

Called by the one write entry (:mod:`memory.write.entry`: the user's lock, the rule for whose words are read for
facts, the new messages stored) and by nothing else. Per batch: extraction per message (no I/O), ONE
``embed_passages`` call for every candidate, ONE load of the memories that can matter (memory.write.state; at most
one multi-vector index search), planning message by message in order (so a fact stated in message 3 is reinforced
by message 9, and a move in message 12 supersedes it), ONE SQL transaction, ONE index append. Only the profile is
still written per message, in order, with its compare-and-set (it must see each change before the next). A single
message is a batch of one.
"""

from __future__ import annotations

import time
from bisect import bisect_left
from collections.abc import Sequence
from datetime import timedelta
from typing import TYPE_CHECKING

from sqlalchemy import func, or_, update
from sqlmodel import SQLModel, col, select

from memory.errors import InvalidInput, NotFound
from memory.storage.integrity import CLAIM_LEASE
from memory.storage.models import MemoryEvent, Message, User, stored_id, utcnow
from memory.write import apply, episodes
from memory.write.extract.recent import SESSION
from memory.write.pipeline import Item, WriteReport, prepare
from memory.write.plan import plan_writes
from memory.write.state import PlanState

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from memory.storage.db import Database
    from memory.storage.store import Storage


def write_items(
    store: Storage, user: User, items: list[Item], *, agent_id: str, model: BaseChatModel | None = None
) -> list[WriteReport]:
    """Run the pipeline on claimed, stored messages (see module docstring); one report per item, in order."""
    t0 = time.perf_counter()
    answered(store, items)
    for it in items:
        prepare(it, model, max_chars=store.settings.max_message_chars)
        it.episodes = episodes.build(store, user, agent_id, it.message, it.text)
        if not it.infer:  # kept as said and nothing read from it (mem0's infer=False): the caller's own record
            for e in it.episodes:
                e.row["meta"][episodes.VERBATIM] = True
        for c in it.cands:  # each fact points to the episode it was drawn from
            c.meta["episode_id"] = episodes.episode_for(it.episodes, c.evidence)
    cands = [c for it in items for c in it.cands]
    kept = [e for it in items for e in it.episodes]
    embed_ms = 0.0
    vectors: list = []
    if cands or kept:
        t1 = time.perf_counter()
        vectors = list(store.embedder.embed_passages([c.content for c in cands] + [e.passage for e in kept]))
        embed_ms = (time.perf_counter() - t1) * 1000
        for c, v in zip(cands, vectors, strict=False):
            c.vector = v
    episode_vectors = iter(vectors[len(cands) :])
    state = PlanState(store, user.key, agent_id)
    state.load([it.cands for it in items])
    w = apply.Writes()
    for it in items:
        apply.keep_episodes(w, it.episodes, it.turn_id, [next(episode_vectors) for _ in it.episodes])
        if it.skip:
            w.events.append(apply.Skipped(it.skip, it.text, it.message.id, it.turn_id))
            continue
        it.ops = plan_writes(it.cands, state.existing_for(it.cands), store.settings)
        apply.record(
            store,
            user,
            agent_id,
            w,
            it.ops,
            message_id=it.message.id,
            turn_id=it.turn_id,
            created_at=it.message.created_at,
            state=state,
        )
        w.profile.append((it.ops, it.message.id))
    apply.commit(store, user, agent_id, w)
    apply.index(store, w)
    changes = iter(w.profile_changes)
    units = len(cands) + len(kept)
    for it in items:
        report = prepared(it)
        report.episodes = [e.id for e in it.episodes]
        if not it.skip:
            report.operations = [op.to_dict() for op in it.ops]
            report.profile_changes = next(changes)
        share = (len(it.cands) + len(it.episodes)) / units if units else 0.0
        report.timings_ms.update(
            embed=round(embed_ms * share, 3), total=round((time.perf_counter() - t0) * 1000, 3), batch=len(items)
        )
    return [prepared(it) for it in items]


def answered(store: Database, items: list[Item]) -> None:
    """Give each user message the other speaker's message just before it in its session (the agent's reply it
    answers), which extraction reads it with, and the session's ``SESSION`` messages before it (``Item.recent``: what
    a reference of it may point at): one SQL read per session in the batch."""
    todo = [
        it
        for it in items
        if (it.previous is None or it.recent is None) and it.infer and it.message.role == "user" and it.message.id
    ]
    sessions: dict[str, list[Item]] = {}
    for it in todo:
        sessions.setdefault(it.message.session_id, []).append(it)
    for sid, its in sessions.items():
        ids = sorted(stored_id(it.message.id, "message") for it in its)
        # from the SESSION messages before the first item up to the last item, in one read
        window = (
            select(Message.id)
            .where(Message.session_id == sid, col(Message.id) < ids[0])
            .order_by(col(Message.id).desc())
            .limit(SESSION)
            .subquery()
        )
        start = select(func.min(window.c.id))
        with store.db() as db:
            rows = db.exec(
                select(Message.id, Message.role, Message.content)
                .where(
                    Message.session_id == sid,
                    col(Message.id) >= func.coalesce(start.scalar_subquery(), ids[0]),
                    col(Message.id) < ids[-1],
                )
                .order_by(col(Message.id))
            ).all()
        before = [int(r[0] or 0) for r in rows]
        for it in its:
            at = bisect_left(before, stored_id(it.message.id, "message")) - 1
            said = [r for r in rows[max(0, at + 1 - SESSION) : at + 1] if r[1] in ("user", "assistant")]
            if it.recent is None:
                it.recent = [r[2] for r in said]
            answers = at >= 0 and rows[at][1] in ("user", "assistant") and rows[at][1] != it.message.role
            if it.previous is None and answers:
                it.previous = rows[at][2]


def prepared(it: Item) -> WriteReport:
    """The report :func:`prepare` filled in (every path through it sets one)."""
    if it.report is None:
        raise RuntimeError(f"message {it.message.id} was not prepared")
    return it.report


def claim(store: Database, message_ids: list[int], *, lease: timedelta = CLAIM_LEASE) -> set[int]:
    """``memory.storage.integrity.claim_for_write`` for many messages in one transaction: the ids this caller now owns
    (no write-log event yet and no live claim by another writer)."""
    if not message_ids:
        return set()
    now = utcnow()
    mt = SQLModel.metadata.tables[str(Message.__tablename__)]
    with store.engine.begin() as conn:
        done = set(
            conn.execute(
                select(col(MemoryEvent.message_id)).where(col(MemoryEvent.message_id).in_(message_ids))
            ).scalars()
        )
        owned = set()
        for mid in message_ids:
            if mid in done or mid in owned:
                continue
            got = conn.execute(
                update(mt)
                .where(mt.c.id == mid, or_(mt.c.write_claimed_at.is_(None), mt.c.write_claimed_at < now - lease))
                .values(write_claimed_at=now)
            )
            if got.rowcount == 1:
                owned.add(mid)
    return owned


def load(store: Database, messages: Sequence[Message | int]) -> list[Message]:
    ids = [m for m in messages if not isinstance(m, Message)]
    found: dict[int, Message] = {}
    if ids:
        with store.db() as db:
            found = {stored_id(m.id, "message"): m for m in db.exec(select(Message).where(col(Message.id).in_(ids)))}
    out = []
    for m in messages:
        if isinstance(m, Message) and m.id is None:
            raise InvalidInput("the message has not been stored: the write path takes stored messages")
        if not isinstance(m, Message):
            if m not in found:
                raise NotFound(f"no message {m!r}")
            m = found[m]
        out.append(m)
    return out
