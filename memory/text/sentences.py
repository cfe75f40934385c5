"""Sentence splitting, once: the extractor reads a message sentence by sentence, the extractive summariser picks
whole sentences, the retraction filter drops them, erasure finds a purged message's clauses in the text that
repeated them, and the desk compares replies with the system prompt — all through :func:`sentences`
(``tests/test_small_concepts.py`` fails on a second splitter).

A sentence ends at ``. ! ? ;`` or their full-width forms, or at a line break; its end marks stay with it (a
question keeps its ``?``, so callers can skip it), and so does a closing quote right after them. A point inside a
word or a number is not an end ("2.5k", "3.5万", "Booking.com"), nor one after a title ("St. Joseph's Church", "Dr.
Lee") or initials ("J.K. Rowling").
``semicolons=False`` keeps a sentence whole across its semicolons (the desk compares whole sentences of the system
prompt).
"""

from __future__ import annotations

import re

#: a point inside a word ("Booking.com", "2.5k"), after a title ("St. Joseph's", "Dr. Lee") or after initials
#: ("J.K. Rowling"): no sentence ends there
_INNER_POINT = (
    r"\.(?=[A-Za-z0-9])|(?:"
    + "|".join(rf"(?<=\b{t})" for t in ("Mr", "Mrs", "Ms", "Dr", "St", "Mt", "Jr", "Sr", "Prof", "vs"))
    + r")\.(?=\s+\S)"
    # initials: "J.K. Rowling", "J. K. Rowling" (not before "I": "… near Washington D.C. I'm …" ends there)
    r"|(?:(?<=\b[A-Z]\.[A-Z])|(?<=\b[A-Z]\. [A-Z]))\.(?=\s+(?!I\b|I'|I’)\S)|(?<=\b[A-Z])\.(?=\s[A-Z]\.)"
)
#: a closing quote or bracket right after the end mark stays with its sentence ('… darkest of times." That's how …'
#: gave a next sentence opening on the quote); an opening one after a space starts the next
_CLOSING = r"(?:[\"”’»」』)\]]+(?=\s|$))?"
_SENTENCE = re.compile(rf"(?:[^.!?;。！？；\n]|{_INNER_POINT})+[.!?;。！？；]*{_CLOSING}")
_SENTENCE_WHOLE = re.compile(rf"(?:[^.!?。！？\n]|{_INNER_POINT})+[.!?。！？]*{_CLOSING}")
#: what :func:`clause` strips: a sentence's end marks
END_MARKS = ".!?;。！？；"


def sentences(text: str, *, semicolons: bool = True) -> list[str]:
    """Sentences with their end mark, stripped, empty ones left out."""
    pattern = _SENTENCE if semicolons else _SENTENCE_WHOLE
    return [s.strip() for s in pattern.findall(text) if s.strip()]


def clause(sentence: str) -> str:
    """A sentence without its end marks."""
    return sentence.rstrip(END_MARKS).strip()
