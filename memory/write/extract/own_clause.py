"""Keep the speaker's own clause when only the clause before it points back (issue 44: resolve or abstain).

"The colors were amazing, and I had a feeling of gratitude just sitting in Florida with my family." gives "The colors
were amazing, and User had a feeling of gratitude …": the colors are the photo's, which a reader of the memory never
sees (``references.unresolved`` flags a bare "the X" opening a memory), so the whole memory used to be dropped. What
the speaker then says of themself stands on its own: "User had a feeling of gratitude just sitting in Florida with
their family." The same with "The gym is awesome, but User had to …" and "The meetings went really well; User felt
confident discussing their script …".

The same with a closing clause about someone else: "User felt confident discussing their script and vision and they
seemed interested and excited" (they = the producers, named in another session) keeps "User felt confident discussing
their script and vision". A clause is cut only when it holds a reference the detector flags and what is left does not:
the speaker's clause opens on User as its subject (not "User's teammates and they …", which the cut would leave
broken), says enough to be a fact (three content words) and is no verdict of the moment (``worth.trivial``); what it
still points at is named by the caller's usual steps, or the caller abstains. Otherwise nothing
is kept here and the caller goes on as before (lead-in, join, or abstain). English only: a Chinese clause boundary is
not read without a parser.
"""

from __future__ import annotations

import re

from memory.text.language import has_cjk
from memory.write.extract.references import head, unresolved
from memory.write.extract.worth import DATE_STAMP, trivial

__all__ = ["own_clause"]

#: where the speaker's own clause starts: after ", and" / ", but" / ", so", a semicolon or a dash, on "User"
_OWN = re.compile(r"(?:,\s+(?:and|but|so)|;|\s+[-–—]+)\s+(?=User\b(?!'s))")
#: where a clause about someone or something else starts after the speaker's own: "…, and they seemed interested"
_OTHERS_AFTER = re.compile(r"(?:,\s+|\s+)(?:and|but|so|while)\s+(?=(?:they|it|he|she|them|this|that)\b)")
#: a word of the rest that points back at the clause cut: "User and others even played some Chess afterward"
_AFTER_IT = re.compile(r"\b(?:afterwards?|after that|then|too|as well|either)\b", re.I)
_CONTENT = re.compile(r"\b(?!User\b)[A-Za-z][A-Za-z'-]{3,}\b")


def own_clause(content: str, evidence: str) -> str | None:
    """``content`` cut to the speaker's own clause, when a clause before it (or after it) points back; None when there
    is no such clause or what is left says too little. What the rest itself points at is the caller's to name (or
    abstain on)."""
    if has_cjk(content) or not unresolved(content, evidence):
        return None
    rest = content
    m = _OWN.search(content)
    if m is not None and unresolved(content[: m.start()] + ".", evidence):
        rest = content[m.end() :]  # "The colors were amazing, and User had …"
    said = head(rest)
    others = _OTHERS_AFTER.search(said)
    if others is not None and unresolved(said, evidence) and not unresolved(said[: others.start()] + ".", evidence):
        # "User felt confident …, and they seemed interested": theirs, not User's; the day it resolved stays with it
        stamp = DATE_STAMP.search(said[others.start() :])
        rest = said = said[: others.start()] + (f" {stamp.group().strip()}" if stamp else "") + "."
    if rest == content:
        return None
    if _AFTER_IT.search(said) or len(_CONTENT.findall(said)) < 3 or trivial(rest, "fact"):
        return None
    return rest
