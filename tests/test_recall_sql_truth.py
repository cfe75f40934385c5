"""Recall joins its index candidates with SQL by primary key and keeps only the caller's active rows: an index row
that claims the wrong owner, or one whose memory SQL no longer holds active, never comes back (SQL is the truth)."""

from __future__ import annotations

from sqlalchemy import update
from sqlmodel import col

from memory.storage.models import Memory, utcnow
from memory.storage.vectors import IndexRow
from memory.vocab import MemoryStatus


def test_a_misfiled_or_stale_index_row_never_reaches_the_caller(backend_plumbing_svc):
    svc = backend_plumbing_svc
    alice, bob = svc.ensure_user("alice"), svc.ensure_user("bob")
    mine = svc.add_memory(alice, "Alice keeps a green bicycle in the hall")
    old = svc.add_memory(alice, "Alice kept an old green bicycle in the garden")
    bobs = svc.add_memory(bob, "Bob keeps a green bicycle at work")
    with svc.storage.engine.begin() as conn:  # SQL retires it; the index still lists it as active
        conn.execute(update(Memory).where(col(Memory.id) == old.id).values(status=MemoryStatus.SUPERSEDED))
    vector = svc.storage.embedder.embed_passages([bobs.content])[0]
    misfiled = IndexRow(bobs.id, alice.key, "default", bobs.content, vector, "fact", utcnow())
    svc.storage.index.upsert([misfiled])  # the index now files Bob's memory under Alice

    index_ids = {i for i, _, _ in svc.storage.index.search_text("green bicycle", alice.key, None, 50)}
    assert {mine.id, old.id, bobs.id} <= index_ids  # the index alone would hand all three to Alice

    for mode in ("hybrid", "vector", "fulltext"):
        hits = svc.recall("alice", "green bicycle", mode=mode, threshold=0.0, log=False).hits
        assert [h.memory_id for h in hits] == [mine.id], mode
    bob_sees = {h.memory_id for h in svc.recall("bob", "green bicycle", threshold=0.0, log=False).hits}
    assert not bob_sees & {mine.id, old.id}
