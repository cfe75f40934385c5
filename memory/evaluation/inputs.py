"""The one folder the back office may read evaluation data from: ``<data_dir>/eval/inputs``.

The Evaluation page used to take any server path, so a viewer could make the server read any file (and learn from
the error whether ``/etc/passwd`` exists). Now a person picks a file *name* among those an operator put in this
folder (copy or symlink LoCoMo-format JSON there); a name that is not one of them gets the same answer whether or
not such a file exists anywhere. The CLI (``memlens eval locomo PATH``) still reads any path: its caller already
has the server's shell.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory.access import check
from memory.errors import NotFound
from memory.vocab import Actor, AuditAction, Role

if TYPE_CHECKING:
    from memory.evaluation.runner import EvalOptions
    from memory.service import MemoryService

SUFFIXES = (".json",)


def inputs_dir(data_dir: str | Path) -> Path:
    return Path(data_dir) / "eval" / "inputs"


def list_inputs(data_dir: str | Path) -> list[str]:
    """The file names a person may evaluate, sorted."""
    folder = inputs_dir(data_dir)
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if p.suffix in SUFFIXES and p.is_file())


def resolve_input(data_dir: str | Path, name: str) -> Path:
    """The path of ``name`` in the inputs folder; NotFound (one message, naming nothing else) for any other name:
    a path, ``..``, a missing file."""
    if not isinstance(name, str) or name not in list_inputs(data_dir):
        raise NotFound("no such evaluation input: pick one of the files in the evaluation inputs folder")
    return inputs_dir(data_dir) / name


def allowed_inputs(svc: MemoryService, *, actor: Actor) -> list[str]:
    """The evaluation data files an admin may run (the back office's list; admin only)."""
    check(svc.storage, actor, Role.ADMIN, "list evaluation inputs")
    return list_inputs(svc.settings.data_dir)


def run_input(
    svc: MemoryService, name: str, opts: EvalOptions, *, actor: Actor, bar: Callable[..., Any] | None = None
) -> Path:
    """Run LoCoMo evidence recall on one file of the inputs folder and save its report (admin; audited before it
    starts: a long CPU job). Returns the saved report's path."""
    from memory import audit
    from memory.evaluation.runner import eval_service, reports_dir, run_locomo, save_report

    actor = check(svc.storage, actor, Role.ADMIN, "run an evaluation")
    path = resolve_input(svc.settings.data_dir, name)
    detail = {"input": name, "mode": str(opts.mode), "ks": list(opts.ks), "extract": bool(opts.extract)}
    audit.record(svc.storage, actor, AuditAction.EVALUATE, target_ids=[name], detail=detail)
    return save_report(run_locomo(eval_service(svc), path, opts, bar=bar), reports_dir(svc))
