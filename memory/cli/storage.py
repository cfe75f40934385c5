"""`memlens repair`: make SQL and the LanceDB index agree (after a crash, or to check)."""

from __future__ import annotations

import typer

from memory.cli.common import JsonOpt, emit, service

cli = typer.Typer()


@cli.command()
def repair(json_out: JsonOpt = False) -> None:
    """Index unindexed memories, drop vectors without an active row (and doubles); SQL is the truth."""
    report = service().repair()
    if json_out:
        emit(report)
    else:
        typer.echo(f"indexed {report['indexed']} memories · removed {report['orphans_removed']} orphan vectors")
