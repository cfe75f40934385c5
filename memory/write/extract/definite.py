"""A "the X" the conversation pointed at: named as the kind it is, or not stored (issue 44: resolve or abstain).

"That cake looks amazing! How did you make it?" — "I make it with almond flour, coconut oil, chocolate and
raspberries." gives "User makes the cake with almond flour, …": every word is resolved, yet a reader of the memory
alone asks "which cake?" — the cake is the one in the photo, named only by the other speaker's "that cake". The same
with "the shelter" after "a homeless shelter" two messages back, "the accident" after "an accident", "the tournament"
after "How was the tournament?". Blind readers of held-out memories called these unresolved (about a third of what
they flagged); the reference detector (``references.unresolved``) reads a "the X" as named, because on its own words
"User took the kids to the museum" is as self-contained as a fact gets.

What tells them apart is the session: the X of a self-contained "the X" (the museum, the beach, the campfire) is not
spoken of just before; the X of a pointing one was, by a pointer ("that cake", "this plate", "the tournament",
"your painting") or introduced as one of a kind ("an accident", "a homeless shelter"). So, reading the session's
recent messages and the message up to the quoted sentence (the window ``recent`` reads):

- a singular "the X" (no words of its own between "the" and the noun, or the same words the window gives it) whose
  noun the window points at or introduces becomes the kind the window names: "an X", with the window's words when it
  introduced one ("User makes a cake with …", "The people at a homeless shelter have become like family to User",
  "User was really scared when they got into an accident"); a subject opening the memory only from a kind the window
  introduced with words of its own ("a LGBTQ support group" → "A LGBTQ support group has made User feel accepted";
  after "that team", "The team has been really nice" reads as a remark on the photo either way), and never the photo
  itself ("The photo is from a forest …": the caption's "a photo" is that photo);
- a like of such a thing ("User likes the plate."), where "a plate" says nothing, is not stored, nor a like of any
  "the …" in the photo the message answers ("[shares a photo of …]" — "User loves the dark sky and green
  scenery.") unless it is a setting there is one of ("User loves the ocean" is a taste): the episode keeps it;
- a plural ("the turtles") and a noun the window speaks of in another way are left as they are.

Never rewritten: a "the X" the memory itself introduced ("… a bowl … the bowl"), a setting the world has one of
("the beach", "the gym", "the piano": ``_SETTINGS``), "the X of …", "the X that …", "the X they …", "the
idea for a script" (told right there), an idiom
("changed the game", "on the hunt for"), and a title ("The Hobbit"). English only: Chinese has no article to read.
"""

from __future__ import annotations

import re

from memory.text.auxiliaries import BE_HAVE, MODALS
from memory.text.language import has_cjk
from memory.write.extract.antecedent import quoted_at
from memory.write.extract.base import a_or_an
from memory.write.extract.recent import RECENT_CHARS
from memory.write.extract.references import head, introduced

__all__ = ["indefinite"]

#: "the" and the words after it up to a word that ends a noun phrase (at most three: up to two words of its own and
#: the noun); a possessive ("the team's …") is no noun phrase of its own
_THE = re.compile(r"\b(?P<the>[Tt]he)\s+(?=(?P<np>[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,3}))")
#: what ends a noun phrase: a function word, a form of be / have / do, a modal, an -ly adverb, a verb's -ed
_ENDS_NP = (
    frozenset(
        [
            "of",
            "that",
            "who",
            "which",
            "where",
            "when",
            "whom",
            "whose",
            "and",
            "or",
            "but",
            "to",
            "for",
            "with",
            "in",
            "on",
            "at",
            "from",
            "by",
            "about",
            "into",
            "over",
            "under",
            "through",
            "during",
            "since",
            "until",
            "as",
            "than",
            "then",
            "so",
            "too",
            "very",
            "really",
            "just",
            "also",
            "even",
            "still",
            "again",
            "always",
            "never",
            "not",
            "it",
            "they",
            "he",
            "she",
            "we",
            "you",
            "user",
            "i",
            "a",
            "an",
            "the",
            "few",
            "couple",
            "now",
            "today",
            "yesterday",
            "tomorrow",
            "tonight",
            "here",
            "there",
            "lately",
            "recently",
            "every",
            "each",
            "last",
            "next",
            "this",
            "these",
            "those",
            "some",
            "all",
            # a verb of seeming: "what the trail looks like"
            "looks",
            "look",
            "looked",
            "seems",
            "seem",
            "seemed",
            "sounds",
            "sounded",
            "feels",
            "felt",
            "like",
        ]
    )
    | BE_HAVE
    | MODALS
)
#: what the window says of the noun: a pointer ("that cake", "your painting"), one of a kind ("an accident", "a
#: homeless shelter") or the thing with words the memory lacks ("the homeless shelter"), with up to three words of its
#: own before the noun
_SAID = r"\b(?P<det>this|that|these|those|your|the|an?)\s+(?P<mods>(?:[a-z-]+\s+){0,3}?)"
#: settings there is one of, where "the" names without pointing back; times and parts of a whole
_SETTINGS = frozenset(
    [
        "world",
        "sun",
        "moon",
        "sky",
        "ocean",
        "sea",
        "beach",
        "park",
        "gym",
        "mountains",
        "city",
        "town",
        "country",
        "news",
        "weekend",
        "morning",
        "evening",
        "night",
        "afternoon",
        "day",
        "week",
        "month",
        "year",
        "summer",
        "winter",
        "spring",
        "fall",
        "past",
        "future",
        "end",
        "start",
        "beginning",
        "rest",
        "top",
        "bottom",
        "middle",
        "way",
        "time",
        "moment",
        "best",
        "most",
        "same",
        "first",
        "last",
        "next",
        "other",
        "whole",
        "kids",
        "family",
        "house",
        "home",
        "office",
        "internet",
        "radio",
        "tv",
        "media",
        "community",
        "area",
        "neighborhood",
        "neighbourhood",
        "government",
        "environment",
        "planet",
        "earth",
        "outdoors",
        "wild",
        "universe",
        "moment",
        "process",
        "journey",
        "road",
        "street",
        "streets",
        "air",
        "water",
        "ground",
        "floor",
        "side",
        "piano",
        "guitar",
        "violin",
        "drums",
        "court",
        "field",
        "pitch",
        "game",
        "stage",
    ]
)
#: the photo shared in the chat: "a photo" of the caption is that photo, not a kind of it
_SHOWN = frozenset(["pic", "photo", "picture", "snap", "shot", "image", "selfie", "video"])
#: a word that is no noun after "the" ("the same", "the most", "the hard work" starts at "hard"), or is a verb's
_NOT_HEAD = frozenset(
    [
        "best",
        "most",
        "least",
        "same",
        "first",
        "last",
        "next",
        "only",
        "other",
        "very",
        "whole",
        "entire",
        "right",
        "wrong",
    ]
)
#: a verb and "the" before a noun that make an idiom, not a thing: "changed the game", "on the hunt for"
_IDIOM = re.compile(
    r"\b(?:chang\w* the game|on the (?:hunt|go|way|rise|road|fence|spot|mend)|in the (?:end|mood|moment|zone|loop|"
    r"know|works|long run|meantime|making)|at the (?:moment|end|time|start)|for the (?:win|record|first time|"
    r"best)|by the way|all the (?:time|way)|take the (?:plunge|lead|leap)|(?:made|make|makes) the (?:most|best)|"
    r"hit the (?:road|gym|books)|the hard way)\b",
    re.I,
)
#: what tells the thing right after it: "the X of …", "the X that …", "the X they can make", "the idea for a
#: script", "the love for the game"
_TOLD_AFTER = re.compile(
    r"\s+(?:of|that|who|which|where|whom|when|they|User|he|she|we|you|it|I|from|to|about|"
    r"behind|between|called|named|"
    # "the idea for a script" tells which idea; "the pose for 30-60 seconds" tells how long, not which pose
    r"for(?!\s+(?:\d|a few|a couple|an?\s+(?:\w+\s+)?(?:hours?|minutes?|seconds?|days?|weeks?|months?|years?|while)\b|"
    r"(?:hours|minutes|seconds|days|weeks|months|years|ages|now|good|fun|sure)\b)))\b"
)
_LIKE_VERB = r"^User (?:really |also |just |absolutely |totally )*(?:likes?|loves?|enjoys?|adores?)\s+"
_LIKES = re.compile(_LIKE_VERB + "$")
_WORDS_ONLY = re.compile(r"[^\w\s-]")
#: … and a like of a "the …" right after the verb
_LIKED_THE = re.compile(_LIKE_VERB + r"(?:all )?the\b")


def indefinite(content: str, evidence: str, message: str, recent: list[str]) -> str | None:
    """``content`` with each "the X" the session's window points at named as the kind it is (see the module
    docstring), the same ``content`` when there is none, or None when one is liked and cannot be named. ``recent``:
    the session's messages before ``message``, oldest first, read as ``name_from_recent`` reads them."""
    if not recent or has_cjk(content):
        return content
    at = quoted_at(evidence, message)
    window = " ".join([m[-RECENT_CHARS:] for m in recent] + [message[:at][-RECENT_CHARS:] if at > 0 else ""])
    text = head(content)
    liked = _LIKED_THE.match(text)
    rest = _WORDS_ONLY.sub(" ", text[liked.end() :]) if liked else ""
    liked_np = _noun_phrase(rest)
    setting = len(liked_np) == 1 and liked_np[0] in _SETTINGS and len(rest.split()) == 1  # "User loves the ocean."
    if liked and "[shares " in recent[-1] and not setting:
        return None  # "User loves the dark sky and green scenery" of the photo just shared: the photo says which
    out = content
    for m in reversed(list(_THE.finditer(text))):
        words = _noun_phrase(m.group("np"))
        end = m.start("np") + len(" ".join(words))
        if not words or text[end:].startswith(("'", "’", "-")):
            continue  # "the team's coach", "the on-court …": not a noun phrase of its own
        *words, noun = words
        mods = " ".join(words)
        if noun in _SETTINGS or noun in _NOT_HEAD or any(w in _NOT_HEAD for w in words) or noun.endswith("s"):
            continue  # one of the world's, not of the conversation's; a plural is left as it is
        if noun in _SHOWN or _TOLD_AFTER.match(text[end:]) or _IDIOM.search(text[max(0, m.start() - 12) : end + 12]):
            continue  # the photo itself ("The photo is from …"), told right there, an idiom
        if introduced(text[: m.start()], re.escape(noun)):
            continue  # the memory introduced it itself: "… a bowl … the bowl"
        said = [s for s in re.finditer(_SAID + re.escape(noun) + r"\b(?!-)", window, re.I) if _fits(s, words)]
        # "the" points back only with words the memory lacks ("the homeless shelter" for "the shelter"): both
        # speakers say "the tournament" of what needs no pointing, or of what only the memory's reader lacks
        said = [s for s in said if s.group("det").lower() != "the" or len(s.group("mods").split()) > len(words)]
        if not said:
            continue
        if _LIKES.match(text[: m.start()]):
            return None  # "User likes the plate": "a plate" says nothing, and the plate is only in the photo
        intro = [s for s in said if s.group("det").lower() in ("a", "an", "the") and s.group("mods").strip()]
        if m.start() == 0 and not intro:
            continue  # "The team has been really nice" after "that team": a remark on the photo either way
        intro = intro or [s for s in said if s.group("det").lower() in ("a", "an")]
        named = (intro[-1].group("mods").strip() if intro else "") or mods
        np = f"{named} {noun}".strip()
        article = a_or_an(np)
        if m.group("the")[0] == "T":
            article = article.capitalize()
        out = out[: m.start()] + f"{article} {np}" + out[end:]
    return out


def _noun_phrase(after_the: str) -> list[str]:
    """The words of the noun phrase "the" opens (up to three), or none when its first word already ends one."""
    words: list[str] = []
    for w in after_the.split():
        if w.lower() in _ENDS_NP or w.endswith("ly") or w.endswith("ed") or len(words) == 3:
            break
        words.append(w)
    return words


def _fits(said: re.Match[str], words: list[str]) -> bool:
    """Whether what the window says of the noun is the memory's thing: the memory's own words before the noun
    (if any) are among the window's ("the hard work" is not "a work"), and the window's words are of the noun, not a
    sentence running into it ("the love and" is no phrase)."""
    theirs = said.group("mods").lower().split()
    # a word in -ing modifies the noun after "a" / "an" ("an awesome hiking trail"); after another determiner it is
    # kept out as before (a sentence running into the noun)
    doing = [w for w in theirs if w.endswith("ing")] if said.group("det").lower() not in ("a", "an") else []
    if doing or any(w in _ENDS_NP or w in ("my", "our") for w in theirs):
        return False
    return all(w.lower() in theirs for w in words)
