"""The message being answered: a user's sentence read with the other speaker's message before it.

"Since I was twelve" states nothing on its own; after "How long have you been drawing?" it says that the user has
been drawing since they were twelve. :func:`in_context` gives back each sentence of the user's message as it should
be *read* (the answer completed from the question, a pronoun given its referent) beside the sentence as it was
*said*; the extractor reads the first and quotes the second as provenance, so nothing is put in the user's mouth
that they did not answer to. Three cases, English and Chinese, and nothing else:

- a short answer to a question about the user ("How long have you been drawing?" → "Since I was twelve": "I have been
  drawing since I was twelve"; "你画画多久了？" → "三年了": "我画画三年了");
- a bare yes or no to a yes/no question ("Do you like painting animals?" → "Yeah, I love to": "I like painting
  animals"; "Nah, I haven't": "I haven't tried pottery"; "你喜欢画动物吗？" → "喜欢！": "我喜欢画动物");
- "it" as the object of the user's first statements when the message before names the thing ("How's the book
  going?" → "I finished it last night": "I finished the book last night").

Questions the rules cannot turn round (several questions at once, "you" not the subject, a pronoun as the thing
asked about) are left alone: the sentence is read as it was said.
"""

from __future__ import annotations

import re

from memory.text.language import has_cjk
from memory.text.sentences import clause, sentences
from memory.write.extract.base import TIME_NOUNS, is_question

__all__ = ["advice_asked", "answered_question", "in_context"]

MAX_ANSWER_WORDS = 8
_YES = re.compile(
    r"^(?:yes|yeah|yep|yup|ya|sure|of course|definitely|absolutely|totally|indeed|i do|i did|i have|i am|i'm|"
    r"i love to|i'd love to|i like to|i sure do|i sure am)\b",
    re.IGNORECASE,
)
_NO = re.compile(r"^(?:no|nope|nah|not yet|not really|never|i don't|i didn't|i haven't|i'm not|i am not)\b", re.I)
#: what a bare yes / no may say besides: "Yeah, I love to!", "Nah, I haven't.", "Yes, I do, Mel!"
_BARE = re.compile(
    r"^(?:(?:oh|well|haha|lol|hmm|um|thanks|thank you)[\s,!.]+)*(?:yes|yeah|yep|yup|ya|sure|of course|definitely|"
    r"absolutely|totally|indeed|no|nope|nah|not yet|not really|never)?[\s,!.]*"
    r"(?:I (?:(?:really|sure|totally|definitely|actually|still)\s+)?(?:do|did|have|am|was|can|will|love to|like to|"
    r"'d love to|would love to|don't|didn't|haven't|'m not|am not|wasn't|can't|won't|never have|never did)"
    r"(?:\s+(?:too|already|yet|before|a lot|so much))?)?[\s,!.]*(?:[A-Z][a-z]+)?[\s!.]*$",
    re.IGNORECASE,
)
#: what a question may open on before it asks: "So, where …?", "Oh and do you …?"
_ASKS = r"^(?:(?:so|and|but|oh|hey|wow)[\s,]+)?"
#: "Do you like …?", "Have you tried …?", "Are you still …?", "Did you make …?": 'you' is the subject
_YES_NO_EN = re.compile(
    _ASKS + r"(?P<aux>do|did|have|are|were)\s+you\s+(?P<rest>[^?]{3,80})\?*$",
    re.IGNORECASE,
)
_WH_EN = re.compile(
    _ASKS + r"(?P<wh>how long|how many (?P<what>\w+(?: \w+)?)|where|when|"
    r"what (?:kind|type|sort) of (?P<kind>\w+(?: \w+)?)|what)\s+(?P<aux>do|did|have|are|were)\s+you\s+"
    r"(?P<rest>[^?]{2,80})\?*$",
    re.IGNORECASE,
)
#: the answer may only be a fragment: it starts as an answer does, it is short, and it is not a sentence of its own
_FRAGMENT_EN = re.compile(
    r"^(?:since|for|about|around|almost|nearly|over|mostly|mainly|just|only|in|at|on|to|from|with|by|"
    r"a|an|the|my|our|some|a few|a couple|last|this|next|every|each|\d+|one|two|three|four|five|six|seven|eight|"
    r"nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|a hundred)\b",
    re.IGNORECASE,
)
_FINITE = re.compile(r"\b(?:is|are|was|were|am|'re|'m|do|does|did|have|has|had)\b|^(?:I|we|it|they|he|she)\b", re.I)
_PAST = {
    "make": "made",
    "go": "went",
    "get": "got",
    "see": "saw",
    "take": "took",
    "buy": "bought",
    "find": "found",
    "read": "read",
    "write": "wrote",
    "eat": "ate",
    "meet": "met",
    "have": "had",
    "do": "did",
    "give": "gave",
    "come": "came",
    "begin": "began",
    "run": "ran",
    "win": "won",
    "build": "built",
    "draw": "drew",
    "sing": "sang",
    "teach": "taught",
    "think": "thought",
    "learn": "learned",
    "hear": "heard",
    "leave": "left",
    "lose": "lost",
    "pick": "picked",
    "put": "put",
    "ride": "rode",
    "sell": "sold",
    "send": "sent",
    "spend": "spent",
    "swim": "swam",
    "tell": "told",
    "wear": "wore",
    "grow": "grew",
    "catch": "caught",
    "bring": "brought",
    "feel": "felt",
    "fly": "flew",
    "keep": "kept",
    "know": "knew",
    "make up": "made up",
}
_BE_FIRST = {"are": "am", "were": "was"}
_NEG = {"do": "don't", "did": "didn't", "have": "haven't", "are": "am not", "were": "wasn't", "can": "can't"}
_NEG["will"] = "won't"
_TIME_NAMED = re.compile(r"\b(?:these days|this (?:week|weekend|month|year|summer|morning|evening|time))\b", re.I)
_PRONOUN_THING = re.compile(r"\b(?:it|this|that|them|these|those|one|there)\b", re.IGNORECASE)
#: the asker in their own question ("… for someone like me", "… you can show me"): not turned into the user's words
_ASKER = re.compile(r"\b(?:I|me|my|mine|myself|you|yourself)\b", re.IGNORECASE)
#: what only a question says: "ever", "any"
_ASKING = re.compile(r"\b(?:ever|any)\s+", re.IGNORECASE)
#: a question about a topic it names in words "the X" cannot catch: "What are your thoughts on life after basketball?"
_ASKS_ABOUT = re.compile(r"\b(?:on|about|regarding)\s+(?!(?:it|that|this|them|those|these)\b)[a-z]", re.IGNORECASE)
_ANY_THING = re.compile(r"\bany(thing|one|body|where)\b")
#: "anymore" and "anytime soon", said only in a question: "submitting anymore scripts anytime soon?"
_ANY_MORE = re.compile(r"\bany\s?more\b|\bany\s?time (soon)\b", re.IGNORECASE)
#: a thing named in the message before: "the book", "that plate", "your new bike"
_THING = re.compile(
    r"\b(?P<det>the|that|this|your)\s+(?P<np>(?:[a-z]+\s+){0,2}?[a-z]{3,})(?=\s*[?!.,]|\s*$|\s+(?:is|are|was|were|"
    r"looks?|looked|seems?|sounds?|going|coming|turned out|you|of yours)\b)",
    re.IGNORECASE,
)
_NOT_A_THING = frozenset(
    [
        "one",
        "ones",
        "way",
        "time",
        "day",
        "week",
        "weekend",
        "month",
        "year",
        "thing",
        "things",
        "stuff",
        "same",
        "idea",
        "kind",
        "sort",
        "lot",
        "end",
        "moment",
        "pic",
        "photo",
        "picture",
        "pics",
        "photos",
        "other",
        "first",
        "last",
        "best",
        "most",
        "only",
        "life",  # "Anything new happening in your life?": where things happen, not a thing an "it" stands for
        "lives",
    ]
)
#: where a named thing ends: "that plate is …", "the book going", "your time there"
_NP_END = frozenset(
    [
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "looks",
        "look",
        "looked",
        "seems",
        "seem",
        "sounds",
        "sound",
        "feels",
        "feel",
        "felt",
        "has",
        "have",
        "had",
        "going",
        "gone",
        "coming",
        "turned",
        "turns",
        "turn",
        "you",
        "your",
        "i",
        "me",
        "my",
        "we",
        "he",
        "she",
        "him",
        "her",
        "it",
        "they",
        "them",
        "this",
        "that",
        "these",
        "those",
        "of",
        "for",
        "with",
        "at",
        "in",
        "on",
        "to",
        "from",
        "by",
        "and",
        "or",
        "but",
        "so",
        "as",
        "if",
        "when",
        "while",
        "about",
        "there",
        "here",
        "now",
        "then",
        "really",
        "very",
        "so",
        "too",
        "just",
    ]
)
#: "it" as the object of a verb: "I finished it", "Yeah, I made it in class"; not "It was", "I think it's"
_FIRST_STATEMENT = re.compile(r"\b(?:I|I've|I'm|me|my|we|we've|our)\b")
#: the thing a question asks about with no determiner: "Have you ever tried yoga?", "Do you like jazz music?"
_BARE_THING = re.compile(
    r"\b(?:tried|try|like|love|enjoy|play|played|do|done|heard of|thought about|considered|been to|seen)\s+"
    r"(?!(?:it|that|this|them|one|any|anything|something|some|a|an|the|your|my|to|out|before|again)\b)"
    r"(?P<np>[a-z]{3,}(?: [a-z]{3,})?)\s*\?+\s*$",
    re.IGNORECASE,
)
_NAMES_A_THING = re.compile(r"\b(?:a|an|the|my|our|this|that)\s+[a-z]{3,}", re.IGNORECASE)

# -- Chinese ---------------------------------------------------------------------------------------------------
_WH_ZH = re.compile(r"多久|多长时间|哪里|哪儿|什么时候|几(?:年|个|只|岁|次|天)|多少(?:年|个|只|次|天)?|什么")
_YES_NO_ZH = re.compile(r"^你(?P<rest>.{2,30}?)[吗嘛][?？]?$")
_YES_ZH = re.compile(r"^(?:是的?|对|嗯|当然|没错|有|会|喜欢|去过|试过|做过|学过)")
_NO_ZH = re.compile(r"^(?:不|没有?|还没)")


_ENDS_ASKING = re.compile(r"[?？吗呢嘛]")


#: a request for advice: what the answer says without "I" is said to the asker ("Read lots and try out different
#: genres." is advice, not "User read lots")
_ADVICE = re.compile(
    r"\b(?:any|some|your|got|have)\s+(?:\w+\s+)?(?:advice|tips?|suggestions?|pointers|recommendations?)\b|"
    r"\bwhat (?:should|would|do you think) I\b|\bhow (?:do|can|should|would) I\b|"
    r"\bwhat would you (?:do|suggest|recommend)\b",
    re.IGNORECASE,
)


def advice_asked(previous: str | None) -> bool:
    """Whether the message answered asks the speaker for advice: a sentence of the answer with no first person in it
    is then said to the asker ("Read lots and try out different genres."), not a fact with a dropped "I"."""
    return bool(previous and not has_cjk(previous) and _ADVICE.search(previous))


def answered_question(previous: str | None) -> str | None:
    """The question the other speaker's message ends with (its last sentence), or None."""
    if not previous or not _ENDS_ASKING.search(previous[-8:]):
        return None
    said = sentences(previous[-400:])
    if not said or not is_question(said[-1]):
        return None
    return said[-1].strip()


#: a plan in a question turned round: "I am planning on submitting …", "I am going to …", "I will …"
_PLAN = re.compile(r"^I (?:am |was )?(?:planning|plan|going|gonna|thinking|will|'ll)\b", re.IGNORECASE)
_STEM = 5  # letters two forms of one verb share ("submitting", "submitted")


def _done_instead(read: str, after: list[str]) -> bool:
    """Whether a plan turned round from the question (``read``) is told as done by the speaker's own words after the
    yes ("… anymore scripts anytime soon?" — "Yep! I actually just submitted a few more last week!"): the yes
    answers with what was done, and the plan would be false. English only."""
    plan = _PLAN.match(read)
    if plan is None:
        return False
    planned = _stems(read[plan.end() :])
    return any(_FIRST_STATEMENT.search(s) and planned & _stems(s) for s in after)


def _stems(text: str) -> set[str]:
    """The first letters of the longer words of ``text``: what two forms of one verb share."""
    return {w[:_STEM].lower() for w in re.findall(r"[A-Za-z]+", text) if len(w) > _STEM}


def in_context(said: list[str], previous: str | None) -> list[tuple[str, str]]:
    """(sentence as read, sentence as said) for each sentence of a user's message; the message before it resolves
    what it can (see module docstring). Without a previous message every sentence is read as said."""
    out = [(s, s) for s in said]
    if not previous or not said:
        return out
    question = answered_question(previous) if any(len(s) <= _SHORT for s in said[:_LEAD]) else None
    answered: tuple[int, str] | None = None  # the answer completed, and the activity the question asked about
    for i, first in enumerate(said[:_LEAD] if question else []):
        # the answer may come after a thank-you ("Thanks, Caroline! Glad you like it. Yeah, I love to.")
        read = _answer_zh(first, question) if has_cjk(first) else _answer_en(first, question)
        if read and _done_instead(read, said[i + 1 :]):
            break  # "Planning to submit more?" — "Yep! I just submitted a few more …": done, not planned
        if read:
            out[i] = (read, first)
            doing = _DOING.match(clause(question or ""))
            answered = (
                (i, doing.group("doing")) if doing and _thing(doing.group("doing")) == doing.group("doing") else None
            )
            break
        if _FIRST_STATEMENT.search(first) or "我" in first:
            break  # a statement of the user's own: what follows is not the answer
    if not has_cjk(previous):
        _object_asked(out, answered_question(previous))
    if " it" in " ".join(said) and not has_cjk(previous):
        answered = _resolve_it(out, previous) or answered
    if answered is not None:
        _carry_it(out, *answered)
    return out


#: "How long have you been playing the piano (again)?": the activity and its object
_HOW_LONG_DOING = re.compile(
    r"^how long (?:have|had) you been (?P<verb>[a-z]+ing)(?P<object>(?: [a-z']+){1,3}?)"
    r"(?: (?:again|now|already|so far|for))?\s*\?*$",
    re.IGNORECASE,
)
#: "I've been playing for about four months": the same doing said without its object (a time or the end follows)
_BEEN_DOING_BARE = re.compile(
    r"^(?:[a-z]+[,!]?\s+){0,2}?i(?:'ve|’ve| have) been (?P<verb>[a-z]+ing)(?=\s*[,.!]|\s*$|\s+(?:for|since|about|"
    r"almost|nearly|over|around|ever|on and off|off and on|every|each|a lot|lately|recently|now|already)\b)",
    re.IGNORECASE,
)


def _object_asked(out: list[tuple[str, str]], question: str | None) -> None:
    """The object the question gave a doing, which the answer's first statement leaves out: "How long have you been
    playing the piano?" → "I've been playing for about four months now" is read "I've been playing the piano for
    about four months now" (the same verb, said bare; provenance still quotes what was said)."""
    asked = _HOW_LONG_DOING.match(clause(question or ""))
    if asked is None:
        return
    for i, (read, said) in enumerate(out[:_LEAD]):
        bare = _BEEN_DOING_BARE.match(read)
        if read == said and bare and bare.group("verb").lower() == asked.group("verb").lower():
            out[i] = (read[: bare.end()] + _you_to_me(asked.group("object")) + read[bare.end() :], said)
            return
        if _FIRST_STATEMENT.search(read):
            return  # a statement of the user's own that is not the answer


#: "How long have you been creating art?": the activity asked about, which an "it" right after the answer stands for
_DOING = re.compile(r"^how long (?:have|had) you been (?P<doing>[a-z]+ing(?: [a-z]+){0,2})\s*\?*$", re.IGNORECASE)


def _carry_it(out: list[tuple[str, str]], at: int, thing: str) -> None:
    """The object "it" of the sentence right after the answer the question completed stands for the same thing:
    "Did you make it?" → "Yeah, I made it in pottery class. I love it!" ("I love the plate"); "How long have you been
    creating art?" → "Since I was 17. I find it so empowering." ("I find creating art so empowering"). Only the next
    sentence, a statement of the speaker's own that names no thing before its "it"."""
    if at + 1 >= len(out) or any(w.endswith("ed") for w in thing.split()):
        return  # "your charging needs covered" was a phrase cut in the wrong place: not carried further
    read, said = out[at + 1]
    if read != said or is_question(said) or has_cjk(said) or not _FIRST_STATEMENT.search(read):
        return
    it = next((x for x in _OBJECT_IT.finditer(read) if _an_object(x, read)), None)
    if it is None or _NAMES_A_THING.search(read[: it.start()]):
        return
    out[at + 1] = (read[: it.start()] + it.group("before") + " " + thing + read[it.end() :], said)


#: how far into the user's message an answer may come: after a thank-you and a reaction at most
_LEAD = 3
#: an answer the question completes is short: a fragment, a bare yes or no ("Yeah, I love to, Caroline!")
_SHORT = 80


# -- English ---------------------------------------------------------------------------------------------------
def _you_to_me(text: str) -> str:
    text = re.sub(r"\byourself\b", "myself", text, flags=re.IGNORECASE)
    text = re.sub(r"\byours\b", "mine", text, flags=re.IGNORECASE)
    text = re.sub(r"\byour\b", "my", text, flags=re.IGNORECASE)
    return re.sub(r"\byou\b", "me", text, flags=re.IGNORECASE)


def _statement(aux: str, rest: str, negated: bool = False) -> str | None:
    """'do' + 'like painting animals' → 'I like painting animals' (the question's words, the user's voice)."""
    aux = aux.lower()
    rest = rest.strip().rstrip("?").strip()
    if not rest or _PRONOUN_THING.search(_TIME_NAMED.sub("", rest)):
        return None  # "Did you make it?": what 'it' is lives elsewhere (resolved, if at all, in the answer)
    if _ASKER.search(rest):
        return None  # "… someone like me", "… recipes you can show me": the asker's words, not the user's
    rest = _ASKING.sub("", rest).strip()  # "Have you ever been …" → "I have been …", "any big goals" → "big goals"
    rest = _ANY_MORE.sub(lambda m: "soon" if m.group(1) else "more", rest)  # "submitting anymore scripts anytime soon"
    rest = _ANY_THING.sub(lambda m: "some" + m.group(1), rest)  # "try anything new?" → "I tried something new"
    rest = _you_to_me(rest)
    if negated:
        return f"I {_NEG[aux]} {rest}"
    if aux == "do":
        return f"I {rest}"
    if aux == "did":
        verb, _, tail = rest.partition(" ")
        past = _PAST.get(verb.lower()) or (
            verb + "d" if verb.endswith("e") else verb[:-1] + "ied" if re.search(r"[^aeiou]y$", verb) else verb + "ed"
        )
        return f"I {past} {tail}".strip()
    if aux in _BE_FIRST:
        return f"I {_BE_FIRST[aux]} {rest}"
    return f"I {aux} {rest}"


def _answer_en(first: str, question: str | None) -> str | None:
    if question is None or len(first) > _SHORT:
        return None
    q = clause(question)
    if re.search(r"\bor\b", q, re.IGNORECASE):
        return None  # "For walking or running?": the answer picks, the rules cannot say which
    bare = clause(first)
    yn = _YES_NO_EN.match(q)
    if yn:
        if not (_BARE.match(bare) and (_YES.match(bare) or _NO.match(bare))):
            return None
        negated = bool(_NO.match(bare)) or bool(re.search(r"n't\b|\bnot\b|\bnever\b", bare, re.IGNORECASE))
        said = _statement(yn.group("aux"), yn.group("rest"), negated)
        return said + "." if said else None
    does = _WHAT_DOES_EN.match(q)
    if does:
        return _what_does(bare, does)
    wh = _WH_EN.match(q)
    if not wh or len(bare.split()) > MAX_ANSWER_WORDS:
        return None
    since = re.match(r"^since\b", bare, re.IGNORECASE)  # "Since I was twelve" is a fragment though it has a verb
    named = re.match(r"^(?:where|what)", wh.group("wh"), re.I) and _NAME.match(bare)  # "Boston.", "Ed Sheeran!"
    if not since and not named and not (_FRAGMENT_EN.match(bare) and not _FINITE.search(bare)):
        return None
    said = _statement(wh.group("aux"), wh.group("rest"))
    if not said:
        return None
    ans = bare.rstrip(" !.")
    if _FRAGMENT_EN.match(ans) or since:
        ans = ans[:1].lower() + ans[1:]  # "At a bakery" → "… at a bakery"; a name keeps its capital
    kind = wh.group("wh").lower()
    if kind == "how long":
        if _DURATION.match(ans):
            ans = "for " + re.sub(r"^for\s+", "", ans, flags=re.IGNORECASE)
        return f"{said} {ans}."
    if kind.startswith("how many"):
        return f"{said} {ans} {wh.group('what')}." if _COUNT.match(ans) else None
    if kind == "when":
        return f"{said} {ans}."
    if kind == "where" and not re.match(r"^(?:in|at|on|to|from|near|by|with)\b", ans, re.IGNORECASE):
        if not re.search(r"\b(?:from|in|at|to)\s*$", said):
            ans = ("to " if re.search(r"\b(?:go|went|move|moved|travel|traveled|been)\b", said) else "in ") + ans
    elif kind != "where" and re.search(r"\b(?:think|mean|say|do|doing|up to|like about)\b", said):
        return None  # "What do you think?", "What do you do for fun?": the answer is not an object
    # the answer goes where the question's gap is: after the verb ("I went to the beach last weekend")
    head, _, tail = said.partition(" ")  # "I", "am reading these days"
    words = tail.split()
    verb_len = 2 if words and words[0] in ("am", "was", "have", "had", "will", "can") and len(words) > 1 else 1
    if len(words) > verb_len and words[verb_len].lower() not in _PARTICLES:
        return f"{head} {' '.join(words[:verb_len])} {ans} {' '.join(words[verb_len:])}."
    return f"{said} {ans}."


#: a question whose subject is what it asks for: "What else brings you joy?", "Anything else that keeps you
#: inspired?", "What gets you motivated?" (the answer is the subject: "Writing and hanging with friends!")
_WHAT_DOES_EN = re.compile(
    _ASKS + r"(?:what|anything|something)(?: else)?(?: that)?\s+"
    r"(?P<verb>brings|gives|keeps|makes|helps|gets|inspires|motivates|drives|relaxes|calms)\s+you\b(?P<rest>[^?]{0,60})"
    r"\?*$",
    re.IGNORECASE,
)
#: how an answer of a few words opens when it names what was asked: a doing ("Writing …") or a determiner ("My family")
_GERUND_OR_DETERMINED = re.compile(r"^(?:[A-Za-z]{3,}ing\b|(?:my|our|the|a|an|some|all|mostly|just)\s)", re.I)
#: what a fragment answer may end on that is not part of its subject: "…, for sure.", "… mostly!"
_ANSWER_TAIL = re.compile(r"[,\s]+(?:for sure|definitely|mostly|probably|honestly|of course|i guess|haha)\s*$", re.I)


def _what_does(answer: str, asked: re.Match[str]) -> str | None:
    """The answer as the subject of the question turned round ("What else brings you joy?" — "Writing and hanging
    with friends!" → "Writing and hanging with friends bring me joy."), or None when it is a sentence of its own or
    no short answer ("Definitely!")."""
    ans = _ANSWER_TAIL.sub("", answer.strip().rstrip(" !.~")).strip(" ,")
    if not ans or _FINITE.search(ans) or len(ans.split()) > MAX_ANSWER_WORDS or _YES.match(ans) or _NO.match(ans):
        return None
    if re.search(r"\b(?:I|me|you|thanks?|thank|hey|hi)\b", ans, re.I) or re.match(
        r"^(?:that|this|it|so|too|same|nothing|everything|definitely|absolutely|totally)\b", ans, re.I
    ):
        return None  # "Thanks Jon!", "Seeing my students succeed motivates me.": no answer of a few words
    if not (_GERUND_OR_DETERMINED.match(ans) or re.search(r"\s[a-z]{3,}", ans)):
        return None  # "Jon!" alone may be a vocative; "Painting", "My family", "Books and movies" answer
    verb = asked.group("verb").lower()
    if re.search(r",|\band\b", ans):  # several things bring it: "bring", "keep"
        verb = verb[:-2] if verb.endswith("es") and verb[-3] in "sh" else verb[:-1]
    return f"{ans[:1].upper()}{ans[1:]} {verb} me{_you_to_me(asked.group('rest')).rstrip()}."


#: a name answering "where" / "what": not an interjection ("Definitely!" to "What do you love most about …?")
_NAME = re.compile(
    r"^(?!(?:I|Thanks?|Yes|Yeah|Yep|Yup|No|Nope|Wow|Sure|Oh|Definitely|Absolutely|Totally|Exactly|Indeed|Agreed|"
    r"Right|True|Cool|Great|Awesome|Nice|Okay|Ok|Haha|Hey|Hi|Hello|Aww?)\b)[A-Z][\w'-]*(?: [A-Z][\w'-]*){0,3}$"
)
_PARTICLES = frozenset(["up", "out", "from", "in", "at", "to", "on", "off"])
_DURATION = re.compile(
    r"^(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple|about|almost|nearly|over|around)"
    r"\b",
    re.IGNORECASE,
)
_COUNT = re.compile(r"^(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|just one|only one)$", re.IGNORECASE)
_NOT_AFTER = frozenset(
    [
        "worth",  # "it's worth it"
        "is",
        "was",
        "think",
        "thought",
        "guess",
        "hope",
        "because",
        "and",
        "but",
        "so",
        "that",
        "if",
        "when",
        "since",
        "what",
        "how",
        "where",
        "whether",
        "as",
        "than",
    ]
)
#: "make it work", "made it to the finals", "do it": 'it' is no thing there
_IDIOM_AFTER = re.compile(
    r"\s*(?:$|[.!,;:-]|(?:work|happen|a|an|to|through|big|out|there|up|worth|easier|better|harder|right|home|"
    r"official|count|so)\b)",
    re.IGNORECASE,
)
_OBJECT_IT = re.compile(r"\b(?P<before>[a-z]+)\s+it\b(?!'s|\s+(?:is|was|has|will|would))", re.IGNORECASE)


def _resolve_it(out: list[tuple[str, str]], previous: str) -> tuple[int, str] | None:
    """'it' as the object of the user's first statement, when the message before names one thing: that thing (and
    where it was named, for the sentence after it: ``_carry_it``)."""
    for i, (read, said) in enumerate(out):
        if is_question(said) or has_cjk(said) or not _FIRST_STATEMENT.search(read):
            continue  # "Thanks, Mel!", "Wow!": the user's first statement is further on
        it = next((x for x in _OBJECT_IT.finditer(read) if _an_object(x, read)), None)
        if it is None or _NAMES_A_THING.search(read[: it.start()]):
            return None  # only the first statement: later ones may point at what the user named themself
        question = answered_question(previous)
        if question is None:
            return None  # the user answers nothing: 'it' may be anything said before ("… froze it in the fridge.")
        if _ASKS_ABOUT.search(question) and not any(_thing(m.group("np")) for m in _THING.finditer(question)):
            return None  # "… building your brand. What are your thoughts on life after basketball?": not the brand
        recent = " ".join(sentences(previous[-400:])[-2:])  # the question and the sentence before it
        named = [(m.group("det"), _thing(m.group("np"))) for m in _THING.finditer(recent)]
        things = [(det, np) for det, np in named if np]
        bare = _BARE_THING.search(question)
        if things:
            det, np = things[-1]  # the nearest
            thing = f"{'my' if det.lower() == 'your' else 'the'} {np}"
        elif bare and _thing(bare.group("np")) == bare.group("np"):
            thing = bare.group("np")  # "Have you ever tried yoga?" → "… want to try yoga"
        else:
            return None
        out[i] = (read[: it.start()] + it.group("before") + " " + thing + read[it.end() :], said)
        return i, thing
    return None


def _an_object(m: re.Match[str], read: str) -> bool:
    before = m.group("before").lower()
    if before in _NOT_AFTER or before in ("do", "did", "doing", "done"):
        return False
    return not (before in ("make", "made", "making", "makes") and _IDIOM_AFTER.match(read[m.end() :]))


def _thing(np: str) -> str | None:
    """The words of a named thing up to where it ends ("plate is awesome" → "plate"), or None (not a thing)."""
    words: list[str] = []
    for w in np.split():
        if w.lower() in _NP_END or w.lower().endswith("ly"):
            break
        words.append(w)
    last = words[-1].lower() if words else ""
    return " ".join(words) if words and last not in _NOT_A_THING and last not in TIME_NOUNS else None


# -- Chinese ---------------------------------------------------------------------------------------------------
#: a thank-you or an exclamation before the answer, never the answer to "where / what / when"
_THANKS_ZH = re.compile(r"^(?:谢谢|多谢|感谢|哈哈|嘿嘿|哇|嗯|好的|太好了|天哪)[你您啦呀啊哈！!，, ]*$")


def _answer_zh(first: str, question: str | None) -> str | None:
    if question is None or len(first) > _SHORT:
        return None
    q = clause(question)
    ans = clause(first).strip("，,！!~～ ")
    if not ans or len(ans) > 12 or "我" in ans or "你" in ans:
        return None  # a full sentence of its own is read as said
    if "还是" in q:
        return None  # "A 还是 B？": the answer picks
    yn = _YES_NO_ZH.match(q)
    if yn and not _WH_ZH.search(yn.group("rest")):
        rest = yn.group("rest")
        if _NO_ZH.match(ans):
            neg = "没" if re.match(r"^(?:有|去过|试过|做过|学过|见过|\w过)", rest) or "过" in rest[:4] else "不"
            return f"我{neg}{rest}。"
        if _YES_ZH.match(ans) or ans == rest[:2]:
            return f"我{rest}。"
        return None
    m = _WH_ZH.search(q)
    if not m or not q.startswith("你"):
        return None
    answer = re.sub(r"[了啦呀啊哦吧]+$", "", ans)
    if not answer or _THANKS_ZH.match(answer):
        return None  # "你是在哪里画的？" — "谢谢！": a thank-you, not the place
    before, after = q[: m.start()], re.sub(r"[了呢呀啊][?？]?$", "", q[m.end() :])
    if m.group() == "什么" and after[:1] and not re.match(r"[时候]", after[:1]):
        after = re.sub(r"^\w{0,2}?(?=[，,。]|$)", "", after) if len(after) <= 2 else after
    if m.group() in ("哪里", "哪儿") and before.endswith("在") and answer.startswith("在"):
        answer = answer[1:]
    statement = ("我" + before[1:] + answer + after).rstrip("的")
    return statement + ("了" if q.endswith("了") and not statement.endswith("了") else "") + "。"
