"""`memlens …`: the command-line package. :mod:`memory.cli.main` assembles the application from the command
modules (``core``, ``write``, ``lifecycle``, ``storage``, ``curate``, ``evaluate``, ``apikeys``); ``agent.cli`` adds
the agent's commands. Shared options and helpers live in :mod:`memory.cli.common`.
"""

from memory.cli.common import AgentOpt, JsonOpt, UserOpt, cli_actor, emit, service
from memory.cli.main import build_app, main, run

#: the engine's commands alone (tests drive it with typer's CliRunner; the console script is ``agent.cli``)
app = build_app()

__all__ = ["AgentOpt", "JsonOpt", "UserOpt", "app", "build_app", "cli_actor", "emit", "main", "run", "service"]
