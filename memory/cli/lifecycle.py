"""`memlens forget | compact | export | import | delete-user | delete-session | purge-memory | stats`."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer

from memory.cli.common import AgentOpt, JsonOpt, UserOpt, cli_actor, emit, say, service
from memory.errors import InvalidInput

AnyUserOpt = Annotated[str | None, typer.Option("--user", "-u", help="External user id (default: every user).")]
DryRunOpt = Annotated[bool, typer.Option("--dry-run", help="Only say what would happen.")]
NowOpt = Annotated[str | None, typer.Option("--now", help="Pretend it is this ISO time (replays, demos).")]
YesOpt = Annotated[bool, typer.Option("--yes", help="Confirm: this cannot be undone.")]
#: accepted for old scripts and ignored: erasure no longer waits for running sessions
ForceOpt = Annotated[bool, typer.Option("--force", hidden=True, help="No longer needed (ignored).")]

cli = typer.Typer()


def _now(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        from memory.lifecycle.retention import aware

        return aware(datetime.fromisoformat(value))
    except ValueError:
        raise InvalidInput(f"--now {value!r} is not an ISO-8601 time") from None


def _confirm(yes: bool, what: str) -> None:
    if not yes:
        raise InvalidInput(f"{what} cannot be undone: add --yes to confirm")


@cli.command()
def forget(user: AnyUserOpt = None, dry_run: DryRunOpt = False, now: NowOpt = None, json_out: JsonOpt = False) -> None:
    """Archive expired, faded and over-cap memories; purge archived ones past retention. Says why for each."""
    report = service().lifecycle.forget(user, dry_run=dry_run, now=_now(now), actor=cli_actor()).to_dict()
    if json_out:
        emit(report)
        return
    verb = "would" if dry_run else "did"
    say(f"{verb} archive {report['archived']} and delete {report['deleted']} memories {report['by_rule']}")
    for a in report["actions"]:
        say(f"{a['action']:<7} {a['memory_id']}  [{a['rule']}] {a['reason']}  — {a['content'][:60]}")


@cli.command()
def compact(user: AnyUserOpt = None, dry_run: DryRunOpt = False, now: NowOpt = None, json_out: JsonOpt = False) -> None:
    """Merge near-duplicate / same-topic memories into one record that keeps every source."""
    report = service().lifecycle.compact(user, dry_run=dry_run, now=_now(now), actor=cli_actor()).to_dict()
    if json_out:
        emit(report)
        return
    verb = "would merge" if dry_run else "merged"
    say(f"{verb} {report['superseded']} memories into {report['merged_groups']}")
    for m in report["merges"]:
        say(f"{m['merged_id']} ← {len(m['source_ids'])}: {m['content'][:80]}  ({m['reason'][:120]})")


@cli.command()
def export(
    user: UserOpt, out: Annotated[Path | None, typer.Option("--out", "-o", help="File (default: stdout).")] = None
) -> None:
    """Write everything about a user as JSON (profile, change log, memories and their history, sessions, …)."""
    text = json.dumps(
        service().lifecycle.export_user(user, actor=cli_actor()), ensure_ascii=False, indent=1, sort_keys=True
    )
    if out is None:
        say(text)
        return
    out.write_text(text + "\n", encoding="utf-8")
    say(f"exported to {out}")


@cli.command("import")
def import_(
    file: Annotated[Path, typer.Argument(help="A file written by `memlens export`.")], json_out: JsonOpt = False
) -> None:
    """Restore a user from an export (refuses if the user or any id already exists)."""
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InvalidInput(f"cannot read {file}: {exc}") from None
    counts = service().lifecycle.import_user(data, actor=cli_actor())
    if json_out:
        emit({"imported": counts})
    else:
        say("imported " + ", ".join(f"{n} {t}" for t, n in counts.items()))


@cli.command("delete-user")
def delete_user(user: UserOpt, yes: YesOpt = False, force: ForceOpt = False, json_out: JsonOpt = False) -> None:
    """Delete a user completely and at once (even mid-conversation): SQL, vectors, agent checkpoints; reclaims the
    disk space holding the text."""
    _confirm(yes, "deleting a user")
    del force
    paper = service().lifecycle.erase_user(user, actor=cli_actor())  # the erasure receipt, also kept in the audit trail
    counts = {**paper["removed"]["sql"], "checkpoints": paper["removed"]["checkpoints"]}
    if json_out:
        emit({"deleted": counts, "receipt": paper})
    else:
        say(f"deleted user ({sum(counts.values())} rows, {paper['totals']['vectors']} vectors)")
        say(f"receipt {paper['receipt_id']} (memlens audit --json shows it again)")


@cli.command("delete-session")
def delete_session(
    user: UserOpt,
    session: Annotated[str, typer.Option("--session", "-s", help="Session id.")],
    agent: AgentOpt = None,
    yes: YesOpt = False,
    force: ForceOpt = False,
    json_out: JsonOpt = False,
) -> None:
    """Delete one session (messages, summaries, turns, retrievals, checkpoints); its memories stay."""
    _confirm(yes, "deleting a session")
    del force
    counts = service().lifecycle.delete_session(user, session, agent_id=agent, actor=cli_actor())
    emit({"deleted": counts}) if json_out else say(f"deleted session ({sum(counts.values())} rows)")


@cli.command("purge-memory")
def purge_memory(memory_id: str, yes: YesOpt = False, json_out: JsonOpt = False) -> None:
    """Delete one memory for good (row, history, hits, vector)."""
    _confirm(yes, "purging a memory")
    counts = service().lifecycle.purge_memory(memory_id, actor=cli_actor())
    emit({"deleted": counts}) if json_out else say(f"purged {memory_id}")


@cli.command()
def stats(user: UserOpt, json_out: JsonOpt = False) -> None:
    """Counts, most frequent interests and topics, typical budget; lists rows that had to be skipped."""
    result = service().lifecycle.user_stats(user)
    if json_out:
        emit(result)
        return
    say(f"sessions {result['sessions']} · memories {result['memories']}")
    say("interests: " + ", ".join(f"{i['value']} ×{i['count']}" for i in result["interests"]))
    say("topics: " + ", ".join(f"{t['value']} ×{t['count']}" for t in result["topics"]))
    say(f"typical budget: {result['typical_budget']}")
    for p in result["problems"]:
        say(f"skipped {p['table']} {p['id']}: {p['problem']}")
