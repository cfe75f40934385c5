"""`memlens account add | list | passwd | remove` and `memlens audit`: back-office accounts and the audit trail.

The CLI acts as the OS user (an admin: whoever runs it can read the data files anyway); each change is audited
under that name. Passwords come from a prompt (typed twice, not echoed) or, with ``--password-stdin``, from the
first line of standard input; they are never printed or logged.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from memory.cli.common import JsonOpt, cli_actor, emit, say, service
from memory.errors import InvalidInput
from memory.vocab import AuditAction, Role

#: `memlens account …` (a group) and `memlens audit` (a top-level command); memory.cli.main registers both
account_cli = typer.Typer(help="Back-office accounts (sign-in for the Streamlit app).", no_args_is_help=True)
cli = typer.Typer()

NameArg = Annotated[str, typer.Argument(help="Account name (any printable text, like a user id).")]
StdinOpt = Annotated[bool, typer.Option("--password-stdin", help="Read the password from the first line of stdin.")]


def _password(from_stdin: bool) -> str:
    if from_stdin:
        line = sys.stdin.readline().rstrip("\r\n")
        if not line:
            raise InvalidInput("no password on standard input")
        return line
    return typer.prompt("Password", hide_input=True, confirmation_prompt=True)


@account_cli.command("add")
def account_add(
    name: NameArg,
    role: Annotated[Role, typer.Option("--role", help="viewer (read) | curator (also edit) | admin (everything).")],
    password_stdin: StdinOpt = False,
) -> None:
    """Create an account that can sign in to the back office."""
    from memory import accounts  # imported per command (argon2, SQL): `memlens --help` stays cheap

    name = accounts.check_name(name)
    info = service().people.add_account(name, role, _password(password_stdin), actor=cli_actor())
    say(f"added {info.name!r} as {info.role}")


@account_cli.command("list")
def account_list(json_out: JsonOpt = False) -> None:
    """Every account with its role (never a password)."""

    rows = service().people.list_accounts()
    if json_out:
        emit({"accounts": [{"name": r.name, "role": str(r.role), "created_at": r.created_at} for r in rows]})
        return
    for r in rows:
        say(f"{r.name[:60]:<60} {r.role}")


@account_cli.command("passwd")
def account_passwd(name: NameArg, password_stdin: StdinOpt = False) -> None:
    """Set a new password for an account."""

    service().people.set_password(name, _password(password_stdin), actor=cli_actor())
    say(f"password changed for {name!r}")


@account_cli.command("remove")
def account_remove(name: NameArg) -> None:
    """Delete an account (its audit rows stay)."""

    service().people.remove_account(name, actor=cli_actor())
    say(f"removed {name!r}")


@cli.command("audit")
def audit_cmd(
    actor: Annotated[str | None, typer.Option("--actor", help="Only this person's actions.")] = None,
    user: Annotated[str | None, typer.Option("--user", "-u", help="Only actions on this user (erased too).")] = None,
    action: Annotated[AuditAction | None, typer.Option("--action", help="Only this kind of action.")] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, help="Newest rows at most.")] = 200,
    json_out: JsonOpt = False,
) -> None:
    """The audit trail, newest first: who did what to which user and ids, when, and why."""
    from memory import audit

    rows = [
        audit.to_dict(r) for r in service().people.audit_events(actor=actor, action=action, user_id=user, limit=limit)
    ]
    if json_out:
        emit({"events": rows})
        return
    for r in rows:
        who = f"{r['actor'][:30]} ({r['role']}, {r['via']})"
        target = (r["user_id"] or (r["user_hash"] or "")[:12])[:40]
        say(f"{r['at'][:19]}  {who:<45} {r['action']:<16} {target:<40} {r['reason'][:60]}")
