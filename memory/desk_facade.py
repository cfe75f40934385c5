"""The audit desk side of the facade (``MemoryService.desk``): why a memory was (not) recalled, the hygiene queue,
the labelled-query gate, A/B and shadow replay, the relations graph — what the Desk page, ``memlens desk`` and the
REST desk routes call. Each method checks the actor's role where it acts or runs heavy work, and delegates to
:mod:`memory.desk`.

It holds the service it belongs to, typed loosely (``Any``): naming ``MemoryService`` here, even for a type, would
make an import circle with the facade that builds it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Unpack

from memory import audit, validate, views
from memory.access import check
from memory.config import Settings
from memory.errors import NotFound
from memory.retrieval import log as retrieval_log
from memory.retrieval import policy as recall_policy
from memory.retrieval.filters import RecallFilters
from memory.retrieval.policy import PolicyChanges, RecallPolicy
from memory.retrieval.recall import RecallResult
from memory.text.privacy import mask_pii
from memory.vocab import Actor, AuditAction, Role

if TYPE_CHECKING:
    from memory.storage.embed import Embedder


class Desk:
    """The audit desk's operations over one service (``svc.desk``)."""

    def __init__(self, service: Any) -> None:
        self.service = service
        self.storage = service.storage

    def explain_recall(
        self,
        user_id: str,
        memory_id: str,
        query: str | None = None,
        *,
        retrieval_id: int | None = None,
        agent_id: str | None = None,
        filters: RecallFilters | None = None,
        policy: RecallPolicy | None = None,
        **changes: Unpack[PolicyChanges],
    ) -> dict[str, Any]:
        """Why a memory was (not) recalled for a typed query or a logged retrieval: every stage of the real recall
        and the first one it fell out at (memory.desk.explain). Not logged."""
        from memory.desk import explain

        user = self.service.get_user(user_id)
        if query is not None:
            query = mask_pii(validate.text(query, self.service.settings.max_message_chars, "query"))
        agent = validate.agent_id(agent_id, self.service.settings.default_agent_id)
        params = self.service._policy(policy, changes)
        retrieval_log.flush(self.storage)  # a logged retrieval may still be queued
        profile = {name: f.value for name, f in self.service.profile_fields(user).items()}
        result = explain.explain(
            self.storage,
            user,
            memory_id,
            query=query,
            retrieval_id=retrieval_id,
            agent_id=agent,
            params=params,
            calibration=params.calibration,
            filters=filters,
            profile=profile,
        )
        return result.to_dict()

    def hygiene_review(
        self,
        user_id: str | None = None,
        *,
        never_recalled_days: float | None = None,
        kinds: Sequence[str] | None = None,
        now: datetime | None = None,
    ) -> Any:
        """The memory-hygiene review queue for one user or everyone (memory.desk.hygiene): findings with evidence
        and actions, and each user's junk rate."""
        from memory.desk import hygiene

        retrieval_log.flush(self.storage)  # access times of recalls still being written
        return hygiene.review(
            self.storage,
            user_key=self.service._user_key(user_id),
            now=now,
            never_recalled_days=hygiene.NEVER_RECALLED_DAYS if never_recalled_days is None else never_recalled_days,
            kinds=tuple(kinds or hygiene.KINDS),
        )

    def hygiene_act(
        self,
        key: str,
        action: str,
        *,
        actor: Actor,
        user_id: str | None = None,
        target: str | None = None,
        reason: str = "",
        never_recalled_days: float | None = None,
    ) -> dict[str, Any]:
        """Apply ``action`` (merge, flag, delete, clear, keep) to the queue's finding ``key``, through the curation
        operations (role checked, logged, audited)."""
        from memory.desk import hygiene

        check(self.storage, actor, Role.CURATOR, "act on a hygiene finding")
        queue = self.hygiene_review(user_id, never_recalled_days=never_recalled_days)
        finding = next((f for f in queue.findings if f.key == key), None)
        if finding is None:
            raise NotFound(f"no open hygiene finding {key[:80]!r}")
        done = hygiene.act(self.storage, finding, action, actor=actor, target=target, reason=reason)
        if action == "clear":
            self.service.update_profile(
                finding.user_id, finding.detail["field"], None, actor=actor, reason=reason or "hygiene"
            )
        return done

    def eval_labels(
        self,
        user_id: str | None = None,
        *,
        actor: Actor,
        record: bool = False,
        policy: RecallPolicy | None = None,
        **changes: Unpack[PolicyChanges],
    ) -> dict[str, Any]:
        """Precision / recall of what recall would select for every labelled query under the current settings
        (or under ``policy``), each searched again unlogged (memory.desk.labels_gate). Every labelled query is
        searched again: a curator's (a refusal is audited). ``record`` keeps the run in the audit trail: the
        suite's history, and the gate's next baseline."""
        from memory.desk import labels_gate
        from memory.storage.models import utcnow

        actor = check(self.storage, actor, Role.CURATOR, "run the labelled-query suite")
        retrieval_log.flush(self.storage)
        suite = views.labelled_queries(self.storage, self.service._user_key(user_id))

        def search(entry: dict[str, Any]) -> RecallResult:
            q = entry["retrieval_query"]
            return self.service.recall(entry["user_id"], q, agent_id=entry["agent_id"], log=False, policy=p)

        p = self.service._policy(policy, changes)
        run = labels_gate.evaluate(suite, search)
        run["settings"] = {
            k: getattr(p, k) for k in ("mode", "k", "threshold", "fusion", "vector_weight", "rrf_k", "context_span")
        }
        run["user_id"], run["at"] = user_id, utcnow().isoformat()
        if record:
            kept = {k: v for k, v in run.items() if k != "per_query"}
            audit.record(self.storage, actor, AuditAction.EVAL_LABELS, user_id=user_id, detail=kept)
        return run

    def labels_history(self, limit: int = 100) -> list[dict[str, Any]]:
        """Recorded runs of the labelled-query suite, newest first (each with who ran it)."""
        rows = audit.events(self.storage, action=AuditAction.EVAL_LABELS, limit=limit)
        return [{**(r.detail or {}), "actor": r.actor, "via": r.via, "recorded_at": r.at} for r in rows]

    def import_labels(
        self,
        labels: str | Sequence[Any],
        *,
        actor: Actor,
        fmt: str | None = None,
        users: Sequence[str] = (),
        limit: int | None = None,
    ) -> dict[str, Any]:
        """Labels from JSON or CSV text, or decoded rows (objects with the same four fields): every row is
        checked first — its fields, its user, and that its memory is that user's — and nothing is stored when one is
        wrong (the refusal is audited); then each query is searched once (logged, as the lab's are) and labelled.
        ``users``, when given, are the only users the rows may name (a door's key restricted to some users);
        ``limit`` bounds the rows (default ``labels_gate.MAX_LABELS``)."""
        from memory.desk import labels_gate
        from memory.errors import Forbidden, InvalidInput

        actor = check(self.storage, actor, Role.CURATOR, "import labels")
        try:
            most = limit or labels_gate.MAX_LABELS
            if isinstance(labels, str):
                rows = labels_gate.parse_labels(labels, fmt, limit=most)
            else:
                rows = labels_gate.labels_from_rows(list(labels), limit=most)
            for n, lb in enumerate(rows, 1):
                if users and lb.user_id not in users:
                    raise Forbidden(f"label {n}: this key may not act for user {lb.user_id[:40]!r}")
            known = {u: self.service._key_or_none(u) for u in {lb.user_id for lb in rows}}
            owners = self.service.memories_by_id(sorted({lb.memory_id for lb in rows}))
            for n, lb in enumerate(rows, 1):
                m = owners.get(lb.memory_id)
                if m is None or known[lb.user_id] is None or m.user_key != known[lb.user_id]:  # one answer for all
                    raise InvalidInput(f"label {n}: no memory {lb.memory_id[:40]!r} for user {lb.user_id[:40]!r}")
        except (InvalidInput, Forbidden) as exc:
            audit.record(self.storage, actor, AuditAction.DENIED, reason=f"labels import refused: {exc}")
            raise
        queries: dict[tuple[str, str], list[Any]] = {}
        for lb in rows:
            queries.setdefault((lb.user_id, lb.query), []).append(lb)
        retrievals = []
        for (user_id, query), group in queries.items():
            retrieval_id = self.service.recall(user_id, query).retrieval_id
            assert retrieval_id is not None
            retrievals.append(retrieval_id)
            for lb in group:
                self.service.label_hit(retrieval_id, lb.memory_id, lb.relevant, actor=actor)
        return {"labels": len(rows), "queries": len(queries), "retrieval_ids": retrievals}

    def replay(
        self, changes: dict[str, Any], *, actor: Actor, user_id: str | None = None, last: int = 20
    ) -> dict[str, Any]:
        """A/B replay: the last ``last`` distinct logged queries (one user's or everyone's) under the current
        settings (A) and with ``changes`` (B), unlogged; per query the memories and tokens gained or lost. Two
        searches per query: a curator's, audited (a refusal too)."""
        from memory.desk import replay

        actor = check(self.storage, actor, Role.CURATOR, "replay logged queries")
        retrieval_log.flush(self.storage)
        s = self.service.effective_settings()
        calibration = self.service.relevance_model(s)
        recall_policy.resolve(s, calibration, changes)  # refuses a bad name or value before anything runs
        logged = replay.logged_queries(self.storage, self.service._user_key(user_id), last)

        def search(entry: dict[str, Any], knobs: dict[str, Any]) -> RecallResult:
            p = recall_policy.resolve(s, calibration, knobs)
            return self.service.recall(
                entry["user_id"], entry["query"], agent_id=entry["agent_id"], log=False, policy=p
            )

        out = replay.compare(logged, search, changes)
        detail = {"changes": {k: str(v) for k, v in changes.items()}, "queries": out["queries"]}
        audit.record(self.storage, actor, AuditAction.REPLAY, user_id=user_id, detail=detail)
        return out

    def shadow_replay(
        self,
        user_id: str,
        *,
        embedder: str | None = None,
        extractor: str | None = None,
        sample: int = 200,
        last: int = 20,
        actor: Actor,
        embedder_b: Embedder | None = None,
        model_b: Any = None,
    ) -> dict[str, Any]:
        """A/B replay of another embedder or extractor (memory.desk.shadow): the user's last ``sample`` messages
        written again into two throw-away stores (A live configuration, B changed), then their ``last`` logged
        queries searched in both; what each store kept and what each query would gain or lose. Reads the live store
        only. ``extractor="model"`` uses ``model_b``, else the chat model the agent gave this service. It embeds
        (and extracts) up to 2,000 messages twice: a curator's, audited (a refusal too)."""
        from memory.desk import replay, shadow

        actor = check(self.storage, actor, Role.CURATOR, "replay messages into shadow stores")
        retrieval_log.flush(self.storage)
        logged = replay.logged_queries(self.storage, self.service.get_user(user_id).key, last)

        def make_model(_settings: Settings) -> Any:
            return model_b if model_b is not None else self.service.extraction_model

        def open_store(settings: Settings, embedder: Embedder | None) -> Any:
            return type(self.service)(settings, embedder=embedder)  # a service like this one, on a throw-away folder

        out = shadow.shadow_replay(
            self.service,
            open_store,
            user_id,
            embedder=embedder,
            extractor=extractor,
            sample=sample,
            last=last,
            logged=logged,
            make_model=make_model,
            embedder_b=embedder_b,
        )
        detail = {"a": out["a"], "b": out["b"], "messages": out["messages"], "queries": out["queries"]}
        audit.record(self.storage, actor, AuditAction.SHADOW_REPLAY, user_id=user_id, detail=detail)
        return out

    def relations_graph(self, user_id: str, *, agent_id: str | None = None, limit: int = 1000) -> dict[str, Any]:
        """What the user's facts say about whom: people, pets, places, organisations as nodes, facts as edges
        (superseded and flagged ones marked), per agent (memory.desk.graph)."""
        from memory.desk import graph

        return graph.build(self.storage, self.service.get_user(user_id).key, agent_id=agent_id, limit=limit)
