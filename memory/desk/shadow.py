"""Shadow-store replay: what another embedder or extractor would change, without touching the live store.

A user's recorded conversation (a sample: their last ``sample`` messages, session by session, in order) is written
again, through the one write path, into two throw-away stores in a temporary folder: A with the live settings and
extractor, B with the other embedder and/or extractor. Both see exactly the same messages, so the difference is the
configuration alone (the live store, which holds all of the user's history and the people's corrections, would not
be a fair A). Then the user's logged queries are searched in both (unlogged) and compared by memory text — ids
differ between stores — with what the prompt would carry in tokens, as :mod:`memory.desk.replay` does for recall
knobs; and the stored memories themselves are compared (facts only A or only B extracted). The shadows are deleted
afterwards; the live store is only read.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from sqlmodel import col, select

from memory.desk.replay import effect, injected_tokens, totals
from memory.errors import InvalidInput
from memory.storage.models import Message, Session
from memory.vocab import SEMANTIC_TYPES

if TYPE_CHECKING:
    from memory.config import Settings
    from memory.retrieval.recall import RecallResult
    from memory.storage.db import Database
    from memory.storage.embed import Embedder
    from memory.storage.models import Memory, User


class Shadow(Protocol):
    """What a replay asks of a store (the service's own methods). The desk never imports the service: the caller
    hands over the live one and opens the shadows (``open_store``), so composition stays one way."""

    @property
    def embedder_name(self) -> str: ...
    def ensure_user(self, *args: Any, **kwargs: Any) -> User: ...
    def get_user(self, *args: Any, **kwargs: Any) -> User: ...
    def ensure_session(self, *args: Any, **kwargs: Any) -> Session: ...
    def add_message(self, *args: Any, **kwargs: Any) -> Message: ...
    def write_from_messages(self, *args: Any, **kwargs: Any) -> Any: ...
    def wait_writes(self, *args: Any, **kwargs: Any) -> Any: ...
    def list_memories(self, *args: Any, **kwargs: Any) -> list[Memory]: ...
    def recall(self, *args: Any, **kwargs: Any) -> RecallResult: ...
    def close(self) -> None: ...


class Live(Shadow, Protocol):
    """The live service, read only: its storage (the recorded messages, the embedder), settings and chat model."""

    @property
    def storage(self) -> Any: ...
    @property
    def extraction_model(self) -> Any: ...
    def effective_settings(self) -> Settings: ...


EMBEDDERS = ("e5", "openai", "hash")
#: rules: the built-in extraction rules; model: the configured chat model's structured extraction
EXTRACTORS = ("rules", "model")
#: the most messages one replay writes twice (each is embedded and extracted in both shadows)
MAX_SAMPLE = 2_000


def recorded_messages(store: Database, user_key: str, sample: int) -> list[tuple[Session, list[Message]]]:
    """The user's last ``sample`` messages, grouped by session in the order they were said."""
    query = (
        select(Message, Session)
        .join(Session, col(Session.id) == col(Message.session_id))
        .where(Message.user_key == user_key, col(Message.role).in_(("user", "assistant")))
        .order_by(col(Message.id).desc())
        .limit(sample)
    )
    with store.db() as db:
        rows = list(reversed(db.exec(query).all()))
    grouped: dict[str, tuple[Session, list[Message]]] = {}
    for message, session in rows:
        grouped.setdefault(session.id, (session, []))[1].append(message)
    return list(grouped.values())


def _write(shadow: Shadow, user_id: str, recorded: Sequence[tuple[Session, list[Message]]], model: Any) -> None:
    """The recorded sessions into ``shadow`` through its one write path (episodes, and facts from user messages)."""
    user = shadow.ensure_user(user_id)
    for session, messages in recorded:
        copy = shadow.ensure_session(user, session.external_id, session.agent_id)
        stored = [shadow.add_message(copy, m.role, m.content, created_at=m.created_at) for m in messages]
        said = [m for m in stored if m.role == "user"]
        if said:
            shadow.write_from_messages(user, copy, said, agent_id=session.agent_id, model=model)
    shadow.wait_writes(None, 120)


def _texts(shadow: Shadow, user_id: str) -> set[str]:
    return {m.content for m in shadow.list_memories(shadow.get_user(user_id), types=SEMANTIC_TYPES, limit=100_000)}


def compare_shadows(
    a: Shadow,
    b: Shadow,
    user_id: str,
    logged: Sequence[dict[str, Any]],
) -> dict[str, Any]:
    """Each logged query in both shadows (unlogged): memories gained and lost by text, and injected tokens."""
    rows = []
    for entry in logged:
        ra = a.recall(user_id, entry["query"], agent_id=entry.get("agent_id"), log=False)
        rb = b.recall(user_id, entry["query"], agent_id=entry.get("agent_id"), log=False)
        sa, sb = [h.content for h in ra.selected], [h.content for h in rb.selected]
        ta, tb = injected_tokens(ra.hits), injected_tokens(rb.hits)
        rows.append(
            {
                "retrieval_id": entry["id"],
                "query": entry["query"],
                "gained": [{"content": t} for t in sb if t not in sa],
                "lost": [{"content": t} for t in sa if t not in sb],
                "kept": sum(1 for t in sa if t in sb),
                "tokens_a": ta,
                "tokens_b": tb,
            }
        )
    return {"per_query": rows}


def shadow_replay(
    live: Live,
    open_store: Callable[[Settings, Embedder | None], Shadow],
    user_id: str,
    *,
    embedder: str | None = None,
    extractor: str | None = None,
    sample: int = 200,
    last: int = 20,
    logged: Sequence[dict[str, Any]] = (),
    make_model: Callable[[Settings], Any] | None = None,
    embedder_b: Embedder | None = None,
) -> dict[str, Any]:
    """Replay ``user_id``'s last ``sample`` messages into shadow stores A (live configuration) and B (``embedder``
    and/or ``extractor`` changed) and compare them on the user's ``logged`` queries. ``make_model`` builds the
    extraction chat model for ``extractor="model"`` (the agent's factory; tests pass a fake); ``embedder_b`` an
    already-loaded embedder for B; ``open_store`` opens a shadow store on the given settings and embedder (the
    service passes its own constructor)."""
    if embedder is None and extractor is None:
        raise InvalidInput("name another embedder or extractor for the shadow store (B)")
    if embedder is not None and embedder not in EMBEDDERS:
        raise InvalidInput(f"embedder must be one of {', '.join(EMBEDDERS)}, not {str(embedder)[:40]!r}")
    if extractor is not None and extractor not in EXTRACTORS:
        raise InvalidInput(f"extractor must be one of {', '.join(EXTRACTORS)}, not {str(extractor)[:40]!r}")
    if not 1 <= sample <= MAX_SAMPLE:
        raise InvalidInput(f"sample must be 1 to {MAX_SAMPLE:,} messages")
    user = live.get_user(user_id)
    recorded = recorded_messages(live.storage, user.key, sample)
    base = live.effective_settings()
    model_a = live.extraction_model
    extractor_a = "model" if model_a is not None else "rules"
    model_b: Any = model_a
    if extractor == "rules":
        model_b = None
    elif extractor == "model":
        model_b = make_model(base) if make_model is not None else None
        if model_b is None:
            raise InvalidInput("extractor 'model' needs a configured chat model (MEMLENS_LLM_*); none is")
    with tempfile.TemporaryDirectory(prefix="memlens-shadow-") as tmp:
        folder = Path(tmp)

        def shadow(name: str, **change: Any) -> Settings:
            fixed = {"data_dir": folder / name, "database_url": None, "lancedb_uri": None, "repair_on_start": False}
            return base.model_copy(update={**fixed, **change})

        a = open_store(shadow("a"), live.storage.embedder)
        same_embedder = embedder is None or live.embedder_name.split(":")[0].startswith(embedder)
        b = open_store(
            shadow("b", **({} if same_embedder else {"embedder": embedder})),
            live.storage.embedder if same_embedder else embedder_b,
        )
        try:
            _write(a, user_id, recorded, model_a)
            _write(b, user_id, recorded, model_b)
            out = compare_shadows(a, b, user_id, logged[:last])
            facts_a, facts_b = _texts(a, user_id), _texts(b, user_id)
            config_a = {"embedder": a.embedder_name, "extractor": extractor_a}
            config_b = {"embedder": b.embedder_name, "extractor": extractor or extractor_a}
        finally:
            a.close()
            b.close()
    rows = out["per_query"]
    t = totals(rows)
    stored = {
        "a": len(facts_a),
        "b": len(facts_b),
        "only_a": sorted(facts_a - facts_b)[:200],
        "only_b": sorted(facts_b - facts_a)[:200],
    }
    return {
        "user_id": user_id,
        "a": config_a,
        "b": config_b,
        "messages": sum(len(m) for _, m in recorded),
        "sessions": len(recorded),
        **t,
        "stored": stored,
        "summary": summary(config_a, config_b, stored, t, recorded),
        "per_query": rows,
    }


def summary(
    a: dict[str, str],
    b: dict[str, str],
    stored: dict[str, Any],
    t: dict[str, int],
    recorded: Sequence[tuple[Session, list[Message]]],
) -> str:
    """One paragraph for a stakeholder (``t``: :func:`memory.desk.replay.totals`)."""
    what = ", ".join(f"{k} {a[k]} → {b[k]}" for k in ("embedder", "extractor") if a[k] != b[k]) or "no change"
    said = sum(len(m) for _, m in recorded)
    facts = (
        f"From the same {said} messages, A kept {stored['a']} memories and B {stored['b']} "
        f"({len(stored['only_a'])} only in A, {len(stored['only_b'])} only in B)."
    )
    if not t["queries"]:
        return f"Shadow replay with {what}. {facts} No logged queries to replay."
    return (
        f"Shadow replay with {what}. {facts} On {t['queries']} logged queries, {t['changed_queries']} would inject "
        f"different memories: {effect(t)}"
    )
