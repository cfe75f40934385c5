"""One Settings object for the whole engine.

Every knob has an env var (prefix ``MEMLENS_``) and a line in README's configuration table; a test keeps the two in
step. Fields marked *live* can also be overridden at run time from the back office: those overrides are stored in
the ``setting`` table and read by :meth:`memory.service.MemoryService.effective_settings`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

SearchMode = Literal["vector", "fulltext", "hybrid"]
FusionMethod = Literal["rrf", "linear"]

#: settings the back office may change live (stored in the DB, applied from the next turn)
LIVE_SETTINGS = (
    "similarity_threshold",
    "relative_cut",
    "top_k",
    "search_mode",
    "fusion",
    "vector_weight",
    "rrf_k",
)


class Settings(BaseSettings):
    """All configuration; defaults run fully offline."""

    model_config = SettingsConfigDict(env_prefix="MEMLENS_", env_file=".env", extra="ignore")

    # storage
    data_dir: Path = Field(Path("./memlens-data"), description="Folder holding the SQLite file and the LanceDB folder.")
    database_url: str | None = Field(
        None, description="SQLAlchemy URL overriding the SQLite file, e.g. postgresql+psycopg://user:pw@host/db."
    )
    lancedb_uri: str | None = Field(
        None, description="LanceDB location (folder or object-storage URI such as s3://bucket/path); default <data_dir>/lancedb."
    )
    sql_echo: bool = Field(False, description="Log every SQL statement (debugging).")

    # embeddings
    embedder: Literal["e5", "openai", "hash"] = Field(
        "e5",
        description="e5 = bundled offline multilingual-e5-small; openai = an OpenAI-compatible /embeddings endpoint; "
        "hash = deterministic test embedder (no meaning, plumbing only).",
    )
    embed_model: str = Field("text-embedding-3-small", description="Model name for the openai embedder.")
    embed_base_url: str | None = Field(None, description="Base URL of the embeddings endpoint (defaults to llm_base_url).")
    embed_dim: int | None = Field(None, description="Vector size for the openai embedder (probed when unset).")
    embed_batch_size: int = Field(32, ge=1, description="Passages embedded per batch.")

    # chat model
    llm_base_url: str | None = Field(None, description="OpenAI-compatible chat endpoint (OpenAI, vLLM, Ollama, llama.cpp).")
    llm_model: str | None = Field(None, description="Chat model name; with a base URL or API key it enables the LLM path.")
    llm_api_key: SecretStr | None = Field(None, description="API key for the chat/embedding endpoint (OPENAI_API_KEY also works).")
    llm_temperature: float = Field(0.3, description="Sampling temperature of the chat model.")

    # identity
    default_agent_id: str = Field("default", description="Agent id used when none is given; memories are scoped by user and agent.")
    max_message_chars: int = Field(20_000, ge=1, description="Longest accepted message or memory text; longer input is refused with a clear error.")

    # retrieval (live)
    similarity_threshold: float = Field(
        0.80, ge=-1.0, le=1.0, description="Keep a hit when its similarity (1 - cosine distance) is at least this. Tuned for e5."
    )
    relative_cut: float | None = Field(
        None, ge=0.0, description="If set, also drop hits more than this below the best hit's similarity."
    )
    top_k: int = Field(5, ge=1, le=200, description="Memories injected per turn at most.")
    search_mode: SearchMode = Field("hybrid", description="vector | fulltext | hybrid.")
    fusion: FusionMethod = Field("rrf", description="Hybrid fusion: rrf (reciprocal rank) or linear (weighted scores).")
    vector_weight: float = Field(0.7, ge=0.0, le=1.0, description="Weight of the vector signal in linear fusion.")
    rrf_k: int = Field(60, ge=1, description="The k constant of reciprocal-rank fusion.")
    candidate_pool: int = Field(50, ge=1, description="Candidates fetched from each signal before fusion and cut.")

    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'memlens.db').resolve()}"

    def resolved_lancedb_uri(self) -> str:
        return self.lancedb_uri or str((self.data_dir / "lancedb").resolve())

    def api_key(self) -> str | None:
        import os

        if self.llm_api_key is not None:
            return self.llm_api_key.get_secret_value()
        return os.environ.get("OPENAI_API_KEY")
