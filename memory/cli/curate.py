"""`memlens memory show | edit | flag | unflag | delete | restore`: the Memories page's corrections from a shell.

Each command is the same service operation the back office calls (memory.lifecycle.curation), acting as the OS
user.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from memory.cli.common import JsonOpt, cli_actor, emit, say, service

if TYPE_CHECKING:
    from memory.storage.models import Memory

cli = typer.Typer(help="Look at and correct one memory (by id), as on the Memories page.", no_args_is_help=True)

IdArg = Annotated[str, typer.Argument(help="Memory id (see `memlens memories --json`).")]
ReasonOpt = Annotated[str, typer.Option("--reason", "-r", help="Why (logged with your name).")]


def _done(m: Memory, verb: str, json_out: bool) -> None:
    if json_out:
        emit(service().show_memory(m.id))
        return
    correction = (m.meta or {}).get("correction")
    if verb == "edited" and isinstance(correction, dict):  # an episode: what was said is kept, the correction recorded
        say(f"recorded a correction of {m.id}: said “{m.content}”, corrected to “{correction.get('text')}”")
        return
    say(f"{verb} {m.id}: {m.content}  [{m.status}]")


@cli.command("show")
def show(memory_id: IdArg, json_out: JsonOpt = False) -> None:
    """Content, status, provenance and the full event history of one memory."""
    data = service().show_memory(memory_id)
    if json_out:
        emit(data)
        return
    flag = f" · flagged: {data['flagged']}" if data["flagged"] else ""
    say(f"{data['memory_id']}  [{data['status']}{flag}]  {data['content']}")
    prov = data["provenance"]
    say(f"source {prov['source_type']}  messages {prov['source_message_ids']}  person {prov['person'] or '—'}")
    for line in data["links_text"]:
        say(line)
    for e in data["events"]:
        who = (e["detail"] or {}).get("actor")
        say(f"{e['at'][:19]}  {e['op']:<10} {e['reason']}" + (f"  — {who}" if who else ""))


@cli.command("edit")
def edit(memory_id: IdArg, text: str, reason: ReasonOpt = "edited from the CLI", json_out: JsonOpt = False) -> None:
    """Rewrite a memory's text (stored as your correction; the profile field it states follows)."""
    _done(service().edit_memory(memory_id, text, actor=cli_actor(), reason=reason), "edited", json_out)


@cli.command("supersede")
def supersede(
    memory_id: IdArg, text: str, reason: ReasonOpt = "superseded from the CLI", json_out: JsonOpt = False
) -> None:
    """Replace a memory by a new one (the old one stays in the history, superseded)."""
    new = service().supersede_memory(memory_id, text, actor=cli_actor(), reason=reason)
    _done(new, "superseded by", json_out)


@cli.command("flag")
def flag(memory_id: IdArg, reason: ReasonOpt = "flagged as wrong from the CLI", json_out: JsonOpt = False) -> None:
    """Flag a memory as wrong: kept and visible, never injected again (until unflagged)."""
    _done(service().flag_memory(memory_id, actor=cli_actor(), reason=reason), "flagged", json_out)


@cli.command("unflag")
def unflag(memory_id: IdArg, reason: ReasonOpt = "unflagged from the CLI", json_out: JsonOpt = False) -> None:
    """Take a flag back: the memory is recalled again."""
    _done(service().unflag_memory(memory_id, actor=cli_actor(), reason=reason), "unflagged", json_out)


@cli.command("delete")
def delete(memory_id: IdArg, reason: ReasonOpt = "deleted from the CLI", json_out: JsonOpt = False) -> None:
    """Take a memory out of use (restorable with `memlens memory restore` until purged)."""
    _done(service().delete_memory(memory_id, actor=cli_actor(), reason=reason), "deleted", json_out)


@cli.command("restore")
def restore(memory_id: IdArg, reason: ReasonOpt = "restored from the CLI", json_out: JsonOpt = False) -> None:
    """Bring a deleted (or archived) memory back."""
    _done(service().restore_memory(memory_id, actor=cli_actor(), reason=reason), "restored", json_out)
