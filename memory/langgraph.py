"""MemLens as a LangGraph store, plus ``remember`` / ``recall`` tools for tool-calling agents.

    from memory.langgraph import MemLensStore
    graph = builder.compile(store=MemLensStore())          # or create_react_agent(model, tools, store=...)

Namespace rule: ``(user_id,)``, ``(user_id, agent_id)`` or ``(user_id, agent_id, kind)``. The first element is
always the MemLens user (memories never cross users), the second the agent (default agent when absent), the third
a *kind*: a label kept with each put (``meta.kind``) that also matches the memory type (fact, preference, event,
summary, turn) of memories written by other doors. ``put`` stores the value verbatim by default (``content`` /
``text`` / ``memory`` field, else the value as JSON) under its key — a second put with the key supersedes the first,
a put of ``None`` deletes; ``MemLensStore(infer=True)`` sends the text through the write pipeline instead (the
extracted memories are then the items, keyed by their ids). ``search`` with a query runs MemLens recall (hybrid,
threshold, logged for the retrieval lab) and returns ``SearchItem``s scored by relevance; without a query it lists.
Every write is tagged ``via=langgraph``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable
from typing import Any

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from memory.client import Memory
from memory.errors import InvalidInput, NotFound
from memory.storage.models import Memory as MemoryRow
from memory.vocab import MemoryStatus

TEXT_FIELDS = ("content", "text", "memory")


def parse_namespace(namespace: tuple[str, ...]) -> tuple[str, str | None, str | None]:
    """(user, agent or None, kind or None) by the documented rule; anything longer or empty is refused."""
    if not namespace or len(namespace) > 3 or not all(isinstance(p, str) and p for p in namespace):
        raise InvalidInput("a MemLens namespace is (user_id,), (user_id, agent_id) or (user_id, agent_id, kind)")
    return namespace[0], (namespace[1] if len(namespace) > 1 else None), (namespace[2] if len(namespace) > 2 else None)


def value_text(value: dict[str, Any]) -> str:
    for name in TEXT_FIELDS:
        if isinstance(value.get(name), str) and value[name].strip():
            return value[name]
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


class MemLensStore(BaseStore):
    """A ``BaseStore`` over the MemLens service (see the module docstring for the namespace rule)."""

    supports_ttl = False

    def __init__(self, memory: Memory | None = None, *, infer: bool = False, threshold: float | None = None) -> None:
        self.memory = memory or Memory(via="langgraph", name="langgraph-store")
        self.service = self.memory.service
        self.infer = infer
        self.threshold = threshold

    # -- BaseStore -----------------------------------------------------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        out: list[Result] = []
        for op in ops:
            if isinstance(op, GetOp):
                out.append(self._get(op.namespace, op.key))
            elif isinstance(op, PutOp):
                self._put(op.namespace, op.key, dict(op.value) if op.value is not None else None)
                out.append(None)
            elif isinstance(op, SearchOp):
                out.append(self._search(op))
            elif isinstance(op, ListNamespacesOp):
                out.append(self._namespaces(op))
            else:
                raise InvalidInput(f"unsupported store operation {type(op).__name__}")
        return out

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    # -- operations ------------------------------------------------------------------------------------------------
    def _find(self, namespace: tuple[str, ...], key: str) -> MemoryRow | None:
        """The active memory stored under ``key`` in the namespace (a put's key, or a memory id)."""
        user_id, agent, kind = parse_namespace(namespace)
        try:
            user = self.service.get_user(user_id)
        except NotFound:
            return None
        agent = agent or self.service.settings.default_agent_id
        row = self.service.memory_by_store_key(user, agent, key)
        if row is None or row.user_key != user.key or row.agent_id != agent or row.status != MemoryStatus.ACTIVE:
            return None
        return row if self._kind_ok(row, kind) else None

    @staticmethod
    def _kind_ok(row: MemoryRow, kind: str | None) -> bool:
        return kind is None or (row.meta or {}).get("kind") == kind or row.type == kind

    @staticmethod
    def _parts(row: MemoryRow, user_id: str) -> tuple[tuple[str, ...], str, dict[str, Any]]:
        """(namespace, key, value) of a stored memory as the store shows it."""
        meta = row.meta or {}
        value = meta.get("value") if isinstance(meta.get("value"), dict) else None
        value = value or {"content": row.content, "type": row.type, "source_type": row.source_type}
        return (user_id, row.agent_id, meta.get("kind") or row.type), meta.get("store_key") or row.id, value

    def _item(self, row: MemoryRow, user_id: str) -> Item:
        namespace, key, value = self._parts(row, user_id)
        return Item(value=value, key=key, namespace=namespace, created_at=row.created_at, updated_at=row.updated_at)

    def _search_item(self, row: MemoryRow, user_id: str, score: float | None) -> SearchItem:
        namespace, key, value = self._parts(row, user_id)
        return SearchItem(namespace, key, value, row.created_at, row.updated_at, score=score)

    def _get(self, namespace: tuple[str, ...], key: str) -> Item | None:
        row = self._find(namespace, key)
        return self._item(row, namespace[0]) if row else None

    def _put(self, namespace: tuple[str, ...], key: str, value: dict[str, Any] | None) -> None:
        user_id, agent, kind = parse_namespace(namespace)
        old = self._find(namespace, key)
        if value is None:
            if old is not None:
                self.memory.delete(old.id)
            return
        if not isinstance(value, dict):
            raise InvalidInput("a store value must be a dict")
        text = value_text(value)
        with self.memory._acting(kind=kind):
            if self.infer:
                self.memory.add(text, user_id=user_id, agent_id=agent, run_id="langgraph")
                return
            row = self.service.remember_verbatim(
                user_id, text, session_id="langgraph", agent_id=agent, meta={"store_key": key, "value": value}
            )
        if old is not None:
            with self.memory._acting():
                self.service.set_status(
                    old.id, MemoryStatus.SUPERSEDED, reason=f"put {key!r} again", superseded_by=row.id
                )

    def _search(self, op: SearchOp) -> list[SearchItem]:
        user_id, agent, kind = parse_namespace(op.namespace_prefix)
        limit, offset = max(1, min(op.limit, 100)), max(0, op.offset)
        try:
            user = self.service.get_user(user_id)
        except NotFound:
            return []
        if op.query:
            with self.memory._acting():
                result = self.service.recall(
                    user_id, op.query, agent_id=agent, k=min(100, (limit + offset) * 3), threshold=self.threshold
                )
            ids = [(h.memory_id, h.relevance or h.similarity) for h in result.selected]
            by_id = self.service.memories_by_id([i for i, _ in ids])
            scored: list[tuple[MemoryRow, float | None]] = [(by_id[i], s) for i, s in ids if i in by_id]
        else:
            rows = self.service.list_memories(user, agent_id=agent, limit=(limit + offset) * 3)
            scored = [(r, None) for r in rows]
        items = [self._search_item(r, user_id, s) for r, s in scored if self._kind_ok(r, kind)]
        items = [i for i in items if all(i.value.get(k) == v for k, v in (op.filter or {}).items())]
        return items[offset : offset + limit]

    def _namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        conds = op.match_conditions or ()
        users = [c.path[0] for c in conds if c.match_type == "prefix" and c.path and c.path[0] != "*"]
        found: list[tuple[str, ...]] = list(self.service.store_namespaces(users))
        if op.max_depth is not None:
            found = sorted({ns[: op.max_depth] for ns in found})
        found = [ns for ns in found if all(_matches(ns, c) for c in op.match_conditions or ())]
        return found[op.offset : op.offset + op.limit]


def _matches(ns: tuple[str, ...], cond: MatchCondition) -> bool:
    path = tuple(cond.path)
    if len(path) > len(ns):
        return False
    part = ns[: len(path)] if cond.match_type == "prefix" else ns[len(ns) - len(path) :]
    return all(p == "*" or p == n for p, n in zip(path, part, strict=True))


def memlens_tools(memory: Memory | None = None, *, user_id: str | None = None, agent_id: str | None = None) -> list:
    """``remember`` and ``recall`` LangChain tools. The user is ``user_id`` or the run's
    ``config["configurable"]["user_id"]`` (so one tool set can serve every user of a graph)."""
    mem = memory or Memory(via="langgraph", name="langgraph-tools")

    def _user(config: RunnableConfig) -> str:
        found = user_id or (config.get("configurable") or {}).get("user_id")
        if not found:
            raise InvalidInput("no user: pass user_id to memlens_tools or configurable.user_id to the run")
        return found

    @tool
    def remember(fact: str, config: RunnableConfig) -> str:
        """Save one thing worth remembering about the user (a fact, preference or plan), in their own words.
        Use it when the user states something durable about themselves; not for small talk."""
        done = mem.add(fact, user_id=_user(config), agent_id=agent_id)["results"]
        return "; ".join(f"{r['event']}: {r['memory']}" for r in done) or "nothing new to remember"

    @tool
    def recall(query: str, config: RunnableConfig) -> str:
        """Look up what is remembered about the user that is relevant to QUERY (a short question or topic).
        Returns one memory per line, best first, or says nothing relevant is remembered."""
        hits = mem.search(query, user_id=_user(config), agent_id=agent_id)["results"]
        return "\n".join(f"- {h['memory']}" for h in hits) or "nothing relevant is remembered"

    return [remember, recall]
