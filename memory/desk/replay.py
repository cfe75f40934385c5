"""A/B replay of any recall setting: logged queries searched again under A (the current settings) and B (A with
some knobs changed: k, mode, fusion and its weights, the threshold, the context span…), and per query what B
gains or loses — memories and injected tokens — with a summary a stakeholder can read.

Both sides run the real recall (unlogged) on the logged retrieval query; injected tokens are counted as the prompt
counts them (each selected memory's line plus its source-context lines, :func:`memory.text.tokens.count_tokens`).
Knob names are :class:`memory.retrieval.recall.RecallPolicy` fields, or the settings they come from
(``top_k`` → ``k``, ``search_mode`` → ``mode``, ``relevance_threshold`` → ``threshold``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import fields
from typing import TYPE_CHECKING, Any

from sqlmodel import col, select

from memory.errors import InvalidInput
from memory.retrieval import policy
from memory.retrieval.policy import RecallPolicy
from memory.retrieval.recall import Hit, RecallResult
from memory.retrieval.tuning import replay_diff
from memory.storage.models import Retrieval, User
from memory.text.tokens import count_tokens
from memory.vocab import ANY_AGENT

if TYPE_CHECKING:
    from memory.storage.db import Database

#: settings names → the recall knob they set
ALIASES = {"top_k": "k", "search_mode": "mode", "relevance_threshold": "threshold", "candidate_pool": "pool"}
#: what a replay may change (the rest are not knobs a person tunes)
KNOBS = policy.KNOBS - {"order"}


def _convert(name: str, raw: str) -> Any:
    kind = {f.name: str(f.type) for f in fields(RecallPolicy)}[name]
    text = raw.strip()
    if "None" in kind and text.casefold() in ("none", "null", ""):
        return None
    try:
        if kind.startswith("int"):
            return int(text)
        if kind.startswith("float"):
            return float(text)
        if kind.startswith("bool"):
            if text.casefold() in ("1", "true", "yes", "on"):
                return True
            if text.casefold() in ("0", "false", "no", "off"):
                return False
            raise ValueError(text)
    except ValueError:
        raise InvalidInput(f"{name} must be a {kind.split(' ')[0]}, not {raw[:40]!r}") from None
    return text


def parse_overrides(pairs: Iterable[str]) -> dict[str, Any]:
    """``["k=8", "mode=vector"]`` → ``{"k": 8, "mode": "vector"}`` (typed; unknown knobs are refused)."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        name = ALIASES.get(key.strip(), key.strip())
        if not sep or not name:
            raise InvalidInput(f"--set takes KEY=VALUE, not {pair[:60]!r}")
        if name not in KNOBS:
            raise InvalidInput(f"{key[:40]!r} is not a recall setting; one of: {', '.join(sorted(KNOBS))}")
        out[name] = _convert(name, value)
    return out


def injected_tokens(hits: Sequence[Hit]) -> int:
    """What the selected memories would cost in the prompt: each memory's text and its context lines."""
    return sum(count_tokens(h.content) + sum(count_tokens(r.text) for r in h.context) for h in hits if h.selected)


def compare(
    logged: Sequence[dict[str, Any]],
    search: Callable[[dict[str, Any], dict[str, Any]], RecallResult],
    changes: dict[str, Any],
) -> dict[str, Any]:
    """Each logged query under A (no change) and B (``changes``); gained / lost memories and tokens per query."""
    rows = []
    for r in logged:
        a, b = search(r, {}), search(r, changes)
        diff = replay_diff([h.memory_id for h in a.selected], [h.memory_id for h in b.selected])
        text = {h.memory_id: h.content for h in (*a.hits, *b.hits)}
        ta, tb = injected_tokens(a.hits), injected_tokens(b.hits)
        rows.append(
            {
                "retrieval_id": r["id"],
                "query": r["query"],
                "user_id": r.get("user_id"),
                "gained": [{"memory_id": i, "content": text.get(i, "")} for i in diff.gained],
                "lost": [{"memory_id": i, "content": text.get(i, "")} for i in diff.lost],
                "kept": len(diff.kept),
                "tokens_a": ta,
                "tokens_b": tb,
            }
        )
    t = totals(rows)
    return {"changes": changes, **t, "summary": summary(changes, t), "per_query": rows}


def totals(rows: list[dict[str, Any]]) -> dict[str, int]:
    """A replay's per-query rows summed (A/B of settings here, of stores in :mod:`memory.desk.shadow`): queries,
    queries whose injected memories changed, memories gained and lost, and the prompt tokens of each side."""
    return {
        "queries": len(rows),
        "changed_queries": sum(1 for x in rows if x["gained"] or x["lost"]),
        "gained": sum(len(x["gained"]) for x in rows),
        "lost": sum(len(x["lost"]) for x in rows),
        "tokens_a": sum(x["tokens_a"] for x in rows),
        "tokens_b": sum(x["tokens_b"] for x in rows),
    }


def summary(changes: dict[str, Any], t: dict[str, int]) -> str:
    """One paragraph for a stakeholder (``t``: the :func:`totals`)."""
    what = ", ".join(f"{k} = {v}" for k, v in changes.items()) or "no change"
    if not t["queries"]:
        return f"With {what}: no logged queries to replay."
    return (
        f"With {what}, {t['changed_queries']} of {t['queries']} logged queries would inject different memories: "
        f"{effect(t)}"
    )


def effect(t: dict[str, int]) -> str:
    """What the changed queries gain and lose, and what the prompts would carry in tokens (both replays say it)."""
    ta, tb = t["tokens_a"], t["tokens_b"]
    delta = tb - ta
    cost = f"{abs(delta):,} tokens {'more' if delta > 0 else 'fewer'}" if delta else "the same number of tokens"
    return f"{t['gained']} gained, {t['lost']} lost; the prompts would carry {cost} in all ({ta:,} → {tb:,})."


def logged_queries(store: Database, user_key: str | None, limit: int) -> list[dict[str, Any]]:
    """The latest logged retrievals (one user's, or everyone's), one per distinct query, newest first."""
    query = select(Retrieval, User.external_id).join(User, col(User.key) == col(Retrieval.user_key))
    if user_key is not None:
        query = query.where(Retrieval.user_key == user_key)
    out: dict[tuple[str, str], dict[str, Any]] = {}
    with store.db() as db:
        for r, external in db.exec(query.order_by(col(Retrieval.id).desc()).limit(limit * 5)).all():
            key = (r.user_key, r.retrieval_query)
            if key not in out:
                agent = None if r.agent_id == ANY_AGENT else r.agent_id
                out[key] = {"id": r.id, "query": r.retrieval_query, "user_id": external, "agent_id": agent}
            if len(out) >= limit:
                break
    return list(out.values())
