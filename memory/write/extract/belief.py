"""A view the speaker states in general terms, as what they believe (issue 44, fourteenth round).

"Pets bring so much joy.", "Dance floors help avoid injuries.", "Talking about inclusivity and acceptance is
crucial.", "Dance has the power to bring us together." say nothing in the first person, so the offline grammar read
no statement about the speaker in them, yet each is the speaker's view of a named thing of their life — what a reader
of their memories wants to know ("User believes pets bring so much joy."). LoCoMo's annotators note such views
("Caroline values the role of pets in bringing joy"), and most of the observations the rules missed on the tuning
conversations were of this shape or about the listener.

Read narrowly, so that a remark of the moment never becomes a view:

- the subject opens the sentence and is a thing in general: a doing ("Talking about inclusivity …", "Surrounding
  ourselves with things that bring us joy"), a bare plural ("Pets", "Dance floors") or a bare word of a short list of
  things people hold views about ("Art", "Dance", "Nature", "Music"); never a pointer, a pronoun, a name or "the …"
  ("This has been great", "It's vital", "Jon is great", "The pic is amazing": the moment, a person, a photo);
- the predicate holds in general: the present tense of a verb that says what the thing does for people ("bring",
  "help", "make", "give", "teach", "has the power to") or a verdict of weight ("is vital / crucial / important / key /
  essential / a great way to"), never a verdict of the moment ("is amazing", "was so fun": ``worth.trivial``'s
  territory) and never the past;
- nothing is said to or about the listener (a "you" / "your" in the clause), it is no question, and it keeps no "we"
  / "our" (whose?); "us" / "ourselves" read as people in general ("bring us together" → "bring people together").

English only: the Chinese rules read a view with its speaker ("我觉得…") already.
"""

from __future__ import annotations

import re

__all__ = ["believed"]

#: a bare singular a view is held about (a capitalised bare word is otherwise as likely a name: "Jon is great")
_TOPICS = frozenset(
    ["art", "music", "dance", "dancing", "nature", "family", "friendship", "love", "education", "exercise", "travel"]
    + ["reading", "writing", "painting", "community", "food", "fitness", "health", "kindness", "support", "therapy"]
    + ["meditation", "yoga", "sport", "sports", "self-care", "gardening", "cooking", "baking", "poetry", "literature"]
    + ["knowledge", "learning", "teamwork", "hard work", "practice", "patience", "honesty", "faith", "hope", "change"]
    + ["volunteering", "mentoring", "representation", "acceptance", "inclusivity", "diversity", "creativity", "rest"]
)
_LEAD = re.compile(
    r"^(?:(?:yeah|yes|yep|oh|wow|well|so|and|but|plus|also|honestly|totally|absolutely|definitely|true|exactly|"
    r"agreed|for sure|i agree|i think|i believe|i feel like|i reckon|i guess|i know)\b[,!.]?\s*)+",
    re.IGNORECASE,
)
_VOCATIVE = re.compile(r"^[A-Z][a-z]+,\s+")
#: what holds in general: a verb in the present that says what the thing does, or a verdict of weight
_HOLDS = (
    r"(?:can\s+|really\s+|truly\s+|always\s+|definitely\s+|sure\s+|totally\s+|also\s+)*"
    r"(?:(?:brings?|helps?|makes?|gives?|keeps?|teach(?:es)?|heals?|connects?|refresh(?:es)?|unites?|builds?|"
    r"creates?|shapes?|changes?|inspires?|motivates?|strengthens?|boosts?|reduces?|improves?|calms?|relaxes?|"
    r"(?:has|have)\s+(?:the|a|such)\s+(?:\w+\s+)?(?:power|way|ability)\s+to)\b"
    r"|(?:is|are|'s|'re|can\s+be)\s+(?:(?:so|really|very|super|truly|absolutely|definitely|just|also|such)\s+)*"
    r"(?:vital|crucial|important|key|essential|necessary|powerful|a\s+(?:great|good|perfect|fun)\s+way|the\s+best\s+way|"
    r"the\s+key|a\s+must|priceless|underrated|great\s+for|awesome\s+for|good\s+for|amazing\s+for|"
    r"important\s+for|a\s+(?:great|powerful|good)\s+(?:tool|reminder|outlet|source))\b)"
)
_VIEW = re.compile(
    rf"^(?P<subj>(?P<first>[A-Z][a-z-]+)(?:\s+[a-z][a-z'-]*){{0,7}}?)\s+"
    rf"(?P<pred>{_HOLDS}.*)$"
)
_NOT_A_SUBJECT = frozenset(
    ["this", "that", "these", "those", "it", "its", "they", "he", "she", "we", "our", "my", "your", "the", "a", "an"]
    + ["there", "here", "what", "which", "who", "everything", "nothing", "something", "anything", "everyone", "all"]
    + ["life", "today", "tonight", "tomorrow", "yesterday", "time", "things", "stuff", "moments", "days", "people"]
)
#: a subject that is no thing: it ends in a word that needs more ("Hoping to raise awareness … to create"), it points
#: ("Hearing that can …"), or it is a suggestion ("Let's keep going")
_OPEN_SUBJECT = re.compile(
    r"\b(?:to|and|or|of|for|with|about|that|this|these|those|it|them|him|her)$|\b(?:this|that|these|those|it)\b|^Let\b"
)
#: a verb of the predicate that was the subject's noun: "Handling changes has been hard"
_VERB_IN_SUBJECT = re.compile(r"^\w+\s+(?:has|have|had|is|are|was|were)\b")
#: a verb with nothing after it: "Mentors can really help" (with what?)
_BARE_VERB = re.compile(r"^(?:(?:can|really|truly|always|definitely|sure|totally|also)\s+)*\w+$")
#: the words a motto is made of: a view that names nothing else is a pep talk ("Staying positive is key.", "Taking small
#: steps can help.", "Kindness is key and a little compassion can really turn someone's day around.")
_MOTTO = frozenset(
    ["staying", "stay", "positive", "positivity", "having", "good", "support", "supportive", "kindness", "kind", "key"]
    + ["compassion", "is", "are", "can", "really", "so", "very", "truly", "a", "an", "the", "and", "or", "to", "of"]
    + ["important", "essential", "crucial", "vital", "necessary", "help", "helps", "make", "makes", "difference"]
    + ["big", "little", "small", "steps", "step", "taking", "time", "for", "oneself", "people", "them", "their"]
    + ["growth", "grow", "learn", "learning", "challenges", "challenge", "strength", "strong", "hard", "work"]
    + ["keep", "keeps", "going", "moving", "forward", "together", "each", "other", "life", "love", "hope", "dreams"]
    + ["believing", "believe", "yourself", "focused", "focus", "motivated", "motivation", "turn", "around", "day"]
    + ["someone's", "in", "even", "tough", "times", "great", "way", "power", "impact", "change", "world", "better"]
    + [
        "us",
        "who",
        "lift",
        "up",
        "loved",
        "ones",
        "with",
        "on",
        "track",
        "through",
        "it",
        "all",
        "best",
        "thing",
        "things",
    ]
    + ["relaxing", "expressing", "care", "resilient", "break", "overcoming", "builds", "build", "building", "pushes"]
    + ["personal", "doing", "helping", "others", "brings", "bring", "joy", "happiness", "talking", "working", "will"]
    + ["uniting", "relationships", "seeing", "does", "from", "recharge", "peace", "any", "much", "such", "oneself's"]
    + ["striving", "progress", "enjoying", "ride", "spending", "family", "spreading", "especially", "when", "someone"]
    + ["feeling", "down", "loved", "connecting", "like-minded", "stories", "connections", "memories", "powerful"]
    + ["patience", "persistence", "perseverance", "resilience", "never", "giving", "give", "mindset", "attitude"]
)
_YOU = re.compile(r"\b(?:you|your|yours|yourself|ya|u)\b", re.IGNORECASE)
_OWN = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|me|my|mine|myself|we|we're|we've|our|ours)\b", re.IGNORECASE)
#: where the view ends and a remark to the listener or a new clause begins
_END = re.compile(
    r"\s+[-–—]\s+|;\s*|,\s+(?:and|but|so)\s+(?=(?:you|your|I|I'm|we|it's|that's|that|this)\b)"
    r"|,\s+(?=(?:can't|couldn't|I|it's|that's|right|agreed)\b)",  # "…, can't agree more", "…, and that all sounds …"
    re.IGNORECASE,
)
_TAIL = re.compile(r"(?:,?\s+(?:too|though|huh|right|for sure|you know))+$", re.IGNORECASE)
#: "Art's awesome for …": the verb after a bare word, written out so the predicate reads it
_IS = re.compile(r"^(?P<w>(?!Let\b)[A-Z][a-z-]+)'s\s+")


def believed(sentence: str) -> str | None:
    """``sentence`` as "User believes …" when it states a view of a thing in general (see the module docstring),
    else None."""
    s = _VOCATIVE.sub("", _LEAD.sub("", sentence.replace("’", "'").strip()))
    s = _END.split(s, maxsplit=1)[0]
    s = _TAIL.sub("", s.strip().rstrip(".!~ ")).strip(" ,")
    s = _IS.sub(lambda m: f"{m.group('w')} is ", s)
    if not s or s.endswith("?") or _YOU.search(s) or len(s.split()) > 25:
        return None
    m = _VIEW.match(s[:1].upper() + s[1:])
    if m is None:
        return None
    first = m.group("first").lower()
    subject = m.group("subj")
    if first in _NOT_A_SUBJECT or not _general(first, subject) or _OPEN_SUBJECT.search(subject):
        return None
    if _VERB_IN_SUBJECT.match(m.group("pred")) or _BARE_VERB.match(m.group("pred")):
        return None  # "Handling changes has been hard": "changes" was a noun; "Mentors can help": help with what
    view = re.sub(r"\bourselves\b", "oneself", s)
    view = re.sub(r"\bus\b", "people", view)
    view = re.sub(r"\b(who|what|how|where|when)\s+we\b", r"\1 people", view)  # "showing people who people are"
    if _MOTTO.issuperset(w.lower() for w in re.findall(r"[A-Za-z'-]+", view)):
        return None  # "Staying positive is key", "Kindness is key": a motto with nothing named
    if _OWN.search(view):
        return None  # "Our kids are …", "… helps me": whose, the sentence says in the first person
    return f"User believes {view[:1].lower()}{view[1:]}."


def _general(first: str, subject: str) -> bool:
    """Whether the subject is a thing in general: a doing, a bare plural or a listed bare word."""
    words = subject.lower().split()
    if first.endswith("ing") and len(first) > 4:
        return True  # "Talking about inclusivity …", "Surrounding ourselves with …"
    if len(words) > 3:
        return False
    if " ".join(words) in _TOPICS or first in _TOPICS:
        return True  # "Art", "Dance", "Hard work"
    return words[-1].endswith("s") and not words[-1].endswith(("ss", "us", "'s"))  # "Pets", "Dance floors"
