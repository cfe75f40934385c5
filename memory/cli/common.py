"""What every `memlens` command module shares: the common options, the acting person, the service, JSON output."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Annotated, Any

import typer

from memory.vocab import Actor, Role

if TYPE_CHECKING:  # the service pulls in SQLAlchemy and the models: `memlens --help` must not pay for them
    from memory.service import MemoryService

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


def say(message: str = "", err: bool = False) -> None:
    """``typer.echo`` for lines that carry stored text: escape sequences and control characters never reach the
    terminal (see ``memory.text.display.terminal_safe``)."""
    from memory.text.display import terminal_safe

    typer.echo(terminal_safe(message), err=err)
