"""Deletion is complete: after delete-user the user's text is nowhere under the data folder; others are untouched."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypedDict

from actors import ADMIN
from typer.testing import CliRunner

from memory.service import MemoryDraft
from memory.storage.models import (
    ContextSection,
    ContextSnapshot,
    HitLabel,
    Memory,
    Message,
    ProfileChange,
    ProfileField,
    SessionBridge,
    SummaryAnchor,
    Turn,
    utcnow,
)


def seed_user(svc, user_id: str, marker: str) -> dict[str, Any]:
    """A user with a row in every table MemLens keeps, each carrying ``marker`` where it holds text."""
    user = svc.ensure_user(user_id)
    old, live = svc.ensure_session(user, "old"), svc.ensure_session(user, "live")
    msgs = [
        svc.add_message(old, "user", f"I love {marker} hiking 我喜欢{marker}"),
        svc.add_message(old, "assistant", f"Noted: {marker}"),
        svc.add_message(live, "user", f"my budget is 5000 for {marker}"),
    ]
    first, second = svc.add_memories(
        user,
        [
            MemoryDraft(
                f"User loves {marker} hiking",
                subject="user",
                predicate="likes",
                object=marker,
                source_message_ids=[msgs[0].id],
            ),
            MemoryDraft(f"Budget 5000 {marker}", predicate="budget", object="5000", source_message_ids=[msgs[2].id]),
        ],
    )
    replaced = svc.add_memory(user, f"User lived in {marker}ville")
    svc.set_status(replaced.id, "superseded", reason="moved", superseded_by=first.id)
    recall = svc.recall(user_id, f"{marker} hiking", threshold=0.0, session_key=old.id)
    retrieval_id = recall.retrieval_id  # waits for the log's writer: read it before taking SQLite's write lock
    with svc.storage.db() as db:
        turn = Turn(session_id=old.id, user_key=user.key, user_message_id=msgs[0].id, reply_message_id=msgs[1].id)
        db.add(turn)
        db.flush()
        snap = ContextSnapshot(
            turn_id=turn.id,
            session_id=old.id,
            user_key=user.key,
            total_budget=100,
            total_used=50,
            prompt=f"prompt with {marker}",
        )
        db.add(snap)
        db.flush()
        db.add_all(
            [
                ContextSection(snapshot_id=snap.id, name="memories", budget=50, used=20, dropped_items=[marker]),
                HitLabel(user_key=user.key, retrieval_id=retrieval_id, memory_id=first.id, relevant=True),
                ProfileField(user_key=user.key, field="interests", value=[marker, "摄影"]),
                ProfileChange(
                    user_key=user.key,
                    field="interests",
                    old_value=None,
                    new_value=[marker, "摄影"],
                    source_message_id=msgs[0].id,
                    reason=f"said {marker}",
                ),
                SummaryAnchor(
                    session_id=old.id,
                    user_key=user.key,
                    from_message_id=msgs[0].id,
                    to_message_id=msgs[1].id,
                    text=f"summary about {marker}",
                ),
                SessionBridge(
                    user_key=user.key, from_session_id=old.id, to_session_id=live.id, text=f"last time: {marker}"
                ),
            ]
        )
        ended = db.get(type(old), old.id)
        ended.status, ended.ended_at = "ended", utcnow()
        db.add(ended)
        db.commit()
    return {"user": user, "old": old, "live": live, "messages": msgs, "memories": [first, second, replaced]}


class _State(TypedDict):
    text: str


def _checkpoint(svc, thread_id: str, text: str) -> None:
    """Run a one-node LangGraph graph on the production checkpointer (same SQLite file, thread = session id)."""
    from langgraph.graph import END, START, StateGraph

    from agent.checkpoint import close_checkpointer, make_checkpointer

    g = StateGraph(_State)
    g.add_node("echo", lambda s: {"text": s["text"] + "!"})
    g.add_edge(START, "echo")
    g.add_edge("echo", END)
    saver = make_checkpointer(svc.settings)
    try:
        g.compile(checkpointer=saver).invoke({"text": text}, {"configurable": {"thread_id": thread_id}})
    finally:
        close_checkpointer(saver)


def files_containing(root: Path, needle: str) -> list[str]:
    return sorted(
        str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and needle.encode("utf-8") in p.read_bytes()
    )


def test_delete_user_leaves_no_trace_and_spares_others(plumbing_svc):
    svc = plumbing_svc
    alice_id = "alice.zebra@example.com"
    alice, bob = seed_user(svc, alice_id, "zebraquokka"), seed_user(svc, "bob", "platypusowl")
    _checkpoint(svc, alice["old"].id, "checkpoint zebraquokka")
    _checkpoint(svc, bob["old"].id, "checkpoint platypusowl")
    root = svc.settings.data_dir
    assert files_containing(root, "zebraquokka")  # the scan does see text before deletion
    bob_before = svc.lifecycle.export_user("bob", actor=ADMIN)

    counts = svc.lifecycle.delete_user(
        alice_id, actor=ADMIN
    )  # at once, although the "live" session had activity just now
    assert counts["checkpoints"] > 0 and counts["message"] == 3 and counts["user"] == 1

    assert files_containing(root, "zebraquokka") == []
    assert files_containing(root, alice_id) == []  # (the random internal key may remain in LanceDB's commit log)
    assert svc.lifecycle.export_user("bob", actor=ADMIN) == bob_before
    assert svc.recall("bob", "platypusowl hiking", threshold=0.0).selected
    assert [u["user_id"] for u in svc.list_users()] == ["bob"]


def test_delete_session_is_never_refused_and_removes_only_that_session(plumbing_svc):
    svc = plumbing_svc
    seeded = seed_user(svc, "alice", "zebraquokka")
    svc.lifecycle.delete_session("alice", "live", actor=ADMIN)  # running a moment ago: erasure does not wait
    counts = svc.lifecycle.delete_session("alice", "old", actor=ADMIN)
    assert counts["message"] == 2 and counts["retrieval"] == 1 and counts["sessionbridge"] == 1
    with svc.storage.db() as db:
        assert db.query(Message).count() == 0 and db.query(Turn).count() == 0
        assert db.query(SummaryAnchor).count() == 0 and db.query(ContextSnapshot).count() == 0
        assert db.query(Memory).filter(Memory.user_key == seeded["user"].key).count() == 3  # memories stay
    assert [s.external_id for s in svc.list_sessions(seeded["user"])] == []


def test_purge_memory_removes_row_history_and_vector(plumbing_svc):
    svc = plumbing_svc
    seeded = seed_user(svc, "alice", "zebraquokka")
    first = seeded["memories"][0]
    svc.lifecycle.purge_memory(first.id, actor=ADMIN)
    with svc.storage.db() as db:
        assert db.get(Memory, first.id) is None
        assert db.query(HitLabel).filter(HitLabel.memory_id == first.id).count() == 0
        replaced = db.get(Memory, seeded["memories"][2].id)
    assert replaced.superseded_by is None  # no dangling pointer to the purged memory
    assert first.id not in svc.storage.index.ids(seeded["user"].key)


def test_cli_delete_user_needs_yes(plumbing_svc, monkeypatch):
    from memory.cli import app

    seed_user(plumbing_svc, "alice", "zebraquokka")
    plumbing_svc.close()
    monkeypatch.setenv("MEMLENS_EMBEDDER", "hash")
    runner = CliRunner()
    refused = runner.invoke(app, ["delete-user", "--user", "alice"])
    assert refused.exit_code != 0 and "--yes" in str(refused.exception)
    done = runner.invoke(app, ["delete-user", "--user", "alice", "--yes", "--json"])
    assert done.exit_code == 0, done.output
    assert '"user": 1' in done.output
