"""The engine on each SQL backend: the same service tests on a SQLite file and on a real PostgreSQL server.

The ``backend`` fixture (tests/conftest.py) runs each test twice; the postgres case gets a fresh database on the
server started by .ci/postgres.sh (``MEMLENS_TEST_PG_URL``) and skips with the reason when there is none.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
from actors import ADMIN
from sqlalchemy import inspect, text
from sqlalchemy.orm.exc import StaleDataError
from sqlmodel import select

from memory.errors import Conflict
from memory.service import MemoryDraft, MemoryService
from memory.storage.db import migrate, retrying
from memory.storage.migrations import MIGRATIONS
from memory.storage.models import Memory, ProfileField, SchemaMigration
from memory.vocab import Actor, Role

PERSON = Actor("tester", Role.CURATOR, "test")


def test_migrations_apply_once_even_when_processes_start_together(backend_settings, hash_embedder):
    services = [MemoryService(backend_settings, embedder=hash_embedder) for _ in range(3)]
    errors: list[BaseException] = []

    def start(svc: MemoryService) -> None:
        try:
            svc.ensure_user("same user")  # connects and migrates
        except BaseException as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=start, args=(s,)) for s in services]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors
    svc = services[0]
    assert migrate(svc.storage.engine) == []
    with svc.storage.db() as db:
        assert [m.version for m in db.exec(select(SchemaMigration)).all()] == [m.version for m in MIGRATIONS]
    assert len({s.get_user("same user").key for s in services}) == 1
    columns = {c["name"]: c for c in inspect(svc.storage.engine).get_columns("memory")}
    assert {"version", "indexed", "meta"} <= set(columns)
    if svc.storage.engine.dialect.name == "postgresql":
        assert str(columns["meta"]["type"]) == "JSONB" and columns["created_at"]["type"].timezone
    for s in services:
        s.close()


def test_rows_round_trip_with_aware_times_and_json(backend_plumbing_svc):
    svc = backend_plumbing_svc
    user = svc.ensure_user("张三")
    session = svc.ensure_session(user, "会话-1")
    at = datetime(2024, 2, 29, 23, 59, 59, 123456, tzinfo=UTC)
    msg = svc.add_message(session, "user", "我住在杭州", created_at=at, meta={"来源": ["web", {"深": 1}]})
    mem = svc.add_memories(
        user,
        [
            MemoryDraft(
                "用户住在杭州",
                source_message_ids=[msg.id],
                event_time=at,
                meta={"evidence": "我住在杭州", "nested": {"list": [1, 2.5, None]}},
            )
        ],
    )[0]
    back = svc.messages(session.id)[0]
    assert back.created_at == at and back.created_at.tzinfo is not None and back.meta == {"来源": ["web", {"深": 1}]}
    got = svc.get_memory(mem.id)
    assert got.event_time == at and got.created_at.tzinfo is not None
    assert got.source_message_ids == [msg.id] and got.meta["nested"] == {"list": [1, 2.5, None]}
    assert got.created_at <= datetime.now(UTC) + timedelta(seconds=5)
    with svc.storage.db() as db:  # DISTINCT over rows with JSON columns (PostgreSQL json has no equality; jsonb has)
        assert len(db.exec(select(Memory).distinct()).all()) == 1
    assert svc.set_live_settings({"top_k": 7, "relative_cut": 0.05}, actor=ADMIN).top_k == 7
    assert svc.effective_settings().relative_cut == 0.05


def test_recall_means_the_same_on_both_backends(backend_svc):
    svc = backend_svc
    user = svc.ensure_user("u")
    svc.add_memories(
        user,
        [
            MemoryDraft(t)
            for t in (
                "The user is vegetarian and never eats meat",
                "用户住在杭州，喜欢西湖",
                "The user plays tennis on Saturdays",
            )
        ],
    )
    # the same ranking on both backends (the cut of a three-memory store is the calibration's business)
    food = svc.recall("u", "what food should I avoid ordering?", threshold=-1.0).hits
    assert food[0].content.startswith("The user is veg")
    assert svc.recall("u", "他住在哪个城市？", threshold=-1.0).hits[0].content == "用户住在杭州，喜欢西湖"
    hits = svc.recall("u", "tennis", threshold=-1.0).hits
    assert hits[0].content == "The user plays tennis on Saturdays" and hits[0].fts_score is not None


def test_reindex_pages_through_every_row_and_repair_settles(backend_plumbing_svc):
    svc = backend_plumbing_svc
    users = [svc.ensure_user(f"u{i}") for i in range(3)]
    ids = [
        m.id
        for u in users
        for m in svc.add_memories(u, [MemoryDraft(f"note {i} of {u.external_id}") for i in range(9)])
    ]
    svc.delete_memory(ids[0], actor=ADMIN)
    assert svc.reindex(batch=4) == 26 and svc.storage.index.ids() == set(ids[1:])
    assert svc.repair() == {"indexed": 0, "orphans_removed": 0}


def test_memory_rows_carry_optimistic_versions(backend_plumbing_svc):
    svc = backend_plumbing_svc
    mem = svc.add_memory(svc.ensure_user("v"), "a memory edited by two people at once")
    with svc.storage.db() as first, svc.storage.db() as second:
        a, b = first.get(Memory, mem.id), second.get(Memory, mem.id)
        a.content = "first edit"
        first.commit()
        b.content = "second edit, made from a stale read"
        with pytest.raises(StaleDataError):
            second.commit()
    got = svc.get_memory(mem.id)
    assert (got.content, got.version) == ("first edit", 2)

    calls = []

    @retrying(attempts=3)
    def always_stale() -> None:
        calls.append(1)
        raise StaleDataError("lost the race")

    with pytest.raises(Conflict, match="3 tries"):
        always_stale()
    assert len(calls) == 3


def test_concurrent_status_changes_all_land(backend_plumbing_svc):
    svc = backend_plumbing_svc
    mems = svc.add_memories(svc.ensure_user("t"), [MemoryDraft(f"memory {i}") for i in range(6)])
    errors: list[BaseException] = []

    def flip(m: Memory) -> None:
        try:
            for status in ("archived", "active", "archived"):
                svc.set_status(m.id, status, reason="thread test")
        except BaseException as exc:  # noqa: BLE001 - asserted below
            errors.append(exc)

    threads = [threading.Thread(target=flip, args=(m,)) for m in mems]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors
    assert {svc.get_memory(m.id).status for m in mems} == {"archived"} and svc.storage.index.count() == 0
    assert {svc.get_memory(m.id).version for m in mems} == {4}


def test_write_pipeline_profile_and_deletion_on_each_backend(backend_svc):
    svc = backend_svc
    svc.remember("lin", "I live in Hangzhou and my budget is 5000")
    svc.remember("lin", "我不吃辣")
    svc.remember("lin", "I moved to Shanghai")
    profile = svc.get_profile("lin")
    assert profile["city"] == "Shanghai" and profile["budget"]
    fields = svc.profile_fields("lin")
    assert isinstance(fields["city"], ProfileField) and fields["city"].version >= 2
    with pytest.raises(Conflict):
        svc.update_profile("lin", "city", "Beijing", actor=PERSON, expected_version=fields["city"].version - 1)
    svc.update_profile("lin", "city", "Beijing", actor=PERSON, expected_version=fields["city"].version)
    assert [c.new_value for c in svc.profile_history("lin") if c.field == "city"][-1] == "Beijing"
    statuses = {m.content: m.status for m in svc.list_memories(svc.get_user("lin"), statuses=())}
    assert "superseded" in statuses.values()
    svc.remember("other", "I live in Paris")
    dump = svc.lifecycle.export_user("lin", actor=ADMIN)
    assert dump["user"]["external_id"] == "lin"
    svc.lifecycle.delete_user("lin", actor=ADMIN)
    assert [u["user_id"] for u in svc.list_users()] == ["other"]
    assert svc.storage.index.count() == len(svc.list_memories(svc.get_user("other")))


def test_agent_checkpoints_live_in_the_memlens_database(backend_plumbing_svc):
    from agent.runtime import Agent

    svc = backend_plumbing_svc
    bot = Agent(svc)
    try:
        first = bot.chat("ana", "trip", "I live in Lisbon and I like surfing")
        second = bot.chat("ana", "trip", "where do I live?")
    finally:
        bot.close()
    assert "Lisbon" in second.reply and first.session_id == second.session_id
    session = svc.ensure_session(svc.get_user("ana"), "trip")
    with svc.storage.engine.connect() as conn:
        n = conn.execute(text("SELECT count(*) FROM checkpoints WHERE thread_id = :t"), {"t": session.id}).scalar()
    assert n >= 2


def test_checkpointer_setup_survives_processes_starting_together(backend_settings):
    from agent.checkpoint import close_checkpointer, make_checkpointer

    MemoryService(backend_settings).storage.engine.dispose()  # the MemLens schema first, as an app process would
    errors: list[BaseException] = []
    savers = []

    def start() -> None:
        try:
            savers.append(make_checkpointer(backend_settings))
        except BaseException as exc:  # noqa: BLE001 - asserted below
            errors.append(exc)

    threads = [threading.Thread(target=start) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    for saver in savers:
        close_checkpointer(saver)
    assert not errors and len(savers) == 4
