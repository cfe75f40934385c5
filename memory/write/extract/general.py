"""The general path: a self-disclosure no rule was written for, kept in the speaker's own words.

"I went to a support group yesterday and it was so powerful" matches no predicate, yet it is exactly what a person
remembers about a friend. When no specific rule claims a sentence, the sentence itself becomes a plain ``fact``:
its first person resolved to the user ("User went to a support group … and it was so powerful", "用户最近迷上了攀岩"),
a leading time phrase moved behind it, its resolved date attached. Left out: questions (upstream), sentences
addressed to the other person ("you", "你"), reactions and small talk ("I totally agree", "I'm so happy for you",
"我也是"), and sentences with too little content to be a fact ("I love it!").

:func:`third_person` is also the one place that turns "I / my / me / we" into the user's words, for the rules'
templates as well (no "User likes my garden" or "you regularly does").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime

from memory.text.auxiliaries import MODALS
from memory.text.dates import Prefer, resolve
from memory.text.language import CJK
from memory.write.extract.base import Candidate, a_or_an, make
from memory.write.extract.rules_en import EMPHATIC_VERBS

# -- English: first person → third person -------------------------------------------------------------------
_BE = {"am": "is", "'m": "is", "was": "was", "have": "has", "'ve": "has", "do": "does", "don't": "doesn't"}
_BE |= {
    "wanna": "wants to",
    "gotta": "has to",
    "'d": "would",
    "'ll": "will",
    "haven't": "hasn't",
    "ain't": "isn't",
    "wasn't": "wasn't",
    "go": "goes",
}
_UNCHANGED = frozenset(
    [
        "can",
        "could",
        "will",
        "would",
        "shall",
        "should",
        "may",
        "might",
        "must",
        "can't",
        "cannot",
        "couldn't",
        "won't",
        "wouldn't",
        "shouldn't",
        "didn't",
        "did",
        "had",
        "hadn't",
        "was",
        "wasn't",
        "went",
        "got",
        "made",
        "took",
        "saw",
        "met",
        "bought",
        "flew",
        "won",
        "grew",
        "ran",
        "began",
        "came",
        "found",
        "felt",
        "kept",
        "left",
        "lost",
        "thought",
        "told",
        "gave",
        "heard",
        "knew",
        "led",
        "put",
        "read",
        "said",
        "sent",
        "sat",
        "spent",
        "stood",
        "taught",
        "wrote",
        "drove",
        "ate",
        "fell",
        "held",
        "paid",
        "rode",
        "sang",
        "sold",
        "swam",
        "threw",
        "understood",
        "woke",
        "wore",
        "built",
        "brought",
        "caught",
        "chose",
        "dealt",
        "dug",
        "drew",
        "drank",
        "forgot",
        "fought",
        "hung",
        "hid",
        "hit",
        "hurt",
        "let",
        "lit",
        "meant",
        "quit",
        "rang",
        "rose",
        "shook",
        "shot",
        "shut",
        "slept",
        "spoke",
        "stole",
        "stuck",
        "struck",
        "swore",
        "tore",
        "became",
        "began",
        "broke",
        "used",
    ]
)
_ADVERB = (
    r"(?:really|also|just|still|now|currently|totally|actually|always|never|usually|recently|finally|already|"
    r"often|sometimes|even|definitely|absolutely|truly|honestly|seriously|literally|kinda|pretty much|only|"
    r"mostly|rarely|generally|especially|sure|gradually|regularly|eventually|once|first|later|"
    # any other -ly adverb ("I typically hold …" gave "User typicallies hold …"), not the verbs that end so
    r"(?!(?:apply|reply|rely|supply|imply|comply|multiply|fly|ally|tally|rally|bully|dally)\b)[a-z]{3,}ly)"
)
_LATER_I = {"am": "are", "'m": "'re", "was": "were", "wasn't": "weren't"}


def conjugate(verb: str) -> str:
    """The third-person singular of a first-person verb ("love" → "loves", "am" → "is", "went" → "went")."""
    v = verb.lower()
    if v in _BE:
        return _BE[v]
    if v in _UNCHANGED or _PREFIXED_PAST.fullmatch(v) or (v.endswith("ed") and not v.endswith("eed")) or "'" in v:
        return verb
    if re.search(r"(?:ss|sh|ch|x|z|o)$", v):
        return verb + "es"
    if re.search(r"[^aeiou]y$", v):
        return verb[:-1] + "ies"
    return verb + "s"


#: what "our" shares with everyone around the speaker, never the speaker's own: "the state of our education" is the
#: community's (read false as "their education"); a mass noun goes bare, a count noun takes "the"
_OUR_PUBLIC = re.compile(
    r"\bour (?:(?P<mass>education|healthcare|infrastructure|society|democracy|economy|environment|public transport)|"
    r"(?P<count>schools|roads|streets|parks|neighbou?rhood|town|city|country|planet|government))\b",
    re.IGNORECASE,
)


def _public(m: re.Match[str]) -> str:
    return m.group("mass") or f"the {m.group('count')}"


#: a third party's they / their in what was said: the speaker's own words after it are named "User", or the two read
#: as one ("how much they've done for us" gave "how much they've done for them", read garbled); "them" alone is as
#: often things ("I'd try them with my cousins" keeps "their cousins")
_THIRD_PARTY = re.compile(r"\b(?:they|their|theirs|they're|they've|they'd|they'll)\b", re.IGNORECASE)
#: the speaker's "I" and the verb after it, named "User" beside a third party ("… and I helped" → "… and User helped")
_I_VERB = re.compile(r"\bI(?:(?P<contracted>'m|'ve|'d|'ll)|\s+(?P<verb>[a-z]+(?:n't)?))\b")


def _named_beside(text: str) -> str:
    """The speaker's words from a third party's they / their on, named "User": "… they said my story had brought
    them comfort" → "… they said User's story had brought them comfort"."""
    text = _I_VERB.sub(lambda m: "User " + conjugate(m.group("contracted") or m.group("verb")), text)
    for pattern, repl in ((r"\bmy\b", "User's"), (r"\bme\b", "User"), (r"\bus\b(?<!(?-i:US))", "User and others")):
        text = re.sub(pattern, repl, text, flags=re.IGNORECASE)
    return text


def later_person(text: str) -> str:
    """Every first-person word after the subject, as they/them/their (verbs agree: 'I was' → 'they were'); named
    "User" instead where a third party's they / their is said too (``_named_beside``)."""
    third = _THIRD_PARTY.search(text)
    if third:  # from the third party on ("I love my kids, they're my world" → "…, they're User's world")
        text = text[: third.start()] + _named_beside(text[third.start() :])
    text = re.sub(r"\bI'm\b", "they're", text)
    text = re.sub(r"\bI('ve|'d|'ll)\b", r"they\1", text)
    text = re.sub(  # "who I really am" → "who they really are"
        r"\bI((?:\s+(?:really|truly|just|still|always|actually|never|even))*)\s+(am|was|wasn't)\b",
        lambda m: f"they{m.group(1)} " + _LATER_I[m.group(2)],
        text,
    )
    text = re.sub(r"\bI\b", "they", text)
    text = _OUR_PUBLIC.sub(_public, text)
    subs = [
        (r"\bmyself\b", "themself"),
        (r"\bourselves\b", "themselves"),
        (r"\b(?:mine|ours)\b", "theirs"),
        (r"\b(?:my|our)\b", "their"),
        (r"\b(?:me|us)\b(?<!(?-i:US))(?![ -]time\b)", "them"),  # not "the US", not "me-time" ("them-time")
        (r"\bwe('re|'ve|'ll|'d)\b", r"they\1"),
        (r"\bwe\b", "they"),
    ]
    for pattern, repl in subs:
        text = re.sub(pattern, repl, text, flags=re.IGNORECASE)
    return text


_SUBJECT_EN = re.compile(
    r"^(?P<subj>I(?:'m|'ve|'d|'ll)?|[Mm]y|[Ww]e(?:'re|'ve|'ll|'d)?|[Oo]ur)\b\s*(?P<rest>.*)$", re.DOTALL
)


def third_person(text: str) -> str | None:
    """A first-person English statement as a statement about 'User' (None when it is not about the speaker)."""
    s = text.replace("’", "'").strip()
    m = _SUBJECT_EN.match(s)
    if not m and not s.startswith("User and their "):
        # the speaker is not the grammatical subject ("The group made me feel accepted"): first mention → User
        first = re.search(r"\b(?:me|my|myself|I)\b", s)
        if not first:
            return None
        word = first.group()
        if word.lower() == "myself":
            return None  # "Painting's great for expressing myself": no 'User' to put first
        head = s[: first.start()]
        if not (word == "my" and re.fullmatch(r"\w+\s+", head)) and re.search(
            r"\b(?:since|because|cause|when|if|as|while|although|though|after|before|until|unless)\s*$", head, re.I
        ):
            return None  # the speaker only appears in a subordinate clause: "From a distance, since I'm allergic"
        # (a sentence opening "After my last run, I saw …" names the user's thing: "After User's last run, they saw …")
        tail = later_person(s[first.end() :])
        if word == "my":
            return head + "User's" + tail
        if word == "I":  # "When I was a kid, …": keep 'User' and a third-person verb
            contracted = re.match(r"('m|'ve|'d|'ll)\b", s[first.end() :])
            if contracted:
                rest = later_person(s[first.end() + len(contracted.group()) :])
                return head + "User " + conjugate(contracted.group()) + rest
            vm = re.match(r"(\s+(?:" + _ADVERB + r"\s+)*)(\w+'?\w*)", tail, re.IGNORECASE)
            if vm:  # "the song that I really love" → "… that User really loves" (the adverb stays as it is)
                return head + "User" + vm.group(1) + conjugate(vm.group(2)) + tail[vm.end() :]
        return head + "User" + tail
    if m is None:  # "User and their kids …" (rewritten from "My kids and I …")
        return s[:16] + later_person(s[16:])
    subj, rest = m.group("subj"), m.group("rest")
    low = subj.lower()
    if low == "my":
        return "User's " + later_person(rest)
    if low == "our":
        return "User's " + later_person(rest)
    if low.startswith("we"):
        verb = {"we're": " are", "we've": " have", "we'll": " will", "we'd": " would"}.get(low, "")
        return "User and others" + verb + " " + later_person(rest)
    if low in ("i'm", "i've", "i'd", "i'll"):
        return "User " + conjugate(low[1:]) + " " + later_person(rest)
    vm = re.match(r"((?:" + _ADVERB + r"\s+)*)([\w']+)(.*)$", rest, re.IGNORECASE | re.DOTALL)
    if not vm:
        return None
    adverbs, verb, tail = vm.groups()
    emphatic = re.match(r"\s+((?:" + _ADVERB + r"\s+)*)([a-z]+)\b", tail) if verb.lower() in ("do", "did") else None
    if emphatic and (
        _stressed(emphatic.group(2), tail[emphatic.end() :])
        if verb.lower() == "do"
        else emphatic.group(2) not in _NOT_A_VERB  # "I did sign up": a past "did" before a bare word stresses it
    ):  # "I do remember …": "User remembers …"
        more, main = emphatic.groups()
        said = conjugate(main) if verb.lower() == "do" else _past(main)
        return "User " + adverbs + more + said + later_person(tail[emphatic.end() :])
    return "User " + adverbs + _present_or_past(verb, s) + later_person(_coordinated(verb, tail))


#: verbs whose past is their base form: "I just set up …" tells what happened ("User just set up …", never "sets")
_SAME_PAST = frozenset(
    [
        "set",
        "put",
        "cut",
        "read",
        "hit",
        "quit",
        "let",
        "hurt",
        "shut",
        "cost",
        "spread",
        "bet",
        "cast",
        "split",
        "burst",
        "fit",
        "shed",
        "upset",
        "broadcast",
    ]
)
#: an irregular past under a prefix is a past too: "retook", "overslept", "undertook", "mistook", "forgave", "awoke"
#: (it gave "User retooks …"); not a modal, nor a past that is its own base ("output", "misread"), nor "resent"
_PREFIXED_PAST = re.compile(
    r"(?:re|over|under|mis|out|with|fore|for|be|up|un|a)(?:"
    + "|".join(sorted(w for w in _UNCHANGED if w.isalpha() and w not in MODALS | {"shall", "cannot"} | _SAME_PAST))
    + r")(?<!resent)"
)
#: a statement of something done: "User <up to two words> <a past>" (what makes it specific enough to keep short)
_PAST_STATEMENT = re.compile(
    r"User (?:\w+ ){0,2}(?:\w+ed|" + "|".join(_UNCHANGED) + "|" + _PREFIXED_PAST.pattern + r")\b"
)
#: what dates a statement in the past ("just", "yesterday", "last week", "three weeks ago"), or another verb of it that
#: is past ("I set up the tank and added …")
_PAST_CUE = re.compile(
    r"\b(?:just|recently|yesterday|last (?:week|weekend|month|year|night|time|\w+day)|ago|earlier|already|finally|"
    r"the other day|back in|in (?:19|20)\d\d|[a-z]{3,}ed|went|got|made|took|bought|spent|found|built|had|was)\b",
    re.IGNORECASE,
)
#: what makes it a habit instead ("I read every night", "I usually cut my own hair")
_HABIT_CUE = re.compile(
    r"\b(?:every|each|usually|always|often|sometimes|never|generally|regularly|daily|weekly|nightly|on weekends|"
    r"a day|a week|a month|per (?:day|week|month)|these days|nowadays)\b",
    re.IGNORECASE,
)


def _present_or_past(verb: str, sentence: str) -> str:
    """The third person of the sentence's verb, read with the sentence when its past looks like its base: past with a
    past cue and no habit cue ("I just set up my TV" → "set"), present with a habit cue ("I read every night" →
    "reads"), else as ``conjugate`` has it."""
    if verb.lower() in _SAME_PAST:
        if _HABIT_CUE.search(sentence):
            return verb + "s"
        if _PAST_CUE.search(sentence):
            return verb
    return conjugate(verb)


#: the determiners no verb can be: neither the word "do" stresses nor one coordinated with a verb
_DETERMINERS = frozenset(["a", "an", "the", "my", "our", "your"])
#: words that cannot be a verb coordinated with the one before ("I love cats and dogs" has one verb)
_NOT_COORDINATED = _DETERMINERS | frozenset(
    [
        "their",
        "his",
        "her",
        "its",
        "this",
        "that",
        "these",
        "those",
        "it",
        "them",
        "him",
        "me",
        "us",
        "you",
        "i",
        "we",
        "they",
        "he",
        "she",
        "so",
        "then",
        "also",
        "just",
        "not",
        "now",
        "still",
        "more",
        "most",
        "all",
        "some",
        "any",
        "every",
        "each",
        "one",
        "two",
        "no",
        "lots",
        "lot",
        "much",
        "many",
        "few",
        "other",
        "others",
        "there",
        "here",
        "what",
        "which",
        "who",
        "whose",
        "when",
        "where",
        "how",
        "why",
        "as",
        "if",
        "because",
    ]
)
#: "I practice and train every day": a second verb, directly after "and" / "or", shares the subject
_AND_VERB = re.compile(r"^(\s*,?\s+(?:and|or|&)\s+(?:(?:also|then|really|just|even)\s+)?)([a-z]+)\b")
#: "… and train my dog": a later base verb followed by its own object (an article or a possessive) shares it too
_AND_LATER = re.compile(
    r"(\s+and\s+)([a-z]+)(?=\s+(?:a|an|the|my|our|some|it|them)\b)(?!\s+(?:a|the)\s+(?:lot|bit|little|few)\b)"
)


def _coordinated(verb: str, tail: str) -> str:
    """The tail of a sentence with the verbs that share the first one's subject in the third person too: "and train"
    → "and trains". Only when the first verb is a present one the subject rewrite changed (not "was", "have", "will",
    a past), and the word after "and" is in its base form, is nothing else ("cats and dogs") and not a noun
    repeated."""
    low = verb.lower()
    if low in _BE or conjugate(low) == low or low in _SAME_PAST or "'" in low:
        return tail

    def third(word: str) -> str | None:
        w = word.lower()
        if w in _NOT_COORDINATED or w in _BE or w == low or re.search(r"(?:[^s]s|ed|ing|ly|'\w*)$", w):
            return None
        return conjugate(word) if w not in _UNCHANGED else None

    m = _AND_VERB.match(tail)
    if m and (said := third(m.group(2))):
        return m.group(1) + said + _coordinated_later(tail[m.end() :], third)
    return _coordinated_later(tail, third)


def _coordinated_later(tail: str, third: Callable[[str], str | None]) -> str:
    """A later "and <verb> <object>" in the first clause (before a comma or a new subject)."""
    clause = re.split(r",|;|\s+(?:but|because|so|while|when|which|who|that|to)\s+", tail, maxsplit=1)[0]
    m = _AND_LATER.search(clause)
    if not m or not (said := third(m.group(2))):
        return tail
    return tail[: m.start(2)] + said + tail[m.end(2) :]


def _stressed(word: str, after: str) -> bool:
    """Whether the word after "do" is a verb "do" stresses ("I do use a case"), not what is done ("I do wood
    working", "I do yoga"): a verb said so often it is known, or a word followed by its own object."""
    if word in _NOT_A_VERB:
        return False
    return bool(
        re.fullmatch(EMPHATIC_VERBS, word)
        or re.match(r"\s+(?:a|an|the|my|our|it|them|that|this|some|what|how|to)\b", after, re.IGNORECASE)
    )


#: what may follow "do" as its object, not as the verb an emphatic "do" stresses ("I do yoga", "I did a course")
_NOT_A_VERB = _DETERMINERS | frozenset(
    [
        "some",
        "yoga",
        "pilates",
        "it",
        "that",
        "this",
        "them",
        "so",
        "not",
        "lots",
        "lot",
        "well",
        "too",
        "what",
        "all",
        "any",
        "more",
        "most",
        "much",
        "nothing",
        "something",
        "everything",
        "anything",
        "stuff",
        "things",
        "crafts",
        "art",
        "volunteering",
    ]
)


def _past(verb: str) -> str:
    """The past of a verb an emphatic 'did' stressed ("I did enjoy it" → "enjoyed"); irregular ones kept few."""
    irregular = {"see": "saw", "go": "went", "have": "had", "make": "made", "get": "got", "feel": "felt"}
    irregular |= {"think": "thought", "find": "found", "know": "knew", "take": "took", "say": "said", "try": "tried"}
    if verb in irregular:
        return irregular[verb]
    return verb + ("d" if verb.endswith("e") else "ed")


#: "every weekend", "每周末": a habit; its date phrase names no one day
HABIT = re.compile(
    r"\b(?:every|each) (?:day|morning|evening|night|week|weekend|month|year|monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday)\b|\bon (?:weekends|mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays)\b"
    r"|每(?:个|一)?(?:天|周|星期|月|年|晚|早)",
    re.IGNORECASE,
)
#: a statement about what is coming ("we're heading to the coast on Saturday", "周六我们要去海边"): its bare dates
#: ("on Saturday") are the next ones, not the last ones gone
_AHEAD = re.compile(
    r"\b(?:will|going to|gonna|plan(?:ning)? to|(?:am|are|is) \w+ing)\b|(?:'|’)(?:ll|m \w+ing|re \w+ing)\b"
    r"|要|打算|准备|将要|计划",
    re.IGNORECASE,
)


def _tense(clause: str) -> Prefer:
    """Which way a bare date in a self-disclosure points: ahead for a plan, else back (most of what people tell
    about themselves has happened)."""
    return None if _AHEAD.search(clause) else "past"


# -- which sentences are self-disclosures --------------------------------------------------------------------
_OPENER_EN = re.compile(
    r"^(?:(?:yeah|yes|yep|yup|oh|ooh|wow|well|haha|hah|lol|hey|hi|hello|thanks|thank you|so|and|but|plus|also|"
    r"actually|honestly|totally|absolutely|sure|ok|okay|aww|aw|ah|omg|cool|great|nice|right|true|exactly|"
    r"definitely|indeed|anyway|anyways|btw|by the way|you know|guess what|no way|oh man|man|dude|to be honest|"
    r"speaking of which|that being said|having said that|that said|with that said|"
    r"besides that|apart from that|aside from that|other than that|on top of that|"
    r"funny you (?:should )?(?:mention|ask)(?: that)?|hmm|um|uh|ugh|yikes|gosh|geez)\b[\s,!.:-]*)+",
    re.IGNORECASE,
)
_TIME_LEAD = re.compile(r"^(?P<lead>[^,]{3,40}?),\s+(?=(?:I|I'm|I've|I'd|my|we|We|My|our|Our)\b)")
_YOU = re.compile(r"\b(?:you|your|yours|yourself|u|ya)\b", re.IGNORECASE)
_REACTION_EN = re.compile(
    r"^(?:I|I'm|I am|I've|I'd|I'll|we)\s+(?:(?:really|totally|completely|so|just|also|definitely|too|very|100%)\s+)*"
    r"(?:agree|know|knew|see|understand|bet|guess|suppose|think so|can imagine|can't imagine|appreciate|"
    r"hope(?! to\b)|wish|mean|meant|feel you|can picture|"
    r"hear you|get it|get that|glad|sorry|sure|happy for|proud of|thankful for "
    r"your|can't believe|cannot believe|couldn't believe|grateful for your|thought so|was wondering|wonder|"
    r"can relate|relate|will (?:do|try|keep|check|let)|"
    r"'ll (?:do|try|keep|check|let)|would love to (?:hear|see|know)|'d love to (?:hear|see|know)|"
    r"love (?:that|it|this|those|these)|like (?:that|it|this)|loved (?:that|it|this)|couldn't agree|could not agree|"
    r"feel the same|felt the same|thought I should|doing (?:ok|okay|fine|good|great|well|alright|better))\b",
    re.IGNORECASE,
)
_DANGLING_EN = re.compile(r"\b(?:it|that|this|them|those|these|one|so)\s*[.!]*$", re.IGNORECASE)
#: a "one" the sentence names itself: "… another painting like our last one", "… a new bike, better than the old one"
_ONE_OF_ITS_OWN = re.compile(
    r"\b(?:a|an|another)\s+(?:[a-z-]+\s+){0,2}?(?!one\b)[a-z-]{3,}\b[^.!?]*?\b(?:like|than|as|replace|replaced)\s+"
    r"(?:(?:my|our|the|their)\s+)?(?:(?:last|first|old|previous|other|new|own)\s+)?one\s*[.!]*$",
    re.IGNORECASE,
)
_CONTENT_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "with",
        "from",
        "is",
        "am",
        "are",
        "was",
        "were",
        "be",
        "been",
        "have",
        "has",
        "had",
        "do",
        "does",
        "did",
        "it",
        "this",
        "that",
        "so",
        "very",
        "really",
        "just",
        "too",
        "also",
        "user",
        "they",
        "them",
        "their",
        "i",
        "me",
        "my",
        "we",
        "our",
        "some",
        "any",
        "all",
        "lot",
        "lots",
        "much",
        "more",
        "most",
        "such",
        "feel",
        "felt",
        "think",
        "thought",
        "get",
        "got",
        "go",
        "going",
        "gonna",
        "make",
        "made",
        "thing",
        "things",
        "way",
        "well",
        "like",
        "love",
        "there",
        "here",
    ]
)
MAX_WORDS = 40
#: a statement whose end was cut off, whatever cut it: "… and they're excited to", "… trying to capture some of"
_CUT_TAIL = re.compile(
    r"\b(?:(?:excited|eager|curious|planning|plan|plans|want|wanted|wanna|going|hoping|hope|trying|decided|meaning|"
    r"need|ready|able|happy|glad|love|like|dying|tempted|supposed) to|"
    r"(?:some|all|most|any|none|each|one|many|few|lot|lots|number|track|day|out|bit|couple|kind|sort|rest|top|"
    r"front|because|instead|both|either|neither) of)\W*$",
    re.IGNORECASE,
)
#: … but not a verb left out on purpose: "… if they need to", "… whenever they want to"
_ELLIPSIS = re.compile(r"\b(?:if|when|whenever|as|unless|because)\s+\S+\s+(?:\S+\s+)?\w+\s+to\W*$", re.IGNORECASE)
#: "(Always) been interested in …", "Been obsessed with …": a state the speaker is in, whose "I've" chat left out
_BEEN_DONE = r" (?:(?:so|really|very|always|long|super) )?[a-z]+ed (?:in|with|by|about|on|to|for)\b"
#: what is left of a sentence whose subject chat dropped and no rule put back: "Always been … and I'm excited to …"
_SUBJECTLESS = re.compile(r"^(?:(?:" + _ADVERB + r")\s+)*been\b", re.IGNORECASE)
#: subject-less fragments: "Really made me think …", "Gives me a visual …", "Almost as silly as …"
_FRAGMENT = re.compile(
    r"^(?:(?:really|just|also|totally|definitely)\s+)?(?:been(?! \w+ing\b| (?:only |once |never )?to\b|"
    + _BEEN_DONE
    + r")|"
    r"gives|makes|made|reminds|reminded|"
    r"helps|helped|keeps|kept|brings|brought|means|meant|almost|as|such|what a|so much|too|"
    r"(?:something|anything|nothing)(?: \w+)? to)\b",  # "Just something nice to take my mind off things": no verb
    re.IGNORECASE,
)
#: a request to the assistant is not a fact about the user: "Give me three ideas", "I need a recipe for pancakes"
_REQUEST_EN = re.compile(
    r"^(?:please\s+)?(?:tell|give|show|translate|explain|help|write|find|remind|send|book|recommend|suggest|list|"
    r"teach|describe|summari[sz]e|calculate|draw|create|draft|fix|check|compare|convert|generate|pick|choose)\b"
    r"|^I(?:'d| would)? (?:really )?(?:need|want|like|have) (?:a |an |some |your |to know|to learn about|to "
    r"understand|help|info|information|advice|(?:a |an )?(?:quick )?question)",
    re.IGNORECASE,
)
#: the moment, not the person: "I'm tired today", "I'm going to bed now", "I'll be right back"
_MOMENT_EN = re.compile(
    r"^I(?:'m| am) (?:so |really |very |a bit |kind of |pretty )?(?:tired|hungry|sleepy|bored|back|here|off|"
    r"leaving|going to (?:bed|sleep)|heading (?:out|off|to bed)|going offline|done for (?:today|now))\b"
    r"|^I(?:'ll| will) be (?:right )?back\b",
    re.IGNORECASE,
)
#: resolutions and wishes ("User will keep working hard"): intentions without a plan, rarely worth a memory; a mood
#: is an adjective ("thrilled to"), an ongoing activity is not ("User is starting to …", "User is prepping for …"), nor
#: what they have or are busy with ("lucky to have their husband and kids", "swamped with the kids & work")
_WISHFUL = re.compile(
    # … but a lasting memory is no wish: "User will never forget the day their youngest took her first steps"
    r"^User (?:\w+ )?(?:will|won't|would|wouldn't|should|could|'d|'ll)\b(?! (?:never forget|always remember)\b)"
    r"|^User is (?:so |really |super |very |totally |pretty |just )?(?!\w+ing\b)"
    r"(?!(?:lucky|blessed|fortunate|glad|grateful|thankful) to have\b|(?:busy|swamped|overwhelmed) with\b)"
    # … but looking forward to a named thing is news: "User is thrilled to start their new job at the bakery"
    r"(?!(?:excited|thrilled|stoked|pumped|eager|psyched) to \w+\b(?=[^.;]*?(?:\b(?!User\b)[A-Z][a-z]|\d|"
    r"\btheir (?!(?:hard )?work\b|efforts?\b|dreams?\b|goals?\b|best\b)\w+)))"
    r"\w+ (?:to|about|that|for|with)\b"
    r"|^User is (?:(?:so|really|still|just|now|also) )?(?:feeling|doing|staying|living)\b"  # how they are doing
    r"|^User is (?:(?:so|really|much|a lot|way) )?(?:happier|better|more \w+)\b"
)  # … and a mood about something ("User is thrilled to …", "User is excited about …")
#: a photo of what the speaker made, shown: what they made is the news, the showing is the chat's ("Here's a pic of a
#: cake I made recently" → "I made a cake recently", never "User shared a pic of a cake they made recently")
_SHOWN_MADE = re.compile(
    r"^I shared (?:a|this|another|my|some)\s+(?:\w+\s+)?(?:pics?|photos?|pictures?|snaps?|shots?)\s+of\s+"
    r"(?P<thing>(?:a|an|the|my|some|this)\s+[^,.;!?]{2,60}?)\s+(?:that\s+)?I\s+"
    r"(?P<verb>made|baked|painted|drew|did|built|cooked|knitted|sewed|crafted|created|wrote|grew|planted)\b",
    re.I,
)
#: the shown thing's pointer: "the ice cream I made" → "ice cream"
_THING = re.compile(r"^(?:the|this)\s+", re.I)
#: "Here's one of my trophies from a dance contest" → "I shared one of my trophies …"
_HERES = re.compile(r"^(?:here's|here is|check out|check this out:?)\s+(?=.*\b(?:my|I)\b)", re.I)
_EMOJI = re.compile(r"\s*[\U0001F300-\U0001FAFF\u2600-\u27BF\uFE0F]+\s*")
#: "the book you recommended" is a thing, not a remark to the other person: "the book recommended to them"
_YOU_SAID = re.compile(r"\byou (recommended|suggested|mentioned)\b|\bwhat you said\b", re.IGNORECASE)
_TIMELY = re.compile(
    r"\b(?:yesterday|today|tonight|tomorrow|ago|last|next|this|that|week|weekend|month|year|day|morning|afternoon|"
    r"evening|night|summer|winter|spring|autumn|fall|recently|lately|since|after|before|during|when|once|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|august|"
    r"september|october|november|december)\b|\d",
    re.IGNORECASE,
)
_BARE_AUX = re.compile(
    r"^I (?:did|do|have|had|was|am|can|will|would|could|should|'m|'ve|'d|'ll)(?:n't)?(?:\s+(?:too|so|not|already|"
    r"once|twice|before|yesterday|today|recently|last \w+|this \w+))*[.!]*$",
    re.IGNORECASE,
)
_DREAM = re.compile(
    r"(?<![\w,] )\b(?:it|this)(?:'s| is| has)\s+(?:always\s+|long\s+)?(?:been\s+)?(?:always\s+)?"
    r"(?:a|a real|a big|a lifelong)\s+dream(?: of mine)? to\s+",
    re.IGNORECASE,
)
_YOU_TAIL = re.compile(r",\s+(?:and|but|so)\s+(?:you|your|you're|you've)\b.*$", re.IGNORECASE)
_SUBJECT_FIRST = re.compile(r"^(?:(?:and|but|so|plus|also|just|now)\s+)?(?:I|I'm|I've|I'd|my|we|we're|we've)\b", re.I)
#: an aside pointing back at what the speaker said before: not part of the statement
_AS_I_SAID = re.compile(r",?\s*\b(?:like|as) I (?:said|mentioned|told you)(?: before| earlier)?\b,?\s*", re.I)
#: "my dream come true", "our best day ever": a short "my …" with no verb, said after a statement as its exclamation
_VERBLESS_MINE = re.compile(
    r"^(?:my|our)\s+(?!(?:\S+\s+){0,3}(?:is|are|was|were|has|have|had|been|got|went|made|took|came|saw|won|lost|"
    r"did|ran|felt|left|gave|told|said|found|met|kept|bought|\w+ed|'s|'re|'ve)\b)(?:\S+\s*){1,4}$",
    re.I,
)
#: the conjunction a part between dashes opens with ("… - a mix of highs and lows - and my journal's my rock"): it
#: joined the part to what was cut away, and left in front it gave "And User's journal's …"
_JOINED_ON = re.compile(r"^(?:and|but|so|plus)\s+", re.IGNORECASE)
_DASH = re.compile(r"\s+[-–—]+\s+|\s*—\s*|(?<=\w)-\s+")
#: the speaker in an English sentence (an answer to a request for advice without it is advice: extractor, advice)
FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|me|my|myself|we|we're|we've|our|us)\b", re.IGNORECASE)
_TRAILING = re.compile(
    r"(?:,?\s+(?:and stuff|and all that|all of that|and everything|and so on|or so|too|as well|though)|"
    r",\s*speaking of(?: which)?|"  # "I just reorganized my book shelf, speaking of."
    # "…, check it out" is said to the listener; "… meaning to check it out" is what the speaker means to do
    r"(?:,\s*|(?<!\bto)(?<!\bll)(?<!\bwill)(?<!\bcan)(?<!\bcould)(?<!\bwould)(?<!\bmust)(?<!\bgonna)(?<!\bwanna)"
    r"(?<!\band)(?<!\bor)(?<!\bme)(?<!\bus)\s+)(?:take a look|check it out|have a look|see))+$",
    re.IGNORECASE,
)
_TIME_WORD = re.compile(
    r"^(?P<lead>(?:lately|recently|yesterday|today|tonight|last (?:week|weekend|month|year|night|\w+day)|"
    r"this (?:week|weekend|morning|month|year)|a few (?:days|weeks|months) ago|the other day))\s+(?=I\b|I'|we\b)",
    re.IGNORECASE,
)
#: pep talk, wishes and requests: said in chat all the time, never a fact about the speaker
_NOT_A_FACT = re.compile(
    r"^(?:check|glad|so glad|for|thanks|thank|wish|hope|hoping|can't wait|cannot wait|let's|let me|gotta|"
    r"appreciate|take care|talk|see|cheers|congrats|good luck|keep|love|miss|sounds|looks|feels|must be|"
    r"what|how|why|who|where|when|if|as|because|since|just like|same|me too|not sure)\b"
    r"|\b(?:(?:make|made|making) (?:my|our) dreams?|stay(?:ing)? positive|never (?:quit|give up)|give up|quit|"
    r"hang(?:ing)? in there|"
    r"keep (?:going|pushing|on|it up|at it)|pushing (?:forward|through|on)|we got this|make it happen|"
    r"can't thank|means? (?:a lot|so much)|(?:haven't|hadn't|have not) (?:talked|chatted|spoken|caught up)|"
    r"makes? (?:total |perfect )?sense|proud of how far|so much to me)\b",
    re.IGNORECASE,
)
_GENERIC_WE = re.compile(
    r"^(?:we|we're|we'll|we'd)\s+(?:all\s+|really\s+|just\s+|both\s+|can|could|should|will|must|need|want|'ll|"
    r"are all|have to|gotta)\b",
    re.IGNORECASE,
)
#: "Lost my job yesterday", "Gonna continue my edu", "Been busy painting": chat drops the 'I'
_DROPPED = re.compile(
    r"^(?P<adv>(?:" + _ADVERB + r")\s+)?"
    r"(?P<verb>(?:gonna|going to)(?! be\b)|been(?= \w+ing\b| (?:only |once |never )?to\b|" + _BEEN_DONE + r")|"
    r"(?:lost|got|went|started|finished|bought|moved|joined|quit|took|made|met|found|tried|visited|ran|"
    r"learned|learnt|signed|adopted|won|had|spent|painted|finished|decided|booked|picked|saw|watched|read|"
    r"researching|working|planning|thinking|looking|heading|trying|learning|training|preparing|volunteering|"
    r"taking|getting|doing|reading|writing|painting|starting|hoping(?= (?:my|our|that|to|the)\b)|"
    r"need(?= (?:help|some|a|more|to)\b))\b)(?P<rest>.*)$",
    re.IGNORECASE | re.DOTALL,
)


#: "Still following my passion for dance", "Just finishing up my thesis": an adverb before an -ing verb says it is
#: what the speaker is doing (a gerund subject rarely follows "still" / "just"; the finite verb check still runs)
_DROPPED_ING = re.compile(
    r"^(?P<adv>(?:still|currently|now|finally|slowly)\s+)"
    r"(?P<verb>(?!(?:some|any|every|no)thing\b|bring\b|sing\b|thing\b)[a-z]{3,}ing)\b(?P<rest>.*)$",
    re.IGNORECASE | re.DOTALL,
)


#: "Just skyped with that fan I met in CA": "just" and a past no list above names, then what it was done with or to
#: (an object, a particle or "with"); not a state the speaker is in ("Just swamped with work", "Just excited to …")
_STATE_ED = (
    r"(?!(?:obsessed|blessed|pleased|bored|impressed|overwhelmed|swamped|stuffed|satisfied|disappointed|"
    r"frustrated|annoyed|tired|stressed|occupied|involved|interested|excited|concerned|fascinated|amazed|delighted|"
    r"thrilled|stoked|slammed|loaded|packed|connected|engaged|married|wanted|needed)\b)"
)
_JUST_PAST = re.compile(
    r"^(?P<adv>just\s+)"
    r"(?P<verb>" + _STATE_ED + r"[a-z]{2,}ed)"
    r"(?P<rest>\s+(?:with|a|an|the|my|our|some|his|her|him|it|them|this|that|these|those|up|back|out|off|over|"
    r"into)\b.*)$",
    re.IGNORECASE | re.DOTALL,
)
#: "Dyed my hair last week", "Repainted the fence": a sentence that opens (a capital: not a line of a pasted text) on a
#: past with its object (a determiner or a possessive follows, or a particle), the 'I' chat left out, as after "just";
#: not a participle that opens a phrase ("Based on the reviews", "Excited about …": no object follows), a state (as
#: above), a verb whose base ends in "-ed" ("Embed the video", "Need a …", "Feed the cat" ask for something)
_PAST_DROPPED = re.compile(
    r"^(?P<adv>)(?P<verb>(?=(?-i:[A-Z]))" + _STATE_ED + r"(?!embed\b)[a-z]{2,}(?<!e)ed)"
    r"(?P<rest>\s+(?:a|an|the|my|our|some|his|her|this|that|these|those|up|back|out|off|over)\b.*)$",
    re.IGNORECASE | re.DOTALL,
)


#: what only the conversation shows: "this pic", "those moments" ("Seeing this pic made me …", "Those moments make me
#: thankful"); a named thing pointed at ("This scarf from my aunt is special to me") still says what it is
_DEICTIC = re.compile(
    r"\b(?:this|that|these|those)\s+(?:pics?|photos?|pictures?|moments?|shots?|snaps?|one|ones)\b", re.IGNORECASE
)
#: where the clause a moved time phrase dates ends: "… to a workshop last Friday, which …" / "… and it was great"
_RELATIVE = re.compile(
    r",\s+(?:which|who|where|whose)\b|,?\s+(?:and|but|so)\s+(?=(?:it|it's|that|this|they|they're|he|she)\b)", re.I
)
_SINCE = re.compile(
    r"^(?:since|after|because|ever since|now that)\s+(?P<clause>(?:I|I'm|I've|my|we)\b[^,]{5,}),\s*(?P<rest>.+)$", re.I
)


_ASIDE = re.compile(r"^(?P<lead>[^,]{3,40}),\s+(?=(?:I|I'm|I've|I'd|my|My|we|We)\b)")
#: the others a speaker did something with, named before "and I": "my colleagues", "our two kids" (a word in -ed is a
#: verb: "My laptop crashed last week and I …" names no one); one pattern for the general path, the clause splitter
#: and the dated events
COMPANIONS = r"(?:my|our)\s+(?P<who>(?:(?![a-z]+ed\b)[\w']+ ?){1,4}?)"
#: "My kids and I just finished …" → "User and their kids just finished …"
_WITH_OTHERS = re.compile(
    r"^(?:speaking of [^,.!?]{1,40},\s+)?"  # "Speaking of special moments, my wife and I …": a segue, dropped
    r"(?:" + COMPANIONS + r"\s+and\s+(?:I|me)|(?:me|I)\s+and\s+(?:my|our)\s+(?P<who2>[\w' ]{2,25}?))\s+",
    re.IGNORECASE,
)


#: what makes a "since / after …" lead a clause with a verb ("Since my sister moved", "After I was hired", "my mom's
#: gone"), not a phrase ("After my last run", "Since my accident")
_HAS_VERB = re.compile(
    r"^(?:I|I'm|I've|we)\b|\b(?:[a-z]{2,}ed|"
    + "|".join(sorted(_UNCHANGED | {"is", "are", "were", "has", "have", "does", "goes", "gets"}))
    + r")\b"
    r"|^(?:my|our)\s+\S+\s+(?:\S+\s+)*?[a-z]{2,}(?<![su'])s\b",  # "my friend Chris lives …", not "my parents"
    re.IGNORECASE,
)


def _main_clause(body: str) -> str:
    """ "Since I lost my job at Door Dash, things have been tough" → "I lost my job at Door Dash; things have been
    tough": the news is in the subordinate clause."""
    m = _SINCE.match(body)
    if m and not _HAS_VERB.search(m.group("clause")):
        return body  # "After my last run, I saw …": a phrase, no clause (gave "User's last run; they saw …")
    if m and re.search(
        r"\blast (?:chatted|chat|talked|spoke|saw|met|caught up)\b|\b(?:chatted|talked|spoke|met|caught up) last\b",
        m.group("clause"),
        re.I,
    ):
        return m.group("rest")  # "Since we last chatted, I've …", "Since we spoke last, …": the news is after the comma
    return f"{m.group('clause')}; {m.group('rest')}" if m else body


def _subject_dropped(body: str) -> str:
    """A sentence whose 'I' chat left out, with it put back (a gerund that is the subject stays as it is)."""
    m = _DROPPED.match(body) or _DROPPED_ING.match(body) or _JUST_PAST.match(body) or _PAST_DROPPED.match(body)
    if not m:
        return body
    verb, rest = m.group("verb").lower(), m.group("rest")
    adv = (m.group("adv") or "").lower()
    gerund_subject = rest.startswith("'s") or re.search(
        r"\b(?:is|isn't|was|wasn't|are|has|have|makes?|made|helps?|helped|gives?|brings?|means?|can|keeps?)\b"
        r"|\b[a-z]{3,}s\s+(?:me|us)\b",  # "Learning about cultures … fascinates me": what fascinates, not a doing
        rest,
    )
    if verb.endswith("ing") or verb == "going to":
        if gerund_subject and verb != "hoping":  # "Taking care of ourselves is vital", "Going to the gym helps me"
            return body
        return f"I'm {adv}{verb}{rest}"
    if verb in ("gonna", "going to"):
        return f"I'm {adv}{verb}{rest}"
    if verb == "been":
        return f"I've {adv}been{rest}"
    return f"I {adv}{verb}{rest}"


_PRONOUN_SUBJECT = re.compile(
    r"^(?:it|it's|that's|this's|they|they're|they've|he|he's|she|she's|there|there's|here|here's|"
    r"what|which|everything|something|nothing|anything|everyone|someone|one|both|all)\b"
    r"|^(?:this|that|these|those)(?:\s+(?:is|was|are|were|has|have|had|makes|made|means|helps|gives|really|just|one|"
    r"so|too|reminds|keeps)\b|\s*$)",  # "this design reminds me …" names its subject; "this is …" does not
    re.IGNORECASE,
)


def _content_count(text: str) -> int:
    return sum(1 for w in re.findall(r"[a-z']+", text.lower()) if w not in _CONTENT_STOP and len(w) > 2)


#: a like of what someone else did, not of a thing: "I love they got a new lease of life" (gave "User loves they got
#: …"); whose life, the conversation says
_LIKES_A_CLAUSE = re.compile(
    r"^I (?:\w+ly |just |also )?(?:like|love|enjoy|adore) (?:that |how )?"
    r"(?:they|he|she|we|you|it)(?:'re|'s|'ve|'ll|'d)?\s",
    re.I,
)


def _en(sentence: str, at: datetime) -> Candidate | None:
    s = _OPENER_EN.sub("", sentence.replace("’", "'").strip()).strip(" -–—,")
    s = re.sub(r"^[A-Z][a-z]+[,!]\s+", "", s)  # a vocative: "Mel, I …"
    s = re.sub(r",\s+[A-Z][a-z]+\s*([.!~]*)$", r"\1", s)  # … and at the end: "I'm getting there, Caroline."
    if _EMOJI.search(s):  # "Inspiring 💪 I emailed some wholesalers": an emoji ends what came before it
        s = next((p.strip() for p in reversed(_EMOJI.split(s)) if FIRST_PERSON.search(p)), _EMOJI.sub(" ", s)).strip()
    s = re.sub(r"(?:,\s*)?\bI mean\b,?\s*", " ", s).strip()  # a filler, not a statement
    s = _AS_I_SAID.sub(" ", s).strip()  # "Joined a travel club and, like I said, working on studies"
    aside = _ASIDE.match(s)  # "Taking your advice, I'm …", "I totally get it, I had …": the news follows the comma
    if aside and (_YOU.search(aside.group("lead")) or _REACTION_EN.match(aside.group("lead"))):
        s = s[aside.end() :]
    s = _YOU_SAID.sub(lambda m: f"{m.group(1)} to them" if m.group(1) else "what was said", s)
    s = _YOU_TAIL.sub("", s)  # "Talking about it is crucial, and you're so brave …": the remark is left out
    if not s or _FRAGMENT.match(s) or _YOU.search(s) or _REQUEST_EN.match(s) or _MOMENT_EN.match(s):
        return None
    s = _HERES.sub("I shared ", s)
    s = _INTRODUCED.sub(", ", s)  # "a new addition to the family, this is Max!" → "…, Max": a name, not a pointer
    s = _SHOWN_MADE.sub(lambda m: f"I {m.group('verb')} {_made(m.group('thing'))}", s)
    s = _DREAM.sub("My dream is to ", s)  # "It's been a dream to adopt …": whose dream is the speaker's
    parts = [p.strip() for p in _DASH.split(s.rstrip(".!~ ;:,")) if p.strip()]
    said = [p for p in parts if _SUBJECT_FIRST.match(p)]  # "I had a day out with the gang - we went biking"
    # "And after college, I was drafted by a team – my dream come true!": an exclamation, not the statement
    said = [p for p in said if not _VERBLESS_MINE.match(p)]
    s = (
        "; ".join(_JOINED_ON.sub("", p) for p in said[:2])
        if said
        else next((p for p in parts if FIRST_PERSON.search(p)), parts[0] if parts else "")
    )
    kept = parts.index(said[0]) if len(said) == 1 else 0 if not said and parts else -1
    after = parts[kept + 1] if 0 <= kept < len(parts) - 1 else ""
    more = _after_dash(after) if after else None  # "… to the aquarium - it was so cool watching them"
    s = _TRAILING.sub("", s)
    s = re.sub(r"\s+(?:who|that|which)\s+\w+\s+(?:it|them)$", "", s)  # "… for kids who need it": nothing dangles
    body = _subject_dropped(_main_clause(s.strip(" ,")))
    if not FIRST_PERSON.search(body):
        return None
    body = _WITH_OTHERS.sub(lambda m: f"User and their {m.group('who') or m.group('who2')} ", body)
    if _NOT_A_FACT.search(body) or _GENERIC_WE.match(body) or _LIKES_A_CLAUSE.match(body):
        return None
    lead = ""
    tm = _TIME_LEAD.match(body) or _TIME_WORD.match(body)
    if tm and not FIRST_PERSON.search(tm.group("lead")):
        lead, body = tm.group("lead"), body[tm.end() :]
        if not _TIMELY.search(lead) or _PRONOUN_SUBJECT.match(lead):
            lead = ""  # "It was so vibrant, I had to …", "It's true that with effort, we …": a remark, not a time
            if _GENERIC_WE.match(body):
                return None  # "…, we can make a real difference": a pep talk once the remark before it is gone
    if _REACTION_EN.match(body) or (_DANGLING_EN.search(body) and not _ONE_OF_ITS_OWN.search(body)):
        return None
    if len(body.split()) > MAX_WORDS:
        return None
    if _PRONOUN_SUBJECT.match(body):
        return None  # "It's special to me", "They motivate me": what 'it' is lives in another sentence
    if _DEICTIC.search(body):
        return None  # "Seeing this pic made me …", "Those moments make me …": what is meant lives in the chat
    if _BARE_AUX.match(body):
        return None  # "Yeah, I did last week!": the answer to a question, nothing on its own
    third = third_person(body)
    if third is None or _WISHFUL.match(third) or _SUBJECTLESS.match(third):
        return None
    if _CUT_TAIL.search(third) and not _ELLIPSIS.search(third):
        return None
    past = _PAST_STATEMENT.match(third)
    specific = past or re.search(r"\b[A-Z][a-z]+|\d", third[5:]) or re.match(r"User is \w+ing\b", third)
    if _content_count(third) < (2 if specific else 3):
        return None
    third = later_person(third)  # anything the subject rewrite left ("by sharing our stories")
    third = third[:1].upper() + third[1:]
    when = None if HABIT.search(body) else resolve(lead + " " + body if lead else body, at, prefer=_tense(body))
    content = third
    if lead:  # behind the clause it dates, not behind the next one: "… climbing last month, which they …"
        moved = " " + lead[:1].lower() + lead[1:]
        rel = _RELATIVE.search(third)
        content = third[: rel.start()] + moved + third[rel.start() :] if rel else third + moved
    if when:
        day = when.stamp
        content += f" ({day})" if when.phrase.lower() in content.lower() else f" ({when.phrase}, {day})"
    if more:
        content += (", " if _APPOSITIVE.match(more) else "; ") + more
    c = make(
        "fact", _object_of(third), content + ".", lang="en", evidence=sentence, event_time=when.when if when else None
    )
    c.extractor = "rules:general"
    return c


#: a name introduced at the end of a statement, as a photo is shown: "I just got a new addition to the family, this
#: is Max!"
_INTRODUCED = re.compile(r",\s*(?:this|here|that) is (?=[A-Z][a-z]+\s*[.!~]*$)")
#: "…, a great way to unwind": what follows a dash may name what the statement before it was
_APPOSITIVE = re.compile(r"^(?:a|an|another|such a|the (?:best|perfect|only))\s+\w+", re.IGNORECASE)


def _made(thing: str) -> str:
    """What a shown photo's maker made, as news: "my horse painting" → "a horse painting", "the ice cream" → "ice
    cream", "a cake" as it is."""
    if thing[:3].lower() != "my ":
        return _THING.sub("", thing)
    rest = thing[3:]  # what they made is the news, not which of theirs
    last = (rest.split() or [""])[-1]
    if last.endswith("s") and not last.endswith("ss"):
        return rest  # "my cookies" → "cookies"
    return f"{a_or_an(rest)} {rest}"


def _after_dash(part: str) -> str | None:
    """What follows a dash, when it goes on about the statement before it ("- it was so cool watching their faces
    light up", "- a great way to clear my head"), in the user's words; None when it is a new remark."""
    if _APPOSITIVE.match(part) and not _YOU.search(part) and _content_count(part) >= 3:
        return later_person(part[:1].lower() + part[1:])
    return continuation(part, "en")


def speaker_implied(text: str) -> bool:
    """Whether the message speaks of its speaker without naming them: a sentence opens with a verb whose 'I' chat
    left out ("Lost my job yesterday"), or names a dream as theirs ("It's been a dream to adopt")."""
    return bool(_DREAM.search(text.replace("’", "'"))) or any(
        _DROPPED.match(_OPENER_EN.sub("", p).strip()) for p in re.split(r"(?<=[.!?])\s+", text.strip())
    )


def _object_of(third: str) -> str:
    """The statement without its subject: what the planner compares."""
    return re.sub(r"^User(?:'s| and others)?\s+", "", third).strip()


# -- Chinese -------------------------------------------------------------------------------------------------
_OPENER_ZH = re.compile(
    r"^(?:嗯+|哦+|噢|啊|哈哈+|对|是啊|是的|好的|好吧|其实|说实话|另外|还有|而且|然后|对了|话说|不过)[，,！!。\s]*"
)
_REACTION_ZH = re.compile(
    r"^我(?:也是|也这么|同意|知道|明白|理解|觉得你|觉得这|希望你|相信你|猜|想问|想知道|想了解|想请教|有个问题|谢谢|看看再说)"
    r"|^我(?:今天|现在)?(?:好|很|有点|太)?(?:累|困|饿|无聊)"
    r"|^我(?:先|马上|这就|要)?(?:去)?(?:睡觉|睡了|吃饭|回来|走了|下了|撤了|下线)"
)


def _zh(sentence: str, at: datetime) -> Candidate | None:
    s = _OPENER_ZH.sub("", sentence.strip()).strip("，,。！!~～ ")
    if not s or re.search(r"[你您]", s) or "我" not in s or _REACTION_ZH.match(s):
        return None
    if len(CJK.findall(s.replace("我", ""))) < 4 or len(s) > 80:
        return None
    content = s.replace("我们家", "用户家").replace("我们", "用户一家").replace("我", "用户")
    if not content.startswith("用户"):
        lead = re.match(r"^(?P<lead>[^，,]{1,8})[，,]\s*(?=用户)", content)
        content = content[lead.end() :] if lead else content
        if not content.startswith("用户"):
            return None
    when = None if HABIT.search(s) else resolve(s, at, prefer=_tense(s))
    if when:
        content += f"（{when.phrase}，{when.stamp}）"
    c = make(
        "fact",
        re.sub(r"^用户(?:的|一家)?", "", s.replace("我", "用户")),
        content + "。",
        lang="zh",
        evidence=sentence,
        event_time=when.when if when else None,
    )
    c.extractor = "rules:general"
    return c


_TAG_QUESTION = re.compile(
    r"^(?P<stmt>.*\b(?:I|I'm|I've|my|we)\b.{8,}?)(?:\s+[-–—]+\s+|,\s*)(?:(?:pretty|so|really|super) \w+,?\s*)?"
    r"(?:huh|right|eh|isn't it|don't you think|you know|want to see(?: it| a pic| a photo)?|wanna see(?: it| a pic)?|"
    r"(?:do )?you wanna see(?: it| a pic)?)\s*\?+$",
    re.IGNORECASE,
)


def without_tag_question(sentence: str) -> str:
    """ "I started my own store not so long ago - pretty cool, huh?" is a statement with a tag, not a question; "Hey
    Maria, I'm so excited to tell you I started a yoga class!" is the news after the telling ("I started a yoga
    class!"), which read whole was words to the listener and gave nothing."""
    m = _TAG_QUESTION.match(sentence.replace("’", "'").strip())
    sentence = m.group("stmt") + "." if m else sentence
    told = _TELLING.match(sentence)
    return sentence[told.end() :] if told and len(sentence) - told.end() > 12 else sentence


#: "(Hey Maria,) I'm so excited to tell you (that)", "I just wanted to let you know": a telling before the news
_TELLING = re.compile(
    r"^(?:(?:hey|hi|hello|so|guess what|oh)\b[^,.!?]{0,20}[,!]\s*)?"  # "Hey Maria, "
    r"(?:(?:I'm|I am|I was) (?:so |really |super |just )*(?:excited|happy|thrilled|glad|stoked|pumped|proud) to "
    r"(?:tell|share with|let)|I (?:just |really )?wanted to (?:tell|let)) you(?: know)?(?: that)?\s+"
    r"(?=I\b|I'|my\b|we\b|our\b)",  # the news, in the speaker's own words
    re.I,
)


#: the verbs a sentence going on about the fact before it says it with: "It's special to me", "It gave me the upper hand
#: over my opponents", "It taught me to prepare"
_GOES_ON_VERB = re.compile(
    r"\b(?:is|was|has|had|makes|made|helps|helped|keeps|kept|means|meant|brings|brought|been|gives|gave|teaches|taught|"
    r"shows|showed|reminds|reminded|inspires|inspired|takes|took)\b|'s\b"
)


def continuation(sentence: str, lang: str) -> str | None:
    """A sentence that goes on about the fact before it ("It's special to me", "They keep me motivated"), in the
    user's words, to be appended to that fact; None when it is not one."""
    if lang == "zh":  # "它让我很放松" after "我最近迷上了攀岩"
        z = _OPENER_ZH.sub("", sentence.strip()).strip("，,。！!~～ ")
        if not re.match(r"^(?:它|这|那|他们|她们)", z) or re.search(r"[你您？?]", z) or _REACTION_ZH.match(z):
            return None
        return z.replace("我", "用户") if 4 <= len(CJK.findall(z)) <= 30 else None
    s = _OPENER_EN.sub("", sentence.replace("’", "'").strip()).strip(" -–—,").rstrip(".!~ ")
    if not _PRONOUN_SUBJECT.match(s) or _YOU.search(s) or len(s.split()) > 20 or _NOT_A_FACT.search(s):
        return None
    if _DANGLING_EN.search(s) or not _GOES_ON_VERB.search(s):
        return None
    if re.match(
        r"^(?:here|there|what|which|everything|something|nothing|anything|everyone|someone)|"
        r"^(?:that|this|it)(?:'s| is) (?:the|a|an|my|our)\b",
        s,
        re.I,
    ):
        return None
    if _content_count(s) < 2:
        return None
    out = later_person(s)
    return out[:1].lower() + out[1:]


def self_disclosure(sentence: str, lang: str, at: datetime) -> Candidate | None:
    """The sentence as a fact about the speaker, in their own words, or None (not a self-disclosure)."""
    return _zh(sentence, at) if lang == "zh" else _en(sentence, at)
