"""Bounded cost per message: the embedder sees at most its real input limit (512 e5 tokens), so a maximum-size
message costs about what a 512-token one does, and a long text embeds like its own beginning."""

from __future__ import annotations

import time

import numpy as np

from memory.storage.embed import E5_MAX_TOKENS


def test_long_text_is_cut_to_the_model_limit_before_embedding(e5):
    head = "I grew up in Lisbon and I love sardines. " * 60  # ~600 tokens: already past the limit
    long = head + "完全不同的话题，关于天气和股票市场。" * 1500  # ~20,000 characters
    calls: list[str] = []
    real = e5._model.query
    e5._model.query = lambda t: calls.append(t) or real(t)
    try:
        start = time.process_time()
        v_long = e5.embed_query(long)
        cost = time.process_time() - start
    finally:
        e5._model.query = real
    assert e5._model.token_count(calls[0], True) <= E5_MAX_TOKENS < e5._model.token_count(long, True)
    assert float(np.dot(v_long, e5.embed_query(head))) > 0.99  # what is past the limit never mattered
    assert cost < 3.0
    passages = e5.embed_passages([long, "short"])
    assert passages.shape == (2, e5.dim)
