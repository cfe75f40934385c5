"""Let the sentence said just before a memory's own lead it in, when the memory goes on about what that sentence
names (issue 44: a memory a reader can place without the conversation).

"Renovating the old farmhouse went smoothly in the end. We painted it a soft green." — the second sentence alone
gives "User and others painted it a soft green", whose "it" a reader of the memory cannot place. The sentence before
names it, but in words no rule can safely cut a noun phrase out of ("a 'the …' read by rule picked adjectives and the
wrong thing too often": memory.write.extract.antecedent). Quoting that sentence as the memory's head names it without
guessing: "Renovating the old farmhouse went smoothly in the end; User and others painted it a soft green". Nothing
is made up: both sentences are the speaker's own words, and the provenance quotes both.

A sentence that opens on a bare "the X" ("The photoshoot went really well too.") leads nothing in: it points back
itself (``references.unresolved``: blind readers of the fourteenth round flagged "The photoshoot went really well too;
User and others did it in a gorgeous forest …" as unplaceable, which photoshoot?).

Only a sentence that stands alone is let in: a statement (no question), in no one's voice (no I / we / you: a
first-person sentence gives a memory of its own, one addressed to the listener is about them), that names at least
two things ("Cool news!", "Thanks, Jo!" name nothing) and leaves no reference of its own unnamed
(memory.write.extract.references.unresolved). The same in Chinese: "这次装修很顺利。我们把它刷成了浅绿色。" →
"这次装修很顺利；用户一家把它刷成了浅绿色。" (a sentence with 我 / 你, a bare 它 / 这个 / 那里 / 他, or an interjection
first never leads in).
"""

from __future__ import annotations

import re

from memory.text.language import CJK, has_cjk
from memory.write.extract.antecedent import ZH_INTERJECTION, only_interjections, quoted_at, said_before
from memory.write.extract.base import is_question
from memory.write.extract.references import (
    NAMED_ONLY_BY_KIND,
    PERSON_PRONOUNS,
    ZH_PERSON_PRONOUN,
    head,
    unresolved,
)
from memory.write.same import words as content_words

__all__ = ["lead_in"]

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


def _from_nothing(content: str, evidence: str, before: str, *, joined: bool = False) -> bool:
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


#: a person in the sentence: the speaker's own or the listener's
_VOICE = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|me|my|mine|myself|we|we're|we've|us|our|ours|you|your|yours)\b", re.I)
#: a statement that opens on what it is about: a determiner ("The photoshoot went …"), a quantity ("So many people
#: marched …"), "There were …", a doing ("Learning German has been …", "Just seeing the sun dip …"), a name
#: ("Seattle is …", "Woodhaven has had …"); not an interjection, a greeting, a thank-you or an order
_OPENS_ON_SUBJECT = re.compile(
    r"^(?:(?:The|A|An|Some|Many|So many|Most|All|Every\w*|Both|Each)\s+\S|There\s+(?:is|are|was|were|have|has)\b|"
    r"(?:[A-Z][a-z]+ing|Just\s+[a-z]+ing)\s+\S|"
    r"(?!(?:Hey|Hi|Hello|Thanks|Thank|Cheers|Wow|Oh|Yeah|Yes|Great|Cool|Nice|Sure|Way|Believe|Sounds|Looks|Glad|"
    r"Sorry|Congrats|Congratulations|Awesome|Amazing|Good|Well|So|Also|Plus|And|But|Then|"
    r"Just|Last|Next|This|That|These|Those|It|Its|Here|Now|Yesterday|Today|Tomorrow)\b)[A-Z][a-z]+"
    r"\s+(?:is|was|has|had|are|were|looked|looks|went|got|became)\b)"
)
#: a name the speaker calls the listener by ("…, Nate", "Wow, Joanna, …"): words to the listener
_VOCATIVE = re.compile(r",\s*[A-Z][a-z]+\s*(?:[,.!]|$)")
#: a bare "this" / "that" the memory points with ("User even got this as a treat"): what the speaker shows, a photo,
#: which a sentence said before does not name
_SHOWN = re.compile(
    r"\b(?:this|that|these|those)\b(?=\s*(?:$|[,.;!?]|(?:as|is|was|are|were|to|for|with|in|at|on|and|but|so|too|out|"
    r"up|could|would|will|can|might|should|has|had|have|does|did|do|makes?|made|means?|looks?|sounds?|seems?|feels?|"
    r"works?|worked|one|all)\b))",
    re.I,
)
#: a finite verb: the lead-in says something ("Hoping for the best" says nothing about what it names)
_FINITE = re.compile(
    r"\b(?:is|are|was|were|has|have|had|can|could|will|would|might|must|should|may|does|did|do|[a-z]{2,}ed|went|got|"
    r"felt|made|took|came|saw|left|kept|found|gave|began|became|ran|seems|looks|sounds|feels|stands|means|makes|"
    r"helps|brings|goes|gets)\b"
)
#: a lead-in longer than this is a story of its own, not the name of what the memory goes on about
_LONGEST = 25


#: a word by which a memory the detector passes may still go on about something said before it: "… but it paid
#: off", "… played some chess afterward", "… the structure of the language"
_POINTS_BACK = re.compile(r"\b(?:it|its|there|then|afterwards?|the|this|that|these|those)\b", re.I)
#: a sentence that tells of one thing of the speaker's own that happened ("The gaming party was a great success",
#: "Getting sponsors was difficult", "Learning German has been tough"): opens on it, and says how it went; a maxim
#: in the present ("Losing a pet is tough", "Staying positive makes a big difference") is said of anyone's
_TELLS_OF_ITS_THING = re.compile(
    r"^(?:The\s+[a-z]|[A-Z][a-z]+ing\s+)[^.!?]*?\b(?:was|were|has been|have been|had been|went|got|turned out|came|"
    r"felt|looked)\b"
)


def lead_in(content: str, evidence: str, message: str, *, own_words: bool = False) -> tuple[str, str] | None:
    """(content, evidence) with the sentence of ``message`` just before ``evidence`` as the memory's head, or None
    when that sentence cannot stand alone (module docstring; Chinese: ``_lead_in_zh``).

    A memory whose references the detector names none of (memory.write.extract.references.unresolved) is led in
    only when it is in the speaker's ``own_words`` (a fact, an event, a like, a plan; not hedged), a word of it may
    point back (``_POINTS_BACK``) and the sentence before tells of one thing that happened (``_TELLS_OF_ITS_THING``):
    "Getting sponsors was difficult; User had to reach out to several businesses …, but it paid off"."""
    refs = unresolved(content, evidence)
    if not message or _SHOWN.search(head(content)) or any(NAMED_ONLY_BY_KIND.search(r) for r in refs):
        return None  # "one", "any", "while they were there": a sentence before names no kind or place for them
    if not refs and not (own_words and not has_cjk(content) and _POINTS_BACK.search(head(content))):
        return None
    at = quoted_at(evidence, message)
    before = said_before(evidence, message)
    if before is None or not re.search(r"[.!…。！]\s*$", message[:at]):
        return None  # the quote opens a clause of a sentence ("The clasp is broken, and I want to wear it …")
    if _from_nothing(content, evidence, before):
        return None  # "User checked out the library there": the sentence before names no place
    before = before.strip()
    said = message[message.rfind(before, 0, at) : at]  # both sentences as said, the space between them too
    if has_cjk(content) or has_cjk(before):
        return _lead_in_zh(content, before, said + evidence)
    words = re.findall(r"[A-Za-z][A-Za-z'-]*", before)
    if (
        is_question(before)
        or not _OPENS_ON_SUBJECT.match(before)
        or not _FINITE.search(before)
        or _VOCATIVE.search(before)
        or _VOICE.search(before)
        or only_interjections(before)
        or len(content_words(before)) < 2
        or len(words) > _LONGEST
        or unresolved(before, before)
        or (not refs and not _TELLS_OF_ITS_THING.match(before))
    ):
        return None
    lead = before.rstrip(".!…-–— ")
    return f"{lead}; {_lower_first(content)}", said + evidence


def joined(first: tuple[str, str], then: tuple[str, str], message: str) -> tuple[str, str] | None:
    """One memory of two said one right after the other, the second going on about what the first names ("We made
    pizza! We had so much fun making them together." → "User and others made pizza; User and others had so much fun
    making them together"): (content, evidence as said), or None when something was said between them or the
    second's reference is a person."""
    (content, evidence), (more, more_said) = first, then
    if _from_nothing(more, more_said, content, joined=True):
        return None  # "This promotion is a reward …": the memory before names no promotion
    refs = unresolved(more, more_said)
    if any(r.lower() in PERSON_PRONOUNS or NAMED_ONLY_BY_KIND.search(r) for r in refs):
        return None  # "My sister called. I told him the news.": who he is, the first does not say; nor "one" what
    start, at = message.find(evidence), quoted_at(more_said, message)
    if start < 0 or at < start + len(evidence) or not _nothing_between(message[start + len(evidence) : at]):
        return None
    return f"{content.rstrip('.!… ')}; {_lower_first(more)}", message[start:at] + more_said


#: what may stand between two sentences one memory joins: an exclamation without a verb that only repeats how it
#: was ("Last week I had a crazy game - crazy intense! We won it by a tight score.", "… - so much fun!")
_EXCLAIMED = re.compile(
    r"^\W*(?:(?:so|such|really|very|super|crazy|pretty|totally|a|an)\s+)*[a-z]+(?:\s+fun)?[.!…]+\W*$", re.I
)
#: words of an exclamation that say what happened or who: not only how it was
_NOT_EXCLAIMED = frozenset({"it", "this", "that", "they", "he", "she", "we", "i", "you", "not", "no", "but", "and"})


def _nothing_between(between: str) -> bool:
    """Whether what was said between two sentences adds nothing a joined memory would lose: punctuation, or an
    exclamation of how it was ("crazy intense!", "So much fun!")."""
    if not between.strip(" \t\n.!…\"'”’)"):
        return True
    words = re.findall(r"[A-Za-z']+", between.lower())
    return bool(_EXCLAIMED.match(between.strip(" -–—"))) and not _NOT_EXCLAIMED.intersection(words)


#: a memory's first word that is no name: written small after the lead-in ("…; these experiences make User …")
_COMMON_FIRST = re.compile(
    r"^(?:The|This|These|That|Those|A|An|Some|It|Its|Their|They|There|Being|Not|Just|Also|Stuff|Everything|Everyone|"
    r"Something|Nothing|Don't|Can't|Didn't|Last|Next|Each|People|Many|Most|Both|All|[A-Z][a-z]+ing)\b"
)


def _lower_first(content: str) -> str:
    return content[:1].lower() + content[1:] if _COMMON_FIRST.match(content) else content


#: a Chinese sentence in someone's voice (我 / 你 / 您 / 咱): a memory of its own, or words to the listener
_ZH_VOICE = re.compile(r"[我你您咱]")
#: what a Chinese lead-in may not point with: a bare 它 / 这个 / 那里 / 他 (它们, 这些 …), or a pointing subject
#: ("这是 …"); a determiner with its noun ("这次装修很顺利") names the thing and may lead in
_ZH_BARE = re.compile(
    r"它|[这那](?:个|些|里|儿|边)?(?![\u4e00-\u9fff])|[这那](?:个|些|里|儿|边)(?=[是就让使令给对也都真太很可，。！,!])|"
    r"[这那](?=是|就是)|" + ZH_PERSON_PRONOUN.pattern
)
#: what a Chinese sentence says after its first pause: an interjection before it opens on nothing ("哇，…")
_ZH_AFTER_PAUSE = re.compile(r"[，,！!。].*", re.DOTALL)
#: fewer Han characters than this name nothing a memory can go on about ("好累。")
_ZH_SHORTEST = 4


def _lead_in_zh(content: str, before: str, said: str) -> tuple[str, str] | None:
    """The Chinese lead-in ("这次装修很顺利。我们把它刷成了浅绿色。" → "这次装修很顺利；用户一家把它刷成了浅绿色。"):
    a statement in no one's voice that points at nothing bare, opens on no interjection and names something."""
    if (
        is_question(before)
        or _ZH_VOICE.search(before)
        or _ZH_BARE.search(before)
        or ZH_INTERJECTION.match(_ZH_AFTER_PAUSE.sub("", before))  # "哇，…", "谢谢！…"
        or len(CJK.findall(before)) < _ZH_SHORTEST
        or len(before) > 2 * _LONGEST
    ):
        return None
    return f"{before.rstrip('。！!…. ')}；{content}", said
