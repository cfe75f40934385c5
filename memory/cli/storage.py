"""`memlens repair`: make SQL and the LanceDB index agree (after a crash, or to check)."""

from __future__ import annotations

import typer

from memory.cli.common import JsonOpt, emit, service

cli = typer.Typer()


@cli.command()
def repair(json_out: JsonOpt = False) -> None:
    """Finish erasures a crash interrupted, index unindexed memories, drop vectors without an active row (and
    doubles); SQL is the truth."""
    report = service().repair()
    if json_out:
        emit(report)
    else:
        finished = (
            f" · finished {report['erasures_finished']} interrupted erasures" if "erasures_finished" in report else ""
        )
        if report.get("erasures_recreated"):
            finished += (
                f" ({report['erasures_recreated']} of their users were written again after the erasure began and "
                "still exist: delete them again to erase them)"
            )
        typer.echo(
            f"indexed {report['indexed']} memories · removed {report['orphans_removed']} orphan vectors{finished}"
        )
