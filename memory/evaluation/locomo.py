"""The LoCoMo format: conversations, their sessions and turns, and the QA items with their evidence.

Parsing is forgiving where the release is messy (data README "known quirks"): sessions that have a date but no turns
are skipped, evidence strings are split and repaired where the intent is clear (``"D8:6; D9:17"``, ``"D:11:26"``) and
ids that name no turn of the conversation are dropped (they could never be retrieved) and counted.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from memory.errors import InvalidInput
from memory.storage.passages import passage
from memory.vocab import MemoryType

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
_SESSION_RE = re.compile(r"^session_(\d+)$")
#: marks an early store's sample id: ``conv-26@s3`` is conv-26 as its user's store stood after its first 3 sessions
EARLY = "@s"
_EVIDENCE_RE = re.compile(r"D:?(\d+):(\d+)")
_DATE_FORMATS = ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%d %B, %Y", "%d %B %Y")


@dataclass(frozen=True)
class DialogTurn:
    """One utterance of a LoCoMo conversation (``dia_id`` ``D3:7``: session 3, turn 7). Not the agent's ``Turn``
    (``memory.storage.models.Turn``, one pass of the memory loop)."""

    dia_id: str
    speaker: str
    text: str
    caption: str | None
    at: datetime

    def message(self) -> str:
        """The message as a chat client sends it: the words, and a shared image named by its caption."""
        return self.text + (f" [shares {self.caption}]" if self.caption else "")

    def passage(self) -> str:
        """The retrievable form the write path embeds for this turn's episode (memory.storage.passages)."""
        return passage(MemoryType.EPISODE, self.message(), self.speaker, self.at)


@dataclass(frozen=True)
class LocomoSession:
    number: int
    at: datetime
    turns: list[DialogTurn]


@dataclass(frozen=True)
class Question:
    index: int
    category: int
    question: str
    evidence: frozenset[str]
    dropped_evidence: int = 0


@dataclass
class Sample:
    sample_id: str
    speakers: tuple[str, str]
    sessions: list[LocomoSession]
    questions: list[Question]
    dia_ids: set[str] = field(default_factory=set)

    @property
    def user_id(self) -> str:
        return f"locomo:{self.sample_id}"

    @property
    def turn_count(self) -> int:
        return sum(len(s.turns) for s in self.sessions)

    def first_sessions(self, n: int) -> Sample:
        """The conversation as a new user's store stands after its first ``n`` sessions (its own user, ``…@s<n>``),
        with the questions it can already answer (all their evidence said by then).

        Why: a product store starts small (a few facts, a few episodes) and the relevance calibration must hold there
        as well as on a year of chat; fitted and measured on full conversations only, it learned that a lone good
        match in a tiny store is weak evidence."""
        sessions = self.sessions[:n]
        known = {t.dia_id for s in sessions for t in s.turns}
        questions = [q for q in self.questions if q.evidence and q.evidence <= known]
        return Sample(f"{self.sample_id}{EARLY}{n}", self.speakers, sessions, questions, known)


def conversation_of(sample_id: str) -> str:
    """The conversation a sample id belongs to (an early store belongs to its conversation: one fold)."""
    return sample_id.split(EARLY, 1)[0]


def store_label(sample_id: str) -> str:
    """Which store a sample id names: ``full``, or ``first <n> sessions`` for an early store."""
    _, sep, n = sample_id.partition(EARLY)
    return f"first {n} session{'s' if n != '1' else ''}" if sep else "full"


def parse_date(text: str) -> datetime:
    """LoCoMo's session stamps ("1:56 pm on 8 May, 2023") as aware UTC datetimes."""
    cleaned = " ".join(str(text).split())
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(cleaned, fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    raise InvalidInput(f"unrecognised LoCoMo date {cleaned[:60]!r}")


def normalise_evidence(raw: list, known: set[str]) -> tuple[frozenset[str], int]:
    """Gold dia_ids from an ``evidence`` list, and how many named ids were dropped as unknown."""
    found: set[str] = set()
    dropped = 0
    for item in raw or []:
        ids = [f"D{a}:{b}" for a, b in _EVIDENCE_RE.findall(str(item))]
        if not ids:
            dropped += 1
        for dia in ids:
            if dia in known:
                found.add(dia)
            else:
                dropped += 1
    return frozenset(found), dropped


def _sessions(conv: dict) -> list[LocomoSession]:
    out = []
    numbers = sorted(int(m.group(1)) for k in conv if (m := _SESSION_RE.match(k)))
    for n in numbers:
        raw_turns = conv.get(f"session_{n}") or []
        if not raw_turns:
            continue
        start = parse_date(conv[f"session_{n}_date_time"])
        turns = [
            DialogTurn(
                dia_id=str(t["dia_id"]),
                speaker=str(t["speaker"]),
                text=str(t.get("text", "")),
                caption=t.get("blip_caption") or None,
                at=start + timedelta(seconds=i),
            )
            for i, t in enumerate(raw_turns)
        ]
        out.append(LocomoSession(number=n, at=start, turns=turns))
    out.sort(key=lambda s: (s.at, s.number))
    return out


def parse_sample(raw: dict) -> Sample:
    conv = raw["conversation"]
    sessions = _sessions(conv)
    known = {t.dia_id for s in sessions for t in s.turns}
    questions = []
    for i, qa in enumerate(raw.get("qa", [])):
        gold, dropped = normalise_evidence(qa.get("evidence", []), known)
        questions.append(
            Question(
                index=i,
                category=int(qa.get("category", 0)),
                question=str(qa["question"]),
                evidence=gold,
                dropped_evidence=dropped,
            )
        )
    return Sample(
        sample_id=str(raw.get("sample_id", "sample")),
        speakers=(conv["speaker_a"], conv["speaker_b"]),
        sessions=sessions,
        questions=questions,
        dia_ids=known,
    )


def load(path: str | Path) -> list[Sample]:
    """Read a LoCoMo-format JSON file (a list of samples)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise InvalidInput(f"cannot read LoCoMo file {str(path)[:200]!r}: {exc}") from exc
    if not isinstance(data, list):
        raise InvalidInput("a LoCoMo file holds a JSON list of samples")
    try:
        return [parse_sample(s) for s in data]
    except (KeyError, TypeError) as exc:
        raise InvalidInput(f"not a LoCoMo sample: missing {exc}") from exc
