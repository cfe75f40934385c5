"""The write pipeline: classify → extract → mask → validate (dedupe, contradictions) → prioritise → persist, each
decision logged with its reason.

Masking runs on the message before extraction (the stored message is already masked by ``add_message``) and again
on every candidate, so nothing unmasked is ever embedded. :func:`run` takes one message; ``memory.write.batch``
takes many at once (one embedding call, one neighbour search, one SQL transaction, one index append) and plans them
in order, so both make the same decisions. A user's message is read after the other speaker's message just before it
in its session (``Item.previous``, one SQL read per session in the batch): a short answer is completed from the
question it answers (memory.write.extract.context); the session's few messages before it (``Item.recent``, the same
read) name what a reference of it points at when the message itself does not (memory.write.extract.recent).

Cost for one message: one ``embed_passages`` call, one SQL read
of the memories sharing a predicate, a vector search only when a similarity can matter, one transaction for the memory
rows and the write log, one index append, one UPDATE marking the rows indexed, and the profile's compare-and-set
writes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from memory.storage.models import Message, utcnow
from memory.text.privacy import mask_pii
from memory.vocab import EventOp
from memory.write.extract.extractor import Candidate, classify, extract
from memory.write.extract.recent import RECENT_CHARS, SESSION
from memory.write.plan import Operation

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from memory.write.episodes import Episode


@dataclass
class WriteReport:
    """What one message did to memory: the applied operations and the profile changes."""

    message_id: int | None
    role: str
    worth: bool
    reason: str
    operations: list[dict[str, Any]] = field(default_factory=list)
    profile_changes: list[dict[str, Any]] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    episodes: list[str] = field(default_factory=list)  # ids of the episodes kept of the message (what was said)

    @property
    def added(self) -> list[dict[str, Any]]:
        return [o for o in self.operations if o["op"] in (EventOp.ADD, EventOp.UPDATE)]

    def to_dict(self) -> dict[str, Any]:
        return {
            "message_id": self.message_id,
            "role": self.role,
            "worth": self.worth,
            "reason": self.reason,
            "operations": self.operations,
            "profile_changes": self.profile_changes,
            "timings_ms": self.timings_ms,
            "episodes": self.episodes,
        }


@dataclass
class Item:
    """One message on its way through the pipeline (see memory.write.batch)."""

    message: Message
    turn_id: int | None = None
    keep_unparsed: bool = False
    infer: bool = True  # read facts from it; False: kept as episodes only (mem0's infer=False, the agent's reply)
    #: the other speaker's message just before (the agent's reply the user answers): short answers and pronouns are
    #: read with it; None = read the message alone
    previous: str | None = None
    #: the session's messages just before this one, oldest first (at most ``SESSION``, either speaker, ``previous``
    #: included): a reference the message does not name is named from them; None = not read yet (memory.write.batch)
    recent: list[str] | None = None
    report: WriteReport | None = None
    text: str = ""
    cands: list[Candidate] = field(default_factory=list)
    ops: list[Operation] = field(default_factory=list)
    skip: str | None = None  # why nothing is extracted: logged as one NOOP event
    episodes: list[Episode] = field(default_factory=list)  # what was said, kept whatever is extracted


def mask_candidates(cands: list[Candidate]) -> list[Candidate]:
    for c in cands:
        c.content, c.object, c.evidence = mask_pii(c.content), mask_pii(c.object), mask_pii(c.evidence)
    return cands


def prepare(item: Item, model: BaseChatModel | None = None, *, max_chars: int | None = None) -> Item:
    """Classify and extract one message (no I/O): fills ``item.cands`` or ``item.skip``. A message longer than
    ``max_chars`` (a pasted document) is not read for facts: its episodes keep it (bounded cost per message)."""
    t0 = time.perf_counter()
    message = item.message
    item.text = text = mask_pii(message.content)
    if not item.infer:
        item.report = WriteReport(message.id, message.role, False, "kept as said: no facts read from it")
        item.skip = "not read for facts: kept as an episode only"
        return item
    if max_chars is not None and len(text) > max_chars:
        item.report = WriteReport(message.id, message.role, False, "a long text: kept as episodes, not read for facts")
        item.skip = f"not remembered as facts: {len(text):,} characters, over MEMLENS_MAX_MESSAGE_CHARS"
        return item
    previous = mask_pii(item.previous) if item.previous else None
    worth, reason = classify(text, message.role, previous)
    item.report = report = WriteReport(message.id, message.role, worth, reason)
    if not worth:
        item.skip = f"not remembered: {reason}"
    else:
        at = message.created_at or utcnow()
        # the end of each (a pasted document before is read no further), cut with a margin so no masked span is split
        recent = [mask_pii(m[-RECENT_CHARS - 200 :])[-RECENT_CHARS:] for m in (item.recent or [])[-SESSION:]]
        item.cands = mask_candidates(
            extract(text, role=message.role, at=_aware(at), model=model, previous=previous, recent=recent)
        )
        if not item.cands and item.keep_unparsed and message.role == "user":
            item.cands = [_verbatim(text)]
        if not item.cands:
            report.reason = "nothing about the user to remember"
            item.skip = f"not remembered: {report.reason}"
    report.timings_ms["extract"] = round((time.perf_counter() - t0) * 1000, 3)
    return item


def _verbatim(text: str) -> Candidate:
    """An explicit 'remember this' that no rule understood is kept as a free-text user statement."""
    c = Candidate(predicate="fact", object=text[:200], content=text, evidence=text[:200], extractor="verbatim")
    c.meta["reason"] = "explicit remember request; no structured fact recognised"
    return c


def _aware(at: datetime) -> datetime:
    return at if at.tzinfo else at.replace(tzinfo=UTC)
