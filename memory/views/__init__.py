"""Read models for the back office: one small query per table the pages show, always bounded.

Every list here takes a limit (and an offset or a session) so a page never loads a user's whole history. Functions
take the storage (most only its SQL side, ``Database``) as their *store* and return plain dicts (easy to put in a
dataframe, nothing lazy left to load after the DB session closes). One module per concern: ``writes`` (the write
log), ``profile``, ``sessions`` (sessions, bridges, the context budget), ``turns`` (logged retrievals and chat
turns), ``labels`` (verdicts on hits); ``views.<name>`` keeps working for every caller.
"""

from memory.views.labels import (
    labelled_queries,
    labelled_relevance,
    labelled_similarities,
    labels_for_query,
    query_key,
    set_label,
)
from memory.views.profile import profile_changes, profile_fields
from memory.views.sessions import bridge_into, context_snapshots, conversation, sessions_overview
from memory.views.turns import recent_retrievals, retrieval_hits, retrieval_params, turn_composed, turn_details
from memory.views.writes import (
    BUILT_IN,
    WriteFilter,
    event_vias,
    memory_counts,
    memory_events,
    message_with_context,
    source_words,
    write_log,
)

__all__ = [
    "BUILT_IN",
    "WriteFilter",
    "bridge_into",
    "context_snapshots",
    "event_vias",
    "labelled_queries",
    "labelled_relevance",
    "labelled_similarities",
    "labels_for_query",
    "memory_counts",
    "memory_events",
    "message_with_context",
    "profile_changes",
    "profile_fields",
    "query_key",
    "recent_retrievals",
    "retrieval_hits",
    "retrieval_params",
    "sessions_overview",
    "source_words",
    "conversation",
    "set_label",
    "turn_composed",
    "turn_details",
    "write_log",
]
