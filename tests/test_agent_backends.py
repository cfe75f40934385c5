"""The LangGraph checkpointer lives in the MemLens database itself — SQLite file or PostgreSQL — one thread per
session (thread_id = Session.id), so deleting a session's checkpoints is plain SQL on the same database."""

from __future__ import annotations

from sqlalchemy import text

from agent.runtime import Agent


def test_checkpoints_share_the_memlens_database_one_thread_per_session(backend_plumbing_svc):
    svc = backend_plumbing_svc
    agent = Agent(svc)
    try:
        first = agent.chat("u", "s1", "I am planning a trip to Lisbon in May.")
        agent.chat("u", "s1", "Something near the river, please.")
        second = agent.chat("u", "s2", "Hello again!")
        state = agent.graph.get_state({"configurable": {"thread_id": first.session_key}})
    finally:
        agent.close()
    assert "Lisbon" in second.bridge and state.values["turn_id"] > first.turn_id
    with svc.storage.engine.connect() as conn:
        threads = {row[0] for row in conn.execute(text("SELECT DISTINCT thread_id FROM checkpoints"))}
    assert threads == {first.session_key, second.session_key}
