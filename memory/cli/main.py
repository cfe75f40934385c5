"""The `memlens` application, assembled explicitly: each command module owns a small ``typer.Typer`` of its
commands, and :func:`build_app` lists them here — importing a module registers nothing anywhere.

Every error is one line on stderr with exit code 2; ``MEMLENS_DEBUG=1`` shows the traceback of an unexpected one.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence

import click
import typer

from memory.cli import apikeys, core, curate, desk, evaluate, lifecycle, people, storage, write
from memory.errors import MemLensError

#: modules whose ``cli`` commands sit at the top level (`memlens remember`, `memlens forget`, …)
ENGINE_COMMANDS: tuple[typer.Typer, ...] = (core.cli, write.cli, lifecycle.cli, storage.cli, people.cli, desk.cli)
#: command groups (`memlens eval locomo`, `memlens apikey create`, …)
ENGINE_GROUPS: Mapping[str, typer.Typer] = {
    "recall": core.recall_cli,
    "eval": evaluate.cli,
    "apikey": apikeys.cli,
    "memory": curate.cli,
    "account": people.account_cli,
}


#: commands another module adds to a group (`memlens recall explain`, `memlens eval labels`: the audit desk's)
GROUP_EXTRAS: Mapping[str, tuple[typer.Typer, ...]] = {"recall": (desk.recall_cli,), "eval": (desk.eval_cli,)}


def _with(group: typer.Typer, extras: Sequence[typer.Typer]) -> typer.Typer:
    """``group`` plus the extras' commands, as a new Typer (the modules' own stay as they are)."""
    if not extras:
        return group
    merged = typer.Typer()
    merged.info = group.info
    merged.registered_commands = [c for t in (group, *extras) for c in t.registered_commands]
    merged.registered_groups = list(group.registered_groups)
    return merged


def build_app(commands: Sequence[typer.Typer] = (), groups: Mapping[str, typer.Typer] | None = None) -> typer.Typer:
    """The engine's commands and groups, plus those given (the agent adds chat, end-session, seed-demo, serve)."""
    app = typer.Typer(
        help="MemLens: layered, inspectable memory for LLM agents.",
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        add_completion=False,
    )
    for registry in (*ENGINE_COMMANDS, *commands):
        app.registered_commands.extend(registry.registered_commands)
    for name, group in {**ENGINE_GROUPS, **(groups or {})}.items():
        app.add_typer(_with(group, GROUP_EXTRAS.get(name, ())), name=name)
    return app


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
    run(build_app())
