"""Name a reference from the sentences said before it in the same message (issue 44: resolve instead of abstain).

"I've got some other stuff with sentimental value, like my hand-painted bowl. A friend made it for my 18th
birthday." — the second sentence alone gives "A friend made it for User's 18th birthday", which a reader of the memory
cannot place (``references.unresolved`` flags "it") and which the extractor would otherwise abstain on. The thing is
named one sentence before, by the speaker: "my hand-painted bowl". This module names it there: "A friend made
User's hand-painted bowl for User's 18th birthday."

It guesses only where one thing fits: the reference is a bare "it" / "this" / "that" (one thing) or "them" (things);
the sentence just before it in the same message names exactly one thing of that number, and one the speaker owns
("my …", "our …": a "the …" / "a …" read by rule picked adjectives and the wrong thing too often on the tuning
conversations); and what replaces the reference leaves nothing unresolved. Two candidates, a reference of another
kind ("him", "here", "one") or no candidate: nothing is guessed and the caller abstains as before. The thing stays
the speaker's ("my bowl" → "User's bowl", "their bowl" after "User").

What is not used, and why (read on all five LoCoMo dev conversations, after a first version did): the photo a
message shares (the product path sends it as "… [shares a photo of …]"): a bare "this" named by the caption was right
in 1 of 4 ("chat about this" is the matter discussed, not the party invitation in the photo); a sentence two back
("I wore my Gryffindor scarf. Everyone had cool costumes. I even got this as a treat": the treat is a chocolate frog);
an "it" a judgement is about ("I find it fulfilling", "I find it really rewarding": the activity, not "my group" the
sentence before names). A wrong name makes a false fact, which is worse than an unnamed one.

Chinese is not guessed at here (no word boundaries to cut a noun phrase at without a segmenter; a 它 / 这个 the
message does not name in its own sentence is dropped as before).
"""

from __future__ import annotations

import re

from memory.text.language import has_cjk
from memory.text.sentences import sentences
from memory.write.extract.references import head, unresolved

__all__ = ["name_from_message"]

#: a determiner, up to two modifiers, a head noun (lowercase words; hyphens kept: "hand-painted")
#: (a lookahead, so that "my bike and my helmet" yields both)
_NP = re.compile(r"\b(?:my|our)\s+(?=(?P<np>(?:[a-z][a-z-]*\s+){0,2}[a-z][a-z-]*))", re.I)
#: words that end a noun phrase before them or cannot be its head
_STOP = frozenset(
    [
        "and",
        "or",
        "but",
        "so",
        "as",
        "at",
        "in",
        "on",
        "of",
        "for",
        "with",
        "to",
        "from",
        "by",
        "about",
        "into",
        "over",
        "after",
        "before",
        "than",
        "then",
        "that",
        "which",
        "who",
        "when",
        "where",
        "while",
        "because",
        "if",
        "is",
        "was",
        "are",
        "were",
        "be",
        "been",
        "being",
        "has",
        "have",
        "had",
        "do",
        "does",
        "did",
        "can",
        "could",
        "will",
        "would",
        "should",
        "may",
        "might",
        "must",
        "not",
        "no",
        "very",
        "really",
        "too",
        "just",
        "also",
        "even",
        "still",
        "again",
        "all",
        "some",
        "any",
        "more",
        "most",
        "much",
        "many",
        "lot",
        "lots",
        "bit",
        "kind",
        "sort",
        "way",
        "thing",
        "things",
        "stuff",
        "one",
        "ones",
        "time",
        "times",
        "day",
        "days",
        "week",
        "weeks",
        "year",
        "years",
        "month",
        "months",
        "moment",
        "moments",
        "point",
        "it",
        "its",
        "it's",
        "this",
        "these",
        "those",
        "there",
        "here",
        "them",
        "they",
        "their",
        "he",
        "she",
        "him",
        "her",
        "his",
        "we",
        "us",
        "you",
        "your",
        "i",
        "me",
        "mine",
        "myself",
        "what",
        "how",
        "why",
        "whom",
        "whose",
        "anything",
        "something",
        "everything",
        "nothing",
        "gonna",
        "wanna",
        "got",
        "get",
        "gets",
        "getting",
        "go",
        "goes",
        "going",
        "went",
        "make",
        "made",
        "making",
        "feel",
        "felt",
        "feeling",
        "love",
        "loved",
        "like",
        "liked",
        "self",
        "life",
        "childhood",
        "heart",
        "mind",
        "soul",
        "own",
        "true",
        "best",
        "favorite",
        "favourite",
        "fave",
        "whole",
        "entire",
        "new",
        "old",
        "first",
        "last",
        "next",
        "back",
        "up",
        "down",
        "out",
        "off",
        "away",
        "home",
    ]
)
#: a verb or a predicate adjective after the noun ("my car broke down", "keep my community safe")
_AFTER_NOUN = frozenset(
    [
        "broke",
        "broken",
        "took",
        "gave",
        "came",
        "found",
        "said",
        "told",
        "ran",
        "won",
        "lost",
        "left",
        "kept",
        "felt",
        "safe",
        "happy",
        "ready",
        "open",
        "busy",
        "alive",
    ]
)
_POSSESSIVE_TAIL = re.compile(r"'s$")
_REF = re.compile(r"\b(?P<ref>it|this|that|them)\b")


def _phrases(sentence: str) -> list[str]:
    """The noun phrases a sentence names after "my" / "our", each cut at the first word that ends it."""
    out = []
    for m in _NP.finditer(sentence):
        words: list[str] = []
        for w in m.group("np").split():
            if w.lower() in _STOP or words and (w.lower().endswith(("ing", "ed")) or w.lower() in _AFTER_NOUN):
                break
            words.append(w)
        while words and (words[-1].lower() in _STOP or words[-1].lower().endswith("ly")):
            words.pop()
        if not words or words[-1].lower() in _STOP:
            continue
        # "the dance studio's been …": the possessive / contracted "'s" ends the phrase
        words[-1] = _POSSESSIVE_TAIL.sub("", words[-1])
        out.append(" ".join(words))
    return out


def _plural(noun_phrase: str) -> bool:
    last = noun_phrase.split()[-1].lower()
    return last.endswith("s") and not last.endswith(("ss", "us", "is"))


def _said_before(evidence: str, message: str) -> str | None:
    """The sentence of ``message`` just before the one ``evidence`` quotes (two back, the speaker has moved on: the
    module docstring), or None when there is none or the quote is not found."""
    first = sentences(evidence)[:1]
    at = message.find(first[0].strip()) if first else -1
    before = sentences(message[:at]) if at > 0 else []
    return before[-1] if before else None


#: "I find it fulfilling": a judgement about what the speaker does, not about the thing the sentence before names
_JUDGED_IT = re.compile(r"\b(?:find|finds|found|finding|consider|considers|considered)\s+it\b", re.I)


def name_from_message(content: str, evidence: str, message: str) -> str | None:
    """``content`` with its one unresolved reference named from the sentence of ``message`` before it, or None."""
    if not message or not evidence or _JUDGED_IT.search(evidence):
        return None
    if has_cjk(content):
        return None  # see the module docstring: Chinese references are not guessed at from another sentence
    refs = unresolved(content, evidence)
    if len(refs) != 1 or refs[0] not in ("it", "this", "that", "them"):
        return None
    ref = refs[0]
    sentence = _said_before(evidence, message)
    named = [np for np in _phrases(sentence) if _plural(np) == (ref == "them")] if sentence else []
    if len(named) != 1:
        return None  # the sentence before names none or several things of this number
    text = head(content)
    m = next((r for r in _REF.finditer(text) if r.group("ref") == ref), None)
    if m is None:
        return None
    owner = "their" if "User" in text[: m.start()] else "User's"
    named_content = f"{content[: m.start()]}{owner} {named[0]}{content[m.end() :]}"
    return named_content if not unresolved(named_content, evidence) else None
