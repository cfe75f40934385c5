"""MemLens as a LangGraph store, plus ``remember`` / ``recall`` tools for tool-calling agents.

    from memory.langgraph import MemLensStore
    graph = builder.compile(store=MemLensStore())          # or create_react_agent(model, tools, store=...)
    store = MemLensStore(users=("memories", "{user_id}"))   # LangMem's convention: the 2nd label is the user

Namespaces round-trip exactly, at any depth: an item put in ``("test", "foo")`` comes back in ``("test", "foo")``.
Which label names the MemLens user is the store's ``users`` setting: one template or several, tried in order, each a
tuple of labels where ``"{user_id}"`` marks the user's label, ``"*"`` matches any label and anything else must be
equal. The default, ``("{user_id}",)``, makes the first label the user (the rule before templates existed). A
namespace that fits no template belongs to the MemLens user named by ``shared_user`` (default ``langgraph``). The
user decides who owns a memory in the back office, the erasure, the export; the whole namespace is kept with it.

``put`` stores the value as one memory (its text: the ``index=`` fields, else ``content`` / ``text`` / ``memory``,
else the value as JSON), verbatim, under its key: a second put with the key supersedes the first and keeps its
``created_at``; a put of ``None`` (``delete``) retires it. ``index=False`` keeps an item out of searches by meaning.
``MemLensStore(infer=True)`` sends the text through the write pipeline instead (the extracted memories are then the
items, keyed by their ids). Memories other doors wrote show under ``template-with-user + (agent_id, type)`` keyed by
their ids, e.g. ``("alice", "default", "fact")``.

``search`` filters by namespace prefix and by value (LangGraph's ``$eq $ne $gt $gte $lt $lte`` and dotted paths)
*before* the limit; with a query, the candidates are ranked by MemLens recall over every agent of the user, the
filters applied by recall before its cut (``MemoryService.door_search``: the items are what recall selected, so
a retracted statement or a fact's own message twin never comes back), with no relevance cut, as LangGraph's stores
(``threshold=`` turns MemLens's calibrated cut on), scored by calibrated relevance. Every
write is tagged ``via=langgraph`` and, for one user, serialised with every other door's writes
(``memory.storage.userlock``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, Literal

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.store.base import (
    BaseStore,
    GetOp,
    IndexConfig,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)
from langgraph.store.base.embed import get_text_at_path, tokenize_path

from memory import docfilters, keyed, validate
from memory.client import Memory
from memory.errors import InvalidInput, MemLensError, NotFound
from memory.storage.models import Memory as MemoryRow
from memory.vocab import MemoryStatus

TEXT_FIELDS = ("content", "text", "memory")
USER = "{user_id}"
#: LangGraph's own cap on a page is the caller's; ours keeps one search bounded
MAX_LIMIT = 1000
MAX_OFFSET = 1_000_000

Template = tuple[str, ...]
#: (namespace, key, value, created_at) of a memory as the store shows it
Parts = tuple[tuple[str, ...], str, dict[str, Any], datetime]


def value_text(value: dict[str, Any], fields: Sequence[str] | None = None) -> str:
    """The text a value is remembered (and searched) by: the given fields' text, else its ``content`` / ``text`` /
    ``memory`` field, else the value as JSON."""
    if fields and list(fields) != ["$"]:
        parts = [t for f in fields for t in get_text_at_path(value, tokenize_path(f)) if t and t.strip()]
        if parts:
            return "\n".join(parts)
    for name in TEXT_FIELDS:
        if isinstance(value.get(name), str) and value[name].strip():
            return value[name]
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def check_templates(users: Template | Sequence[Template]) -> list[Template]:
    """One template or several, each with exactly one ``"{user_id}"`` label."""
    found: list[Any] = [users] if users and all(isinstance(p, str) for p in users) else list(users)
    out: list[Template] = []
    for given in found:
        t = tuple(given)
        if not t or t.count(USER) != 1 or not all(isinstance(p, str) and p for p in t):
            raise InvalidInput(f'a users template is a tuple of labels with one "{USER}", e.g. ("memories", "{USER}")')
        out.append(t)
    if not out:
        raise InvalidInput("give at least one users template")
    return out


class MemLensStore(BaseStore):
    """A ``BaseStore`` over the MemLens service (see the module docstring for namespaces and users)."""

    supports_ttl = False

    def __init__(
        self,
        memory: Memory | None = None,
        *,
        users: Template | Sequence[Template] = (USER,),
        shared_user: str = "langgraph",
        index: IndexConfig | None = None,
        infer: bool = False,
        threshold: float | None = None,
    ) -> None:
        self.memory = memory or Memory(via="langgraph", name="langgraph-store")
        self.service = self.memory.service
        self.templates = check_templates(users)
        self.shared_user = shared_user
        #: LangGraph's ``index=``: its ``fields`` choose the text embedded; MemLens embeds with its own model
        self.index_config = dict(index) if index else None
        self.index_fields: list[str] | None = list((index or {}).get("fields") or []) or None
        self.infer = infer
        self.threshold = threshold

    # -- users -------------------------------------------------------------------------------------------------
    def user_of(self, namespace: tuple[str, ...]) -> str:
        """The MemLens user a namespace belongs to (the first template it fits, else ``shared_user``)."""
        for t in self.templates:
            if len(namespace) >= len(t) and all(p in ("*", USER) or p == n for p, n in zip(t, namespace, strict=False)):
                return namespace[t.index(USER)]
        return self.shared_user

    def _users_under(self, prefix: tuple[str, ...]) -> list[str] | None:
        """The users a namespace prefix can reach: one when the prefix decides it, else None (all users)."""
        candidates: set[str] = set()
        for t in self.templates:
            pos = t.index(USER)
            if len(prefix) <= pos:
                return None  # the prefix stops before the user label: any user
            if all(p in ("*", USER) or p == n for p, n in zip(t, prefix, strict=False)):
                candidates.add(prefix[pos])
        candidates.add(self.shared_user)  # a namespace fitting no template
        return sorted(candidates)

    def _home(self, user_id: str, row: MemoryRow) -> tuple[str, ...]:
        """The namespace of a memory another door wrote: the first template with its user, + (agent, type)."""
        t = self.templates[0]
        return (*(user_id if p == USER else p for p in t), row.agent_id, str((row.meta or {}).get("kind") or row.type))

    # -- BaseStore -----------------------------------------------------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        out: list[Result] = []
        for op in ops:
            if isinstance(op, GetOp):
                out.append(self._get(tuple(op.namespace), op.key))
            elif isinstance(op, PutOp):
                value = dict(op.value) if op.value is not None else None
                self._put(tuple(op.namespace), op.key, value, op.index)
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

    # -- reading -------------------------------------------------------------------------------------------------
    def _parts(self, row: Any, user_id: str) -> Parts:
        """(namespace, key, value, created_at) of a memory as the store shows it. A put's namespace is shown only
        when it belongs to the memory's own user (:meth:`user_of`): a namespace written into ``meta`` any other way
        (an imported file) never places an item under another user's namespace; the item shows as its user's."""
        meta = row.meta or {}
        namespace = _stored_ns(meta.get("store_ns"))
        if namespace is not None and self.user_of(namespace) == user_id:
            value: dict[str, Any] = meta["value"] if isinstance(meta.get("value"), dict) else {"content": row.content}
            created = meta.get("store_created_at")
            born = datetime.fromisoformat(created) if isinstance(created, str) else row.created_at
            return namespace, str(meta.get("store_key") or row.id), value, born
        value = {"content": row.content, "type": row.type, "source_type": row.source_type}
        return self._home(user_id, row), row.id, value, row.created_at

    def _find(self, namespace: tuple[str, ...], key: str) -> MemoryRow | None:
        """The active memory stored under ``key`` in the namespace (a put's key, or another door's memory id)."""
        validate.clean_value([*namespace, key], "store key")  # PostgreSQL cannot even compare a NUL
        try:
            user = self.service.get_user(self.user_of(namespace))
        except NotFound:
            return None
        row = self.service.memory_by_store_key(user, key, _ns_json(namespace))
        if row is not None:
            return row
        with_id = self.service.memories_by_id([key]).get(key)
        if with_id is None or with_id.user_key != user.key or with_id.status != MemoryStatus.ACTIVE:
            return None
        shown, shown_key, *_ = self._parts(with_id, user.external_id)  # a put is found by its key, not its id
        return with_id if (shown, shown_key) == (namespace, key) else None

    def _item(self, row: MemoryRow, user_id: str) -> Item:
        namespace, key, value, born = self._parts(row, user_id)
        return Item(value=value, key=key, namespace=namespace, created_at=born, updated_at=row.updated_at)

    def _get(self, namespace: tuple[str, ...], key: str) -> Item | None:
        row = self._find(namespace, key)
        if row is None:
            return None
        item = self._item(row, self.user_of(namespace))
        item.key = key  # the key asked for (a key holding personal data is kept masked: keyed.stored_key)
        return item

    # -- writing -------------------------------------------------------------------------------------------------
    def _put(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: dict[str, Any] | None,
        index: Literal[False] | list[str] | None = None,
    ) -> None:
        """The store's one write: put, replace or (``None``) delete the item, under the user's write lock."""
        if not namespace:
            raise InvalidInput("a namespace needs at least one label")
        if value is not None and not isinstance(value, dict):
            raise InvalidInput("a store value must be a dict")
        validate.clean_value(value, "store value")  # a NUL anywhere: refused before anything is read or written
        user_id = self.user_of(namespace)
        with self.service.user_writes(user_id):
            old = self._find(namespace, key)
            if value is None:
                if old is not None:
                    self.memory.delete(old.id)
                return
            fields = None if index is False else (index or self.index_fields)
            text = value_text(value, fields)
            if self.infer:
                self.memory.add(text, user_id=user_id, run_id="langgraph")
                return
            user_key = self.service.ensure_user(user_id).key
            meta: dict[str, Any] = {**keyed.stored_key(user_key, key), "store_ns": _ns_json(namespace), "value": value}
            if index is False:
                meta["store_index"] = False
            if old is not None:
                born = (old.meta or {}).get("store_created_at") or old.created_at.isoformat()
                meta["store_created_at"] = born
            with self.memory._acting():
                row = self.service.remember_verbatim(user_id, text, session_id="langgraph", meta=meta)
                if old is not None:
                    self.service.set_status(
                        old.id,
                        MemoryStatus.SUPERSEDED,
                        reason=f"put {key!r} again",
                        superseded_by=row.id,
                        actor=self.memory.actor,
                    )

    # -- searching -----------------------------------------------------------------------------------------------
    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = tuple(op.namespace_prefix)
        limit, offset = _page(op.limit, op.offset)
        users = self._users_under(prefix)
        if op.query and users is not None:
            return self._by_meaning(op, prefix, users, limit, offset)
        keys = None if users is None else self._user_keys(users)
        found: list[tuple[MemoryRow, str, Parts]] = []
        for row, user_id in self.service.store_rows(keys):
            parts = self._parts(row, user_id)
            if self._fits(row, parts, prefix, op):
                found.append((row, user_id, parts))
        if not op.query:
            page = found[offset : offset + limit]
            return [SearchItem(p[0], p[1], p[2], p[3], r.updated_at) for r, _u, p in page]
        indexed = [(r, u) for r, u, _p in found if (r.meta or {}).get("store_index") is not False]
        scored = self._rank(op.query, indexed, offset + limit)
        by_id = {r.id: (r, p) for r, _u, p in found}
        ranked = [(by_id[i][0], by_id[i][1], s) for i, s in scored][offset : offset + limit]
        return [SearchItem(p[0], p[1], p[2], p[3], r.updated_at, score=s) for r, p, s in ranked]

    def _fits(self, row: Any, parts: Parts, prefix: tuple[str, ...], op: SearchOp) -> bool:
        return parts[0][: len(prefix)] == prefix and docfilters.matches(parts[2], op.filter)

    def _by_meaning(
        self, op: SearchOp, prefix: tuple[str, ...], users: list[str], limit: int, offset: int
    ) -> list[SearchItem]:
        """A query search whose prefix names its users: MemLens recall over each user, the namespace and value
        filters applied by recall before its cut (``service.door_search``), so the page is recall's own selection."""
        need = offset + limit
        ranked: list[tuple[float, MemoryRow, Parts]] = []
        label = {"namespace_prefix": list(prefix), "filter": op.filter}
        # a prefix past the user's label, or a value filter, may leave few of the user's memories: a wider pool
        narrow = bool(op.filter) or len(prefix) > max(t.index(USER) + 1 for t in self.templates)
        for user_id in users:

            def wanted(row: Any, user_id: str = user_id) -> bool:
                if (row.meta or {}).get("store_index") is False:
                    return False
                return self._fits(row, self._parts(row, user_id), prefix, op)

            hits = self._recalled(user_id, op.query or "", need, wanted, label, narrow=narrow)
            rows = self.service.memories_by_id([h.memory_id for h in hits])
            for h in hits:
                if (row := rows.get(h.memory_id)) is not None:
                    ranked.append((_score(h), row, self._parts(row, user_id)))
        ranked.sort(key=lambda t: -t[0])
        return [
            SearchItem(p[0], p[1], p[2], p[3], r.updated_at, score=s) for s, r, p in ranked[offset : offset + limit]
        ]

    def _recalled(
        self, user_id: str, query: str, need: int, where: Any, label: Any, *, narrow: bool = True
    ) -> list[Any]:
        """The hits recall selected for one user (none when there is no such user): no cut unless the store has a
        ``threshold`` (as LangGraph's stores), recall's other verdicts — flagged, retracted, same-source twin — as
        every door has them."""
        try:
            self.service.get_user(user_id)
        except (NotFound, MemLensError):
            return []
        cut = self.threshold if self.threshold is not None else -1.0
        with self.memory._acting():
            policy = self.service.recall_policy(k=min(MAX_LIMIT, need), threshold=cut)
            result = self.service.door_search(user_id, query, policy, where=where, where_label=label, narrow=narrow)
        return [] if result is None else result.selected

    def _user_keys(self, users: list[str]) -> list[str]:
        keys = []
        for u in users:
            try:
                keys.append(self.service.get_user(u).key)
            except (NotFound, MemLensError):
                continue
        return keys

    def _rank(self, query: str, rows: list[tuple[MemoryRow, str]], need: int) -> list[tuple[str, float]]:
        """(memory id, score) of the candidates, best first, by MemLens recall over each user's memories, limited to
        these candidates before its cut."""
        wanted: dict[str, set[str]] = {}
        for r, u in rows:
            wanted.setdefault(u, set()).add(r.id)
        out: list[tuple[str, float]] = []
        for user_id, ids in wanted.items():
            hits = self._recalled(user_id, query, need, lambda row, ids=ids: row.id in ids, {"candidates": len(ids)})
            out += [(h.memory_id, _score(h)) for h in hits]
        return sorted(out, key=lambda p: -p[1])

    def _namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        conds = tuple(op.match_conditions or ())
        prefix = next((c.path for c in conds if c.match_type == "prefix" and "*" not in c.path), ())
        users = self._users_under(tuple(prefix))
        keys = None if users is None else self._user_keys(users)
        found = {self._parts(row, u)[0] for row, u in self.service.store_rows(keys)}
        if op.max_depth is not None:
            found = {ns[: op.max_depth] for ns in found}
        listed = sorted(ns for ns in found if all(_matches(ns, c) for c in conds))
        limit, offset = _page(op.limit, op.offset)
        return listed[offset : offset + limit]


def _ns_json(namespace: tuple[str, ...]) -> str:
    return json.dumps(list(namespace), ensure_ascii=False)


def _stored_ns(value: Any) -> tuple[str, ...] | None:
    """The namespace a put kept in ``meta`` (a JSON list of labels), or None when there is none or it is malformed."""
    if not isinstance(value, str):
        return None
    try:
        labels = json.loads(value)
    except ValueError:
        return None
    if not isinstance(labels, list) or not labels or not all(isinstance(p, str) and p for p in labels):
        return None
    return tuple(labels)


def _score(hit: Any) -> float:
    return float(hit.relevance if hit.relevance is not None else (hit.similarity or 0.0))


def _page(limit: int, offset: int) -> tuple[int, int]:
    """A page's bounds, refused clearly when hostile (a huge offset would overflow SQL's integers)."""
    if not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(f"limit must be an integer from 1 to {MAX_LIMIT}")
    if not isinstance(offset, int) or not 0 <= offset <= MAX_OFFSET:
        raise InvalidInput(f"offset must be an integer from 0 to {MAX_OFFSET:,}")
    return limit, offset


def _matches(ns: tuple[str, ...], cond: MatchCondition) -> bool:
    path = tuple(cond.path)
    if len(path) > len(ns):
        return False
    part = ns[: len(path)] if cond.match_type == "prefix" else ns[len(ns) - len(path) :]
    return all(p == "*" or p == n for p, n in zip(path, part, strict=True))


def memlens_tools(memory: Memory | None = None, *, user_id: str | None = None, agent_id: str | None = None) -> list:
    """``remember`` and ``recall`` LangChain tools. The user is ``user_id`` or the run's
    ``config["configurable"]["user_id"]`` (so one tool set can serve every user of a graph). A refused call (no
    user, empty text) comes back to the model as the tool's error message; the run goes on."""
    mem = memory or Memory(via="langgraph", name="langgraph-tools")

    def _user(config: RunnableConfig) -> str:
        found = user_id or (config.get("configurable") or {}).get("user_id")
        if not found or not str(found).strip():
            raise InvalidInput("no user: pass user_id to memlens_tools or configurable.user_id to the run")
        return str(found)

    @tool
    def remember(fact: str, config: RunnableConfig) -> str:
        """Save one thing worth remembering about the user (a fact, preference or plan), in their own words.
        Use it when the user states something durable about themselves; not for small talk."""
        try:
            done = mem.add(fact, user_id=_user(config), agent_id=agent_id)["results"]
        except MemLensError as exc:
            return f"error: {exc}"
        return "; ".join(f"{r['event']}: {r['memory']}" for r in done) or "nothing new to remember"

    @tool
    def recall(query: str, config: RunnableConfig) -> str:
        """Look up what is remembered about the user that is relevant to QUERY (a short question or topic).
        Returns one memory per line, best first, or says nothing relevant is remembered."""
        try:
            hits = mem.search(query, user_id=_user(config), agent_id=agent_id)["results"]
        except MemLensError as exc:
            return f"error: {exc}"
        return "\n".join(f"- {h['memory']}" for h in hits) or "nothing relevant is remembered"

    return [remember, recall]
