"""Migrations: a database made by the first release's code upgrades to the current schema, keeps its rows, and ends
up with exactly the schema a fresh database gets (which is exactly what the models describe) — SQLite and PostgreSQL.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg
import pytest
import sqlalchemy as sa
from conftest import drop_pg_database, fresh_pg_database
from sqlalchemy import Engine, inspect
from sqlmodel import SQLModel

from memory.config import Settings
from memory.service import MemoryService
from memory.storage import models
from memory.storage.db import make_engine, migrate
from memory.storage.migrations import MIGRATIONS, Migration, add_column, apply_pending
from memory.vocab import SEMANTIC_TYPES, EventOp

DATA = Path(__file__).parent / "data"
#: tables other libraries keep in the same database (LangGraph's checkpointer)
FOREIGN_TABLES = {"checkpoints", "writes", "checkpoint_blobs", "checkpoint_writes", "checkpoint_migrations"}


def schema_of(engine: Engine) -> dict[str, Any]:
    """Everything inspection reports that matters: columns (type, nullability, defaults), keys, indexes, uniques."""
    insp = inspect(engine)
    out: dict[str, Any] = {}
    for table in sorted(set(insp.get_table_names()) - FOREIGN_TABLES):
        out[table] = {
            "columns": {
                c["name"]: (str(c["type"]), c["nullable"], str(c.get("default"))) for c in insp.get_columns(table)
            },
            "pk": sorted(insp.get_pk_constraint(table)["constrained_columns"]),
            "fks": sorted(
                (tuple(f["constrained_columns"]), f["referred_table"], tuple(f["referred_columns"]))
                for f in insp.get_foreign_keys(table)
            ),
            "indexes": sorted(
                (i["name"], tuple(i["column_names"]), bool(i["unique"])) for i in insp.get_indexes(table)
            ),
            "uniques": sorted(tuple(u["column_names"]) for u in insp.get_unique_constraints(table)),
        }
    return out


def rows_of(engine: Engine) -> dict[str, list[dict[str, Any]]]:
    meta = sa.MetaData()
    meta.reflect(engine)
    with engine.connect() as conn:
        return {
            name: [dict(r._mapping) for r in conn.execute(sa.select(t).order_by(*t.primary_key.columns))]
            for name, t in meta.tables.items()
            if name not in FOREIGN_TABLES
        }


@pytest.fixture
def db_url(backend, tmp_path, request):
    """An empty database on the chosen backend."""
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'db.sqlite'}"
        return
    url = fresh_pg_database(request.node.name)
    yield url
    drop_pg_database(url)


def load_first_release(url: str) -> None:
    """Restore the fixture dump made by commit fd058ec's code into the empty database at ``url``."""
    if url.startswith("sqlite"):
        import sqlite3

        with sqlite3.connect(url.removeprefix("sqlite:///")) as conn:
            conn.executescript((DATA / "first_release_fd058ec.sqlite.sql").read_text(encoding="utf-8"))
        return
    with psycopg.connect(url.replace("+psycopg", ""), autocommit=True) as conn:
        conn.execute((DATA / "first_release_fd058ec.postgresql.sql").read_text(encoding="utf-8"))  # type: ignore[arg-type]


def engine_for(url: str, tmp_path: Path) -> Engine:
    return make_engine(Settings(data_dir=tmp_path / "data", database_url=url))


def test_a_fresh_database_gets_exactly_the_models_schema(db_url, tmp_path):
    """Guards the rule for everyone adding tables: a model change without its migration fails here."""
    engine = engine_for(db_url, tmp_path)
    assert migrate(engine) == [m.version for m in MIGRATIONS]
    migrated = schema_of(engine)
    with engine.begin() as conn:
        for table in reversed(SQLModel.metadata.sorted_tables):
            table.drop(conn)
    SQLModel.metadata.create_all(engine)
    assert schema_of(engine) == migrated
    engine.dispose()


def test_a_first_release_database_upgrades_and_keeps_its_rows(db_url, tmp_path):
    load_first_release(db_url)
    old = engine_for(db_url, tmp_path)
    before = rows_of(old)
    assert (
        len(before["memory"]) == 6
        and len(before["user"]) == 3
        and [r["version"] for r in before["schemamigration"]] == [1]
    )

    assert "SUPERSEDED" in {r["op"] for r in before["memoryevent"]}  # the old pipeline/set_status spelling
    applied = migrate(old)
    assert applied == [m.version for m in MIGRATIONS[1:]]
    after = rows_of(old)
    # 0004: the stored raw-similarity threshold (0.82, not the old default) lives on as the similarity floor
    moved = {r["key"]: r["value"] for r in after["setting"]}
    assert "similarity_threshold" not in moved and moved["similarity_floor"] == 0.82
    before["setting"] = [
        {**r, "key": "similarity_floor"} if r["key"] == "similarity_threshold" else r for r in before["setting"]
    ]
    after["setting"] = sorted(after["setting"], key=lambda r: [x["key"] for x in before["setting"]].index(r["key"]))
    assert {r["op"] for r in after["memoryevent"]} <= set(EventOp)
    renamed = {"SUPERSEDED": "SUPERSEDE", "ARCHIVED": "ARCHIVE", "DELETED": "DELETE", "ACTIVE": "RESTORE"}  # 0005
    before["memoryevent"] = [{**r, "op": renamed.get(r["op"], r["op"])} for r in before["memoryevent"]]
    for table, rows in before.items():  # every old row, every old column, unchanged (new columns may be added)
        kept = [{k: r[k] for k in rows[0]} for r in after[table][: len(rows)]] if rows else []
        assert kept == rows, table
    assert len(after["schemamigration"]) == len(MIGRATIONS)
    upgraded = schema_of(old)
    old.dispose()

    fresh_url = db_url.replace("db.sqlite", "fresh.sqlite") if db_url.startswith("sqlite") else None
    if fresh_url is None:
        fresh_url = fresh_pg_database("fresh")
    fresh = engine_for(fresh_url, tmp_path)
    try:
        migrate(fresh)
        assert upgraded == schema_of(fresh)
    finally:
        fresh.dispose()
        if not fresh_url.startswith("sqlite"):
            drop_pg_database(fresh_url)


def test_the_current_code_reads_and_writes_an_upgraded_database(db_url, tmp_path, hash_embedder):
    load_first_release(db_url)
    svc = MemoryService(Settings(data_dir=tmp_path / "data", database_url=db_url), embedder=hash_embedder)
    try:
        alice = svc.get_user("alice")
        statuses = sorted(m.status for m in svc.list_memories(alice, statuses=("active", "superseded")))
        assert statuses == ["active", "active", "superseded"]
        assert svc.profile_fields("alice")["dietary"].value == "no spicy food"
        assert svc.get_user("王芳").external_id == "王芳"
        svc.remember("alice", "I work as a nurse.")  # new rows on top of the old ones (sequences continue on PG)
        semantic = svc.list_memories(alice, types=SEMANTIC_TYPES)
        assert sorted(m.predicate or "" for m in semantic)[-1] == "occupation"
        assert len(semantic) == 3 and len(svc.list_memories(alice, types=["episode"])) == 1
    finally:
        svc.close()


def test_a_later_step_adds_a_column_and_keeps_the_data(db_url, tmp_path):
    """The shape every later migration takes: frozen Core objects, applied once, recorded."""
    load_first_release(db_url)
    engine = engine_for(db_url, tmp_path)
    step = Migration(
        len(MIGRATIONS) + 1,
        "memory: example flag",
        lambda conn: add_column(
            conn, "memory", sa.Column("example_flag", sa.Boolean(), nullable=False, server_default=sa.false())
        ),
    )
    with engine.begin() as conn:
        assert apply_pending(conn, [*MIGRATIONS, step])[-1] == step.version
    with engine.begin() as conn:
        assert apply_pending(conn, [*MIGRATIONS, step]) == []
        flags = conn.execute(sa.text('SELECT example_flag FROM "memory"')).scalars().all()
        assert len(flags) == 6 and not any(flags)
        names = conn.execute(sa.select(models.SchemaMigration.__table__.c.name)).scalars().all()
    assert names[-1] == "memory: example flag"
    engine.dispose()


def test_a_not_null_column_without_a_default_is_refused(tmp_path):
    engine = engine_for(f"sqlite:///{tmp_path / 'x.sqlite'}", tmp_path)
    migrate(engine)
    with engine.begin() as conn, pytest.raises(ValueError, match="server_default"):
        add_column(conn, "memory", sa.Column("bad", sa.Integer(), nullable=False))
    engine.dispose()
