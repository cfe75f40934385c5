"""Erasure leaves no copy behind, on SQLite and PostgreSQL: deleting a session removes the write log's copies of its
messages, purging a memory removes its source message's text when nothing else refers to it, and deleting a user
makes the text leave the table files (a raw byte scan of the data folder and of PostgreSQL's files)."""

from __future__ import annotations

from pathlib import Path

from actors import ADMIN
from sqlmodel import select

from memory.storage.models import MemoryEvent, Message


def _files(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in folder.rglob("*") if p.is_file())


def _disk(settings) -> bytes:
    blob = _files(settings.data_dir)
    if settings.database_url and settings.database_url.startswith("postgresql"):
        import psycopg

        with psycopg.connect(settings.database_url.replace("+psycopg", ""), autocommit=True) as conn:
            conn.execute("CHECKPOINT")
            data_dir = conn.execute("SHOW data_directory").fetchone()[0]
            oid = conn.execute("SELECT oid FROM pg_database WHERE datname = current_database()").fetchone()[0]
        blob += _files(Path(data_dir) / "base" / str(oid))
    return blob


def test_delete_session_removes_the_write_logs_copies(backend_plumbing_svc):
    svc = backend_plumbing_svc
    svc.remember("u", "hmm, zqsmalltalk okay", session_id="chat")  # produces no memory: only the write log keeps it
    with svc.storage.db() as db:
        assert any("zqsmalltalk" in e.content for e in db.exec(select(MemoryEvent)).all())
    svc.lifecycle.delete_session("u", "chat", actor=ADMIN)
    with svc.storage.db() as db:
        assert not any("zqsmalltalk" in (e.content + e.reason) for e in db.exec(select(MemoryEvent)).all())


def test_purge_memory_removes_its_source_message(backend_plumbing_svc):
    svc = backend_plumbing_svc
    report = svc.remember("u", "I love zqpurgeme hiking", session_id="chat")
    svc.remember("u", "I live in Porto.", session_id="chat")
    mid = next(op["memory_id"] for op in report.operations if op.get("memory_id"))
    svc.lifecycle.purge_memory(mid, actor=ADMIN)
    with svc.storage.db() as db:
        texts = [m.content for m in db.exec(select(Message)).all()]
        events = [e.content for e in db.exec(select(MemoryEvent)).all()]
    assert not any("zqpurgeme" in t for t in texts + events)
    assert any("Porto" in t for t in texts)  # other messages stay


def test_delete_user_text_leaves_the_files(backend_plumbing_svc, backend_settings):
    svc = backend_plumbing_svc
    for i in range(5):
        svc.remember("gone", f"I love zqerased{i} hiking and my diary says zqerased{i}", session_id="s")
        svc.remember("kept", f"I like tea number {i}", session_id="s")
    svc.recall("gone", "zqerased1 hiking")
    svc.lifecycle.delete_user("gone", actor=ADMIN)
    blob = _disk(backend_settings)
    assert b"I like tea" in blob, "the scan must see the stored text"
    assert b"zqerased" not in blob


def test_no_distinctive_string_of_the_user_is_left_in_any_file(backend_plumbing_svc, backend_settings):
    """Everything that names the user — id, internal key, session and memory ids, message ids' texts, audit free
    text, retrieval queries — is gone from every file after delete-user (PostgreSQL: after a CHECKPOINT)."""
    from memory.vocab import Actor, Role

    svc = backend_plumbing_svc
    uid = "zqdistinct-user-7431"
    report = svc.remember(uid, "I love zqdistinctcontent hiking", session_id="zqdistinct-session")
    svc.remember("kept", "I like tea", session_id="s")
    user = svc.get_user(uid)
    memory_id = next(op["memory_id"] for op in report.operations if op.get("memory_id"))
    session = svc.list_sessions(user)[0]
    extra = svc.add_memory(user, "User likes zqdistinctsecond")
    curator = Actor("zqcurator", Role.ADMIN, "test")
    svc.flag_memory(extra.id, actor=curator, reason="zqdistinctreason flagged")
    svc.recall(uid, "zqdistinctquery about hiking")
    svc.lifecycle.export_user(uid, actor=ADMIN)
    svc.flush_retrieval_log()
    strings = [uid, user.key, session.id, "zqdistinct-session", memory_id, extra.id, "zqdistinctcontent"]
    strings += ["zqdistinctsecond", "zqdistinctreason", "zqdistinctquery"]
    assert all(s.encode() in _disk(backend_settings) for s in strings[:2] + strings[6:7]), "the scan sees them"
    svc.lifecycle.delete_user(uid, actor=ADMIN)
    blob = _disk(backend_settings)
    assert b"I like tea" in blob
    left = [s for s in strings if s.encode() in blob]
    assert left == [], f"{len(left)} of {len(strings)} strings left: {left} in {_where_in(backend_settings, left)}"


def _where_in(settings, strings) -> list[str]:
    """The files (and, on PostgreSQL, the tables) still holding any of ``strings``: the failure says where."""
    found = [
        str(p)
        for p in settings.data_dir.rglob("*")
        if p.is_file() and any(s.encode() in p.read_bytes() for s in strings)
    ]
    if settings.database_url and settings.database_url.startswith("postgresql"):
        import psycopg

        with psycopg.connect(settings.database_url.replace("+psycopg", ""), autocommit=True) as conn:
            data_dir = conn.execute("SHOW data_directory").fetchone()[0]
            oid = conn.execute("SELECT oid FROM pg_database WHERE datname = current_database()").fetchone()[0]
            tables = dict(conn.execute("SELECT relfilenode::text, relname FROM pg_class").fetchall())
        for p in (Path(data_dir) / "base" / str(oid)).iterdir():
            if p.is_file() and any(s.encode() in p.read_bytes() for s in strings):
                found.append(f"{tables.get(p.name.split('_')[0].split('.')[0], p.name)} ({p.name})")
    return found
