"""The closed vocabularies of MemLens, said once: every status, operation, source, mode and role is one of these.

The UI's filters, colours and badges, the CLI's choices and the API's enums are all derived from these lists, so a
value the engine writes is always one the window can show.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class MemoryStatus(StrEnum):
    ACTIVE = "active"
    SUPERSEDED = "superseded"
    ARCHIVED = "archived"
    DELETED = "deleted"


class EventOp(StrEnum):
    """One operation in the write log (``MemoryEvent.op``), whoever made it: the pipeline, a person, the lifecycle."""

    ADD = "ADD"
    REINFORCE = "REINFORCE"
    UPDATE = "UPDATE"
    NOOP = "NOOP"
    SUPERSEDE = "SUPERSEDE"
    EDIT = "EDIT"
    FLAG = "FLAG"
    UNFLAG = "UNFLAG"
    DELETE = "DELETE"
    RESTORE = "RESTORE"
    ARCHIVE = "ARCHIVE"
    PURGE = "PURGE"
    COMPACT = "COMPACT"
    MERGE = "MERGE"
    #: a message whose write failed: set aside with its error (no memory), retried only by a person
    SET_ASIDE = "SET_ASIDE"


class SourceType(StrEnum):
    """Where a memory's content came from. ``PERSON_EDIT`` is a correction made by a person, never the user's words."""

    USER_STATED = "user-stated"
    INFERRED = "inferred"
    TOOL = "tool"
    SYSTEM = "system"
    PERSON_EDIT = "person-edit"
    AGENT = "agent"  # the agent's own words (an episode of its reply): never evidence about the user


class Update(StrEnum):
    """A recall hit's place in a knowledge update (``memory.retrieval.updates``): ``earlier`` = a newer memory
    replaced what it states (history, never the current value); ``current`` = it replaced an earlier one."""

    EARLIER = "earlier"
    CURRENT = "current"


class SessionStatus(StrEnum):
    ACTIVE = "active"
    ENDED = "ended"


class SearchMode(StrEnum):
    VECTOR = "vector"
    FULLTEXT = "fulltext"
    HYBRID = "hybrid"


class MemoryType(StrEnum):
    FACT = "fact"
    PREFERENCE = "preference"
    EVENT = "event"
    SUMMARY = "summary"
    EPISODE = "episode"  # what was said: one message (or a chunk of a long one), verbatim


#: the semantic layer: what was said read as meaning (everything but episodes)
SEMANTIC_TYPES = tuple(t for t in MemoryType if t != MemoryType.EPISODE)
#: memories that keep words as said (an episode, a summary folded from episodes): they go with their messages
WORDS_TYPES = (MemoryType.EPISODE, MemoryType.SUMMARY)


#: the agent id a logged search over every agent of the user is filed under (a door's search names no agent)
ANY_AGENT = "*"

#: the meta key a flag is stored under (its value: the masked reason); written only by ``memory.write.status``
FLAG_KEY = "flagged"


#: a message's meta key marking a canned reply (the offline engine's: it says back what memory holds, or a fixed
#: sentence): kept in the transcript, never an episode — no information of its own, and never evidence
CANNED = "canned"


def is_flagged(meta: object) -> bool:
    """Was this memory flagged as wrong by a person? ``meta``: the row's ``meta`` (a dict, or None / anything else
    for a row without one). The one reader of the flag: kept and visible, never injected, its profile value dropped."""
    return isinstance(meta, dict) and bool(meta.get(FLAG_KEY))


#: the event a status change (``memory.write.status``) is logged as by default
STATUS_OP: dict[MemoryStatus, EventOp] = {
    MemoryStatus.ACTIVE: EventOp.RESTORE,
    MemoryStatus.SUPERSEDED: EventOp.SUPERSEDE,
    MemoryStatus.ARCHIVED: EventOp.ARCHIVE,
    MemoryStatus.DELETED: EventOp.DELETE,
}


class Role(StrEnum):
    """Back-office roles, each including the rights of the one before it."""

    VIEWER = "viewer"
    CURATOR = "curator"
    ADMIN = "admin"

    @property
    def rank(self) -> int:
        return list(Role).index(self)

    def allows(self, needed: Role) -> bool:
        return self.rank >= Role(needed).rank


class AuditAction(StrEnum):
    """One person action in the audit trail (``AuditEvent.action``): what the Audit page and `memlens audit` list."""

    SIGN_IN = "sign-in"
    SIGN_IN_FAILED = "sign-in-failed"
    SIGN_OUT = "sign-out"
    DENIED = "denied"
    EDIT = "edit"
    SUPERSEDE = "supersede"
    FLAG = "flag"
    UNFLAG = "unflag"
    DELETE = "delete"
    RESTORE = "restore"
    LABEL = "label"
    PROFILE_EDIT = "profile-edit"
    SETTINGS = "settings"
    EXPORT = "export"
    IMPORT = "import"
    DELETE_USER = "delete-user"
    DELETE_SESSION = "delete-session"
    PURGE = "purge"
    FORGET = "forget"
    COMPACT = "compact"
    MERGE = "merge"  # a person merged a hygiene finding's memories into one (memory.desk.hygiene)
    KEEP = "keep"  # a person kept a hygiene finding as it is: the queue leaves it out from then on
    EVAL_LABELS = "eval-labels"  # a recorded run of the labelled-query suite (memory.desk.labels_gate)
    ACCOUNT_ADD = "account-add"
    ACCOUNT_PASSWORD = "account-password"
    ACCOUNT_REMOVE = "account-remove"
    RETRY_WRITE = "retry-write"
    EVALUATE = "evaluate"
    REPLAY = "replay"  # an A/B replay of logged queries under other recall settings (memory.desk.replay)
    SHADOW_REPLAY = "shadow-replay"  # messages re-embedded into throw-away stores (memory.desk.shadow)
    REFIT = "refit"  # a relevance calibration fitted from the labels (memory.retrieval.refit; nothing applied)
    API_KEY_CREATE = "apikey-create"
    API_KEY_REVOKE = "apikey-revoke"


@dataclass(frozen=True, slots=True)
class Actor:
    """Who performs a change: a signed-in person, the CLI's OS user, an API key, or the agent itself.

    ``via`` says through which door (``ui``, ``cli``, ``api:<key>``, ``mcp``, ``langgraph``, ``agent``), and is what
    provenance records beside the name.
    """

    name: str
    role: Role = Role.VIEWER
    via: str = "ui"
    #: a person signed in with a back-office account: every guarded call re-reads the account (its role now, and
    #: whether it still exists), so a demotion or removal applies to the very next click
    account: bool = False
