"""``Memory`` / ``AsyncMemory``: MemLens behind mem0's method shapes, so code written for mem0 moves by an import.

    from memory import Memory
    m = Memory()
    m.add("I moved to Hangzhou last month", user_id="alice")           # the real write pipeline
    m.search("where does she live?", filters={"user_id": "alice"})     # mem0's current call shape
    m.search("where does she live?", user_id="alice", limit=3)         # and mem0 1.x's

Every call goes through :class:`memory.service.MemoryService`, inside ``provenance.acting``, so each write carries
where it came from (``via`` = ``python`` unless a door says otherwise) and the back office sees it like the agent's.
mem0's behaviour is the default (its contract, rebuilt from mem0's documentation, is ``tests/contracts/mem0.py``):

- ids are stable: an ``add`` that replaces a memory (event ``UPDATE``) reports the replaced memory's id, and that id
  keeps naming the memory (``get``/``update``/``delete``/``history``); the write log keeps every version;
- deleted means gone: ``get`` returns None, ``delete`` of a missing id raises a ``ValueError``;
- ``search``/``get_all`` span every agent of the user unless ``agent_id`` is named; ``run_id`` scopes to a session;
- mem0's filter operators (``memory.docfilters``) apply *before* the limit, inside recall's cut (the results are
  exactly what recall selected, as on every door); mem0's defaults: 20 results, a cut at ``score`` (cosine
  similarity) 0.1, best score first. ``Memory(cut="calibrated")`` (the MCP door's choice) or ``search(...,
  cut="calibrated")`` applies MemLens's calibrated relevance cut instead, as the back office shows it.

Writes for one user are serialised with every other door's (``service.user_writes``); each door's write goes through
one helper here (``Memory._write``), which hands the messages to the one write entry (``memory.write.entry``: the
user's lock, facts read from the user's own words only, one transaction). Differences: docs/doors.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import warnings
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, Literal

from memory import docfilters, keyed, provenance, validate
from memory.config import Settings
from memory.errors import Conflict, InvalidInput, MemoryNotFound, NotFound
from memory.service import MemoryService
from memory.storage.models import Memory as MemoryRow
from memory.text.privacy import mask_value
from memory.vocab import Actor, EventOp, MemoryStatus, Role
from memory.write.entry import Said

#: the pipeline's decisions in mem0's vocabulary (REINFORCE / NOOP change nothing visible: NONE)
EVENTS = {"ADD": "ADD", "UPDATE": "UPDATE", "DELETE": "DELETE", "REINFORCE": "NONE", "NOOP": "NONE"}
DEFAULT_RUN = "memory-api"
#: mem0's defaults: ``top_k`` 20 (search and get_all), ``threshold`` 0.1 on the similarity score
MEM0_TOP_K = 20
MEM0_THRESHOLD = 0.1
MAX_RESULTS = 1000
MAX_OFFSET = 1_000_000
ENTITY_KEYS = ("user_id", "agent_id", "run_id")
Cut = Literal["mem0", "calibrated"]

#: mem0 configuration keys → what MemLens does with them (``Memory.from_config``)
MEM0_CONFIG = {
    "history_db_path": "the SQLite file holding memories and their history (database_url)",
    "vector_store": "config.path → the LanceDB folder (lancedb_uri); provider and other settings are ignored",
    "embedder": "ignored: MemLens embeds with its own pinned model (embedder setting)",
    "llm": "ignored: extraction uses MemLens's rules and the agent's model settings",
    "graph_store": "ignored: no graph memory",
    "reranker": "ignored: MemLens ranks with its own fused, calibrated ranking",
    "version": "ignored: MemLens answers in mem0's v1.1+ shape ({'results': [...]})",
    "custom_instructions": "ignored: extraction is MemLens's write pipeline",
    "custom_fact_extraction_prompt": "ignored: extraction is MemLens's write pipeline",
    "custom_update_memory_prompt": "ignored: updates are MemLens's write pipeline",
}


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


def _entity(value: Any, name: str) -> str | None:
    """mem0's id rule: None, or text (a number is turned into text) that is not blank after trimming."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise InvalidInput(f"{name} must be text")
    text = str(value).strip()
    if not text:
        raise InvalidInput(f"{name} cannot be empty or whitespace-only")
    return text


def _scope(
    user_id: Any, agent_id: Any, run_id: Any, filters: dict[str, Any] | None
) -> tuple[str, str | None, str | None, dict[str, Any]]:
    """(user, agent, run, the rest of the filters): the ids from the arguments (mem0 1.x) or from ``filters``
    (mem0's current shape); a user id is required (MemLens keeps every memory under one)."""
    if filters is not None and not isinstance(filters, dict):
        raise InvalidInput("filters must be an object")
    rest = dict(filters or {})
    ids = {}
    for name, given in zip(ENTITY_KEYS, (user_id, agent_id, run_id), strict=True):
        in_filters = rest.pop(name, None)
        if given is not None and in_filters is not None and str(given).strip() != str(in_filters).strip():
            raise InvalidInput(f"{name} given twice with different values")
        ids[name] = _entity(given if given is not None else in_filters, name)
    if ids["user_id"] is None:
        raise InvalidInput('a user id is required: user_id="..." or filters={"user_id": "..."}')
    return ids["user_id"], ids["agent_id"], ids["run_id"], rest


def _count(value: Any, name: str, default: int) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_RESULTS:
        raise InvalidInput(f"{name} must be an integer from 0 to {MAX_RESULTS}")
    return value


def _offset(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_OFFSET:
        raise InvalidInput(f"offset must be an integer from 0 to {MAX_OFFSET:,}")
    return value


def content_hash(text: str) -> str:
    """mem0's ``hash``: the MD5 of the memory's text (a fingerprint, not security)."""
    return hashlib.md5(text.encode("utf-8"), usedforsecurity=False).hexdigest()


def _doc(meta: dict[str, Any], type_: str | None) -> dict[str, Any]:
    """What mem0-style filters match: the caller's metadata, plus ``type``, ``via`` and ``by``."""
    return {"type": type_, "via": meta.get("via"), "by": meta.get("by"), **(meta.get("metadata") or {})}


def in_run(meta: dict[str, Any], run_id: str | None) -> bool:
    """mem0's ``run_id`` scope: None = any memory, ``"*"`` = any memory that has a run id (mem0's wildcard: the
    field is present, whatever its value), else that run."""
    if run_id is None:
        return True
    if run_id == "*":
        return meta.get("run_id") is not None
    return meta.get("run_id") == run_id


def _wants(run_id: str | None, meta_filters: dict[str, Any]) -> Callable[[Any], bool] | None:
    """The door's filters (run scope and mem0's metadata filters) as a test on a stored row, for recall to apply
    before its cut; None when there are none."""
    if run_id is None and not meta_filters:
        return None

    def wanted(row: Any) -> bool:
        meta = row.meta or {}
        return in_run(meta, run_id) and docfilters.matches(_doc(meta, row.type), meta_filters)

    return wanted


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
        cut: Cut = "mem0",
    ) -> None:
        self.service = service or MemoryService(settings or Settings())
        #: in-process callers own the data files (like the CLI), hence admin by default; the service checks this
        #: role on every change (a door serving others can pass a narrower one)
        self.actor = Actor(name=name, role=Role(role), via=via)
        self.allow_reset = allow_reset
        if cut not in ("mem0", "calibrated"):
            raise InvalidInput('cut must be "mem0" or "calibrated"')
        self.cut: Cut = cut
        #: mem0 configuration keys ``from_config`` did not use (also warned about)
        self.ignored_config: dict[str, str] = {}

    @classmethod
    def from_config(cls, config: dict[str, Any] | None = None, **kwargs: Any) -> Memory:
        """mem0's constructor. MemLens settings (``{"data_dir": ...}``) are taken as they are; mem0's keys are
        mapped where MemLens has the same thing (``history_db_path``, ``vector_store.config.path``) and the others
        are listed in ``ignored_config`` with the reason (and a warning): see :data:`MEM0_CONFIG`."""
        settings, ignored = settings_from_config(config)
        mem = cls(settings=settings, **kwargs)
        mem.ignored_config = ignored
        return mem

    def _acting(self, **extra: Any) -> AbstractContextManager[dict[str, Any]]:
        return provenance.acting(self.actor, **extra)

    # -- writes ------------------------------------------------------------------------------------------------
    def add(
        self,
        messages: Any,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        infer: bool = True,
        filters: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Remember messages through the one write path a chat turn uses: each message kept as an episode, and
        (``infer=True``) the facts read from it. With ``infer=False`` the results are the episodes, as said."""
        if metadata is not None and not isinstance(metadata, dict):
            raise InvalidInput("metadata must be an object")
        validate.clean_value(metadata, "metadata")  # a NUL anywhere: refused before anything is written
        user, agent, run, _ = _scope(user_id, agent_id, run_id, filters)
        msgs = _messages(messages)
        return {"results": self._write(user, agent, run, msgs, metadata=metadata, infer=infer)}

    def _write(
        self,
        user_id: str,
        agent_id: str | None,
        run_id: str | None,
        msgs: list[tuple[str, str]],
        *,
        metadata: dict[str, Any] | None,
        infer: bool,
    ) -> list[dict[str, Any]]:
        """This door's one write ("a conversation message arrived"), under the user's write lock; a single message
        takes the single-message path (the batch path's every-core embedding is for long imports)."""
        svc, session_id = self.service, run_id or DEFAULT_RUN
        with svc.user_writes(user_id), self._acting(metadata=metadata or None, run_id=run_id):
            user = svc.ensure_user(user_id)
            session = svc.ensure_session(user, session_id, agent_id)
            said = [Said(role, text) for role, text in msgs]
            write = svc.write if len(said) == 1 else svc.write_from_messages  # many: every core embeds
            if not infer:  # episodes only: every message as said (system prompts are not what anybody said)
                reports = write(user, session, said, agent_id=agent_id, infer=False)
                ids = [i for r in reports for i in r.episodes]
                kept = svc.memories_by_id(ids)
                return [{**self._row(kept[i], user_id), "event": "ADD"} for i in ids if i in kept]
            # the entry's one rule reads facts from the user's own words only: an assistant message is kept as said
            reports = write(user, session, said, agent_id=agent_id, keep_unparsed=len(said) == 1)
            return [self._result(op) for r in reports for op in r.operations if op.get("memory_id")]

    def _result(self, op: dict[str, Any]) -> dict[str, Any]:
        """One pipeline decision in mem0's shape. An UPDATE reports the id of the memory it replaced (mem0's ids
        are stable) and that id stays on the new row; ``previous_memory`` is the text it replaced."""
        new_id = op["memory_id"]
        shown = new_id
        out: dict[str, Any] = {"memory": op.get("content", ""), "event": EVENTS.get(op["op"], op["op"])}
        if op["op"] == EventOp.UPDATE and op.get("target_ids"):
            with contextlib.suppress(NotFound):
                old = self.service.get_memory(op["target_ids"][0])
                shown = self._stable(old)
                keyed.set_meta(self.service.storage, new_id, stable_id=shown)
                out["previous_memory"] = old.content
        elif op["op"] in (EventOp.REINFORCE, EventOp.DELETE):
            with contextlib.suppress(NotFound):
                shown = self._stable(self.service.get_memory(new_id))
        out.update(id=shown, decision=op["op"], reason=op.get("reason", ""), type=op.get("type"))
        return out

    def update(
        self,
        memory_id: str,
        text: str | None = None,
        *,
        data: str | None = None,
        metadata: dict[str, Any] | None = None,
        user_id: str | None = None,
    ) -> dict[str, Any]:
        """Rewrite a memory's text (same id, logged as an EDIT with where it came from). mem0's ``text=`` and its
        1.x ``data=`` are both accepted; ``metadata`` is merged into the memory's metadata."""
        new_text = text if text is not None else data
        if new_text is None and metadata is None:
            raise InvalidInput("give text or metadata to update")
        if metadata is not None and not isinstance(metadata, dict):
            raise InvalidInput("metadata must be an object")
        row = self._owned(memory_id, user_id)
        owner = self.service.user_id_of(row.user_key) or ""
        with self.service.user_writes(owner), self._acting():
            if new_text is not None:
                self.service.edit_memory(row.id, new_text, actor=self.actor, reason=f"updated through {self.actor.via}")
            if metadata is not None:
                merged = {**((row.meta or {}).get("metadata") or {}), **metadata}
                keyed.set_meta(self.service.storage, row.id, metadata=mask_value(merged))
        return {"message": "Memory updated successfully!", "id": memory_id}

    def delete(self, memory_id: str, *, user_id: str | None = None) -> dict[str, Any]:
        """Delete one memory (it leaves the index; the write log keeps the history). A missing id is a
        ``ValueError`` (``MemoryNotFound``), as in mem0."""
        row = self._owned(memory_id, user_id)
        owner = self.service.user_id_of(row.user_key) or ""
        with self.service.user_writes(owner), self._acting():
            self.service.delete_memory(row.id, actor=self.actor, reason=f"deleted through {self.actor.via}")
        return {"message": "Memory deleted successfully!", "id": memory_id}

    def delete_all(
        self, *, user_id: str | None = None, agent_id: str | None = None, run_id: str | None = None
    ) -> dict[str, Any]:
        """Delete every active memory of a user (and agent, and run). Erasing the user for good is ``delete_user``."""
        user_id, agent, run, _ = _scope(user_id, agent_id, run_id, None)
        try:
            user = self.service.get_user(user_id)
        except NotFound:
            return {"message": "Memories deleted successfully!", "deleted": 0}
        with self.service.user_writes(user_id), self._acting():
            rows = [m for m in self.service.list_memories(user, agent_id=agent) if self._in_run(m, run)]
            for m in rows:
                if self.service.get_memory(m.id).status != MemoryStatus.ACTIVE:
                    continue  # deleted meanwhile with the episode it was read from (memory.write.cascade)
                self.service.delete_memory(m.id, actor=self.actor, reason=f"deleted (all) through {self.actor.via}")
        return {"message": "Memories deleted successfully!", "deleted": len(rows)}

    def delete_user(self, user_id: str) -> dict[str, int]:
        """Erase a user completely: SQL rows, vectors and checkpoints (``memlens delete-user``)."""
        with self.service.user_writes(user_id), self._acting():
            return self.service.lifecycle.delete_user(user_id, actor=self.actor)

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
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        limit: int | None = None,
        top_k: int | None = None,
        threshold: float | None = None,
        filters: dict[str, Any] | None = None,
        cut: Cut | None = None,
        rerank: bool = False,
    ) -> dict[str, Any]:
        """The real recall (hybrid, logged for the retrieval lab) over every agent of the user unless one is named,
        through the one cut every door shares (``MemoryService.door_search``): the results are what recall selected.
        mem0's cut by default (``score`` = cosine similarity ≥ ``threshold``, 0.1); ``cut="calibrated"``: MemLens's
        calibrated relevance cut (``threshold`` then on relevance). ``run_id`` and the metadata filters apply before
        the cut and the limit (``run_id="*"``: any run); results best ``score`` first, as mem0 returns them."""
        user_id, agent, run, meta_filters = _scope(user_id, agent_id, run_id, filters)
        n = _count(top_k if top_k is not None else limit, "top_k / limit", MEM0_TOP_K)
        mode = cut or self.cut
        if mode not in ("mem0", "calibrated"):
            raise InvalidInput('cut must be "mem0" or "calibrated"')
        if threshold is not None and (isinstance(threshold, bool) or not isinstance(threshold, (int, float))):
            raise InvalidInput("threshold must be a number")
        low = -1.0 if mode == "calibrated" else 0.0  # mem0's score is in [0, 1]; MemLens's cut may be turned off
        if threshold is not None and not low <= threshold <= 1.0:
            raise InvalidInput(f"threshold must be between {low:g} and 1")
        if n == 0:  # nothing asked for: the query is still checked like any other
            validate.text(query, self.service.settings.max_message_chars, "query")
            return {"results": []}
        if mode == "calibrated":  # MemLens's cut: the calibrated threshold (and the live similarity cuts)
            policy = self.service.recall_policy(k=n, threshold=threshold)
        else:  # mem0's: every candidate whose score (cosine similarity) reaches the threshold, nothing else
            floor = MEM0_THRESHOLD if threshold is None else float(threshold)
            policy = self.service.recall_policy(k=n, threshold=-1.0).replace(similarity_floor=floor, relative_cut=None)
        wanted = _wants(run, meta_filters)
        label = {**meta_filters, **({"run_id": run} if run is not None else {})} or None
        with self._acting():
            result = self.service.door_search(user_id, query, policy, agent_id=agent, where=wanted, where_label=label)
        if result is None:
            return {"results": []}
        hits = result.selected  # recall's own verdicts: what it selected is what this door returns
        rows = self.service.memories_by_id([h.memory_id for h in hits])
        out = []
        for h in hits:
            row = rows.get(h.memory_id)
            if row is None:  # deleted since the search read it
                continue
            item = {
                **self._row(row, user_id),
                "score": h.similarity,
                "fused_score": h.score,
                "similarity": h.similarity,
                "bm25": h.fts_score,
                # source context: the conversation around the message this memory was learnt from
                "context": [c.to_dict() for c in h.context],
            }
            if h.relevance is not None:
                item["relevance"] = h.relevance
            if h.update is not None:  # a knowledge update: "earlier" (replaced by a newer memory) or "current"
                item["update"] = h.update
                if h.replaced_by is not None:
                    item["replaced_by"] = self._stable(rows[h.replaced_by]) if h.replaced_by in rows else h.replaced_by
            out.append(item)
        out.sort(key=lambda r: -(r["score"] if r["score"] is not None else -2.0))  # mem0: best score first
        return {"results": out, "retrieval_id": result.retrieval_id}

    def get(self, memory_id: str, *, user_id: str | None = None) -> dict[str, Any] | None:
        """One memory by id, as it is now (None when there is none, it was deleted, or it belongs to another user
        than ``user_id``)."""
        row = self._head(memory_id, user_id=user_id)
        if row is None:
            return None
        try:
            return self._row(row, self._owner(row, user_id))
        except NotFound:
            return None

    def get_all(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        limit: int | None = None,
        top_k: int | None = None,
        offset: int = 0,
        filters: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """A user's active memories over every agent unless one is named, newest first; filters before the limit."""
        user_id, agent, run, meta_filters = _scope(user_id, agent_id, run_id, filters)
        n = _count(top_k if top_k is not None else limit, "top_k / limit", MEM0_TOP_K)
        offset = _offset(offset)
        try:
            user = self.service.get_user(user_id)
        except NotFound:
            return {"results": []}
        if n == 0:
            return {"results": []}
        if not meta_filters and run is None:
            rows = self.service.list_memories(user, agent_id=agent, limit=n, offset=offset)
        else:
            every = self.service.list_memories(user, agent_id=agent)
            rows = [
                m
                for m in every
                if self._in_run(m, run) and docfilters.matches(_doc(m.meta or {}, m.type), meta_filters)
            ][offset : offset + n]
        return {"results": [self._row(m, user.external_id) for m in rows]}

    def history(self, memory_id: str, *, user_id: str | None = None) -> list[dict[str, Any]]:
        """The memory's events (ADD, REINFORCE, EDIT, DELETE…) over every version it had, oldest first, each with
        where it came from."""
        row = self._owned(memory_id, user_id, active=False)
        stable = self._stable(row)
        chain = keyed.chain(self.service.storage, stable, row.user_key)
        events = [e for m in chain for e in self.service.memory_events(m.id)]
        return sorted(events, key=lambda e: (e["created_at"], e["id"]))

    def get_profile(self, user_id: str) -> dict[str, Any]:
        """The user's core profile (field → value)."""
        try:
            return self.service.get_profile(user_id)
        except NotFound:
            return {}

    # -- helpers -----------------------------------------------------------------------------------------------
    @staticmethod
    def _stable(row: MemoryRow) -> str:
        """The id mem0 callers know this memory by (the first row's, kept across UPDATEs)."""
        return str((row.meta or {}).get("stable_id") or row.id)

    @staticmethod
    def _in_run(row: MemoryRow, run_id: str | None) -> bool:
        return in_run(row.meta or {}, run_id)

    def _head(self, memory_id: str, *, active: bool = True, user_id: str | None = None) -> MemoryRow | None:
        """The row a (stable) id names now: the active row carrying it, else the row itself (following what
        replaced it); None when there is none or (``active``) it is no longer active. Only a row of the same user
        as the row the id names (else of ``user_id``) counts as carrying it: an id is never taken over across
        users."""
        if not isinstance(memory_id, str) or not memory_id.strip():
            return None
        row = keyed.by_id(self.service.storage, memory_id)
        owner = row.user_key if row is not None else self._key_of(user_id)
        found = keyed.by_stable_id(self.service.storage, memory_id, owner)
        if found is not None:
            return found
        for _ in range(64):
            if row is None or row.status != MemoryStatus.SUPERSEDED or not row.superseded_by:
                break
            after = keyed.by_id(self.service.storage, row.superseded_by)
            row = after if after is not None and after.user_key == row.user_key else None
        if row is None or (active and row.status != MemoryStatus.ACTIVE):
            return None
        return row

    def _key_of(self, user_id: str | None) -> str | None:
        """The user's internal key (None: no user named, or no such user)."""
        if user_id is None:
            return None
        try:
            return self.service.get_user(user_id).key
        except NotFound:
            return None

    def _owner(self, m: MemoryRow, user_id: str | None) -> str:
        """The memory's user id; NotFound (never "forbidden": no hint it exists) when it is not ``user_id``'s."""
        owner = self.service.user_id_of(m.user_key) or ""
        if user_id is not None and owner != user_id:
            raise MemoryNotFound(f"no memory {str(m.id)[:80]!r}")
        return owner

    def _owned(self, memory_id: str, user_id: str | None, *, active: bool = True) -> MemoryRow:
        m = self._head(memory_id, active=active, user_id=user_id)
        if m is None:
            raise MemoryNotFound(f"Memory with id {str(memory_id)[:80]!r} not found")
        self._owner(m, user_id)
        return m

    def _row(self, m: MemoryRow, user_id: str) -> dict[str, Any]:
        meta = dict(m.meta or {})
        return {
            "id": self._stable(m),
            "memory": m.content,
            "hash": content_hash(m.content),
            "metadata": meta.get("metadata") or {},
            "type": m.type,
            "status": m.status,
            "source_type": m.source_type,
            "confidence": m.confidence,
            "created_at": m.created_at.isoformat() if m.created_at else None,
            "updated_at": m.updated_at.isoformat() if m.updated_at else None,
            "user_id": user_id,
            "agent_id": m.agent_id,
            "run_id": meta.get("run_id"),
            "via": meta.get("via"),
            "key": meta.get("store_key"),
        }


def settings_from_config(config: dict[str, Any] | None) -> tuple[Settings, dict[str, str]]:
    """MemLens settings from a mem0 (or MemLens) configuration, and the mem0 keys left unused with the reason."""
    if config is not None and not isinstance(config, dict):
        raise InvalidInput("config must be a dict")
    given = dict(config or {})
    ours: dict[str, Any] = {}
    ignored: dict[str, str] = {}
    for key, value in given.items():
        if key == "history_db_path" and value:
            ours["database_url"] = f"sqlite:///{value}"
        elif key == "vector_store" and isinstance(value, dict) and (value.get("config") or {}).get("path"):
            ours["lancedb_uri"] = str(value["config"]["path"])
            ignored[key] = MEM0_CONFIG[key]
        elif key in MEM0_CONFIG and not (key in Settings.model_fields and isinstance(value, str)):
            ignored[key] = MEM0_CONFIG[key]
        elif key in Settings.model_fields:
            ours[key] = value
        else:
            ignored[key] = "ignored: neither a mem0 key MemLens knows nor a MemLens setting"
    if ignored:
        warnings.warn(
            "Memory.from_config ignored: " + "; ".join(f"{k} ({why})" for k, why in ignored.items()), stacklevel=3
        )
    return Settings(**ours), ignored


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

    @classmethod
    def from_config(cls, config: dict[str, Any] | None = None, **kwargs: Any) -> AsyncMemory:
        """mem0's ``AsyncMemory.from_config``: as :meth:`Memory.from_config`."""
        settings, ignored = settings_from_config(config)
        mem = cls(settings=settings, **kwargs)
        mem.sync.ignored_config = ignored
        return mem

    @property
    def ignored_config(self) -> dict[str, str]:
        return self.sync.ignored_config

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
