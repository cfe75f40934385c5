"""Name a reference from the session's messages before this one (issue 44: "resolve from … the session's recent
messages, the session's named entities").

The sentence before and the message answered (memory.write.extract.antecedent, persons) name what a reference points
at when the speaker names it right there. In conversation it is as often named a few messages back: "I took this
photo at a beautiful location called Whispering Falls." — "I wish I could have been there!" — "The sound of that
place made me so calm." The write path reads each user message with the session's few messages before it
(``Item.recent``, memory.write.batch.answered), and this module names two kinds of reference from them:

- **a place** ("that place", "the place", "been there"): from the one place name the window introduces ("a location
  called Whispering Falls", "trip to Universal Studios", "in London") — "The sound of Whispering Falls …", "User
  hasn't been to Universal Studios yet";
- **a person** (he / him / his / she / her): from the one person named in the window whom a pronoun of the same
  gender follows in the message that names them, or whom the window introduces as a person ("someone named David",
  "my friend Anna"), when no word in the window ("a woman", "my son") speaks of someone else of that gender ("I
  talked to someone named David", "LeBron is incredible. Have you ever met him?", "Emma Watson, she's a big
  supporter …") — "User has met LeBron a few times", every such pronoun of the memory's head named.

It guesses only where one thing fits: every reference of the memory is of the one kind; the window (the recent
messages and the message itself up to the quoted sentence, each read to its last ``RECENT_CHARS`` characters) introduces
exactly one name of that kind; a name the speakers call each other by ("Thanks, Maria!", "Hey John",
"…, Nate!", "Nate, …") is never used; a person the window shows to be of the other gender ("my sister Anna" for a
"him") is not used; and what the memory becomes leaves nothing unresolved. It refuses: two names, none, a name of a
month, a day or a holiday; "here" (where the speaker is now, not always the place the window names) and "the city" /
"the town" (as often the user's own); a contracted pronoun ("he'd"); a "them" or an "it" named by the words its verb
takes in the window ("… start making gaming videos?" — "… start making them"): read on held-out conversations that
echo named the wrong thing as often as the right one ("making them" → "memories" for pizzas; "plant them" → "types"
for cuttings; "make it easy", "curate it"). Those memories are left to the abstention rules
(memory.write.extract.extractor.standing). English only: Chinese references are dropped unless the message names
them (see antecedent's module docstring).
"""

from __future__ import annotations

import re

from memory.text.language import has_cjk
from memory.write.extract.antecedent import MONTH_DAY, quoted_at
from memory.write.extract.kin import EITHER, FEMALE, MALE
from memory.write.extract.persons import OBJECT_AFTER
from memory.write.extract.references import head, unresolved

__all__ = ["RECENT", "RECENT_CHARS", "SESSION", "name_from_recent"]

#: a capitalised name of one to four words ("London", "Whispering Falls", "Cliffs of Moher", "J.K. Rowling")
_WORD_OF_NAME = r"[A-Z][^\W\d_A-Z]+(?:[A-Z][^\W\d_A-Z]+)?"  # "Rowling", "LeBron"
_NAME = r"(?:[A-Z]\.[ ]?){0,3}" + _WORD_OF_NAME + r"(?:[ ](?:of[ ]|the[ ])?" + _WORD_OF_NAME + r"){0,3}"
#: a place the window introduces: "called / named X", "in / at X", "visit X", "(went / trip / moved …) to X"
_PLACE = re.compile(
    r"\b(?:called|in|at|visit(?:ed|ing)?|(?:go|goes|went|gone|going|been|trip|travel(?:l)?ed|travel(?:l)?ing|moved|"
    r"move|drove|drive|driving|flew|fly|flying|back)[ ]to|(?:love|like|enjoy|miss)[ ](?:most[ ])?about)"
    r"[ ](?P<name>(?:the[ ])?" + _NAME + r")"  # "What do you love about Seattle?" … "this city"
)
#: how many of the session's messages before a message are read with it (memory.write.pipeline.Item.recent): the
#: question it answers and the two or three before it, where a conversation's references are named
RECENT = 4
#: how many the write path reads a message with in all (Item.recent): the last ``RECENT`` of them for the references
#: above, and all of them for what a "the X" was introduced as a few exchanges back ("a regional video game
#: tournament" … "the guys at the tournament": memory.write.extract.definite)
SESSION = 12
#: each is read to its last characters, where what the next message refers to was said: a pasted document or a
#: hostile message costs no more than a chat message
RECENT_CHARS = 2000
#: a person the window names
_PERSON_NAME = re.compile(r"\b(?P<name>" + _NAME + r")")
#: a person the window introduces as one, whatever follows: "someone named David", "a guy called Sam", "my friend
#: Anna"; the noun says the gender where it has one
_NAMED_PERSON = re.compile(
    r"\b(?:(?P<some>someone|somebody)|(?:[Aa]n?|[Mm]y|[Oo]ur|[Tt]his|[Tt]hat)\s+(?:(?:new|old|best|good|close|dear)\s+)?"
    r"(?P<noun>[a-z]+))\s+(?:(?:named|called)\s+)?(?P<name>" + _NAME + r")"
)
#: just before a name that opens its sentence (searched only in the few characters before it)
_OPENS = re.compile(r"(?:^|[.!?]\s)\W*\Z")
#: a name that opens its sentence is a person's only when the sentence goes on about them ("LeBron is incredible",
#: "Emma Watson, she's …"); otherwise it is as often a word that opens any sentence ("Hearing his story …")
_OPENS_ABOUT = re.compile(r"^(?:\s+(?:is|was|has|had|does|did)\b|'s\b|\s*,\s*(?:he|she)\b)")
#: capitalised words that name no place and no person (a month or a day: antecedent.MONTH_DAY)
_NOT_NAMES = frozenset(
    [
        "christmas",
        "easter",
        "thanksgiving",
        "halloween",
        "new",
        "year",
        "eve",
        "i",
        "i'm",
        "i've",
        "i'll",
        "i'd",
        "user",
        "hey",
        "hi",
        "hello",
        "thanks",
        "thank",
        "yeah",
        "yes",
        "yep",
        "wow",
        "oh",
        "omg",
        "sure",
        "congrats",
        "congratulations",
        "sorry",
        "okay",
        "ok",
        "great",
        "awesome",
        "cool",
        "nice",
        "haha",
        "aww",
        "no",
        "not",
        "so",
        "and",
        "but",
        "or",
        "then",
        "also",
        "anyway",
        "well",
        "that",
        "this",
        "these",
        "those",
        "there",
        "here",
        "it",
        "its",
        "they",
        "their",
        "them",
        "he",
        "she",
        "his",
        "her",
        "we",
        "our",
        "you",
        "your",
        "my",
        "me",
        "what",
        "when",
        "where",
        "why",
        "how",
        "who",
        "which",
        "have",
        "has",
        "had",
        "did",
        "do",
        "does",
        "was",
        "were",
        "is",
        "are",
        "be",
        "been",
        "can",
        "could",
        "would",
        "will",
        "should",
        "just",
        "really",
        "definitely",
        "totally",
        "absolutely",
        "glad",
        "good",
        "love",
        "hope",
        "any",
        "some",
        "every",
        "each",
        "one",
        "both",
        "all",
        "sounds",
        "seeing",
        "being",
        "having",
        "getting",
        "making",
        "hearing",
        "looking",
    ]
)
#: a name the speakers call each other by: "Thanks, Maria", "Hey John", "Yeah, John!", "…, Nate!", "Nate, that's …"
_VOCATIVE = re.compile(
    r"\b(?:hey|hi|hello|thanks|thank you|yeah|yes|yep|wow|oh|sure|congrats|congratulations|sorry|okay|ok|great|"
    r"awesome|cool|nice|haha|aww|bye|see you|morning|dear)\s*,?\s+(?P<a>(?-i:[A-Z][a-z]+))\b|"
    r",\s*(?P<b>(?-i:[A-Z][a-z]+))\s*[!?.]|"
    r"(?:^|[.!?]\s+)(?P<c>(?-i:[A-Z][a-z]+))\s*,",
    re.I,
)
#: a place reference named from the window: not "the city" / "the town", which is as often the user's own, and not
#: "here", which is where the speaker is now, not always the place the window names; "this city" answering "What do
#: you love about Seattle?" is the city asked about
_PLACE_REF = re.compile(
    r"^(?:that|the)\s+(?:place|spot)$|^(?:this|that)\s+(?:city|town)$|^(?P<verb>\w+)\s+there$", re.I
)
#: "been there" → "been to X"; "lived there" → "lived in X"
_TO_VERBS = frozenset(
    [
        "go",
        "goes",
        "went",
        "gone",
        "going",
        "been",
        "moved",
        "move",
        "travel",
        "travelled",
        "traveled",
        "get",
        "got",
        "back",
        "visit",
        "visited",
        "trip",
        "trips",
        "flight",
        "drive",
        "way",
    ]
)
#: a word for someone of one gender the window may name instead ("it's a human female. She is …"): then the pronoun
#: may be theirs, and nothing is guessed
_GENDERED = {
    "m": MALE | {"man", "men", "guy", "boy", "male", "gentleman", "king", "prince"},
    "f": FEMALE | {"woman", "women", "girl", "lady", "female", "queen", "princess"},
}
#: the words a named person may be introduced by ("someone named David", "my friend Anna", "a guy called Sam")
_INTRODUCED_BY = _GENDERED["m"] | _GENDERED["f"] | EITHER | {"someone", "somebody", "person"}
_WORD = re.compile(r"[a-z]+")
#: a shared photo's caption ("[shares a photo of a man …]") shows, it does not speak of someone else
_SHARED = re.compile(r"\[shares [^\]]*\]")
_GENDER = {"he": "m", "him": "m", "his": "m", "she": "f", "her": "f", "hers": "f"}
_PRONOUN = re.compile(r"\b(?P<p>he|him|his|she|her)\b", re.I)


def name_from_recent(content: str, evidence: str, message: str, recent: list[str]) -> str | None:
    """``content`` with its place or person reference named from the
    session's ``recent`` messages (oldest first) and ``message`` up to the sentence ``evidence`` quotes, or None (see
    the module docstring)."""
    if not recent or not evidence or has_cjk(content):
        return None
    refs = [r.strip() for r in unresolved(content, evidence)]
    if not refs:
        return None
    at = quoted_at(evidence, message)
    window = [m[-RECENT_CHARS:] for m in recent[-RECENT:]] + [message[:at][-RECENT_CHARS:] if at > 0 else ""]
    speakers = {
        m.group("a") or m.group("b") or m.group("c")
        for t in [*window, message[: 4 * RECENT_CHARS]]
        for m in _VOCATIVE.finditer(t)
    }
    if all(_PLACE_REF.match(r) for r in refs):
        return _name_place(content, evidence, refs, window, speakers)
    genders = {_GENDER.get(r.lower()) for r in refs}
    if len(genders) == 1 and None not in genders:
        return _name_person(content, evidence, genders.pop() or "", window, speakers)
    return None


def _usable(name: str, speakers: set[str]) -> bool:
    words = name.removeprefix("the ").split()
    return (
        words[0].lower() not in _NOT_NAMES and not MONTH_DAY.match(words[0]) and not any(w in speakers for w in words)
    )


def _name_place(content: str, evidence: str, refs: list[str], window: list[str], speakers: set[str]) -> str | None:
    places = {m.group("name") for text in window for m in _PLACE.finditer(text) if _usable(m.group("name"), speakers)}
    if len(places) != 1:
        return None  # none, or several places the reference could be
    place = places.pop()
    named = content
    for ref in dict.fromkeys(refs):
        m = _PLACE_REF.match(ref)
        if m is None:
            return None
        verb = m.group("verb")
        if verb is None:
            new = place
        elif verb.lower() in _TO_VERBS:
            new = f"{verb} to {place}"
        else:
            new = f"{verb} in {place}"
        named = re.sub(rf"\b{re.escape(ref)}\b", new, named, count=1)
    return named if named != content and not unresolved(named, evidence) else None


def _name_person(content: str, evidence: str, gender: str, window: list[str], speakers: set[str]) -> str | None:
    people: set[str] = set()
    introduced = []  # the words that introduce a person ("someone named", "my brother"): not someone else
    for text in window:
        for m in _NAMED_PERSON.finditer(text):
            noun = (m.group("some") or m.group("noun")).lower()
            if noun in _INTRODUCED_BY and _usable(m.group("name"), speakers):
                if _other_gender(noun, text[m.end() :], gender):
                    continue  # "my sister Anna", "my friend Anna … she" is no "him"
                people.add(m.group("name"))
                introduced.append(noun)
        for m in _PERSON_NAME.finditer(text):
            name = m.group("name")
            if not _usable(name, speakers) or gender not in _genders_after(text[m.end() :]):
                continue
            if _OPENS.search(text, max(0, m.start() - 12), m.start()) and not _OPENS_ABOUT.match(text[m.end() :]):
                continue  # a capitalised word opening a sentence is as often no name ("Hearing his story …")
            people.add(name)
    if len(people) != 1:
        return None  # none, or several people the pronoun could stand for
    said = [w for text in window for w in _WORD.findall(_SHARED.sub(" ", text).lower())]
    if any(w in _GENDERED[gender] for w in said if w not in introduced):
        return None  # someone else of that gender is spoken of: the pronoun may be theirs
    return _put_person(content, evidence, gender, people.pop())


def _put_person(content: str, evidence: str, gender: str, person: str) -> str | None:
    """``content`` with each pronoun of ``gender`` in its head named ``person`` ("him" → "David", "her" → "Emma
    Watson's" before a noun); None where a pronoun is contracted ("he'd": "David'd" is no sentence)."""
    text = head(content)
    found = [p for p in _PRONOUN.finditer(text) if _GENDER[p.group("p").lower()] == gender]
    if not found or any(text[p.end() :].startswith(("'", "’")) for p in found):
        return None
    named = content
    for p in reversed(found):
        word = p.group("p").lower()
        possessive = word == "his" or (word == "her" and not OBJECT_AFTER.match(text[p.end() :]))
        named = named[: p.start()] + person + ("'s" if possessive else "") + named[p.end() :]
    return named if not unresolved(named, evidence) else None


def _other_gender(noun: str, rest: str, gender: str) -> bool:
    """Whether the person a ``noun`` introduces is shown to be of the other gender than ``gender``: by the noun ("my
    sister"), or else by the pronouns that follow them in that message (only "she" after "my friend Anna")."""
    if noun in _GENDERED["m"] or noun in _GENDERED["f"]:
        return noun not in _GENDERED[gender]
    after = _genders_after(rest)
    return bool(after) and gender not in after


def _genders_after(rest: str) -> set[str]:
    """The genders of the he / him / his / she / her that follow a name in the message that names them (a pronoun of
    a gender there stands for them)."""
    return {_GENDER[p.group("p").lower()] for p in _PRONOUN.finditer(rest)}
