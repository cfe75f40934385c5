"""Name a reference from the sentences said before it in the same message (issue 44: resolve instead of abstain).

"I've got some other stuff with sentimental value, like my hand-painted bowl. A friend made it for my 18th
birthday." — the second sentence alone gives "A friend made it for User's 18th birthday", which a reader of the memory
cannot place (``references.unresolved`` flags "it") and which the extractor would otherwise abstain on. The thing is
named one sentence before, by the speaker: "my hand-painted bowl". This module names it there: "A friend made
User's hand-painted bowl for User's 18th birthday."

One more shape is read without "my": a sentence that opens on a bare noun as its subject names what an "it" right
after it stands for ("Guitar's mostly my thing. Playing it helps me …" → "Playing guitar helps User …"). A bare plural
for "them" is not (a first version: as often wrong or ungrammatical as right, see ``_bare_named``). People ("my son …
he") are named in ``memory.write.extract.persons``.

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

Chinese is not guessed at from the sentence before (no word boundaries to cut a noun phrase at without a segmenter);
from the message answered only where it points with a measure word ("那辆自行车真酷！" → "我每天都骑它上班"), see
``name_from_answered``.
"""

from __future__ import annotations

import re

from memory.text.language import has_cjk
from memory.text.sentences import sentences
from memory.write.extract.base import TIME_NOUNS, a_or_an, is_question
from memory.write.extract.context import answered_question
from memory.write.extract.kin import is_person
from memory.write.extract.references import QUANTITY_END, head, unresolved

__all__ = [
    "MONTH_DAY",
    "INTERJECTIONS",
    "ZH_INTERJECTION",
    "name_from_answered",
    "name_from_message",
    "only_interjections",
    "quoted_at",
    "said_before",
]

#: a determiner, up to three modifiers, a head noun (lowercase words; hyphens kept: "hand-painted")
#: (a lookahead, so that "my bike and my helmet" yields both)
_NP = re.compile(r"\b(?:my|our)\s+(?=(?P<np>(?:[a-z][a-z-]*\s+){0,3}[a-z][a-z-]*)(?![\w-]))", re.I)
#: words that end a noun phrase before them or cannot be its head
_STOP = frozenset(
    [
        "a",
        "an",
        "the",
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
#: a bare "this" / "that" ends its phrase: punctuation, the end, or a preposition / conjunction after it
_ENDS = re.compile(
    r"^\s*(?:[,.;:!?)]|$|(?:and|but|so(?!\s+(?:many|few)\b)|because|after|before|when|at|in|on|for|with|to|from)\b)"
)  # "no idea that so many …" is a clause


#: words of ``_STOP`` that open a noun phrase as its modifiers ("my old motorcycle", "my new bike", "my own shop")
_LEADING = frozenset(["old", "new", "own", "best", "favorite", "favourite", "fave", "whole", "entire", "first"])


def _phrases(sentence: str, pattern: re.Pattern[str] = _NP) -> list[str]:
    """The noun phrases a sentence names after "my" / "our" (or ``pattern``'s determiners), each cut at the first
    word that ends it."""
    out = []
    for m in pattern.finditer(sentence):
        words: list[str] = []
        for w in m.group("np").split():
            if w.lower() in _LEADING and all(x.lower() in _LEADING for x in words):
                words.append(w)  # "my old motorcycle": a modifier before the noun, not the end of the phrase
                continue
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


#: the bare references named from another sentence: one English word standing for a thing
_BARE = ("it", "this", "that", "them")


def _bare_ref(content: str, evidence: str) -> str | None:
    """The memory's one unresolved reference when it is a bare it / this / that / them, else None."""
    refs = unresolved(content, evidence)
    return refs[0] if len(refs) == 1 and refs[0] in _BARE else None


def quoted_at(evidence: str, message: str) -> int:
    """Where in ``message`` the first sentence ``evidence`` quotes begins (-1: not found)."""
    first = sentences(evidence)[:1]
    return message.find(first[0].strip()) if first else -1


def said_before(evidence: str, message: str) -> str | None:
    """The sentence of ``message`` just before the one ``evidence`` quotes (two back, the speaker has moved on: the
    module docstring), or None when there is none or the quote is not found."""
    at = quoted_at(evidence, message)
    before = sentences(message[:at]) if at > 0 else []
    return before[-1] if before else None


def _ref_in(content: str, ref: str) -> tuple[str, re.Match[str] | None]:
    """The memory's head and where ``ref`` stands in it as a reference (None: not as one)."""
    text = head(content)
    return text, next((r for r in _REF.finditer(text) if r.group("ref") == ref), None)


#: "never saw it coming": "it" is what happened, not a thing the sentence before names
_IDIOM_IT = re.compile(r"^\s+coming\b", re.I)
#: "I find it fulfilling": a judgement about what the speaker does, not about the thing the sentence before names
_JUDGED_IT = re.compile(r"\b(?:find|finds|found|finding|consider|considers|considered)\s+it\b", re.I)


#: "Guitar's mostly my thing.": a sentence that opens on a bare noun as its subject (after "'s" only what cannot be
#: a possessive's noun: "Pepper's Lonely Hearts …", "Jon's studio …" are names)
_BARE_SUBJECT = re.compile(
    r"^\s*(?P<w>[A-Z][a-z]{2,})(?:\s+(?:is|was|has been)|'s\s+(?=(?:mostly|so|really|always|just|pretty|super|very|"
    r"totally|definitely|such|my|a|an|the|been)\b))"
    # a doing the sentence opens on as its subject: "Dancing makes me so happy", "Painting helps me relax"
    r"|^\s*(?P<doing>[A-Z][a-z]{2,}ing)\s+(?:makes|made|helps|helped|keeps|kept|brings|brought|gives|gave|lets|means|"
    r"takes|calms|relaxes|has\s+(?:always\s+)?(?:been|helped|given|made|brought|kept))\b"
)
#: words that open a sentence so and are no thing ("Everything's fine", "Today was long", "Let's go")
_NOT_SUBJECT = frozenset(
    [
        *("everything", "nothing", "something", "anything", "everyone", "everybody", "someone", "somebody"),
        *("anyone", "nobody", "life", "today", "tomorrow", "yesterday", "tonight", "let", "how", "what", "why"),
        *("who", "where", "when", "there", "here", "mine", "yours", "family"),
    ]
)


#: a thing named by its name as what the speaker tries, uses, buys, reads …: "I'll try out Duolingo", "I'll stick
#: with the original Moroccanoil Shampoo", "reading "Becoming Nicole"" (after such a verb a name is a thing)
_NAMED_THING = re.compile(
    r"\b(?:try|tried|trying|use|using|used|stick with|buy|bought|buying|order|ordered|download|downloaded|"
    r"read|reading|watch|watched|watching|play|playing|listen to|listening to|check out|checking out|"
    r"sell|selling|sold|got|get|getting|pick|picked|started|start|starting|finished|finish)"
    r"(?:\s+out)?\s+(?:(?:the|a|an|my|our)\s+)?(?:[a-z]+\s+){0,2}?"
    r"(?:\"(?P<title>[^\"]{2,60})\"|(?P<name>[A-Z][\w'-]*(?:\s+(?:[A-Z0-9][\w'-]*|of|the|and|&)){0,7})"
    r"(?P<noun>(?:\s+[a-z][a-z-]+){0,3}))"
)


def _named_things(sentence: str) -> list[str]:
    """The things the sentence names by name after a verb of trying, using, buying …, without a trailing "of" / "the"
    / "and"."""
    out = []
    for m in _NAMED_THING.finditer(sentence):
        if m.group("title"):
            name = m.group("title").strip(" ,.;:!?")  # "The Sixth Sense," → "The Sixth Sense"
        else:
            name = re.sub(r"(?:\s+(?:of|the|and|&))+$", "", m.group("name"))
            for w in m.group("noun").split():  # "the Oaxaca cheese", "the VADER sentiment analysis tool"
                if w in _STOP or w.endswith(("ing", "ed", "ly")) or w in _AFTER_NOUN:
                    break
                name += " " + w
        if name and name not in ("I", "I'm", "I've", "I'll") and not MONTH_DAY.match(name):
            out.append(name)
    return out


MONTH_DAY = re.compile(
    r"^(?:January|February|March|April|May|June|July|August|September|October|November|December|Monday|Tuesday|"
    r"Wednesday|Thursday|Friday|Saturday|Sunday)\b"
)


def _bare_named(sentence: str, ref: str) -> str | None:
    """The one thing a sentence names without "my" that an "it" can stand for, or None: a bare noun it opens on as
    its subject ("Guitar's mostly my thing." → "guitar"). Not for "them": a bare plural of the sentence before was
    the wrong thing or broke the grammar as often as not (read on LongMemEval: "try them all" → "try dishes all",
    "take good care of them" → "… of tips", "plant them" → "plant roots" — the cuttings two sentences back)."""
    if ref != "it" or re.search(r"\bit\b", sentence, re.I):
        return None  # the sentence before points on itself
    named = set(_named_things(sentence))
    if named:
        return named.pop() if len(named) == 1 else None
    m = _BARE_SUBJECT.match(sentence)
    word = (m.group("w") or m.group("doing")).lower() if m else ""
    return word if word and word not in _STOP and word not in _NOT_SUBJECT and not _plural(word) else None


def name_from_message(content: str, evidence: str, message: str) -> str | None:
    """``content`` with its one unresolved reference named from the sentence of ``message`` before it, or None."""
    if not message or not evidence or _JUDGED_IT.search(evidence):
        return None
    if has_cjk(content):
        return None  # see the module docstring: Chinese references are not guessed at from another sentence
    ref = _bare_ref(content, evidence)
    if ref is None:
        return None
    sentence = said_before(evidence, message)
    phrases = _phrases(sentence) if sentence else []
    named = [np for np in phrases if _plural(np) == (ref == "them")]
    if ref != "them" and any(is_person(np) for np in named):
        return None  # an "it" is never a person ("… for my best friend's birthday. I ordered it …"): not this one
    bare = _bare_named(sentence, ref) if sentence and not phrases else None
    if len(named) != 1 and bare is None:
        return None  # the sentence before names none or several things of this number
    text, m = _ref_in(content, ref)
    if m is None:
        return None
    owner = "their" if re.search(r"\buser\b", text[: m.start()], re.I) else "User's"
    if len(named) != 1 and re.search(r"\b(?!User\b)[A-Z][a-z]+", text[1 : m.start()]):
        return None  # "User has always liked Under Armour, working with them …": a name before it may be the thing
    after = text[m.end() :]
    if (ref in ("this", "that") and not _ENDS.match(after)) or (ref == "it" and _IDIOM_IT.match(after)):
        return None  # "that National Geographic article": a determiner, not a thing; "saw it coming": an idiom
    thing = f"{owner} {named[0]}" if len(named) == 1 else bare
    named_content = f"{content[: m.start()]}{thing}{content[m.end() :]}"
    return named_content if not unresolved(named_content, evidence) else None


#: what the other speaker points at in the message answered ("that agency", "those cookies"); not "your X": "your
#: encouragement", "your travel list", "your team" were the thanks or the advice, not the thing the answer means
_POINTED = re.compile(
    r"(?<!\bdoes )(?<!\bdid )(?<!\bdo )(?<!\bwould )(?<!\bwill )\b(?P<det>that|this|those|these)\s+"
    r"(?=(?P<np>(?:[a-z][a-z-]*\s+){0,2}[a-z][a-z-]*))",
    re.I,
)
#: what a speaker may say before the quoted sentence without naming a thing of their own ("Thanks, Melanie!"); no
#: name either ("Yeah!" answering "What's her name?", memory.write.extract.names_asked)
INTERJECTIONS = frozenset(
    ["thanks", "thank", "you", "wow", "yes", "yeah", "yep", "yup", "no", "sure", "awesome", "great", "cool", "nice"]
    + ["oh", "ah", "aw", "aww", "haha", "hey", "hi", "hello", "so", "much", "totally", "absolutely", "definitely"]
    + ["ok", "okay", "amazing", "lol", "omg", "really", "indeed", "right", "exactly", "true", "agreed"]
)
#: a share of the things: "most of them" reads "most of the films", not "most of films"
_PART_OF = re.compile(r"\b(?:most|all|some|many|few|each|both|none|any|several|half)\s+of\s*$", re.I)
#: the reference stands alone: not "it's …" (a clause), not "give it their all" (an idiom)
_BARE_AFTER = re.compile(r"^(?:'|\s+(?:my|our|their|your|his|her)\s+all\b)", re.I)


def only_interjections(said_before: str) -> bool:
    """Whether what the speaker said before the quoted sentence names nothing: interjections and a vocative name."""
    for sentence in sentences(said_before):
        words = re.findall(r"[A-Za-z']+", re.sub(r",\s*[A-Z][a-z]+\b", "", sentence))
        if any(w.lower() not in INTERJECTIONS for w in words):
            return False
    return True


#: verbs a relative "that" is often followed by ("a bundle that include…", "plans that offer …")
_VERB_AFTER_THAT = frozenset(
    ["include", "offer", "provide", "help", "allow", "let", "need", "seem", "look", "sound", "feel", "work", "come"]
    + ["cover", "fit", "suit", "match", "require", "cost", "use", "run", "keep", "support", "contain", "show"]
)


def _pointed(previous: str) -> list[tuple[str, str]]:
    """(determiner, noun phrase) pairs the other speaker points at: "that" / "this" followed by a word in -s is a
    verb ("that sounds great", "this looks fun"), not a thing; a phrase must agree in number with its determiner."""
    out = []
    for m in _POINTED.finditer(previous):
        det = m.group("det").lower()
        first = m.group("np").split()[0].lower()
        if det in ("that", "this") and (first.endswith("s") and not first.endswith("ss") or first in _VERB_AFTER_THAT):
            continue  # "that sounds great", "models that include the TV": a verb after "that", not a thing
        for np in _phrases(previous[m.start() :], _POINTED)[:1]:
            if np.split()[-1].lower() in TIME_NOUNS:
                continue  # "Have you been skiing much this winter?": when, not a thing an "it" stands for
            if _plural(np) == (det in ("those", "these")):
                out.append((det, np))
    return out


def name_from_answered(content: str, evidence: str, message: str, previous: str | None) -> str | None:
    """``content`` with its one unresolved bare reference named by what the message answered points at, or None.

    "Wow, that painting is awesome! What inspired you?" → "Thanks! I painted this after …" is about the painting:
    the other speaker pointed at it. Only where that message points at exactly one thing of the reference's number
    ("that X", "those X"; "your X" was the thanks or the advice more often than the thing), the reference stands
    alone in the memory ("it's …", "give it their all" are not things), and the speaker said nothing but
    interjections before the quoted sentence ("Barcelona sounds awesome! … adding it to my list" is Barcelona, not
    the travel list)."""
    if not previous or not evidence or _JUDGED_IT.search(evidence):
        return None
    if has_cjk(content):
        return _named_from_answered_zh(content, evidence, message, previous)
    counted = _counted_from_question(content, evidence, previous) or _one_from_question(content, evidence, previous)
    if counted is not None:
        return counted
    ref = _bare_ref(content, evidence)
    if ref is None:
        return None
    at = quoted_at(evidence, message)
    if at < 0 or not only_interjections(message[:at]):
        return None
    named = [np for _, np in _pointed(previous) if _plural(np) == (ref == "them")]
    if len(named) != 1:
        return None
    text, m = _ref_in(content, ref)
    after = text[m.end() :] if m else ""
    if m is None or _BARE_AFTER.match(after) or (ref in ("this", "that") and not _ENDS.match(after)):
        return None
    np = named[0]
    thing = f"{a_or_an(np)} {np}"
    if ref == "them":  # "a bunch of movies", but "most of the films"
        thing = f"the {np}" if _PART_OF.search(text[: m.start()]) else np
    named_content = f"{content[: m.start()]}{thing}{content[m.end() :]}"
    return named_content if not unresolved(named_content, evidence) else None


#: the things a question asks a count of: "Any more paintings coming up?", "How many guitars do you own?"
_ASKED = re.compile(
    r"\b(?:any|anymore|some|many|more|other|new)\s+(?:(?:more|new|other)\s+)?(?P<np>[a-z][a-z-]*s)\b", re.I
)
_OF = {"a couple": "a couple of", "plenty": "plenty of", "a bunch": "a bunch of"}


def _counted_from_question(content: str, evidence: str, previous: str) -> str | None:
    """ "Any more paintings coming up?" → "I'm planning a few." → "User is planning a few paintings.": a count the
    memory ends on, of the one kind of things the question it answers asks about (a plural after "any" / "more" /
    "how many"). Not when the question asks about none or several kinds."""
    refs = unresolved(content, evidence)
    text = head(content)
    m = QUANTITY_END.search(text)
    if len(refs) != 1 or m is None or not refs[0].lower().startswith(m.group("count").lower()):
        return None
    question = answered_question(previous) or ""
    if re.search(r"\b(?:or|and)\b", question):
        return None  # "Any more paintings or drawings?": which?
    asked = {np.lower() for np in (a.group("np") for a in _ASKED.finditer(question))}
    asked = {np for np in asked if np not in _STOP and not np.endswith(("ss", "us", "is"))}
    if len(asked) != 1:
        return None
    count, more = m.group("count"), m.group("more") or ""
    if count.lower().endswith(" of them"):
        return None  # "one of them": of the things the sentence before named, not the question's
    counted = f"{count}{more}" if more else _OF.get(count.lower(), count)  # "a couple more scripts"
    named = f"{text[: m.start()]}{counted} {asked.pop()}{m.group('rest')}{content[len(text) :]}"
    return named if not unresolved(named, evidence) else None


#: the one kind a question asks about: "have you thought about being an entrepreneur?", "Got any paintings to show?"
_ASKED_ONE = re.compile(
    r"\b(?:being|become|becoming|be)\s+(?P<article>an?)\s+(?P<kind>[a-z][a-z-]+)\b(?![-\s]+(?:of|and|or)\b)"
    r"|\b(?:any|some)\s+(?P<kinds>[a-z][a-z-]+s)\b(?![-\s]+(?:of|and|or)\b)",
    re.I,
)
#: "User has been one", "User shared one they did last week": the bare "one" answers the question's kind
_ONE_ANSWERS = re.compile(r"\b(?:been|be|shared|made|did|done|got|have|has|had|found|showed)\s+(?P<one>one)\b")


def _one_from_question(content: str, evidence: str, previous: str) -> str | None:
    """ "Have you thought about being an entrepreneur?" → "I've been one 'cause I lost my job" → "User has been an
    entrepreneur 'cause …"; "Got any paintings to show?" → "Here's one I did last week" → "User shared a painting they
    did last week": a bare "one" of the one kind the question asks about ("being a …", "any …s"), never when the
    question asks about two kinds or none, and never a word that is no thing ("any ideas", "any plans": what they are
    is not in it)."""
    refs = unresolved(content, evidence)
    text = head(content)
    m = _ONE_ANSWERS.search(text)
    if refs != ["one"] or m is None:
        return None
    asked = [s for s in sentences(previous[-400:]) if is_question(s)]  # "Got any paintings to show? I'd love …"
    question = asked[-1] if asked else ""
    if re.search(r"\b(?:or|and)\b", question):
        return None
    kinds = set()
    for a in _ASKED_ONE.finditer(question):
        if a.group("kind"):
            kinds.add(a.group("kind").lower())
        elif _plural(a.group("kinds")) and not a.group("kinds").lower().endswith(("ies", "ses", "ches", "shes", "xes")):
            kinds.add(a.group("kinds").lower()[:-1])  # "paintings" → "painting"; "stories", "classes" are not cut
    kinds -= _NO_KIND
    if len(kinds) != 1:
        return None
    kind = kinds.pop()
    thing = f"{a_or_an(kind)} {kind}"
    named = f"{content[: m.start('one')]}{thing}{content[m.end('one') :]}"
    return named if not unresolved(named, evidence) else None


#: what a question may ask "any" of that is no thing a bare "one" could be
_NO_KIND = frozenset(
    ["idea", "plan", "tip", "advice", "thought", "suggestion", "news", "update", "question", "recommendation", "way"]
    + ["time", "thing", "other", "more", "one", "good", "fun", "luck", "help", "chance", "new", "cool", "interesting"]
)


#: what the other speaker points at in Chinese: 这 / 那 with a measure word and a short noun ("那辆自行车", "这幅画")
_ZH_POINTED = re.compile(
    r"(?:这|那)(?P<measure>个|件|本|种|家|位|只|张|幅|首|部|条|款|座|所|辆|台|双|块|盆|杯|瓶|顶)"
    r"(?=(?P<noun>[\u4e00-\u9fff]{1,6}))"
)
#: where a Chinese noun after its measure word ends: a verb, an adverb, a particle or a pronoun after it
_ZH_NOUN_END = re.compile(r"[是真太很好看吗呢啊吧了有在也都我你他她它怎么什为还就会能要想可挺非特让给和跟的得地着过]")
#: what a speaker may say first without naming a thing ("谢谢！", "哈哈，")
ZH_INTERJECTION = re.compile(
    r"^[\s，,。！!？?～~]*(?:(?:谢谢|多谢|感谢|哈哈|嘿嘿|嘿|是的|是啊|对啊|对|嗯|哇|好的|太好了|天哪|没错|当然|哎|啊|哦|喔)"
    r"[\s，,。！!？?～~]*)*$"
)
#: the bare references named this way: one thing (not 它们, not a place or a person)
_ZH_BARE = ("它", "这个", "那个")


def _zh_pointed(previous: str) -> list[tuple[str, str]]:
    out = []
    for m in _ZH_POINTED.finditer(previous):
        noun = m.group("noun")
        cut = _ZH_NOUN_END.search(noun)
        noun = noun[: cut.start()] if cut else noun
        if 1 <= len(noun) <= 4:
            out.append((m.group("measure"), noun))
    return out


def _named_from_answered_zh(content: str, evidence: str, message: str, previous: str) -> str | None:
    """The Chinese side of ``name_from_answered``: "那辆自行车真酷！你常骑吗？" → "谢谢！我每天都骑它上班。" →
    "用户每天都骑一辆自行车上班。" Only a bare 它 / 这个 / 那个, only when the message answered points at exactly one
    thing with a measure word, and only when the speaker said nothing but interjections before the quoted sentence."""
    refs = unresolved(content, evidence)
    if len(refs) != 1 or refs[0] not in _ZH_BARE:
        return None
    at = message.find(evidence.strip()[:12])
    if at < 0 or not ZH_INTERJECTION.match(message[:at]):
        return None
    named = _zh_pointed(previous)
    text = head(content)
    if len(named) != 1 or text.count(refs[0]) != 1 or "它们" in text:
        return None
    if re.search(r"[，,；;]", text[: text.index(refs[0])]):
        return None  # "我去过上海，我很喜欢它": a clause before it may name the thing itself
    measure, noun = named[0]
    i = content.index(refs[0])
    named_content = f"{content[:i]}一{measure}{noun}{content[i + len(refs[0]) :]}"
    return named_content if not unresolved(named_content, evidence) else None
