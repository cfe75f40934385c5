"""`memlens apikey create | list | revoke`: keys for the REST and MCP doors (the secret is printed once, last)."""

from __future__ import annotations

from typing import Annotated

import typer

from memory.cli.common import JsonOpt, cli_actor, emit, service

cli = typer.Typer(help="API keys for `memlens serve api|mcp` (stored hashed; the secret is shown once).")


@cli.command("create")
def create(
    name: Annotated[str, typer.Option("--name", help="A name for the key; writes through it are tagged api:<name>.")],
    users: Annotated[
        str | None, typer.Option("--users", help="Comma-separated user ids the key may touch (default: any).")
    ] = None,
) -> None:
    """Make a key. Its secret is printed once, on the last line: store it now."""

    wanted = [u.strip() for u in users.split(",") if u.strip()] if users else []
    if users is not None and not wanted:  # `--users ""` must not quietly mean "every user"
        raise typer.BadParameter("--users names no user; leave the option out for a key that may touch any user")
    secret, row = service().people.create_key(name, wanted, actor=cli_actor())
    scope = ", ".join(row["users"]) if row["users"] else "any user"
    typer.echo(f"API key {row['name']!r} created for {scope}. It is shown only now:")
    typer.echo(secret)


@cli.command("list")
def list_(json_out: JsonOpt = False) -> None:
    """Every key: name, prefix, allowed users, created, revoked (never the secret)."""

    rows = service().people.keys()
    if json_out:
        emit({"keys": rows})
        return
    for r in rows:
        state = f"revoked {r['revoked_at'][:19]}" if r["revoked_at"] else "active"
        typer.echo(f"{r['name']:<24} {r['prefix']}…  {','.join(r['users']) or 'any user':<30} {state}")


@cli.command("revoke")
def revoke(name: Annotated[str, typer.Argument(help="The key's name.")]) -> None:
    """Revoke a key at once: requests with it get 401 from then on."""

    row = service().people.revoke_key(name, actor=cli_actor())
    typer.echo(f"API key {row['name']!r} revoked")
