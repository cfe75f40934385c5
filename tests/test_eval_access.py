"""The evaluation job is admin-only, reads only the evaluation inputs folder, reveals nothing about other paths and
is audited (issue #28, item 5). Before: the page took any server path from any signed-in person, its error said
whether the file existed, the report was written into the data folder and nothing was audited."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from actors import ADMIN, VIEWER
from sqlmodel import select

from memory.errors import Forbidden, NotFound
from memory.evaluation import EvalOptions
from memory.evaluation.inputs import allowed_inputs, run_input
from memory.service import MemoryService
from memory.storage.people import AuditEvent

TINY = Path(__file__).parent / "data" / "tiny_locomo_format.json"


def _audit(svc: MemoryService) -> list[AuditEvent]:
    with svc.storage.db() as db:
        return list(db.exec(select(AuditEvent).order_by(AuditEvent.id)).all())


def test_a_viewer_may_not_list_or_run_and_is_audited_as_denied(plumbing_svc: MemoryService):
    with pytest.raises(Forbidden):
        run_input(plumbing_svc, "tiny.json", EvalOptions(ks=(1,)), actor=VIEWER)
    with pytest.raises(Forbidden):
        allowed_inputs(plumbing_svc, actor=VIEWER)
    assert [e.action for e in _audit(plumbing_svc)] == ["denied", "denied"]


@pytest.mark.parametrize("name", ["/etc/passwd", "/etc/no-such-file", "../../etc/passwd", "missing.json", "..", ""])
def test_any_other_name_gets_one_answer_naming_nothing(plumbing_svc: MemoryService, name: str):
    inputs = Path(plumbing_svc.settings.data_dir) / "eval" / "inputs"
    inputs.mkdir(parents=True)
    shutil.copy(TINY, inputs / "tiny.json")
    with pytest.raises(NotFound) as err:
        run_input(plumbing_svc, name, EvalOptions(ks=(1,)), actor=ADMIN)
    assert str(err.value) == "no such evaluation input: pick one of the files in the evaluation inputs folder"
    assert not (Path(plumbing_svc.settings.data_dir) / "eval" / "store").exists()  # nothing started, nothing written
    assert [e.action for e in _audit(plumbing_svc)] == []


def test_an_admin_runs_a_file_of_the_inputs_folder_audited_once(plumbing_svc: MemoryService):
    inputs = Path(plumbing_svc.settings.data_dir) / "eval" / "inputs"
    inputs.mkdir(parents=True)
    shutil.copy(TINY, inputs / "tiny.json")
    assert allowed_inputs(plumbing_svc, actor=ADMIN) == ["tiny.json"]
    saved = run_input(plumbing_svc, "tiny.json", EvalOptions(ks=(1, 3), baselines=False), actor=ADMIN)
    assert saved.exists() and saved.parent == Path(plumbing_svc.settings.data_dir) / "eval"
    runs = [e for e in _audit(plumbing_svc) if e.action == "evaluate"]
    assert len(runs) == 1 and runs[0].actor == ADMIN.name and runs[0].target_ids == ["tiny.json"]
