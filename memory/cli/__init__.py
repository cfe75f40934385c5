"""`memlens …` commands over the memory engine (agent commands are added by ``agent.cli``).

Every error is one line on stderr with exit code 2; ``MEMLENS_DEBUG=1`` shows the traceback of an unexpected one.
"""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING, Annotated, Any

import click
import typer

from memory.errors import MemLensError
from memory.vocab import Actor, Role

if TYPE_CHECKING:  # the service pulls in SQLAlchemy and the models: `memlens --help` must not pay for them
    from memory.service import MemoryService

app = typer.Typer(
    help="MemLens: layered, inspectable memory for LLM agents.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

UserOpt = Annotated[str, typer.Option("--user", "-u", help="External user id.")]
AgentOpt = Annotated[str | None, typer.Option("--agent", help="Agent id (memories are scoped per agent).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]


def cli_actor() -> Actor:
    """Who acts from the command line: the OS user (whoever can run the CLI on the data folder administers it)."""
    import getpass

    try:
        name = getpass.getuser()
    except (KeyError, OSError):  # no passwd entry (some containers)
        name = f"uid-{os.getuid()}" if hasattr(os, "getuid") else "unknown"
    return Actor(name=name, role=Role.ADMIN, via="cli")


def service() -> MemoryService:
    """The service, imported on first use (heavy parts, LanceDB and the embedder, open only when a command needs
    them: `users`, `memories` and `profile` run on SQL alone)."""
    from memory.config import Settings
    from memory.service import MemoryService

    return MemoryService(Settings())


def emit(obj: Any) -> None:
    typer.echo(json.dumps(obj, ensure_ascii=False, default=str))


@app.command()
def remember(text: str, user: UserOpt, agent: AgentOpt = None, json_out: JsonOpt = False) -> None:
    """Run TEXT through the write pipeline as a user message (extract, dedupe, supersede, mask, store)."""
    from memory.cli.write import print_report

    print_report(service().remember(user, text, agent_id=agent), json_out)


@app.command()
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
    json_out: JsonOpt = False,
) -> None:
    """Search a user's memories; shows every candidate with its scores and whether it passed."""
    result = service().recall(user, query, agent_id=agent, k=k, threshold=threshold, similarity_floor=floor, mode=mode)
    if result.notice:
        typer.echo(f"note: {result.notice}", err=True)
    if json_out:
        emit(result.to_dict())
        return
    p = result.params
    typer.echo(
        f"{len(result.hits)} candidates · mode {p.mode} · relevance threshold {p.threshold:.2f} · k {p.k} "
        f"· calibration {result.calibration} · {result.latency_ms:.1f} ms"
    )
    for h in result.hits:
        mark = "✔" if h.selected else ("·" if h.passed else "✘")
        sim = "  —  " if h.similarity is None else f"{h.similarity:.3f}"
        fts = "  —  " if h.fts_score is None else f"{h.fts_score:.2f}"
        rel = " — " if h.relevance is None else f"{h.relevance:.2f}"
        typer.echo(f"{mark} #{h.rank:<3} relevance {rel}  sim {sim}  fts {fts}  score {h.score:.4f}  {h.content[:100]}")


@app.command()
def users(json_out: JsonOpt = False) -> None:
    """List users with their count of active memories."""
    rows = service().list_users()
    if json_out:
        emit({"users": rows})
        return
    for r in rows:
        typer.echo(f"{r['user_id'][:60]:<60} {r['active_memories']:>6} memories")


@app.command()
def reindex() -> None:
    """Rebuild the LanceDB index from SQL (after changing the embedder, or to repair)."""
    from tqdm import tqdm

    with tqdm(desc="reindex", unit="memory", disable=not sys.stderr.isatty()) as bar:
        n = service().reindex(progress=bar.update)
    typer.echo(f"reindexed {n} memories")


def run(application: typer.Typer) -> None:
    """Entry point: one clear line and exit code 2 on any error, no traceback."""
    try:
        application(standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        typer.echo(f"error: {exc.format_message()}", err=True)
        sys.exit(2)
    except (click.exceptions.Abort, KeyboardInterrupt):
        typer.echo("error: aborted", err=True)
        sys.exit(2)
    except MemLensError as exc:
        typer.echo(f"error: {exc}", err=True)
        sys.exit(2)
    except Exception as exc:  # noqa: BLE001 - the CLI's last line of defence: one line, never a traceback
        if os.environ.get("MEMLENS_DEBUG"):
            raise
        typer.echo(f"error: {type(exc).__name__}: {exc}".splitlines()[0][:500], err=True)
        sys.exit(2)


def main() -> None:
    run(app)


# Command groups living in their own modules register themselves on ``app`` when imported (keep this list last).
from memory.cli import commands as cli_commands  # noqa: E402,F401
