"""``Memory`` / ``AsyncMemory``: MemLens behind the mem0 method shapes, so code written for mem0 moves by an import.

    from memory import Memory
    m = Memory()
    m.add("I moved to Hangzhou last month", user_id="alice")          # the real write pipeline
    m.search("where does she live?", user_id="alice", limit=3)        # the real recall, logged for the lab

Every call goes through :class:`memory.service.MemoryService`, inside ``provenance.acting``, so each write carries
where it came from (``via`` = ``python`` unless a door says otherwise) and the back office sees it like the agent's.
Results are plain dicts shaped like mem0's (``{"results": [...]}``); differences are listed in the README.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from memory import provenance
from memory.config import Settings
from memory.errors import Conflict, InvalidInput, NotFound
from memory.service import MemoryService
from memory.storage.models import Memory as MemoryRow
from memory.vocab import Actor, EventOp, Role

#: the pipeline's decisions in mem0's vocabulary (REINFORCE / NOOP change nothing visible: NONE)
EVENTS = {"ADD": "ADD", "UPDATE": "UPDATE", "DELETE": "DELETE", "REINFORCE": "NONE", "NOOP": "NONE"}
DEFAULT_RUN = "memory-api"


def _messages(messages: Any) -> list[tuple[str, str]]:
    """mem0 accepts a string, one {"role", "content"} dict, or a list of them."""
    if isinstance(messages, str):
        return [("user", messages)]
    if isinstance(messages, dict):
        messages = [messages]
    if not isinstance(messages, list) or not messages:
        raise InvalidInput('messages must be text, a {"role", "content"} object or a non-empty list of them')
    out = []
    for m in messages:
        if not isinstance(m, dict) or "content" not in m:
            raise InvalidInput('each message must be an object with "role" and "content"')
        out.append((str(m.get("role") or "user"), m["content"]))
    return out


def _matches(meta: dict[str, Any], filters: dict[str, Any] | None) -> bool:
    """mem0-style equality filters on the caller's metadata (and on ``type`` / ``via``)."""
    if not filters:
        return True
    mine = {**(meta.get("metadata") or {}), **{k: meta.get(k) for k in ("via", "by", "kind")}}
    return all(mine.get(k) == v or meta.get(k) == v for k, v in filters.items())


class Memory:
    """The mem0-shaped facade over one :class:`MemoryService` (made from settings when not given)."""

    def __init__(
        self,
        service: MemoryService | None = None,
        *,
        settings: Settings | None = None,
        via: str = "python",
        name: str = "python-api",
        allow_reset: bool = False,
        role: Role | str = Role.ADMIN,
    ) -> None:
        self.service = service or MemoryService(settings or Settings())
        #: in-process callers own the data files (like the CLI), hence admin by default; the service checks this
        #: role on every change (a door serving others can pass a narrower one)
        self.actor = Actor(name=name, role=Role(role), via=via)
        self.allow_reset = allow_reset

    @classmethod
    def from_config(cls, config: dict[str, Any] | None = None) -> Memory:
        """mem0's constructor: here ``config`` holds MemLens settings (e.g. ``{"data_dir": "..."}``)."""
        return cls(settings=Settings(**(config or {})))

    def _acting(self, **extra: Any) -> AbstractContextManager[dict[str, Any]]:
        return provenance.acting(self.actor, **extra)

    # -- writes ------------------------------------------------------------------------------------------------
    def add(
        self,
        messages: Any,
        *,
        user_id: str,
        agent_id: str | None = None,
        run_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        infer: bool = True,
    ) -> dict[str, Any]:
        """Remember messages through the one write path a chat turn uses: each message kept as an episode, and
        (``infer=True``) the facts read from it. With ``infer=False`` the results are the episodes, as said."""
        if metadata is not None and not isinstance(metadata, dict):
            raise InvalidInput("metadata must be an object")
        msgs = _messages(messages)
        svc, run = self.service, run_id or DEFAULT_RUN
        with self._acting(metadata=metadata or None):
            user = svc.ensure_user(user_id)
            session = svc.ensure_session(user, run, agent_id)
            stored = [svc.add_message(session, role, text) for role, text in msgs]
            keep = infer and len(msgs) == 1
            reports = svc.write_from_messages(user, session, stored, agent_id=agent_id, keep_unparsed=keep, infer=infer)
            if not infer:
                ids = [i for r in reports for i in r.episodes]
                kept = svc.memories_by_id(ids)
                return {"results": [{**self._row(kept[i], user_id), "event": "ADD"} for i in ids if i in kept]}
        return {"results": [self._result(op) for r in reports for op in r.operations if op.get("memory_id")]}

    def _result(self, op: dict[str, Any]) -> dict[str, Any]:
        """One pipeline decision in mem0's shape (an UPDATE names the memory it replaced, as mem0's does)."""
        out = {
            "id": op["memory_id"],
            "memory": op.get("content", ""),
            "event": EVENTS.get(op["op"], op["op"]),
            "decision": op["op"],
            "reason": op.get("reason", ""),
            "type": op.get("type"),
        }
        if op["op"] == EventOp.UPDATE and op.get("target_ids"):
            with contextlib.suppress(NotFound):
                out["previous_memory"] = self.service.get_memory(op["target_ids"][0]).content
        return out

    def update(self, memory_id: str, data: str, *, user_id: str | None = None) -> dict[str, Any]:
        """Rewrite a memory's text (same id, logged as an EDIT with where it came from)."""
        self._owned(memory_id, user_id)
        with self._acting():
            self.service.edit_memory(memory_id, data, actor=self.actor, reason=f"updated through {self.actor.via}")
        return {"message": "Memory updated successfully!", "id": memory_id}

    def delete(self, memory_id: str, *, user_id: str | None = None) -> dict[str, Any]:
        """Delete one memory (it leaves the index; the write log keeps the history)."""
        self._owned(memory_id, user_id)
        with self._acting():
            self.service.delete_memory(memory_id, actor=self.actor, reason=f"deleted through {self.actor.via}")
        return {"message": "Memory deleted successfully!", "id": memory_id}

    def delete_all(self, *, user_id: str, agent_id: str | None = None) -> dict[str, Any]:
        """Delete every active memory of a user (and agent). Erasing the user for good is ``delete_user``."""
        try:
            user = self.service.get_user(user_id)
        except NotFound:
            return {"message": "Memories deleted successfully!", "deleted": 0}
        rows = self.service.list_memories(user, agent_id=agent_id)
        with self._acting():
            for m in rows:
                self.service.delete_memory(m.id, actor=self.actor, reason=f"deleted (all) through {self.actor.via}")
        return {"message": "Memories deleted successfully!", "deleted": len(rows)}

    def delete_user(self, user_id: str) -> dict[str, int]:
        """Erase a user completely: SQL rows, vectors and checkpoints (``memlens delete-user``)."""
        with self._acting():
            return self.service.delete_user(user_id, actor=self.actor)

    def reset(self) -> dict[str, Any]:
        """Erase every user. Guarded: only a ``Memory(allow_reset=True)`` may do it."""
        if not self.allow_reset:
            raise Conflict("reset() erases every user's memories; construct Memory(allow_reset=True) to allow it")
        users = [u["user_id"] for u in self.service.list_users()]
        for u in users:
            self.delete_user(u)
        return {"message": "Memory store reset", "users_deleted": len(users)}

    # -- reads -------------------------------------------------------------------------------------------------
    def search(
        self,
        query: str,
        *,
        user_id: str,
        agent_id: str | None = None,
        run_id: str | None = None,
        limit: int | None = None,
        threshold: float | None = None,
        filters: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The real recall (hybrid, thresholded, logged for the retrieval lab); the memories that passed the cut."""
        if limit is not None and (not isinstance(limit, int) or limit < 1 or limit > 100):
            raise InvalidInput("limit must be an integer from 1 to 100")
        try:
            user = self.service.get_user(user_id)
        except NotFound:
            self.service.recall_params(k=limit, threshold=threshold)  # still refuse bad parameters
            return {"results": []}
        with self._acting():
            result = self.service.recall(user_id, query, agent_id=agent_id, k=limit, threshold=threshold)
        out = []
        for h in result.selected:
            meta = dict(h.meta or {})
            if not _matches(meta, filters):
                continue
            item = {
                "id": h.memory_id,
                "memory": h.content,
                "score": h.score,
                "similarity": h.similarity,
                "bm25": h.fts_score,
                "metadata": meta.get("metadata") or {},
                "type": h.type,
                "created_at": h.created_at.isoformat() if h.created_at else None,
                "user_id": user.external_id,
                "agent_id": agent_id or self.service.settings.default_agent_id,
                "via": meta.get("via"),
                # source context: the conversation around the message this memory was learnt from
                "context": [row.to_dict() for row in h.context],
            }
            if h.relevance is not None:
                item["relevance"] = h.relevance
            out.append(item)
        return {"results": out, "retrieval_id": result.retrieval_id}

    def get(self, memory_id: str, *, user_id: str | None = None) -> dict[str, Any] | None:
        """One memory by id (None when there is none, or it belongs to another user than ``user_id``)."""
        try:
            m = self.service.get_memory(memory_id)
            return self._row(m, self._owner(m, user_id))
        except NotFound:
            return None

    def get_all(
        self,
        *,
        user_id: str,
        agent_id: str | None = None,
        limit: int = 100,
        offset: int = 0,
        filters: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """A user's active memories, newest first."""
        if not isinstance(limit, int) or not 1 <= limit <= 1000:
            raise InvalidInput("limit must be an integer from 1 to 1000")
        try:
            user = self.service.get_user(user_id)
        except NotFound:
            return {"results": []}
        rows = self.service.list_memories(user, agent_id=agent_id, limit=limit, offset=max(0, offset))
        return {"results": [self._row(m, user.external_id) for m in rows if _matches(m.meta or {}, filters)]}

    def history(self, memory_id: str, *, user_id: str | None = None) -> list[dict[str, Any]]:
        """The memory's events (ADD, REINFORCE, EDIT, DELETE…), oldest first, each with where it came from."""
        self._owned(memory_id, user_id)
        return self.service.memory_events(memory_id)

    def get_profile(self, user_id: str) -> dict[str, Any]:
        """The user's core profile (field → value)."""
        try:
            return self.service.get_profile(user_id)
        except NotFound:
            return {}

    # -- helpers -----------------------------------------------------------------------------------------------
    def _owner(self, m: MemoryRow, user_id: str | None) -> str:
        """The memory's user id; NotFound (never "forbidden": no hint it exists) when it is not ``user_id``'s."""
        owner = self.service.user_id_of(m.user_key) or ""
        if user_id is not None and owner != user_id:
            raise NotFound(f"no memory {m.id!r}")
        return owner

    def _owned(self, memory_id: str, user_id: str | None) -> MemoryRow:
        m = self.service.get_memory(memory_id)
        self._owner(m, user_id)
        return m

    def _row(self, m: MemoryRow, user_id: str) -> dict[str, Any]:
        meta = dict(m.meta or {})
        return {
            "id": m.id,
            "memory": m.content,
            "metadata": meta.get("metadata") or {},
            "type": m.type,
            "status": m.status,
            "source_type": m.source_type,
            "confidence": m.confidence,
            "created_at": m.created_at.isoformat() if m.created_at else None,
            "updated_at": m.updated_at.isoformat() if m.updated_at else None,
            "user_id": user_id,
            "agent_id": m.agent_id,
            "via": meta.get("via"),
            "key": meta.get("store_key"),
        }


def _async(name: str) -> Callable[..., Any]:
    method = getattr(Memory, name)

    @functools.wraps(method)
    async def call(self: AsyncMemory, *args: Any, **kwargs: Any) -> Any:
        return await asyncio.to_thread(method, self.sync, *args, **kwargs)

    return call


class AsyncMemory:
    """``Memory`` for asyncio code: the same methods, awaited (each runs in a worker thread; the engine is sync)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.sync = Memory(*args, **kwargs)
        self.service = self.sync.service

    add = _async("add")
    search = _async("search")
    get = _async("get")
    get_all = _async("get_all")
    update = _async("update")
    delete = _async("delete")
    delete_all = _async("delete_all")
    delete_user = _async("delete_user")
    history = _async("history")
    get_profile = _async("get_profile")
    reset = _async("reset")
