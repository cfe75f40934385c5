"""An import killed after its SQL commit, before its memories reached the index: the next start indexes every one
of them (the start-up check), however many — not the start-up's usual handful, leaving the rest unsearchable until
``memlens repair``. SQLite and PostgreSQL; the hash embedder."""

from __future__ import annotations

import json
import os
import signal

from actors import ADMIN
from conftest import worker_context

from memory.config import Settings
from memory.service import MemoryService
from memory.storage import integrity
from memory.storage.embed import HashEmbedder
from memory.storage.models import Memory
from memory.storage.records import MemoryDraft

MANY = integrity.STARTUP_LIMIT + 44


def _svc(settings_json: str) -> MemoryService:
    return MemoryService(Settings.model_validate_json(settings_json), embedder=HashEmbedder())


def _die(*_args, **_kwargs):
    os.kill(os.getpid(), signal.SIGKILL)


def _import_and_die(settings_json: str, path: str) -> None:
    """Child process: import the file, killed once the rows are committed, before any is indexed."""
    from memory.storage import indexing

    indexing.index_memories = _die
    with open(path, encoding="utf-8") as f:
        _svc(settings_json).lifecycle.import_user(json.load(f), actor=ADMIN)


def _unindexed(svc: MemoryService) -> int:
    with svc.storage.db() as db:
        return len(db.exec(Memory.__table__.select().where(Memory.__table__.c.indexed.is_(False))).all())


def test_an_import_killed_after_its_commit_is_indexed_at_the_next_start(backend_settings, tmp_path):
    settings_json = backend_settings.model_dump_json()
    svc = _svc(settings_json)
    user = svc.ensure_user("moved")
    drafts = [MemoryDraft(content=f"note {i} about zqimport rowing club {i}") for i in range(MANY)]
    svc.add_memories(user, drafts)
    path = tmp_path / "moved.json"
    path.write_text(json.dumps(svc.lifecycle.export_user("moved", actor=ADMIN)), encoding="utf-8")
    svc.lifecycle.delete_user("moved", actor=ADMIN)
    svc.close()

    child = worker_context().Process(target=_import_and_die, args=(settings_json, str(path)))
    child.start()
    child.join(120)
    assert child.exitcode == -signal.SIGKILL, "the child must have been killed between commit and index"

    svc = _svc(settings_json)
    assert _unindexed(svc) == MANY  # committed, never indexed
    last = f"note {MANY - 1} about zqimport rowing club {MANY - 1}"
    hits = svc.recall("moved", last, threshold=-1.0, mode="vector", log=False).hits  # first use: the start-up check
    assert _unindexed(svc) == 0
    assert hits and hits[0].content == last
    assert svc.storage.index.count(svc.get_user("moved").key) == MANY
    svc.close()
