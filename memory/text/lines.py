"""A memory rendered as a line, once: the same memory is written into the prompt (:func:`prompt_line`) and said
back by the offline engine (:func:`spoken_line`), and both decide its provenance the same way here — a person's
correction is never passed off as the user's words, an inference is said as a guess, an episode is what someone
said. ``tests/test_small_concepts.py`` fails on a ``memory_line`` defined anywhere else.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from memory.prompts import OFFLINE_REPLIES, fence_line
from memory.text.voice import said_to_you, sentence_end, told_on, you
from memory.vocab import MemoryType, SourceType, Update

#: how the prompt names a person's correction (the model must not read it as something the user said)
PERSON_EDIT_LABEL = "correction by a person, not the user's words"


class Renderable(Protocol):
    """What a line needs of a memory (the composer's ``MemoryItem``, the offline engine's ``Recalled``). Optional:
    ``update`` / ``replaced_on`` (a memory a newer one replaced is said as earlier, :func:`_earlier`)."""

    @property
    def content(self) -> str: ...
    @property
    def created_at(self) -> datetime | None: ...
    @property
    def source_type(self) -> str: ...
    @property
    def type(self) -> str: ...


def prompt_line(m: Renderable, speaker: str | None = None) -> str:
    """``- [day · source · type] words`` for the prompt's memory section, every user-controlled part fenced."""
    day = m.created_at.date().isoformat() if m.created_at else "undated"
    source = PERSON_EDIT_LABEL if m.source_type == SourceType.PERSON_EDIT else m.source_type
    said = f"{fence_line(speaker)}: " if m.type == MemoryType.EPISODE and speaker else ""
    return f"\n- [{day} · {fence_line(source)} · {fence_line(m.type)}{_earlier(m)}] {said}{fence_line(m.content)}"


def _earlier(m: Renderable) -> str:
    """`` · earlier, replaced 2026-03-22`` for a memory a newer one replaced (nothing for any other)."""
    if getattr(m, "update", None) != Update.EARLIER:
        return ""
    until = getattr(m, "replaced_on", None)
    return f" · {Update.EARLIER.value}" + (f", replaced {until.date().isoformat()}" if until else "")


def corrected(when: datetime | None, lang: str) -> str:
    """ "(a person corrected this on …)" in ``lang``."""
    t = OFFLINE_REPLIES[lang]
    return (
        t["corrected_on"].format(day=when.day, month=f"{when:%B}", month_number=when.month) if when else t["corrected"]
    )


def spoken_line(m: Renderable, lang: str, now: datetime | None) -> str:
    """The memory said back to the user in the second person, with when and how it was learnt."""
    said, told = you(m.content, lang).rstrip("。."), told_on(m.created_at, lang, now)
    if m.type == MemoryType.EPISODE:  # what the user said, read back in the second person
        said = OFFLINE_REPLIES[lang]["mentioned"].format(said=said_to_you(m.content, lang).rstrip("。.!！"))
    if m.source_type == SourceType.PERSON_EDIT:
        told = corrected(m.created_at, lang)
    elif m.source_type == SourceType.INFERRED:
        told = OFFLINE_REPLIES[lang]["guess"]
    if said.endswith("）") and told.startswith("（"):  # "（2027年1月）（今天告诉我的）" → "（2027年1月；今天告诉我的）"
        said, told = said[:-1], "；" + told[1:]
    if getattr(m, "update", None) == Update.EARLIER:  # history: "Earlier, until 22 March: you work at Acme — …"
        said = _said_as_earlier(said, getattr(m, "replaced_on", None), lang)
    return sentence_end(said + told, lang)


def _said_as_earlier(said: str, until: datetime | None, lang: str) -> str:
    t = OFFLINE_REPLIES[lang]
    if lang != "zh" and said[:1].isupper() and not said.startswith("I "):
        said = said[0].lower() + said[1:]
    if until is None:
        return t["earlier"].format(said=said)
    return t["earlier_until"].format(said=said, day=until.day, month=f"{until:%B}", month_number=until.month)
