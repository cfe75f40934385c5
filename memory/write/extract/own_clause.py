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
from memory.write.extract.references import unresolved
from memory.write.extract.worth import trivial

__all__ = ["own_clause", "points_elsewhere"]

#: where the speaker's own clause starts: after ", and" / ", but" / ", so", a semicolon or a dash, on "User"
_OWN = re.compile(r"(?:,\s+(?:and|but|so)|;|\s+[-–—]+)\s+(?=User\b(?!'s))")
#: where a clause about someone or something else starts after the speaker's own: "…, and they seemed interested"
_OTHERS_AFTER = re.compile(r"(?:,\s+|\s+)(?:and|but|so|while)\s+(?=(?:they|it|he|she|them|this|that)\b)")
#: the resolved day the extractor appends to a statement: "… last week (2023-05-08)", "(Last weekend, 2023-04-01)"
_STAMP = re.compile(r"\((?:[^()]*, )?\d{4}(?:-\d{2}){0,2}\)")
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
    head, _, tail = rest.partition(";")
    others = _OTHERS_AFTER.search(head)
    if others is not None and unresolved(head, evidence) and not unresolved(head[: others.start()] + ".", evidence):
        stamp = _STAMP.search(head[others.start() :])  # the day the statement resolved stays with it
        rest = head[: others.start()] + (f" {stamp.group()}" if stamp else "") + "."
        # "User felt confident …, and they seemed interested": theirs, not User's
    if rest == content:
        return None
    said = re.split(r"[;；]", rest)[0]
    if _AFTER_IT.search(said) or len(_CONTENT.findall(said)) < 3 or trivial(rest, "fact"):
        return None
    return rest


#: what an appended part points at that the memory's head cannot name for it: a thing the part opens on by pointing
#: ("this promotion is a reward …") or a place said after a thing of it ("the library there"), both named only
#: elsewhere in the conversation; a bare it / they / she goes on about the head ("…; she brings so much joy" after "a
#: cute pup"), and so does a "there" of the head's own trip ("…; it was so amazing lying there")
_OPENS_POINTING = re.compile(  # ("that way User can …" is a "so": it points at nothing)
    r"^(?:this|that|these|those)\s+(?!(?:is|was|are|were|has|had|'s|way)\b)[a-z]", re.IGNORECASE
)
#: a name in the sentence or memory before (not a word capitalised for opening a sentence): "Seattle", "Lisbon"
_NAME = re.compile(
    r"\b(?!(?:User|The|A|An|I|It|This|That|These|Those|My|Our|We|He|She|They|So|And|But|Yeah|Yes|Oh|Wow|Also|"
    r"Just|There|Here|What|When|With|After|Before|Last|Next)\b)[A-Z][a-z]+"
)
_THING_THERE = re.compile(r"\b(?:the|their|User's)\s+[a-z]+\s+there\b", re.IGNORECASE)


def points_elsewhere(content: str, evidence: str, before: str, *, joined: bool = False) -> bool:
    """Whether ``content`` speaks of a place said after a thing of it ("User checked out the library there …") that
    ``before`` — the sentence or the memory it would go on from — does not name (no name in it: "Seattle is a great
    city; User has always wanted to try the seafood there" names it), or, to be ``joined`` onto the memory before,
    opens by pointing at a thing ("This promotion is a reward …"; a sentence said just before, which leads a memory in,
    names what it points at by its own rules: "Learning the cello … These lessons …"). Such a statement goes on from
    nothing: blind readers flagged "… historic buildings; User checked out the library there" and "… they powered
    through; this promotion is a reward …". English only."""
    if has_cjk(content):
        return False
    if joined and _OPENS_POINTING.match(content):
        return True
    named = _NAME.search(before)
    return bool(_THING_THERE.search(content) and not named and unresolved(content, evidence))
