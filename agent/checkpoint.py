"""The agent's checkpointer: LangGraph state lives in the MemLens database itself (SqliteSaver on the SQLite file,
PostgresSaver on PostgreSQL), one thread per session (``thread_id = Session.id``). Tests compile the uncompiled
graph with an in-memory saver instead (see tests/test_agent_graph.py).
"""

from __future__ import annotations

import sqlite3
import time

from langgraph.checkpoint.base import BaseCheckpointSaver

from agent.graph import build_graph
from agent.state import CompiledTurnGraph
from memory.config import Settings


def make_checkpointer(settings: Settings) -> BaseCheckpointSaver[str]:
    """SqliteSaver on the MemLens SQLite file, or PostgresSaver on MEMLENS_DATABASE_URL; tables created here."""
    url = settings.resolved_database_url()
    if url.startswith("sqlite"):
        from langgraph.checkpoint.sqlite import SqliteSaver

        path = url.split("///", 1)[1] if "///" in url else ":memory:"
        conn = sqlite3.connect(path or ":memory:", check_same_thread=False, timeout=30)
        conn.execute("PRAGMA busy_timeout=30000")
        conn.execute("PRAGMA synchronous=NORMAL")  # as MemLens's own connections (WAL keeps it crash-safe)
        lite = SqliteSaver(conn)
        lite.setup()
        return lite
    from langgraph.checkpoint.postgres import PostgresSaver
    from psycopg import Connection
    from psycopg.rows import dict_row

    dsn = url.replace("postgresql+psycopg://", "postgresql://").replace("postgresql+psycopg2://", "postgresql://")
    pg = Connection.connect(dsn, autocommit=True, prepare_threshold=0, row_factory=dict_row)
    saver = PostgresSaver(pg)
    # several app processes may start at once: setup()'s CREATE TABLEs race in the catalog without a lock. Poll a
    # try-lock rather than wait in pg_advisory_lock: setup's CREATE INDEX CONCURRENTLY waits for every open
    # transaction, a blocked lock call included, which would deadlock.
    while not (row := pg.execute("SELECT pg_try_advisory_lock(727275) AS ok").fetchone()) or not row["ok"]:
        time.sleep(0.05)
    try:
        saver.setup()
    finally:
        pg.execute("SELECT pg_advisory_unlock(727275)")
    return saver


def close_checkpointer(saver: BaseCheckpointSaver[str]) -> None:
    conn = getattr(saver, "conn", None)
    if conn is not None and hasattr(conn, "close"):
        conn.close()


def compile_graph(checkpointer: BaseCheckpointSaver[str]) -> CompiledTurnGraph:
    """The production graph: :func:`agent.graph.build_graph` compiled with the given saver."""
    return build_graph().compile(checkpointer=checkpointer)
