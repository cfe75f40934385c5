"""The write pipeline: classify → extract → mask → validate (dedupe, contradictions) → prioritise → persist, each
decision logged with its reason.

Masking runs on the message before extraction (the stored message is already masked by ``add_message``) and again
on every candidate, so nothing unmasked is ever embedded. :func:`run` takes one message; ``memory.write.batch``
takes many at once (one embedding call, one neighbour search, one SQL transaction, one index append) and plans them
in order, so both make the same decisions. Cost for one message: one ``embed_passages`` call, one SQL read of the
memories sharing a predicate, a vector search only when a similarity can matter, one transaction for the memory rows
and the write log, one index append, one UPDATE marking the rows indexed, and the profile's compare-and-set writes.
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
from memory.write.plan import Operation

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel


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
        }


@dataclass
class Item:
    """One message on its way through the pipeline (see memory.write.batch)."""

    message: Message
    turn_id: int | None = None
    keep_unparsed: bool = False
    report: WriteReport | None = None
    text: str = ""
    cands: list[Candidate] = field(default_factory=list)
    ops: list[Operation] = field(default_factory=list)
    skip: str | None = None  # why nothing is extracted: logged as one NOOP event


def mask_candidates(cands: list[Candidate]) -> list[Candidate]:
    for c in cands:
        c.content, c.object, c.evidence = mask_pii(c.content), mask_pii(c.object), mask_pii(c.evidence)
    return cands


def prepare(item: Item, model: BaseChatModel | None = None) -> Item:
    """Classify and extract one message (no I/O): fills ``item.cands`` or ``item.skip``."""
    t0 = time.perf_counter()
    message = item.message
    item.text = text = mask_pii(message.content)
    worth, reason = classify(text, message.role)
    item.report = report = WriteReport(message.id, message.role, worth, reason)
    if not worth:
        item.skip = f"not remembered: {reason}"
    else:
        at = message.created_at or utcnow()
        item.cands = mask_candidates(extract(text, role=message.role, at=_aware(at), model=model))
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
