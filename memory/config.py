"""One Settings object for the whole engine.

Every knob has an env var (prefix ``MEMLENS_``) and a line in docs/configuration.md's table; a test keeps the two in
step. Fields marked *live* can also be overridden at run time from the back office: those overrides are stored in
the ``setting`` table and read by :meth:`memory.service.MemoryService.effective_settings`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field, SecretStr, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from memory.errors import ConfigError
from memory.vocab import SearchMode

FusionMethod = Literal["rrf", "linear"]

#: settings the back office may change live (stored in the DB, applied from the next turn)
LIVE_SETTINGS = (
    "relevance_threshold",
    "similarity_floor",
    "relevance_calibration",
    "relative_cut",
    "top_k",
    "search_mode",
    "fusion",
    "vector_weight",
    "rrf_k",
)


class SettingsError(ConfigError, ValueError):
    """An invalid setting (a ``ValueError`` too, as the validation error it replaces was)."""


def settings_errors(exc: ValidationError) -> str:
    """One line per bad setting: ``MEMLENS_X: <what is allowed> (got <value>)``."""
    lines = []
    for err in exc.errors():
        name = "MEMLENS_" + "_".join(str(p) for p in err["loc"]).upper()
        lines.append(f"{name}: {err['msg']} (got {err.get('input')!r})"[:300])
    return "invalid setting: " + "; ".join(lines)


class Settings(BaseSettings):
    """All configuration; defaults run fully offline."""

    model_config = SettingsConfigDict(env_prefix="MEMLENS_", env_file=".env", extra="ignore")

    def __init__(self, **values: Any) -> None:
        """Every invalid setting is named by its environment variable, with what it accepts and what it got."""
        try:
            super().__init__(**values)
        except ValidationError as exc:
            raise SettingsError(settings_errors(exc)) from None

    # storage
    data_dir: Path = Field(Path("./memlens-data"), description="Folder holding the SQLite file and the LanceDB folder.")
    database_url: str | None = Field(
        None, description="SQLAlchemy URL overriding the SQLite file, e.g. postgresql+psycopg://user:pw@host/db."
    )
    lancedb_uri: str | None = Field(
        None,
        description="LanceDB location (folder or object-storage URI such as s3://bucket/path); "
        "default <data_dir>/lancedb.",
    )
    sql_echo: bool = Field(False, description="Log every SQL statement (debugging).")
    repair_on_start: bool = Field(
        True,
        description="When a process first opens the index, index unindexed memories and drop orphan vectors "
        "left by a crash (cheap: counts first, the full check only when they disagree).",
    )

    vector_cache_mb: int = Field(
        256,
        ge=0,
        description="Memory (MB) for the vectors of recently searched users, kept in the process so a recall's vector "
        "search is one matrix product instead of an index query (exact, checked against the index's version on every "
        "search); 0 = off.",
    )

    # embeddings
    embedder: Literal["e5", "openai", "hash"] = Field(
        "e5",
        description="e5 = bundled offline multilingual-e5-small; openai = an OpenAI-compatible /embeddings endpoint; "
        "hash = deterministic test embedder (no meaning, plumbing only).",
    )
    embed_model: str = Field("text-embedding-3-small", description="Model name for the openai embedder.")
    embed_base_url: str | None = Field(
        None, description="Base URL of the embeddings endpoint (defaults to llm_base_url)."
    )
    embed_dim: int | None = Field(None, description="Vector size for the openai embedder (probed when unset).")
    embed_batch_size: int | None = Field(
        None,
        ge=1,
        description="Passages per embedding call. Unset: 8 texts per call for the bundled e5 (a large batch, as a "
        "reindex embeds, costs 3-10 % fewer CPU seconds than at 32) and 32 texts per request for an OpenAI-compatible "
        "endpoint.",
    )
    embed_threads: int = Field(
        0,
        ge=0,
        description="Threads the e5 embedder uses for batch ingest (long conversations, eval, imports, reindex, batch "
        "add, compaction); 0 = every core. Recall and single messages always embed on one thread.",
    )

    # chat model
    llm_base_url: str | None = Field(
        None, description="OpenAI-compatible chat endpoint (OpenAI, vLLM, Ollama, llama.cpp)."
    )
    llm_model: str | None = Field(
        None, description="Chat model name; with a base URL or API key it enables the LLM path."
    )
    llm_api_key: SecretStr | None = Field(
        None, description="API key for the chat/embedding endpoint (OPENAI_API_KEY also works)."
    )
    llm_temperature: float = Field(0.3, description="Sampling temperature of the chat model.")

    # identity
    default_agent_id: str = Field(
        "default", description="Agent id used when none is given; memories are scoped by user and agent."
    )
    max_message_chars: int = Field(
        20_000,
        ge=1,
        description="Longest memory text, and the longest message facts are extracted from; a longer message (a "
        "pasted document) is still kept, as several episodes.",
    )
    max_document_chars: int = Field(
        200_000,
        ge=1,
        description="Longest accepted message (a pasted document); longer input is refused with a clear error, so "
        "one message's cost stays bounded.",
    )
    episode_tokens: int = Field(
        400,
        ge=16,
        description="Longest episode, in tokens: a longer message is kept as several episodes, cut at paragraph and "
        "sentence ends (the e5 embedder reads 512 tokens of a passage).",
    )
    reply_embed_tokens: int = Field(
        128,
        ge=0,
        description="How much of an assistant reply's episode the embedder reads, in tokens from its start (0: all "
        "of it): a reply's opening says what it is about, and embedding is most of a long history's ingest. The "
        "whole reply stays full-text searchable and is shown as said; the user's own words are always embedded whole.",
    )

    # write pipeline
    dedupe_threshold: float = Field(
        0.95,
        ge=-1.0,
        le=1.0,
        description="One fact once (memory.write.same): a new memory at least this similar to a stored one of the same "
        "user, with mostly the same words and no number, date or name that differs, reinforces it instead of being "
        "added; the hygiene queue's near-duplicate check uses the same rule and threshold (e5 puts paraphrases at "
        "0.95-1.0 and same-template facts about different things at 0.92-0.97: the words tell those apart).",
    )

    # retrieval (live)
    relevance_threshold: float | None = Field(
        None,
        ge=0.0,
        le=1.0,
        description="Keep a hit when its calibrated relevance (estimated probability of being relevant, 0-1) is at "
        "least this; unset = the threshold shipped with the embedder's calibration (e5: chosen on LoCoMo by "
        "leave-one-conversation-out). An embedder without a calibration uses raw similarity and 0.80.",
    )
    similarity_floor: float | None = Field(
        None,
        ge=-1.0,
        le=1.0,
        description="Optional second knob: also drop hits whose raw similarity (1 - cosine distance) is below this.",
    )
    relevance_calibration: dict | None = Field(
        None,
        description="A deployment's own relevance calibration (JSON, written by the retrieval lab's "
        "'fit from my labels'); unset = the shipped fit for the embedder.",
    )
    relative_cut: float | None = Field(
        None, ge=0.0, description="If set, also drop hits more than this below the best hit's similarity."
    )
    top_k: int = Field(5, ge=1, le=200, description="Memories injected per turn at most.")
    search_mode: SearchMode = Field(SearchMode.HYBRID, description="vector | fulltext | hybrid.")
    fusion: FusionMethod = Field(
        "linear",
        description="Hybrid fusion: rrf (reciprocal rank) or linear (weighted normalised scores; tuned on LoCoMo).",
    )
    vector_weight: float = Field(0.3, ge=0.0, le=1.0, description="Weight of the vector signal in linear fusion.")
    rrf_k: int = Field(60, ge=1, description="The k constant of reciprocal-rank fusion.")
    candidate_pool: int = Field(100, ge=1, description="Candidates fetched from each signal before fusion and cut.")
    neighbor_weight: float = Field(
        0.5,
        ge=0.0,
        description="Hybrid: a conversation turn gains this times its adjacent turns' similarity, halving per step "
        "(0 = off; tuned on LoCoMo).",
    )
    neighbor_weight_fts: float = Field(
        0.3, ge=0.0, description="The same for full-text (BM25) scores of adjacent turns (0 = off; tuned on LoCoMo)."
    )
    neighbor_span: int = Field(2, ge=0, description="How many turns away a neighbour still counts.")
    context_span: int = Field(
        3,
        ge=0,
        le=20,
        description="Source context: each injected memory learnt from a message brings the conversation turns "
        "within this many positions of that message (same session; shared turns shown once); 0 = off.",
    )
    near_duplicate_cosine: float = Field(
        0.95,
        ge=0.0,
        le=1.0,
        description="What the agent injects: a candidate whose vector is within this cosine of a better-ranked "
        "selected one is passed over (it says nothing new; the next one takes its place). 0 = off. Doors' searches "
        "never pass over (they return every match they promise).",
    )
    day_boost: float = Field(
        1.0,
        ge=0.0,
        description="After fusion, turns from the days of the top candidates are lifted by this share of the gap to "
        "the best score (0 = off; tuned on LoCoMo).",
    )
    crosslingual_lexicon: bool = Field(
        True,
        description="Hybrid/full-text recall also searches the full-text index with the query's words in the other "
        "language (a curated English-Chinese lexicon of the memory vocabulary), so a memory stated in Chinese answers "
        "an English question and the reverse.",
    )
    retrieval_log_background: bool = Field(
        True,
        description="Write the retrieval log (every candidate's scores) and access tracking on a background thread "
        "after the hits are returned (False = inline, before recall returns). Queued entries are written on a clean "
        "shutdown; readers in the process wait for them.",
    )

    # lifecycle: forgetting, caps, compaction, deletion (memory/lifecycle/retention.py, memory/lifecycle/export.py)
    expire_after_days: dict[str, float] = Field(
        {"event": 30.0},
        description="Per memory type, days after its event time (else creation) when it expires and is archived; "
        'types not listed never expire. JSON, e.g. {"event": 30, "fact": 365}.',
    )
    decay_half_life_days: float = Field(
        30.0, gt=0, description="Importance halves every this many days without the memory being retrieved."
    )
    reinforce_boost: float = Field(
        0.25,
        ge=0,
        description="Value bonus per repetition: value = decayed importance × confidence × (1 + boost·ln(1+n)).",
    )
    archive_below_value: float = Field(
        0.01, ge=0, description="Active memories whose value has faded below this are archived (0 disables)."
    )
    max_active_memories: int = Field(
        2000,
        ge=1,
        description="Cap of active facts, preferences and events per user (episodes have their own cap); above it "
        "the lowest-value ones are archived first.",
    )
    max_active_episodes: int = Field(
        100_000,
        ge=1,
        description="Cap of active episodes (messages kept as said) per user, apart from the cap above; above it the "
        "least recently recalled (then oldest) are archived first. Episodes never fade by value: old conversation "
        "stays recallable until the cap.",
    )
    archive_retention_days: float = Field(
        90.0, ge=0, description="Archived memories are purged (deleted for good) this many days after archiving."
    )
    compact_similarity: float = Field(
        0.95,
        ge=-1.0,
        le=1.0,
        description="Compaction merges memories of one type whose similarity to the group's best is at least this.",
    )

    # agent: chat-model choice, context budget, rolling summary, session bridges (stream A)
    llm_provider: str = Field(
        "auto",
        description="auto = openai when a base URL or API key is set, else offline; or offline | openai | "
        "a name registered with agent.llm.register_chat_model.",
    )
    context_window: int = Field(8192, ge=256, description="Total tokens of the model's context window.")
    context_reply_reserve: int = Field(
        1024, ge=0, description="Tokens kept free for the reply (window - reserve = prompt budget)."
    )
    context_system_cap: int = Field(400, ge=0, description="Token cap of the system instructions section.")
    context_profile_cap: int = Field(300, ge=0, description="Token cap of the core-profile section (0 = off).")
    context_bridge_cap: int = Field(200, ge=0, description="Token cap of the last-session bridge section (0 = off).")
    context_summary_cap: int = Field(600, ge=0, description="Token cap of the rolling-summary section (0 = off).")
    context_memories_cap: int = Field(
        1110,
        ge=0,
        description="Token cap of the retrieved-memories section (0 = off): the memory lines first, then their source "
        "context in rank order (tuned on LoCoMo with the ±3 window).",
    )
    context_history_cap: int = Field(
        0, ge=0, description="Token cap of the recent-history section (0 = whatever is left)."
    )
    context_priority: str = Field(
        "system,profile,bridge,summary,memories,history",
        description="Order in which sections get their share when the budget is scarce (the input always first).",
    )
    history_messages: int = Field(12, ge=0, description="Recent unsummarised messages loaded for the prompt at most.")
    summary_trigger_turns: int = Field(
        6, ge=1, description="Fold older messages into a summary once this many turns are unsummarised."
    )
    summary_trigger_tokens: int = Field(
        3000, ge=1, description="...or once the unsummarised messages reach this many tokens."
    )
    summary_keep_turns: int = Field(
        2, ge=0, description="Most recent turns left verbatim (the sliding window) when folding."
    )
    summary_max_tokens: int = Field(200, ge=20, description="Longest summary anchor or session bridge, in tokens.")
    summary_background: bool = Field(
        True, description="Summarise in a background thread after the reply (False = inline)."
    )
    session_idle_minutes: float = Field(
        60.0, ge=0, description="A session idle this long is ended (bridge written) when the user returns; 0 = never."
    )

    # doors: REST API and MCP server (`memlens serve api|mcp`)
    api_max_body_bytes: int = Field(
        1_000_000, ge=1024, description="Largest request body the REST API and the MCP HTTP server accept (413 above)."
    )
    api_max_request_tokens: int = Field(
        4_000,
        ge=16,
        description="Most text tokens one REST or MCP request may carry (an add's messages, a chat message): 413 "
        "above. A write's CPU grows with its tokens (each ~400-token episode is embedded), so this bounds one "
        "request's cost.",
    )
    api_tokens_per_minute: int = Field(
        12_000,
        ge=0,
        description="Text tokens one API key may send per minute through the REST and MCP doors (adds and chat), "
        "as a refilling budget: 429 with Retry-After when spent (0 = no per-key budget).",
    )
    mcp_default_user: str | None = Field(
        None, description="User the MCP server's tools act for when a call names none (else user_id is required)."
    )

    # back office: sign-in (see docs/back_office.md, "Deploying the back office")
    auth: Literal["local", "oidc", "none"] | None = Field(
        None,
        description="Back-office sign-in: local (accounts from `memlens account add`), oidc (st.login, provider in "
        ".streamlit/secrets.toml) or none (refused unless the server listens on localhost); unset = local once an "
        "account exists, else none.",
    )
    oidc_roles: dict[str, str] = Field(
        default_factory=dict,
        description='With MEMLENS_AUTH=oidc, e-mail to role (JSON), e.g. {"ana@example.com": "admin", '
        '"*@example.com": "viewer"}: an exact address wins, then the most specific pattern; no match = refused.',
    )
    signin_attempts_per_minute: int = Field(
        5, ge=1, description="Failed sign-ins allowed per account name per minute (stored: holds across restarts)."
    )

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
