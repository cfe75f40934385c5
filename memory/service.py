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
from typing import Any

from memory import provenance, validate  # noqa: F401  (provenance registers its write listeners)
from memory.errors import InvalidInput, NotFound
from memory.lifecycle import retention as lifecycle
from memory.retrieval import log as retrieval_log
from memory.retrieval.filters import RecallFilters
from memory.retrieval.recall import RecallResult, timed_search
from memory.storage.models import Memory, MemoryEvent, Message, Session, User
from memory.storage.records import MemoryDraft, Records  # noqa: F401  (MemoryDraft is part of the service's API)
from memory.text.privacy import mask_pii
from memory.vocab import Actor, EventOp


class MemoryService(Records):
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

        return profile_edit.edit_field(
            self, self._user(user), field, value, actor=actor, reason=reason, expected_version=expected_version
        )

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

    # -- lifecycle (memory/lifecycle/: retention, compact, export, stats) ---------------------------------------
    def _user_key(self, user_id: str | None) -> str | None:
        return None if user_id is None else self.get_user(user_id).key

    def forget(self, user_id: str | None = None, *, dry_run: bool = False, now: datetime | None = None):
        """Expire, fade, cap and purge (rules in memory/lifecycle/retention.py); ``user_id=None`` = every user."""
        retrieval_log.flush(self)  # access counts and logged hits of recalls still being written
        return lifecycle.forget(self, user_key=self._user_key(user_id), dry_run=dry_run, now=now)

    def lifecycle_overview(self, user_id: str, *, now: datetime | None = None) -> dict[str, Any]:
        """What is archived (why, purge date) and what will expire (when, why): the lifecycle view's data."""
        retrieval_log.flush(self)
        return lifecycle.overview(self, user_key=self.get_user(user_id).key, now=now)

    def compact(self, user_id: str | None = None, *, dry_run: bool = False, now: datetime | None = None):
        """Merge near-duplicate / same-topic memories, keeping every source's provenance."""
        retrieval_log.flush(self)  # access counts and logged hits of recalls still being written
        from memory.lifecycle import compact
        from memory.storage.embed import embed_threads

        with embed_threads(self.settings.embed_threads):
            return compact.compact(self, user_key=self._user_key(user_id), dry_run=dry_run, now=now)

    def export_user(self, user_id: str) -> dict[str, Any]:
        retrieval_log.flush(self)
        from memory.lifecycle import export

        return export.export_user(self, user_id)

    def import_user(self, data: dict[str, Any]) -> dict[str, int]:
        from memory.lifecycle import export

        return export.import_user(self, data)

    def delete_user(self, user_id: str) -> dict[str, int]:
        """Erase a user at once, even mid-conversation (a running turn writes nothing more)."""
        retrieval_log.flush(self)
        from memory.lifecycle import export

        return export.delete_user(self, user_id)

    def delete_session(self, user_id: str, session_id: str, *, agent_id: str | None = None) -> dict[str, int]:
        retrieval_log.flush(self)
        from memory.lifecycle import export

        return export.delete_session(self, user_id, session_id, agent_id=agent_id)

    def purge_memory(self, memory_id: str) -> dict[str, int]:
        retrieval_log.flush(self)
        from memory.lifecycle import export

        return export.purge_memory(self, memory_id)

    def user_stats(self, user_id: str) -> dict[str, Any]:
        retrieval_log.flush(self)
        from memory.lifecycle import stats

        return stats.user_stats(self, user_id)
