"""An erasure killed after its rows step, then a write for the same id (a new user with a new key): finishing the
erasure must not claim the user is gone while the recreated one stays. A rerun of ``delete-user`` erases the
recreated user too and its receipt says so; ``memlens repair`` finishes the interrupted job, leaves the new
user (written after the request) and records a receipt saying it is still there. SQLite and PostgreSQL."""

from __future__ import annotations

import signal

import pytest
from actors import ADMIN
from conftest import worker_context
from test_erasure_complete import _disk
from test_erasure_crash import _erase_and_die, _seed, _svc

from memory.errors import NotFound
from memory.storage.models import ErasureJob


def _killed_after_rows_then_written_again(settings) -> str:
    settings_json = settings.model_dump_json()
    svc = _svc(settings_json)
    _seed(svc)
    svc.close()
    child = worker_context().Process(target=_erase_and_die, args=(settings_json, "index"))  # rows step done
    child.start()
    child.join(120)
    assert child.exitcode == -signal.SIGKILL
    svc = _svc(settings_json)
    svc.remember("gone", "I am back and I collect zqback stamps", session_id="s2")  # the same id, written again
    svc.close()
    return settings_json


def test_a_rerun_erases_the_recreated_user_too_and_says_so(backend_settings):
    settings_json = _killed_after_rows_then_written_again(backend_settings)
    svc = _svc(settings_json)
    paper = svc.lifecycle.erase_user("gone", actor=ADMIN)
    with pytest.raises(NotFound):
        svc.get_user("gone")  # the old rerun finished the job and left the recreated user, receipt and all
    assert "resumed" in paper
    assert paper["recreated"]["removed"]["sql"]["memory"] >= 1 and paper["recreated"]["hashed_ids"]["memories"]
    with svc.storage.db() as db:
        assert db.exec(ErasureJob.__table__.select()).first() is None
    assert svc.lifecycle.erasure_receipts("gone")[0]["recreated"] == paper["recreated"]
    svc.close()
    blob = _disk(backend_settings)
    assert b"I like tea" in blob and b"zqback" not in blob and b"zqcrash" not in blob


def test_repair_finishes_the_job_and_its_receipt_says_the_recreated_user_stays(backend_settings):
    settings_json = _killed_after_rows_then_written_again(backend_settings)
    svc = _svc(settings_json)
    report = svc.repair()
    assert report["erasures_finished"] == 1 and report["erasures_recreated"] == 1
    [paper] = svc.lifecycle.erasure_receipts("gone")
    assert paper["complete"] is False and "still exists" in paper["recreated"]["what"]
    assert paper["recreated"]["still_there"]["memories"] >= 1
    kept = svc.list_memories(svc.get_user("gone"))  # written after the request: kept
    assert "zqback" in " ".join(m.content for m in kept)
    svc.close()
    blob = _disk(backend_settings)
    assert b"zqcrash" not in blob  # what the erasure covered is gone


def test_repair_says_complete_when_nobody_came_back(backend_settings):
    settings_json = backend_settings.model_dump_json()
    svc = _svc(settings_json)
    _seed(svc)
    svc.close()
    child = worker_context().Process(target=_erase_and_die, args=(settings_json, "index"))
    child.start()
    child.join(120)
    svc = _svc(settings_json)
    assert svc.repair()["erasures_recreated"] == 0
    assert svc.lifecycle.erasure_receipts("gone")[0]["complete"] is True
    svc.close()


def test_an_import_waits_for_the_unfinished_erasure_of_its_user(backend_settings, tmp_path):
    """An import for the id of an erasure a crash interrupted is refused, saying why (the erasure's rerun would
    otherwise erase the import too); once the erasure is finished, the same file imports."""
    import json

    from memory.errors import Conflict

    settings_json = backend_settings.model_dump_json()
    svc = _svc(settings_json)
    _seed(svc)
    data = json.loads(json.dumps(svc.lifecycle.export_user("gone", actor=ADMIN)))
    svc.close()
    child = worker_context().Process(target=_erase_and_die, args=(settings_json, "index"))
    child.start()
    child.join(120)
    assert child.exitcode == -signal.SIGKILL
    svc = _svc(settings_json)
    with pytest.raises(Conflict, match="erasure of this user was interrupted"):
        svc.lifecycle.import_user(data, actor=ADMIN)
    with pytest.raises(NotFound):
        svc.get_user("gone")  # nothing imported
    svc.repair()
    assert svc.lifecycle.import_user(data, actor=ADMIN)["memory"] == len(data["tables"]["memory"])
    svc.close()
