"""The lifecycle side of the facade (``MemoryService.lifecycle``): forgetting and compaction (curator), export,
import, erasure of a user, a session or one memory (admin), erasure receipts and per-user stats — what the Lifecycle
page, ``memlens forget|compact|export|import|delete-user…`` and the doors' erasure routes call. Each method checks
the actor's role, is audited, and delegates to :mod:`memory.lifecycle`.

It holds the service it belongs to, typed loosely (``Any``): naming ``MemoryService`` here, even for a type, would
make an import circle with the facade that builds it.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from memory import audit
from memory.access import check
from memory.lifecycle import retention as lifecycle
from memory.retrieval import log as retrieval_log
from memory.storage.models import id_hash
from memory.vocab import Actor, AuditAction, Role


class Lifecycle:
    """Forgetting, compaction, export, import and erasure over one service (``svc.lifecycle``)."""

    def __init__(self, service: Any) -> None:
        self.service = service
        self.storage = service.storage

    def _maintain(
        self, actor: Actor | None, dry_run: bool, action: AuditAction, user_id: str | None, ids: Iterable[str]
    ) -> None:
        if not dry_run and actor is not None:
            audit.record(self.storage, actor, action, user_id=user_id, target_ids=list(ids)[:500])

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
            actor = check(self.storage, actor, Role.CURATOR, "apply the forgetting policy")
        retrieval_log.flush(self.storage)  # access counts and logged hits of recalls still being written
        report = lifecycle.forget(
            self.storage, user_key=self.service._user_key(user_id), dry_run=dry_run, now=now, actor=actor
        )
        self._maintain(actor, dry_run, AuditAction.FORGET, user_id, (a.memory_id for a in report.actions))
        return report

    def lifecycle_overview(self, user_id: str, *, now: datetime | None = None) -> dict[str, Any]:
        """What is archived (why, purge date) and what will expire (when, why): the lifecycle view's data."""
        retrieval_log.flush(self.storage)
        return lifecycle.overview(self.storage, user_key=self.service.get_user(user_id).key, now=now)

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
            actor = check(self.storage, actor, Role.CURATOR, "merge memories")
        retrieval_log.flush(self.storage)  # access counts and logged hits of recalls still being written
        with embed_threads(self.service.settings.embed_threads):
            report = compact.compact(self.storage, user_key=self.service._user_key(user_id), dry_run=dry_run, now=now)
        self._maintain(actor, dry_run, AuditAction.COMPACT, user_id, (m.record["id"] for m in report.merges))
        return report

    def export_user(self, user_id: str, *, actor: Actor) -> dict[str, Any]:
        """Everything about a user as JSON (admin: it is all their personal data at once)."""
        from memory.lifecycle import export

        actor = check(self.storage, actor, Role.ADMIN, "export a user")
        self.service.wait_writes(user_id)  # a turn's write still running in the background belongs in the export
        retrieval_log.flush(self.storage)
        data = export.export_user(self.storage, user_id)
        audit.record(self.storage, actor, AuditAction.EXPORT, user_id=user_id)
        return data

    def import_user(self, data: dict[str, Any], *, actor: Actor) -> dict[str, int]:
        from memory.lifecycle import export

        actor = check(self.storage, actor, Role.ADMIN, "import a user")
        from memory.errors import Conflict, InvalidInput

        try:
            counts = export.import_user(self.storage, data, importer=actor.name)
        except (InvalidInput, Conflict) as exc:  # a refused file is a refusal like any other: audited
            audit.record(self.storage, actor, AuditAction.DENIED, reason=f"import refused: {str(exc)[:500]}")
            raise
        user = data.get("user") if isinstance(data, dict) else None
        user_id = user.get("external_id") if isinstance(user, dict) else None
        audit.record(self.storage, actor, AuditAction.IMPORT, user_id=user_id, detail={"rows": counts})
        return counts

    def delete_user(self, user_id: str, *, actor: Actor) -> dict[str, int]:
        """Erase a user at once, even mid-conversation (a running turn writes nothing more); admin. Their audit
        rows stay, with the id and any free text cleared in the same transaction. Returns rows deleted per table;
        :meth:`erase_user` returns the whole receipt."""
        removed = self.erase_user(user_id, actor=actor)["removed"]
        return {**removed["sql"], "checkpoints": removed["checkpoints"]}

    def erase_user(self, user_id: str, *, actor: Actor) -> dict[str, Any]:
        """:meth:`delete_user`, returning its receipt (memory.desk.receipt: what each store removed, counts, hashed
        ids, time, actor), which the audit trail keeps (:meth:`erasure_receipts`)."""
        from memory.desk import receipt
        from memory.lifecycle import export

        actor = check(self.storage, actor, Role.ADMIN, "delete a user")
        from memory.lifecycle import erasure

        retrieval_log.flush(self.storage)
        job = erasure.pending_job(self.storage, id_hash(user_id))
        if job is None:  # a new erasure: what the user has now, for the receipt
            user = self.service.get_user(user_id)
            key, before = user.key, receipt.inventory(self.storage, user)
        else:  # a rerun finishing a crashed erasure: its rows are (partly) gone, the receipt counts what is left
            key, before = job.erased_key, receipt.NOTHING_READ | {"vectors": self.storage.index.count(job.erased_key)}
        counts = export.delete_user(self.storage, user_id)
        paper = receipt.make(self.storage, user_id, key, before, counts, actor)
        if job is not None:
            paper["resumed"] = "finished an erasure a crash had interrupted (its rows were read by the run that died)"
            if export.recreated(self.storage, job) is not None:  # written again after the erasure began: erase it too
                again = self.service.get_user(user_id)
                now = receipt.inventory(self.storage, again)
                second = export.delete_user(self.storage, user_id)
                paper["recreated"] = receipt.recreated_part(self.storage, again.key, now, second)
                counts = {t: counts.get(t, 0) + second.get(t, 0) for t in {*counts, *second}}
        detail = {"rows": sum(counts.values()), "receipt": paper}
        audit.record(self.storage, actor, AuditAction.DELETE_USER, user_hash=id_hash(user_id), detail=detail)
        return paper

    def erasure_receipts(self, user_id: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
        """Erasure receipts kept in the audit trail, newest first (one user's, found through the id's hash)."""
        rows = audit.events(self.storage, action=AuditAction.DELETE_USER, limit=limit)
        if user_id is not None:
            rows = [r for r in rows if r.user_hash == id_hash(user_id)]
        return [r.detail["receipt"] for r in rows if isinstance((r.detail or {}).get("receipt"), dict)]

    def delete_session(
        self, user_id: str, session_id: str, *, agent_id: str | None = None, actor: Actor
    ) -> dict[str, int]:
        from memory.lifecycle import export

        actor = check(self.storage, actor, Role.ADMIN, "delete a session")
        retrieval_log.flush(self.storage)
        counts = export.delete_session(self.storage, user_id, session_id, agent_id=agent_id)
        ids = [f"session:{id_hash(session_id)[:16]}"]  # a session id is caller text: only its hash is kept
        audit.record(self.storage, actor, AuditAction.DELETE_SESSION, user_id=user_id, target_ids=ids)
        return counts

    def purge_memory(self, memory_id: str, *, actor: Actor) -> dict[str, int]:
        """Delete one memory for good, history included (admin)."""
        from memory.lifecycle import export

        actor = check(self.storage, actor, Role.ADMIN, "purge a memory")
        retrieval_log.flush(self.storage)
        owner = audit.user_id_of(self.storage, self.service.get_memory(memory_id).user_key)
        counts = export.purge_memory(self.storage, memory_id)
        audit.record(self.storage, actor, AuditAction.PURGE, user_id=owner, target_ids=[memory_id])
        return counts

    def user_stats(self, user_id: str) -> dict[str, Any]:
        retrieval_log.flush(self.storage)
        from memory.lifecycle import stats

        return stats.user_stats(self.storage, user_id)
