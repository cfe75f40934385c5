"""MemoryService: the one facade that agent/, pages/ and the CLI call.

Layers: :class:`memory.storage.store.Store` (components, live settings) →
:class:`memory.storage.records.Records` (users, sessions,
messages, memory rows, the SQL-then-index write order) → this class, which adds the domain operations. Each of those
lives in its own small module (write, profile, recall, summary, lifecycle, compact, export, stats) that takes the
service as its *store*; the methods here only delegate.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memory import audit, profile_sync, provenance, validate  # noqa: F401  (provenance registers its write listeners)
from memory.access import check
from memory.config import Settings
from memory.errors import InvalidInput, NotFound
from memory.lifecycle import export
from memory.lifecycle import retention as lifecycle
from memory.retrieval import log as retrieval_log
from memory.retrieval.filters import RecallFilters
from memory.retrieval.recall import RecallResult, timed_search
from memory.sessions import summary, turns
from memory.sessions.extractive import Summariser
from memory.storage.models import Memory, MemoryEvent, Message, Session, SessionBridge, SummaryAnchor, User, id_hash
from memory.storage.records import MemoryDraft, Records  # noqa: F401  (MemoryDraft is part of the service's API)
from memory.text.privacy import mask_pii
from memory.vocab import Actor, AuditAction, EventOp, Role

if TYPE_CHECKING:
    from memory.sessions.prompt import Composition


class MemoryService(Records):
    """Person actions (profile edits, labels, live settings, forgetting, export, erasure…) take a keyword ``actor``
    and check its role first (``memory.access.check``): a role that does not allow the action gets
    :class:`memory.errors.Forbidden` and a ``denied`` audit row; a done action gets its audit row. The memory
    corrections themselves (memory.lifecycle.curation) are guarded the same way."""

    # -- write pipeline and profile (memory.write, memory.profile) ------------------------------------------
    #: a langchain chat model for structured extraction (set by the agent when one is configured); None = rules
    extraction_model: Any = None

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
        model: Any = None,
        keep_unparsed: bool = False,
    ):
        """Run the write pipeline on one stored message; returns a ``memory.write.WriteReport``.

        ``keep_unparsed`` stores a user message no extractor understood as a free-text fact (explicit requests)."""
        from memory.write import run

        user = self._user(user)
        if not isinstance(message, Message):
            with self.db() as db:
                found = db.get(Message, message)
            if found is None:
                raise NotFound(f"no message {message!r}")
            message = found
        if message.user_key != user.key:
            raise InvalidInput("the message belongs to another user")
        agent = validate.agent_id(agent_id or session.agent_id, self.settings.default_agent_id)
        if not self.claim_for_write(message.id):  # a retried or concurrent write of this message: it runs once
            from memory.write import WriteReport

            return WriteReport(message.id, message.role, False, "already written (repeated message)")
        return run(
            self,
            user,
            session,
            message,
            agent_id=agent,
            turn_id=turn_id,
            model=model if model is not None else self.extraction_model,
            keep_unparsed=keep_unparsed,
        )

    def write_from_messages(
        self,
        user: User | str,
        session: Session,
        messages: Sequence[Message | int],
        *,
        agent_id: str | None = None,
        turn_id: int | None = None,
        model: Any = None,
        keep_unparsed: bool = False,
    ) -> list:
        """The write pipeline on many stored messages at once (long-conversation ingest: one embedding call, one
        transaction, one index append), with the same decisions as ``write_from_message`` on each in order."""
        from memory.storage.embed import embed_threads
        from memory.write.batch import write_messages

        with embed_threads(self.settings.embed_threads):  # batch ingest: every core (MEMLENS_EMBED_THREADS)
            return write_messages(
                self,
                user,
                session,
                messages,
                agent_id=agent_id,
                turn_id=turn_id,
                model=model,
                keep_unparsed=keep_unparsed,
            )

    def remember(self, user_id: str, text: str, *, session_id: str = "cli", agent_id: str | None = None):
        """Store ``text`` as a user message in that session and run the write pipeline on it (an explicit request:
        text no rule understands is still kept, as a free-text fact)."""
        user = self.ensure_user(user_id)
        session = self.ensure_session(user, session_id, agent_id)
        message = self.add_message(session, "user", text)
        return self.write_from_message(user, session, message, agent_id=agent_id, keep_unparsed=True)

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
        the message is kept as its source and the ADD is logged like any write."""
        user = self.ensure_user(user_id)
        session = self.ensure_session(user, session_id, agent_id)
        message = self.add_message(session, role, text)
        self.claim_for_write(message.id)  # nobody runs the pipeline on it later: this is its write
        source = "user-stated" if role == "user" else "tool"
        ids = [message.id]
        memory = self.add_memory(
            user, message.content, agent_id=agent_id, source_message_ids=ids, source_type=source, meta=meta or {}
        )
        with self.db() as db:
            db.add(
                MemoryEvent(
                    user_key=user.key,
                    agent_id=memory.agent_id,
                    memory_id=memory.id,
                    op=EventOp.ADD,
                    reason="stored verbatim (no extraction requested)",
                    content=memory.content,
                    message_id=message.id,
                    detail={"source_type": source, "infer": False},
                )
            )
            db.commit()
        return memory

    def get_profile(self, user: User | str) -> dict[str, Any]:
        from memory import profile

        return profile.get_profile(self, self._user(user))

    def profile_fields(self, user: User | str) -> dict[str, Any]:
        """field → ProfileField (value, confidence, version, source, updated_at)."""
        from memory import profile

        return profile.fields(self, self._user(user))

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

        check(self, actor, Role.CURATOR, "edit a profile")
        user = self._user(user)
        result = profile_edit.edit_field(
            self, user, field, value, actor=actor, reason=reason, expected_version=expected_version
        )
        audit.record(self, actor, AuditAction.PROFILE_EDIT, user_id=user.external_id, target_ids=[field], reason=reason)
        return result

    def label_hit(self, retrieval_id: int, memory_id: str, relevant: bool | None, *, actor: Actor) -> None:
        """A person's verdict on one retrieval hit (None clears it; curator); feeds the lab's precision/recall."""
        from memory import views

        check(self, actor, Role.CURATOR, "label a retrieval hit")
        owner = self.get_memory(memory_id).user_key
        views.set_label(self, owner, retrieval_id, memory_id, relevant, labeled_by=actor.name)
        verdict = {True: "relevant", False: "not relevant", None: "cleared"}[relevant]
        ids = [retrieval_id, memory_id]
        user_id = audit.user_id_of(self, owner)
        audit.record(self, actor, AuditAction.LABEL, user_id=user_id, target_ids=ids, reason=verdict)

    def delete_memory(self, memory_id: str, *, actor: Actor, reason: str = "deleted by a person") -> Memory:
        """A person's delete (curator; restorable until purged): ``memory.lifecycle.curation.delete_memory``."""
        from memory.lifecycle import curation

        return curation.delete_memory(self, memory_id, actor=actor, reason=reason)

    def set_live_settings(self, values: dict[str, Any], *, actor: Actor):  # type: ignore[override]
        """Change live settings (admin): every process's agent uses them from its next turn."""
        check(self, actor, Role.ADMIN, "change live settings")
        result = super().set_live_settings(values)
        changed = {k: getattr(result, k) for k in values}
        audit.record(self, actor, AuditAction.SETTINGS, target_ids=sorted(values), detail=changed)
        return result

    def profile_history(self, user: User | str) -> list:
        from memory import profile

        return profile.history(self, self._user(user))

    # -- recall ----------------------------------------------------------------------------------------------
    def recall(
        self,
        user_id: str,
        query: str,
        *,
        agent_id: str | None = None,
        session_id: str | None = None,
        turn_id: int | None = None,
        retrieval_query: str | None = None,
        log: bool = True,
        filters: RecallFilters | None = None,
        **overrides: Any,
    ) -> RecallResult:
        """Search a user's active memories; every candidate comes back with its scores and verdict.

        ``filters`` (:meth:`RecallFilters.build`: memory types, source types, since/until on event time, ``as_of``
        for the query's date words) narrow and re-rank the candidates."""
        query = mask_pii(validate.text(query, self.settings.max_message_chars, "query"))  # before embedding/logging
        user = self.get_user(user_id)
        agent = validate.agent_id(agent_id, self.settings.default_agent_id)
        params, calibration = self.recall_setup(**overrides)
        rq = mask_pii(retrieval_query) if retrieval_query else query
        hits, ms = timed_search(
            self, user_key=user.key, agent_id=agent, query=rq, params=params, calibration=calibration, filters=filters
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
            retrieval_log.writer(self).submit(
                result, user_key=user.key, agent_id=agent, session_id=session_id, turn_id=turn_id
            )
        return result

    # -- sessions: summaries and bridges (memory/sessions/summary.py) ------------------------------------------------
    def end_session(self, user_id: str, session_id: str, agent_id: str | None = None):
        """End a session and write its bridge (extractive; the agent passes its LLM summariser when it has one)."""
        from memory.sessions import summary

        return summary.end_session(self, user_id, session_id, agent_id)

    # -- the agent's turn (agent/graph.py), in the order a turn calls them (memory/sessions/) -------------------
    def close_other_sessions(
        self, session: Session, settings: Settings, *, first_turn: bool, summariser: Summariser | None = None
    ) -> list[SessionBridge]:
        """A new session ends the user's other active ones (writing their bridges); otherwise the idle ones end."""
        return summary.close_other_sessions(self, session, settings, first_turn=first_turn, summariser=summariser)

    def reopen_session(self, session: Session) -> None:
        summary.reopen(self, session)

    def take_bridge(self, session: Session) -> SessionBridge | None:
        """The user's newest unclaimed bridge, now linked to ``session`` (its first turn)."""
        return summary.take_bridge(self, session)

    def open_turn(self, session: Session, user_message: Message, *, model: str) -> int:
        return turns.open_turn(self, session, user_message, model=model)

    def close_turn(self, turn_id: int, reply: Message) -> None:
        turns.close_turn(self, turn_id, reply)

    def summary_anchors(self, session_key: str) -> list[SummaryAnchor]:
        return summary.anchors(self, session_key)

    def retracted_statements(self, user: User) -> set[tuple[str, str]]:
        """(predicate, object) the user stated that no longer hold: older bridges and summaries saying them are cut."""
        return profile_sync.retracted_statements(self, user.key)

    def log_composition(self, comp: Composition, result: RecallResult, *, session: Session, turn_id: int) -> int:
        """Save the turn's context snapshot; mark which hits reached the prompt after the retrieval's own log entry,
        on the log's writer (the turn waits for neither)."""
        from memory.sessions import prompt  # LangChain's message types: not loaded until a turn composes a prompt

        retrieval_log.writer(self).then(
            lambda: prompt.mark_injected(self, result.retrieval_id, comp.injected, comp.dropped, comp.contradicted)
        )
        return prompt.save_snapshot(self, comp, user_key=session.user_key, session_id=session.id, turn_id=turn_id)

    def maybe_summarise(
        self, session_key: str, settings: Settings, summariser: Summariser | None = None
    ) -> SummaryAnchor | None:
        return summary.maybe_summarise(self, session_key, settings, summariser)

    def end_session_row(
        self, session: Session, settings: Settings, summariser: Summariser | None = None
    ) -> SessionBridge | None:
        """End ``session`` and write its bridge (an ended session returns its existing one)."""
        return summary.end_session_row(self, session, settings, summariser)

    def find_session(self, user: User, session_id: str, agent_id: str) -> Session | None:
        return summary.find_session(self, user.key, session_id, agent_id)

    def erased(self, user_key: str, session_key: str | None = None) -> bool:
        """Was this user (or session) erased meanwhile? A turn then finishes without writing anything back."""
        return export.erased(self, user_key, session_key)

    def sweep_erased(self, user_key: str, session_key: str) -> bool:
        """After a turn whose user or session was erased meanwhile: remove what it still wrote (True when it swept)."""
        return export.sweep_erased(self, user_key, session_key)

    def flush_retrieval_log(self, timeout: float | None = 30.0) -> bool:
        return retrieval_log.flush(self, timeout)

    def shift_session(self, user: User, session_id: str, days: int) -> bool:
        """Move a session and all it produced ``days`` back in time (demo histories)."""
        return turns.shift_session(self, user.key, session_id, days)

    # -- lifecycle (memory/lifecycle/: retention, compact, export, stats) ---------------------------------------
    def _user_key(self, user_id: str | None) -> str | None:
        return None if user_id is None else self.get_user(user_id).key

    def _maintain(self, actor: Actor | None, dry_run: bool, action: AuditAction, user_id: str | None, ids) -> None:
        if not dry_run and actor is not None:
            audit.record(self, actor, action, user_id=user_id, target_ids=list(ids)[:500])

    def forget(
        self,
        user_id: str | None = None,
        *,
        dry_run: bool = False,
        now: datetime | None = None,
        actor: Actor | None = None,
    ):
        """Expire, fade, cap and purge (rules in memory/lifecycle/retention.py); ``user_id=None`` = every user.
        Applying it (not a dry run) is a curator's action."""
        if not dry_run:  # a dry run only reads
            check(self, actor, Role.CURATOR, "apply the forgetting policy")
        retrieval_log.flush(self)  # access counts and logged hits of recalls still being written
        report = lifecycle.forget(self, user_key=self._user_key(user_id), dry_run=dry_run, now=now)
        self._maintain(actor, dry_run, AuditAction.FORGET, user_id, (a.memory_id for a in report.actions))
        return report

    def lifecycle_overview(self, user_id: str, *, now: datetime | None = None) -> dict[str, Any]:
        """What is archived (why, purge date) and what will expire (when, why): the lifecycle view's data."""
        retrieval_log.flush(self)
        return lifecycle.overview(self, user_key=self.get_user(user_id).key, now=now)

    def compact(
        self,
        user_id: str | None = None,
        *,
        dry_run: bool = False,
        now: datetime | None = None,
        actor: Actor | None = None,
    ):
        """Merge near-duplicate / same-topic memories, keeping every source's provenance (curator, unless dry)."""
        from memory.lifecycle import compact
        from memory.storage.embed import embed_threads

        if not dry_run:
            check(self, actor, Role.CURATOR, "merge memories")
        retrieval_log.flush(self)  # access counts and logged hits of recalls still being written
        with embed_threads(self.settings.embed_threads):
            report = compact.compact(self, user_key=self._user_key(user_id), dry_run=dry_run, now=now)
        self._maintain(actor, dry_run, AuditAction.COMPACT, user_id, (m.record["id"] for m in report.merges))
        return report

    def export_user(self, user_id: str, *, actor: Actor) -> dict[str, Any]:
        """Everything about a user as JSON (admin: it is all their personal data at once)."""
        from memory.lifecycle import export

        check(self, actor, Role.ADMIN, "export a user")
        retrieval_log.flush(self)
        data = export.export_user(self, user_id)
        audit.record(self, actor, AuditAction.EXPORT, user_id=user_id)
        return data

    def import_user(self, data: dict[str, Any], *, actor: Actor) -> dict[str, int]:
        from memory.lifecycle import export

        check(self, actor, Role.ADMIN, "import a user")
        counts = export.import_user(self, data)
        user = data.get("user") if isinstance(data, dict) else None
        user_id = user.get("external_id") if isinstance(user, dict) else None
        audit.record(self, actor, AuditAction.IMPORT, user_id=user_id, detail={"rows": counts})
        return counts

    def delete_user(self, user_id: str, *, actor: Actor) -> dict[str, int]:
        """Erase a user at once, even mid-conversation (a running turn writes nothing more); admin. Their audit
        rows stay, with the id and any free text cleared in the same transaction."""
        from memory.lifecycle import export

        check(self, actor, Role.ADMIN, "delete a user")
        retrieval_log.flush(self)
        counts = export.delete_user(self, user_id)
        rows = {"rows": sum(counts.values())}
        audit.record(self, actor, AuditAction.DELETE_USER, user_hash=id_hash(user_id), detail=rows)
        return counts

    def delete_session(
        self, user_id: str, session_id: str, *, agent_id: str | None = None, actor: Actor
    ) -> dict[str, int]:
        from memory.lifecycle import export

        check(self, actor, Role.ADMIN, "delete a session")
        retrieval_log.flush(self)
        counts = export.delete_session(self, user_id, session_id, agent_id=agent_id)
        ids = [f"session:{id_hash(session_id)[:16]}"]  # a session id is caller text: only its hash is kept
        audit.record(self, actor, AuditAction.DELETE_SESSION, user_id=user_id, target_ids=ids)
        return counts

    def purge_memory(self, memory_id: str, *, actor: Actor) -> dict[str, int]:
        """Delete one memory for good, history included (admin)."""
        from memory.lifecycle import export

        check(self, actor, Role.ADMIN, "purge a memory")
        retrieval_log.flush(self)
        owner = audit.user_id_of(self, self.get_memory(memory_id).user_key)
        counts = export.purge_memory(self, memory_id)
        audit.record(self, actor, AuditAction.PURGE, user_id=owner, target_ids=[memory_id])
        return counts

    def user_stats(self, user_id: str) -> dict[str, Any]:
        retrieval_log.flush(self)
        from memory.lifecycle import stats

        return stats.user_stats(self, user_id)
