"""`memlens memories` and `memlens profile`, plus the report printer used by `memlens remember`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from memory.cli.common import AgentOpt, JsonOpt, UserOpt, cli_actor, emit, say, service
from memory.errors import InvalidInput
from memory.vocab import MemoryStatus

if TYPE_CHECKING:
    from memory.storage.models import Memory
    from memory.write.pipeline import WriteReport

cli = typer.Typer()


def print_report(report: WriteReport, json_out: bool) -> None:
    if json_out:
        emit(report.to_dict())
        return
    if not report.operations:
        say(f"nothing remembered: {report.reason}")
    for op in report.operations:
        mid = (op["memory_id"] or "")[:12]
        say(f"{op['op']:<9} {mid:<12} {op['content']}  — {op['reason']}")
    for ch in report.profile_changes:
        say(f"profile   {ch['field']}: {ch['old']!r} → {ch['new']!r} ({ch['reason']})")


def memory_dict(m: Memory) -> dict[str, Any]:
    return {
        "memory_id": m.id,
        "type": m.type,
        "content": m.content,
        "subject": m.subject,
        "predicate": m.predicate,
        "object": m.object,
        "source_type": m.source_type,
        "status": m.status,
        "superseded_by": m.superseded_by,
        "confidence": m.confidence,
        "importance": m.importance,
        "reinforce_count": m.reinforce_count,
        "source_message_ids": list(m.source_message_ids or []),
        "agent_id": m.agent_id,
        "event_time": m.event_time.isoformat() if m.event_time else None,
        "created_at": m.created_at.isoformat(),
    }


@cli.command()
def memories(
    user: UserOpt,
    all_: Annotated[bool, typer.Option("--all", help="Include superseded, archived and deleted memories.")] = False,
    agent: AgentOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """List a user's memories (active ones unless --all), newest first."""
    svc = service()
    rows = svc.list_memories(svc.get_user(user), statuses=() if all_ else (MemoryStatus.ACTIVE,), agent_id=agent)
    if json_out:
        emit([memory_dict(m) for m in rows])
        return
    for m in rows:
        extra = f" → {m.superseded_by[:8]}" if m.superseded_by else ""
        say(
            f"{m.id[:12]}  {m.status:<10}{extra} {m.type:<10} {m.source_type:<11} conf {m.confidence:.2f} "
            f"imp {m.importance:.2f}  {m.content}"
        )


def _edits(set_: list[str], clear: list[str]) -> list[tuple[str, str | None]]:
    """``--set FIELD=VALUE`` and ``--clear FIELD`` as (field, value or None), in the order given."""
    out: list[tuple[str, str | None]] = []
    for item in set_:
        name, eq, value = item.partition("=")
        if not eq or not name.strip() or not value.strip():
            raise InvalidInput(f"--set takes FIELD=VALUE (e.g. city=Seville), not {item!r}")
        out.append((name.strip(), value.strip()))
    return out + [(name.strip(), None) for name in clear]


@cli.command()
def profile(
    user: UserOpt,
    set_: Annotated[
        list[str] | None,
        typer.Option("--set", help="Set a field as your edit, FIELD=VALUE (list fields: comma-separated)."),
    ] = None,
    clear: Annotated[list[str] | None, typer.Option("--clear", help="Clear a field (its memories deleted).")] = None,
    reason: Annotated[str, typer.Option("--reason", "-r", help="Why (logged with your name).")] = "edited from the CLI",
    json_out: JsonOpt = False,
) -> None:
    """Show a user's core profile and its change log; --set / --clear edit a field as the Profile page does (the
    memories stating the old value, the replies restating it and the bridges follow; `memlens memory restore` of a
    deleted memory brings its value back)."""
    from memory import profile as fields_of

    svc = service()
    for name, value in _edits(set_ or [], clear or []):
        listed = None
        if value and name in fields_of.LIST_FIELDS:  # comma-separated, a Chinese comma too (as on the Profile page)
            listed = [v.strip() for v in value.replace("，", ",").split(",") if v.strip()]
        svc.update_profile(user, name, listed if listed is not None else value, actor=cli_actor(), reason=reason)
    fields = svc.profile_fields(user)
    changes = svc.profile_history(user)
    data: dict[str, Any] = {
        "profile": {
            name: {
                "value": f.value,
                "confidence": f.confidence,
                "version": f.version,
                "source": f.source,
                "memory_ids": dict(f.memory_ids or {}),
                "updated_at": f.updated_at.isoformat(),
            }
            for name, f in fields.items()
        },
        "changes": [
            {
                "field": c.field,
                "old": c.old_value,
                "new": c.new_value,
                "source": c.source,
                "source_message_id": c.source_message_id,
                "memory_id": c.memory_id,
                "actor": c.actor,
                "reason": c.reason,
                "at": c.at.isoformat(),
            }
            for c in changes
        ],
    }
    if json_out:
        emit(data)
        return
    for name, f in data["profile"].items():
        say(f"{name:<20} {f['value']!r}  (confidence {f['confidence']:.2f}, v{f['version']})")
    say("-- changes --")
    for c in data["changes"]:
        say(f"{c['at'][:19]} {c['field']}: {c['old']!r} → {c['new']!r}  [{c['source']}] {c['reason']}")
