"""The `memlens` console script: the engine's commands plus the agent's (chat, end-session, seed-demo)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from agent import demo
from agent.serve import cli as serve_cli
from memory.cli.common import AgentOpt, JsonOpt, UserOpt, emit, service
from memory.cli.main import build_app, run

SessionOpt = Annotated[str, typer.Option("--session", "-s", help="External session id.")]

cli = typer.Typer()


@cli.command()
def chat(message: str, user: UserOpt, session: SessionOpt, agent: AgentOpt = None, json_out: JsonOpt = False) -> None:
    """Send MESSAGE to the agent: recall, budgeted context, reply (streamed), memory writes."""
    from agent.runtime import Agent

    bot = Agent(service())
    try:
        stream = bot.stream(user, session, message, agent_id=agent)
        for piece in stream:
            if not json_out:
                typer.echo(piece, nl=False)
                sys.stdout.flush()
        result = stream.result
    finally:
        bot.close()
    if result is None:  # the stream ended without a turn (it raised, and the error is already on its way)
        raise typer.Exit(2)
    if json_out:
        emit(result.to_dict())
        return
    typer.echo("")
    ctx = result.context
    injected = sum(1 for h in (result.recall.hits if result.recall else []) if h.injected)
    typer.echo(
        f"— turn {result.turn_id} · {injected} memories injected · context {ctx.get('total_used')}/"
        f"{ctx.get('total_budget')} tokens · {result.model}",
        err=True,
    )


@cli.command("end-session")
def end_session(user: UserOpt, session: SessionOpt, agent: AgentOpt = None, json_out: JsonOpt = False) -> None:
    """End a session: write its bridge, which the user's next session receives on its first turn."""
    from agent.runtime import Agent

    bot = Agent(service())
    try:
        text = bot.end_session(user, session, agent_id=agent)
    finally:
        bot.close()
    if json_out:
        emit({"session": session, "ended": True, "bridge": text})
    else:
        typer.echo(f"session ended; bridge: {text}" if text else "session ended (nothing to bridge)")


#: the `memlens` console script: the engine's commands, the agent's (chat, end-session, seed-demo) and `serve`
app = build_app(commands=(cli, demo.cli), groups={"serve": serve_cli.cli})


def main() -> None:
    run(app)


if __name__ == "__main__":
    main()
