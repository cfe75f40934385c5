"""`memlens remember | recall | users | reindex`: the engine's own everyday commands.

``recall`` is a group whose default command is the search (``memlens recall --user U "query"``), so the audit desk's
``memlens recall explain`` sits beside it (memory/cli/desk.py)."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from memory.cli.common import AgentOpt, JsonOpt, UserOpt, emit, say, service
from memory.text.display import show_id

cli = typer.Typer()


class SearchByDefault(TyperGroup):
    """``memlens recall …`` runs ``recall search …`` unless its first word names another recall command."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:  # ctx: the Click context Typer hands over
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = ["search", *args]
        return super().parse_args(ctx, args)


recall_cli = typer.Typer(
    cls=SearchByDefault,
    no_args_is_help=True,
    help="Search a user's memories (`memlens recall --user U QUERY`), or explain one memory's fate.",
)


@cli.command()
def remember(text: str, user: UserOpt, agent: AgentOpt = None, json_out: JsonOpt = False) -> None:
    """Run TEXT through the write pipeline as a user message (extract, dedupe, supersede, mask, store)."""
    from memory.cli.write import print_report

    print_report(service().remember(user, text, agent_id=agent), json_out)


@recall_cli.command("search")
def recall(
    query: str,
    user: UserOpt,
    k: Annotated[int | None, typer.Option("--k", help="How many memories to select.")] = None,
    threshold: Annotated[
        float | None, typer.Option("--threshold", help="Relevance threshold (0..1; default: the calibration's).")
    ] = None,
    floor: Annotated[float | None, typer.Option("--floor", help="Optional raw-similarity floor (-1..1).")] = None,
    mode: Annotated[str | None, typer.Option("--mode", help="vector | fulltext | hybrid")] = None,
    agent: AgentOpt = None,
    type_: Annotated[list[str] | None, typer.Option("--type", help="Only these memory types (repeatable).")] = None,
    source: Annotated[list[str] | None, typer.Option("--source", help="Only these source types (repeatable).")] = None,
    since: Annotated[str | None, typer.Option("--since", help="Event time from (ISO-8601).")] = None,
    until: Annotated[str | None, typer.Option("--until", help="Event time until (ISO-8601).")] = None,
    as_of: Annotated[
        str | None, typer.Option("--as-of", help="Reference time for 'last week' etc. in the query (ISO-8601).")
    ] = None,
    json_out: JsonOpt = False,
) -> None:
    """Search a user's memories; shows every candidate with its relevance, raw scores and whether it passed."""
    from memory.retrieval.filters import RecallFilters

    filters = RecallFilters.build(types=type_, source_types=source, since=since, until=until, as_of=as_of)
    result = service().recall(
        user, query, agent_id=agent, filters=filters, k=k, threshold=threshold, similarity_floor=floor, mode=mode
    )
    if result.notice:
        say(f"note: {result.notice}", err=True)
    if json_out:
        emit(result.to_dict())
        return
    p = result.params
    say(
        f"{len(result.hits)} candidates · mode {p.mode} · relevance threshold {p.threshold:.3g} · k {p.k} "
        f"· calibration {result.calibration} · {result.latency_ms:.1f} ms"
    )
    for h in result.hits:
        mark = "✔" if h.selected else ("·" if h.passed else "✘")
        sim = "  —  " if h.similarity is None else f"{h.similarity:.3f}"
        fts = "  —  " if h.fts_score is None else f"{h.fts_score:.2f}"
        rel = " — " if h.relevance is None else f"{h.relevance:.2f}"
        why = f"  [{h.drop_reason}]" if h.drop_reason else ""
        say(f"{mark} #{h.rank:<3} relevance {rel}  sim {sim}  fts {fts}  score {h.score:.4f}  {h.content[:100]}{why}")
        for row in h.context:  # source context: the conversation around the message it came from
            day = row.created_at.date().isoformat() if row.created_at else "undated"
            say(f"        │ {day} {row.speaker[:40]}: {' '.join(row.text.split())[:100]}")


@cli.command()
def users(json_out: JsonOpt = False) -> None:
    """List users with their count of active memories."""
    rows = service().list_users()
    if json_out:
        emit({"users": rows})
        return
    for r in rows:
        say(f"{show_id(r['user_id'][:60]):<60} {r['active_memories']:>6} memories")


@cli.command()
def reindex() -> None:
    """Rebuild the LanceDB index from SQL (after changing the embedder, or to repair)."""
    from tqdm import tqdm

    with tqdm(desc="reindex", unit="memory", disable=not sys.stderr.isatty()) as bar:
        n = service().reindex(progress=bar.update)
    say(f"reindexed {n} memories")
