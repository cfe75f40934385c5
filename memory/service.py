"""MemoryService: the one facade that agent/, pages/, the CLI and the doors (memory.client, memory.langgraph,
agent/serve) call.

It holds a :class:`memory.storage.store.Storage` (settings, engine, index, embedder, live settings) and delegates:
rows (users, sessions, messages, memory rows, the SQL-then-index write order) to :mod:`memory.storage.records`, and
each domain operation to its own small module (write, profile, recall, summary, lifecycle, compact, export, stats),
which receives the storage object — never this facade. Three concepts have a side of their own, reached as
attributes: ``people`` (accounts, API keys, the audit trail), ``desk`` (the audit desk) and ``lifecycle``
(forgetting, compaction, export, import, erasure).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any, Unpack

from memory import audit, keyed, provenance, validate, views  # noqa: F401  (provenance registers its write listeners)
from memory.access import check
from memory.config import Settings
from memory.desk_facade import Desk
from memory.errors import NotFound
from memory.lifecycle import curation, export
from memory.lifecycle_facade import Lifecycle
from memory.people import People
from memory.retrieval import log as retrieval_log
from memory.retrieval import policy as recall_policy
from memory.retrieval import setup
from memory.retrieval.filters import DOOR_POOL, RecallFilters
from memory.retrieval.policy import PolicyChanges, RecallPolicy
from memory.retrieval.recall import Hit, RecallResult, Signals, add_context, gather, timed_search
from memory.retrieval.relevance import Calibration
from memory.sessions import summary, turns
from memory.sessions.extractive import Summariser
from memory.storage import indexing, integrity, records
from memory.storage.models import Memory, Message, ProfileField, Session, SessionBridge, SummaryAnchor, User
from memory.storage.records import MemoryDraft
from memory.storage.store import Storage
from memory.text.privacy import mask_pii
from memory.vocab import STATUS_OP, Actor, AuditAction, MemoryStatus, Role
from memory.warm import freeze_loaded
from memory.write import behind, entry, profile_sync
from memory.write.behind import WriteBehind, unwritten_turns
from memory.write.entry import Said, WriteOptions

if TYPE_CHECKING:  # the embedder loads numpy: never at import
    from langchain_core.language_models import BaseChatModel

    from memory.sessions.prompt import Composition
    from memory.storage.embed import Embedder
    from memory.write.pipeline import WriteReport

log = logging.getLogger(__name__)


class MemoryService:
    """Person actions (profile edits, labels, live settings, forgetting, export, erasure…) take a keyword ``actor``
    and check its role first (``memory.access.check``): a role that does not allow the action gets
    :class:`memory.errors.Forbidden` and a ``denied`` audit row; a done action gets its audit row. The memory
    corrections themselves (memory.lifecycle.curation) are guarded the same way."""

    def __init__(self, settings: Settings | None = None, *, embedder: Embedder | None = None) -> None:
        self.storage = Storage(settings, embedder=embedder)
        #: accounts, sign-in, API keys and the audit trail (the gate, the Audit page, the doors' key check, the CLI)
        self.people = People(self.storage)
        #: the audit desk: why (not), hygiene, the labels gate, A/B and shadow replay, the relations graph
        self.desk = Desk(self)
        #: forgetting, compaction, export, import, erasure, receipts and per-user stats
        self.lifecycle = Lifecycle(self)
        #: each turn's memory write, run after its reply (per user, in order; the next turn and close wait for it)
        self.writes = WriteBehind()
        #: a langchain chat model for structured extraction (set by the agent when one is configured); None = rules
        self.extraction_model: BaseChatModel | None = None

    @property
    def settings(self) -> Settings:
        """The settings the service was built with (``effective_settings()`` adds the live overrides)."""
        return self.storage.settings

    @property
    def embedder_name(self) -> str:
        """The embedder's name (calibrations and reports are per embedder)."""
        return self.storage.embedder.name

    def open_index(self) -> None:
        """Open the LanceDB index now, with its start-up repair check, rather than on the first search."""
        _ = self.storage.index

    def warm(self) -> None:
        """Ready to serve (`memlens serve api|mcp`, before the first request): open the index, load the embedder by
        embedding one query, and freeze what is loaded out of later full garbage collections
        (:func:`memory.warm.freeze_loaded`), so no request pays for loading them or for a collection walking them.

        Best effort: a step that fails (a read-only folder's index, a remote embedder that is down) is logged and
        left to the first request that needs it, which reports it as it would have; the server still starts and
        serves what does not need it (listing, the profile)."""
        for step, run in (("open the index", self.open_index), ("load the embedder", self._load_embedder)):
            try:
                run()
            except Exception as exc:  # noqa: BLE001 - a warm-up failure must not keep the server from starting
                log.warning("warm-up could not %s (%s): the first request that needs it will", step, exc)
        freeze_loaded()

    def _load_embedder(self) -> None:
        self.storage.embedder.embed_query("warm up")

    def close(self) -> None:
        """Finish the background writes and the queued retrieval log, then let go of the engine, the index and the
        thread pool."""
        self.wait_writes(None, 60)
        self.storage.close()

    # -- users, sessions, messages, memory rows (memory.storage.records) --------------------------------------
    def ensure_user(self, user_id: str) -> User:
        return records.ensure_user(self.storage, user_id)

    def name_user(self, user: User, name: str | None) -> User:
        """The name the user goes by in conversations with named speakers: only that speaker's turns are read for
        facts about the user (``memory.write.entry.own_words``)."""
        return records.name_user(self.storage, user, name)

    def get_user(self, user_id: str) -> User:
        return records.get_user(self.storage, user_id)

    def user_by_key(self, user_key: str) -> User | None:
        """The user behind an internal key (the back office keeps the picked user by key); None when erased."""
        return records.user_by_key(self.storage, user_key)

    def list_users(self) -> list[dict[str, Any]]:
        return records.list_users(self.storage)

    def ensure_session(self, user: User, session_id: str, agent_id: str | None = None) -> Session:
        """The user's session with this external id (created on first use)."""
        return records.ensure_session(self.storage, user, session_id, agent_id)

    def list_sessions(self, user: User, agent_id: str | None = None) -> list[Session]:
        return records.list_sessions(self.storage, user, agent_id)

    def add_message(
        self,
        session: Session,
        role: str,
        content: str,
        *,
        created_at: datetime | None = None,
        idempotency_key: str | None = None,
        meta: dict[str, Any] | None = None,
    ) -> Message:
        """Store one message (masked); a repeated ``idempotency_key`` returns the first stored message."""
        return records.add_message(
            self.storage, session, role, content, created_at=created_at, idempotency_key=idempotency_key, meta=meta
        )

    def messages(self, session_key: str, *, after_id: int = 0, limit: int | None = None) -> list[Message]:
        """A session's messages in order, by its internal key (``Session.id``)."""
        return records.messages(self.storage, session_key, after_id=after_id, limit=limit)

    def add_memories(
        self, user: User, drafts: Sequence[MemoryDraft], *, agent_id: str | None = None, vectors: Any = None
    ) -> list[Memory]:
        return records.add_memories(self.storage, user, drafts, agent_id=agent_id, vectors=vectors)

    def add_memory(self, user: User, content: str, *, agent_id: str | None = None, **fields: Any) -> Memory:
        return records.add_memory(self.storage, user, content, agent_id=agent_id, **fields)

    def get_memory(self, memory_id: str) -> Memory:
        return records.get_memory(self.storage, memory_id)

    def memories_by_id(self, ids: Sequence[str]) -> dict[str, Memory]:
        return keyed.by_ids(self.storage, ids)

    def memory_by_store_key(self, user: User, key: str, namespace: str) -> Memory | None:
        """The LangGraph store's read: the active memory put under ``key`` in ``namespace`` (its JSON form)."""
        return keyed.by_key(self.storage, user.key, key, namespace)

    def store_rows(self, user_keys: Sequence[str] | None = None) -> list[tuple[Memory, str]]:
        """(row, user id) of these users' active memories (every user when None), most recently changed first."""
        return keyed.active_rows(self.storage, user_keys)

    def user_writes(self, user_id: str) -> AbstractContextManager[None]:
        """Hold this user's write lock (threads, processes, PostgreSQL clients): see ``memory.storage.userlock``."""
        from memory.storage.userlock import user_writes

        return user_writes(self.storage, user_id)

    def user_id_of(self, user_key: str | None) -> str | None:
        """The external id behind an internal user key (None when unknown or erased)."""
        return audit.user_id_of(self.storage, user_key)

    def memory_events(self, memory_id: str) -> list[dict[str, Any]]:
        """One memory's write-log events, oldest first, each with the door it came through."""
        return views.memory_events(self.storage, memory_id)

    def list_memories(
        self,
        user: User,
        *,
        statuses: Sequence[MemoryStatus] = (MemoryStatus.ACTIVE,),
        agent_id: str | None = None,
        limit: int | None = None,
        offset: int = 0,
        types: Sequence[str] | None = None,
    ) -> list[Memory]:
        """A user's memories, newest first (``types``: only these, e.g. ``SEMANTIC_TYPES`` or episodes)."""
        return records.list_memories(
            self.storage, user, statuses=statuses, agent_id=agent_id, limit=limit, offset=offset, types=types
        )

    def require(self, actor: Actor, role: Role, action: str) -> Actor:
        """The role check every guarded call makes, for a door that guards a call of its own (the agent's chat
        turn): the actor's role is re-read now, and a refusal raises ``Forbidden`` and is audited."""
        return check(self.storage, actor, role, action)

    def record_refusal(
        self, who: Actor, reason: str, *, user_id: str | None = None, detail: dict[str, Any] | None = None
    ) -> None:
        """Audit a request a door refused before any service call (no or a bad key, a tool call the SDK refused):
        a ``denied`` row naming the door and the reason, never the key."""
        audit.record(self.storage, who, AuditAction.DENIED, user_id=user_id, reason=reason, detail=detail)

    def set_status(
        self,
        memory_id: str,
        to: MemoryStatus,
        *,
        reason: str,
        superseded_by: str | None = None,
        actor: Actor | None = None,
    ) -> Memory:
        """Change a memory's lifecycle state through the one status change (``memory.write.status``: version, index,
        profile, write log). With an ``actor`` (a door acting for someone) the role is checked (curator) and the
        change audited; without one it is the engine's own maintenance."""
        from memory.write import status

        op = STATUS_OP[MemoryStatus(to)]
        action = None
        if actor is not None:
            actor = check(self.storage, actor, Role.CURATOR, "change a memory's status")
            action = status.AUDIT[op]
        change = status.Change(memory_id, op, reason, superseded_by)
        if actor is not None:  # a person's correction: across both layers and the bridges
            from memory.lifecycle import corrections

            return corrections.one(self.storage, change, actor=actor, audit=action)
        return status.one(self.storage, change, actor=status.MAINTENANCE, audit=action)

    def index_memories(self, rows: Sequence[Memory], *, vectors: Any = None) -> None:
        indexing.index_memories(self.storage, rows, vectors=vectors)

    def reindex(self, batch: int = 256, progress: Callable[[int], Any] | None = None) -> int:
        """Drop the LanceDB table and rebuild it from the active SQL rows."""
        return indexing.reindex(self.storage, batch, progress)

    def repair(self) -> dict[str, int]:
        """Make SQL and LanceDB agree after a crash: finish interrupted erasures (each gets the receipt its run
        never wrote, saying whether the user was written again meanwhile and still exists), index what is
        unindexed, drop vectors without an active row."""

        from memory.desk import receipt

        finished = export.finish_erasures(self.storage)
        report = integrity.repair(self.storage)
        if not finished:
            return report
        for job, again in finished:  # the receipt the interrupted erasure never wrote, saying what happened
            paper = receipt.finished_by_repair(self.storage, job, again)
            detail = {"rows": 0, "receipt": paper}
            audit.record(self.storage, receipt.REPAIR, AuditAction.DELETE_USER, user_hash=job.user_hash, detail=detail)
        recreated = sum(again is not None for _job, again in finished)
        return {**report, "erasures_finished": len(finished), "erasures_recreated": recreated}

    def claim_for_write(self, message_id: int) -> bool:
        """True when the caller may run the write pipeline on this message (nobody did or is doing it already)."""
        return integrity.claim_for_write(self.storage, message_id)

    # -- live settings (memory.storage.store) and the recall set-up (memory.retrieval.setup) ------------------
    def effective_settings(self) -> Settings:
        return self.storage.effective_settings()

    def relevance_model(self, settings: Settings | None = None) -> Calibration:
        return setup.relevance_model(self.storage, settings)

    def recall_policy(self, **changes: Unpack[PolicyChanges]) -> RecallPolicy:
        """The recall policy in force (live settings, the calibration for this embedder and mode) with ``changes``
        on top; a name that is not a recall setting is refused (``memory.retrieval.policy``)."""
        s = self.effective_settings()
        return recall_policy.resolve(s, self.relevance_model(s), changes)

    def _policy(self, policy: RecallPolicy | None, changes: PolicyChanges) -> RecallPolicy:
        """``policy`` (None: the one in force) with ``changes`` on top (None values: not given)."""
        if policy is None:
            return self.recall_policy(**changes)
        given = {k: v for k, v in changes.items() if v is not None}
        return policy.replace(**given) if given else policy

    # -- write pipeline and profile (memory.write, memory.profile) ------------------------------------------
    def _user(self, user: User | str) -> User:
        return user if isinstance(user, User) else self.get_user(user)

    def write_from_message(
        self,
        user: User | str,
        session: Session,
        message: Message | int,
        *,
        agent_id: str | None = None,
        turn_id: int | None = None,
        model: BaseChatModel | None = None,
        keep_unparsed: bool = False,
    ) -> WriteReport:
        """Run the write path on one stored message (``memory.write.entry``); returns what it did to memory.

        ``keep_unparsed`` stores a user message no extractor understood as a free-text fact (explicit requests)."""
        return self.write(
            user, session, [message], agent_id=agent_id, turn_id=turn_id, model=model, keep_unparsed=keep_unparsed
        )[0]

    def write(
        self,
        user: User | str,
        session: Session,
        said: Sequence[Message | int | Said],
        *,
        agent_id: str | None = None,
        turn_id: int | None = None,
        model: Any = None,
        keep_unparsed: bool = False,
        infer: bool | Sequence[bool] = True,
        owner: str | None = None,
    ) -> list[WriteReport]:
        """THE write entry (``memory.write.entry.write``): new messages (``Said``) stored, then the write path on
        every message in order, under the user's write lock; facts read from the user's own words only."""
        return entry.write(
            self.storage,
            self._user(user),
            session,
            said,
            agent_id=agent_id,
            turn_id=turn_id,
            model=model if model is not None else self.extraction_model,
            keep_unparsed=keep_unparsed,
            infer=infer,
            owner=owner,
        )

    def write_from_messages(
        self,
        user: User | str,
        session: Session,
        messages: Sequence[Message | int | Said],
        **options: Unpack[WriteOptions],
    ) -> list[WriteReport]:
        """:meth:`write` for long-conversation ingest (one embedding call, one transaction, one index append) with
        every core embedding (``MEMLENS_EMBED_THREADS``); the options are :meth:`write`'s, passed on as they are."""
        from memory.storage.embed import embed_threads

        with embed_threads(self.settings.embed_threads):
            return self.write(user, session, messages, **options)

    def remember(self, user_id: str, text: str, *, session_id: str = "cli", agent_id: str | None = None):
        """Store ``text`` as a user message in that session and run the write path on it (an explicit request:
        text no rule understands is still kept, as a free-text fact)."""
        user = self.ensure_user(user_id)
        session = self.ensure_session(user, session_id, agent_id)
        return self.write(user, session, [Said("user", text)], agent_id=agent_id, keep_unparsed=True)[0]

    def remember_verbatim(
        self,
        user_id: str,
        text: str,
        *,
        session_id: str = "api",
        agent_id: str | None = None,
        role: str = "user",
        meta: dict[str, Any] | None = None,
    ) -> Memory:
        """Store ``text`` as one memory as it is, no extraction (mem0's ``infer=False``, the LangGraph store's put):
        the message is kept as its source and the ADD is logged like any write (``memory.write.entry``)."""
        user = self.ensure_user(user_id)
        session = self.ensure_session(user, session_id, agent_id)
        return entry.write_verbatim(self.storage, user, session, Said(role, text), agent_id=agent_id, meta=meta)

    def get_profile(self, user: User | str) -> dict[str, Any]:
        from memory import profile

        return profile.get_profile(self.storage, self._user(user))

    def profile_fields(self, user: User | str) -> dict[str, ProfileField]:
        """field → its stored row (value, confidence, version, source, updated_at)."""
        from memory import profile

        return profile.fields(self.storage, self._user(user))

    def update_profile(
        self,
        user: User | str,
        field: str,
        value: Any,
        *,
        actor: Actor,
        reason: str = "",
        expected_version: int | None = None,
    ):
        """A person's edit of one profile field: the memories stating the old value are superseded by one stating
        the new value, the field is linked to it, the change logged with the actor; ``Conflict`` on a stale
        expected_version (see memory.lifecycle.profile_edit)."""
        from memory.lifecycle import profile_edit

        actor = check(self.storage, actor, Role.CURATOR, "edit a profile")
        user = self._user(user)
        result = profile_edit.edit_field(
            self.storage, user, field, value, actor=actor, reason=reason, expected_version=expected_version
        )
        audit.record(
            self.storage, actor, AuditAction.PROFILE_EDIT, user_id=user.external_id, target_ids=[field], reason=reason
        )
        return result

    def label_hit(self, retrieval_id: int, memory_id: str, relevant: bool | None, *, actor: Actor) -> None:
        """A person's verdict on one retrieval hit (None clears it; curator); feeds the lab's precision/recall."""
        from memory import views

        actor = check(self.storage, actor, Role.CURATOR, "label a retrieval hit")
        owner = self.get_memory(memory_id).user_key
        views.set_label(self.storage, owner, retrieval_id, memory_id, relevant, labeled_by=actor.name)
        verdict = {True: "relevant", False: "not relevant", None: "cleared"}[relevant]
        ids = [retrieval_id, memory_id]
        user_id = audit.user_id_of(self.storage, owner)
        audit.record(self.storage, actor, AuditAction.LABEL, user_id=user_id, target_ids=ids, reason=verdict)

    # -- a person's corrections (memory.lifecycle.curation: each checks the role and is audited) ------------------
    def show_memory(self, memory_id: str) -> dict[str, Any]:
        """Content, status, provenance and the full event history of one memory."""
        return curation.show_memory(self.storage, memory_id)

    def memory_links(self, memory_id: str) -> list[str]:
        """Both layers in words for one memory: the episodes it was read from, what was read from an episode, a
        correction recorded on it (``memory.write.cascade``); empty for a memory purged meanwhile."""
        try:
            m = records.get_memory(self.storage, memory_id)
        except NotFound:
            return []
        return list(curation.links(self.storage, m)["links_text"])

    def edit_memory(self, memory_id: str, content: str, *, actor: Actor, reason: str = "edited by a person") -> Memory:
        return curation.edit_memory(self.storage, memory_id, content, actor=actor, reason=reason)

    def supersede_memory(
        self, memory_id: str, content: str, *, actor: Actor, reason: str = "superseded by a person"
    ) -> Memory:
        """Store ``content`` as a new (person-edit) memory that replaces this one; returns the new row."""
        return curation.supersede_memory(self.storage, memory_id, content, actor=actor, reason=reason)

    def flag_memory(self, memory_id: str, *, actor: Actor, reason: str = "flagged as wrong by a person") -> Memory:
        return curation.flag_memory(self.storage, memory_id, actor=actor, reason=reason)

    def unflag_memory(self, memory_id: str, *, actor: Actor, reason: str = "unflagged by a person") -> Memory:
        return curation.unflag_memory(self.storage, memory_id, actor=actor, reason=reason)

    def delete_memory(self, memory_id: str, *, actor: Actor, reason: str = "deleted by a person") -> Memory:
        """A person's delete (curator; restorable until purged)."""
        return curation.delete_memory(self.storage, memory_id, actor=actor, reason=reason)

    def restore_memory(self, memory_id: str, *, actor: Actor, reason: str = "restored by a person") -> Memory:
        return curation.restore_memory(self.storage, memory_id, actor=actor, reason=reason)

    def set_live_settings(self, values: dict[str, Any], *, actor: Actor) -> Settings:
        """Change live settings (admin): every process's agent uses them from its next turn."""
        actor = check(self.storage, actor, Role.ADMIN, "change live settings")
        setup.check_live_values(values)
        result = self.storage.set_live_settings(values)
        changed = {k: getattr(result, k) for k in values}
        audit.record(self.storage, actor, AuditAction.SETTINGS, target_ids=sorted(values), detail=changed)
        return result

    def profile_history(self, user: User | str) -> list:
        from memory import profile

        return profile.history(self.storage, self._user(user))

    def refit_relevance(self, user_key: str | None = None, *, actor: Actor) -> dict[str, Any]:
        """Fit a relevance calibration from the lab's labels, each labelled query searched again without logging
        (``memory.retrieval.refit``); nothing is applied. Work in bulk: a curator's, audited."""
        from memory.retrieval import refit  # numpy: the lab's button, not the service's start-up

        actor = check(self.storage, actor, Role.CURATOR, "fit a relevance calibration")

        def replay(entry: dict[str, Any]) -> RecallResult:
            q = entry["retrieval_query"]
            wide = self.recall_policy(mode=entry["mode"], threshold=-1.0)
            return self.recall(entry["user_id"], q, agent_id=entry["agent_id"], policy=wide, log=False)

        fit = refit.fit_from_labels(views.labelled_queries(self.storage, user_key), replay, self.embedder_name)
        user_id = audit.user_id_of(self.storage, user_key)
        detail = {"fitted": bool(fit["calibration"])}
        audit.record(self.storage, actor, AuditAction.REFIT, user_id=user_id, detail=detail)
        return fit

    # -- recall ----------------------------------------------------------------------------------------------
    def recall(
        self,
        user_id: str,
        query: str,
        *,
        agent_id: str | None = None,
        session_key: str | None = None,
        turn_id: int | None = None,
        retrieval_query: str | None = None,
        log: bool = True,
        filters: RecallFilters | None = None,
        any_agent: bool = False,
        policy: RecallPolicy | None = None,
        **changes: Unpack[PolicyChanges],
    ) -> RecallResult:
        """Search a user's active memories; every candidate comes back with its scores and verdict.

        ``filters`` (:meth:`RecallFilters.build`: memory types, source types, since/until on event time, ``as_of``
        for the query's date words) narrow and re-rank the candidates. ``session_key`` (the internal ``Session.id``)
        and ``turn_id`` tie the logged retrieval to a conversation turn. ``any_agent`` searches every agent of the
        user (mem0's ``search(user_id=)``, the LangGraph store's namespaces) instead of one. ``policy`` (from
        :meth:`recall_policy`) sets the knobs, None = the live settings'; ``changes`` (typed; a name that is not a
        recall setting is refused) change some on top of it."""
        query = mask_pii(validate.text(query, self.settings.max_message_chars, "query"))  # before embedding/logging
        key = records.user_key(self.storage, user_id)
        log = log and not self.storage.read_only  # a read-only data folder: searched, not logged
        agent: str | None = validate.agent_id(agent_id, self.settings.default_agent_id)
        if any_agent and not agent_id:
            agent = None
        params = self._policy(policy, changes)
        calibration = params.calibration
        rq = mask_pii(retrieval_query) if retrieval_query else query
        with retrieval_log.in_flight.recall():  # the log's writer waits for it (memory/retrieval/log.py)
            hits, ms = timed_search(
                self.storage,
                user_key=key,
                agent_id=agent,
                query=rq,
                params=params,
                calibration=calibration,
                filters=filters,
                retracted=profile_sync.retracted_reader(self.storage, key),
            )
        result = RecallResult(
            query=query,
            retrieval_query=rq,
            params=params,
            hits=hits,
            latency_ms=ms,
            calibration=calibration.version,
            notice=calibration.notice,
            filters=filters.to_dict() if filters else None,
        )
        if log:  # the log and access tracking are written after we return (memory/retrieval/log.py)
            retrieval_log.writer(self.storage).submit(
                result, user_key=key, agent_id=agent, session_key=session_key, turn_id=turn_id
            )
        return result

    def door_search(
        self,
        user_id: str,
        query: str,
        policy: RecallPolicy,
        *,
        agent_id: str | None = None,
        where: Callable[[Any], bool] | None = None,
        where_label: Any = None,
        narrow: bool = True,
    ) -> RecallResult | None:
        """The one search behind every door (mem0's Python and REST search, MCP, the LangGraph store): recall over
        every agent of the user (or the named one), with the door's own filters (``where``, a test on each
        candidate's stored row) applied *before* the cut. A door returns exactly ``result.selected``: recall's
        verdicts — flagged, states a retracted memory, same message as a better hit, below the cut, beyond the
        limit — and no filtering of its own after it; near-duplicates are not passed over (that is what the agent
        injects, not what a search promises). ``policy.k`` is the door's limit, so source context is read for
        the hits returned and no others. ``narrow``: ``where`` may discard many candidates (a metadata filter, a
        run), so the candidate pool is widened to :data:`DOOR_POOL` (× the filtered-pool factor). None when the user
        does not exist (the query is refused first either way, so an empty query is the same error for every
        user)."""
        validate.text(query, self.settings.max_message_chars, "query")
        try:
            self.get_user(user_id)
        except NotFound:
            return None
        filters = None if where is None else RecallFilters(rows=where, rows_label=where_label)
        policy = policy.replace(near_duplicate_cosine=0.0)  # a door returns every match, near-identical ones too
        if where is not None and narrow:  # a narrow door filter still finds its matches: a wider candidate pool
            policy = policy.replace(pool=max(policy.pool, DOOR_POOL))
        return self.recall(user_id, query, agent_id=agent_id, any_agent=True, policy=policy, filters=filters)

    def fill_context(self, user: User, hits: list[Hit], span: int | None = None) -> None:
        """Source context for the selected ``hits`` of this user (after a re-cut, e.g. the retrieval lab's slider);
        ``span`` defaults to the live setting."""
        span = self.effective_settings().context_span if span is None else span
        add_context(self.storage.engine, user.key, hits, span)

    def recall_signals(
        self, user_id: str, query: str, policy: RecallPolicy | None = None
    ) -> tuple[Signals, RecallPolicy]:
        """What a search finds before it is ranked, with the policy ``recall`` would rank it with (the evaluation
        replays :func:`memory.retrieval.recall.rank_signals` under other weights; not logged)."""
        query = mask_pii(validate.text(query, self.settings.max_message_chars, "query"))
        user = self.get_user(user_id)
        agent = validate.agent_id(None, self.settings.default_agent_id)
        params = policy or self.recall_policy()
        sig = gather(self.storage, user_key=user.key, agent_id=agent, query=query, params=params)
        return sig, params

    # -- sessions: summaries and bridges (memory/sessions/summary.py) ------------------------------------------------
    def end_session(
        self,
        user_id: str,
        session_id: str,
        agent_id: str | None = None,
        *,
        settings: Settings | None = None,
        summariser: Summariser | None = None,
    ) -> SessionBridge | None:
        """End a session named by its external ids (:meth:`end_session_row`); NotFound when there is none."""
        user = self.get_user(user_id)
        agent = validate.agent_id(agent_id, self.settings.default_agent_id)
        session = self.find_session(user, validate.external_id(session_id, "session id"), agent)
        if session is None:
            raise NotFound(f"no session {session_id[:80]!r} for this user")
        return self.end_session_row(session, settings, summariser)

    def end_session_row(
        self,
        session: Session,
        settings: Settings | None = None,
        summariser: Summariser | None = None,
        *,
        timeout: float | None = 60,
    ) -> SessionBridge | None:
        """The one session end — the agent's end node, a new or idle session closing the others, the CLI, the demo,
        the back office and the evaluation's ingest all come here: wait for the user's background writes (the last
        turn's memories and profile), mark the session ended, write its bridge once (an ended session returns its
        existing one; an empty one has none). The extractive summariser unless the agent passes its LLM one."""
        if not self.writes.wait(session.user_key, timeout):
            log.warning("a session ends before its user's background writes finished")  # no key: logs outlive erasures
        return summary.end_session_row(self.storage, session, settings or self.effective_settings(), summariser)

    # -- the agent's turn (agent/graph.py), in the order a turn calls them (memory/sessions/) -------------------
    def close_other_sessions(
        self, session: Session, settings: Settings, *, first_turn: bool, summariser: Summariser | None = None
    ) -> list[SessionBridge]:
        """A new session ends the user's other active ones (writing their bridges); otherwise the idle ones end —
        each through :meth:`end_session_row`."""
        ending = summary.sessions_to_end(self.storage, session, settings, first_turn=first_turn)
        return [b for s in ending if (b := self.end_session_row(s, settings, summariser)) is not None]

    def reopen_session(self, session: Session) -> None:
        summary.reopen(self.storage, session)

    def take_bridge(self, session: Session) -> SessionBridge | None:
        """The user's newest unclaimed bridge, now linked to ``session`` (its first turn)."""
        return summary.take_bridge(self.storage, session)

    def open_turn(self, session: Session, user_message: Message, *, model: str) -> int:
        return turns.open_turn(self.storage, session, user_message, model=model)

    def close_turn(self, turn_id: int, reply: Message) -> None:
        turns.close_turn(self.storage, turn_id, reply)

    def summary_anchors(self, session_key: str) -> list[SummaryAnchor]:
        return summary.anchors(self.storage, session_key)

    def retracted_statements(self, user: User) -> set[tuple[str, str]]:
        """(predicate, object) the user stated that no longer hold: older bridges and summaries saying them are cut."""
        return profile_sync.retracted_statements(self.storage, user.key)

    def log_composition(self, comp: Composition, result: RecallResult, *, session: Session, turn_id: int) -> int:
        """Save the turn's context snapshot; mark which hits reached the prompt after the retrieval's own log entry,
        on the log's writer (the turn waits for neither)."""
        from memory.sessions import prompt  # LangChain's message types: not loaded until a turn composes a prompt

        retrieval_log.writer(self.storage).then(
            lambda: prompt.mark_injected(
                self.storage, result.retrieval_id, comp.injected, comp.dropped, comp.contradicted
            )
        )
        return prompt.save_snapshot(
            self.storage, comp, user_key=session.user_key, session_key=session.id, turn_id=turn_id
        )

    def maybe_summarise(
        self, session_key: str, settings: Settings, summariser: Summariser | None = None
    ) -> SummaryAnchor | None:
        return summary.maybe_summarise(self.storage, session_key, settings, summariser)

    def find_session(self, user: User, session_id: str, agent_id: str) -> Session | None:
        return summary.find_session(self.storage, user.key, session_id, agent_id)

    def erased(self, user_key: str, session_key: str | None = None) -> bool:
        """Was this user (or session) erased meanwhile? A turn then finishes without writing anything back."""
        return export.erased(self.storage, user_key, session_key)

    def sweep_erased(self, user_key: str, session_key: str) -> bool:
        """After a turn whose user or session was erased meanwhile: remove what it still wrote (True when it swept)."""
        return export.sweep_erased(self.storage, user_key, session_key)

    # -- a turn's write after its reply (memory/write/behind.py) -----------------------------------------------------
    def write_after_reply(
        self,
        user: User,
        session: Session,
        message: Message,
        *,
        turn_id: int,
        reply: Message | int | None = None,
        model: Any = None,
    ) -> Future[Any]:
        """The turn's write in a background job: the reply does not wait for it, the user's next turn does
        (:meth:`wait_writes`). The user's message and the agent's ``reply`` are ingested together (facts from the
        message, an episode of each). The future holds the message's ``WriteReport`` (None when erased meanwhile)."""
        job = lambda: self._write_turn(user, session, message, turn_id, model, reply)  # noqa: E731
        return self.writes.submit(user.key, job)

    def _write_turn(
        self, user: User, session: Session, message: Message, turn_id: int, model: Any, reply: Message | int | None
    ) -> Any:
        """Earlier turns a crashed process left unwritten first (in order), then this one; nothing once erased.
        A write that fails is set aside with its error (memory/write/behind.py) and the next one still runs."""
        if self.erased(session.user_key, session.id):
            return None
        try:
            for message_ids, earlier_turn, key in unwritten_turns(self.storage, user.key, before=message.id):
                with self.storage.db() as db:
                    earlier = db.get(Session, key)
                if earlier is not None:
                    self._write_or_set_aside(user, earlier, message_ids, earlier_turn, model, reraise=False)
            said = [message] if reply is None else [message, reply]
            return self._write_or_set_aside(user, session, said, turn_id, model, reraise=True)
        finally:
            self.sweep_erased(session.user_key, session.id)  # erased while writing: leave nothing behind

    def write_turn(
        self, user: User, session: Session, said: Sequence[Message | int], turn_id: int | None = None, model: Any = None
    ) -> list[WriteReport]:
        """One chat turn's write (what the background job runs): the user's message, then the agent's reply, through
        the one write entry in one batch on one core (a turn is small). The entry's rule reads facts from the
        user's message only: the agent's reply is kept as said (``memory.write.entry.own_words``)."""
        return self.write(user, session, said, turn_id=turn_id, model=model)

    def _write_or_set_aside(
        self,
        user: User,
        session: Session,
        said: Sequence[Message | int],
        turn_id: int | None,
        model: Any,
        *,
        reraise: bool,
    ) -> Any:
        """A turn's write; when it fails, the user's message is set aside with its error and the next one still
        runs (one bad message never stops the next). Returns the message's ``WriteReport``."""
        try:
            return self.write_turn(user, session, said, turn_id, model)[0]
        except Exception as exc:  # noqa: BLE001 - one bad message never stops the next: set aside, seen, retryable
            first = said[0]
            message_id = first.id if isinstance(first, Message) else first
            if message_id is not None:
                behind.set_aside(self.storage, user.key, message_id, exc, turn_id=turn_id)
            if reraise:
                raise
            return None

    def set_aside_writes(self, user_id: str) -> list[dict[str, Any]]:
        """The user's messages whose write failed and was set aside (message, error), newest first."""
        return behind.set_aside_messages(self.storage, self.get_user(user_id).key)

    def retry_write(self, user_id: str, message_id: int, *, actor: Actor) -> Any:
        """A person retries a set-aside message's write, with the agent's reply to it (curator; audited). A new
        failure sets it aside again, with the new error, and is raised."""
        actor = check(self.storage, actor, Role.CURATOR, "retry a set-aside write")
        user = self.get_user(user_id)
        message, session, turn_id = behind.release(self.storage, user.key, message_id)
        audit.record(self.storage, actor, AuditAction.RETRY_WRITE, user_id=user_id, target_ids=[message_id])
        said: list[Message | int] = [message, *behind.reply_to(self.storage, turn_id)]
        return self._write_or_set_aside(user, session, said, turn_id, None, reraise=True)

    def wait_writes(self, user: User | str | None = None, timeout: float | None = 60) -> bool:
        """Wait for the background writes of one user (everyone's when None); False on timeout."""
        key = user.key if isinstance(user, User) else None if user is None else self.get_user(user).key
        return self.writes.wait(key, timeout)

    def flush_retrieval_log(self, timeout: float | None = 30.0) -> bool:
        return retrieval_log.flush(self.storage, timeout)

    def shift_session(self, user: User, session_id: str, days: float) -> bool:
        """Move a session and all it produced ``days`` back in time (demo histories)."""
        return turns.shift_session(self.storage, user.key, session_id, days)

    def _user_key(self, user_id: str | None) -> str | None:
        return None if user_id is None else self.get_user(user_id).key

    def _key_or_none(self, user_id: str) -> str | None:
        """The user's key, or None when there is no such user (a check that must not say which it was)."""
        from memory.errors import NotFound

        try:
            return self.get_user(user_id).key
        except NotFound:
            return None
