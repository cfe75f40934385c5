"""Offline rule-based extraction for English user statements.

Each rule is a regex over one sentence with an ``obj`` group and a template for the canonical content. Rules are
deliberately conservative (precision over recall): an object must look like what the predicate expects (a capitalised
place for ``lives_in``, a known job noun for "I'm a …", a non-pronoun for likes), and questions are skipped upstream.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from memory.text.numerals import amount_key

_END = (
    r"(?=\s*(?:[,.;!?)]|$|\s[-–—]+\s|"
    r"\s(?:and|but|because|since|so|when|while|though|although|which|who|if|as well)\b))"
)
_OBJ = r"(?P<obj>[^,.;!?]{2,60}?)" + _END
_CAP = r"(?P<obj>[A-Z][\w'’-]*(?:\s+(?:[A-Z][\w'’-]*|de|da|of))*(?:\s+[A-Z][\w'’-]*)?)"
_NAME = r"(?P<obj>[A-Za-z][\w'’-]*(?:\s+(?-i:(?!I\b)[A-Z])[\w'’-]*){0,2})"  # later words capitalised, case-sensitive
_I_AM = r"\b(?:i'm|i am|im|i’m)"
#: "I do see them", "I do remember …": an emphatic "do" before a verb, not an activity ("User does see them")
EMPHATIC_VERBS = (
    r"(?:see|remember|love|like|think|know|want|hope|believe|miss|feel|wish|agree|understand|need|have|get|"
    r"enjoy|appreciate|recall|mean|care|try|make|go|say|find|plan|worry|wonder|admire|respect|trust|use|talk|"
    r"notice|prefer|give|take|keep|recommend|associate|hate|struggle|read|watch|listen|eat|drink|play)"
)
_EMPHATIC = r"(?!" + EMPHATIC_VERBS + r"\b)"
#: what "I do …" does as an activity: an article or an activity noun ("yoga", "woodworking", "gymnastics"). Any other
#: word after "do" is the verb an emphatic "do" stresses ("I do use a case", "I do talk about it"), and no list of
#: verbs is ever whole, so the activity is what is named
_DO_OBJECT = (
    r"(?=(?:a|an|lots of|a lot of|most of|much of|all of)\s+\w|"
    r"(?:yoga|pilates|karate|judo|crossfit|ballet|taekwondo|tai chi|kung fu|zumba|aerobics|cardio|research|art|"
    r"crafts?|sports?|exercises?|homework|chores|laundry|volunteer work|freelance work|charity work|"
    r"(?!(?:bring|sing|ring|swing|cling|fling|sting|spring|string|wring|(?:some|any|every|no)thing)\b)"
    r"[a-z]+(?:ing|ics|ography|ery|work))\b)"
)
_MONEY = (
    r"(?P<obj>(?:[$¥€£]|rmb\s?|usd\s?)?\s?\d[\d,.]*\s?(?:k\b|K\b)?\s?"
    r"(?:yuan|rmb|dollars|bucks|usd|euros?|pounds|元|块)?)"
)

OCCUPATIONS = (
    "software engineer|software developer|engineer|developer|programmer|data scientist|data analyst|designer|"
    "product manager|project manager|manager|teacher|professor|lecturer|student|phd student|graduate student|doctor|"
    "nurse|dentist|pharmacist|lawyer|accountant|consultant|architect|chef|cook|writer|journalist|editor|artist|"
    "photographer|musician|researcher|scientist|analyst|marketer|salesperson|sales manager|entrepreneur|founder|"
    "freelancer|pilot|driver|farmer|police officer|firefighter|translator|therapist|psychologist|veterinarian|"
    "banker|cashier|mechanic|electrician|plumber|retiree|intern|ceo|cto|barista|waiter|waitress|librarian"
)
DIETS = "vegetarian|vegan|pescatarian|lactose intolerant|gluten[- ]free|halal|kosher|diabetic|on a diet|keto"
_STOP_OBJECTS = {
    "it",
    "that",
    "this",
    "you",
    "them",
    "him",
    "her",
    "those",
    "these",
    "your answer",
    "your answers",
    "your idea",
    "the idea",
    "the answer",
    "that idea",
    "it a lot",
    "it very much",
    "the way",
    "to",
    "so",
    "too",
    "what you",
    "me",
    "us",
    "myself",
    "a few",
    "something",
    "one",
    "some",
}
_STYLE_WORDS = {
    "concise": r"short|brief|concise|to the point|succinct|bullet points?|just the conclusion|less verbose",
    "detailed": r"detailed|in-depth|thorough|long(?:er)? (?:answers|explanations|replies)|step[- ]by[- ]step",
    "no emoji": r"no emojis?|without emojis?|don'?t use emojis?",
    "formal": r"formal",
    "casual": r"casual|informal",
}
ATTRIBUTES = "birthday|blood type|shoe size|star sign|zodiac sign|height|lucky number|middle name|nickname"
#: capitalised words that follow "I'm" without being a name ("I'm Sorry", "I'm English", "I'm Back")
_NOT_NAMES = (
    "Sorry|Fine|Good|Great|Okay|Ok|OK|Back|Done|Ready|Here|Home|Happy|Sad|Tired|Busy|Sure|Not|So|Just|Also|Still|"
    "Really|Very|The|A|An|In|On|At|From|Going|Glad|Excited|Single|Married|Vegan|Vegetarian|Fine|Well|Alright|"
    "English|Chinese|American|British|French|German|Spanish|Japanese|Korean|Italian|Canadian|Australian|Indian|"
    "Christian|Muslim|Jewish|Catholic|Buddhist|Hindu|Atheist|Gay|Straight|Bi|Trans|Lol|Haha|Yes|No|Nope|Yeah"
)
_LANGS = "English|Chinese|Mandarin|Japanese|French|German|Spanish|Korean|Cantonese|Italian|Portuguese"


@dataclass(frozen=True)
class Rule:
    """One extraction rule. Its regex compiles on first use: the rule tables are imported by every command that
    touches the write package, and compiling them all (~0.3 s CPU) is only worth it when something is extracted."""

    predicate: str
    source: str  # the regex
    template: str  # content; {obj}
    negated: bool = False
    obj: Callable[[str], str] | None = None  # object post-processing
    flags: int = re.IGNORECASE

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        return re.compile(self.source, self.flags)


def _r(
    predicate: str,
    pattern: str,
    template: str,
    *,
    negated: bool = False,
    flags: int = re.IGNORECASE,
    obj: Callable[[str], str] | None = None,
) -> Rule:
    return Rule(predicate, pattern, template, negated, obj, flags)


def _title(s: str) -> str:
    return " ".join(w[:1].upper() + w[1:] for w in s.split())


def _no_article(s: str) -> str:
    return re.sub(r"^(?:a|an|the)\s+", "", s.strip(), flags=re.IGNORECASE)


#: the animals a person keeps: "I have a guinea pig named Oscar", "my dog, Max, …" (memory.write.extract.clauses)
PETS_EN = (
    "dog|cat|puppy|kitten|parrot|rabbit|bunny|hamster|guinea pig|gerbil|ferret|chinchilla|hedgehog|turtle|tortoise|"
    "snake|lizard|gecko|iguana|bird|budgie|cockatiel|canary|goldfish|horse|pony"
)

RULES: list[Rule] = [
    # attributes ("my favourite X is Y" is a fact about X, not a taste to add to the interests)
    _r("attribute", r"\bmy (?P<cat>favou?rite [a-z]+(?: [a-z]+)?) is " + _OBJ, "User's {cat} is {obj}."),
    _r(
        "attribute",
        r"\bmy (?P<cat>" + ATTRIBUTES + r") is (?:on |the )?" + _OBJ,
        "User's {cat} is {obj}.",
    ),
    # names
    _r("name", r"\bmy (?:full )?name is " + _NAME, "User's name is {obj}.", obj=_title),
    _r(
        "preferred_name",
        r"\b(?:please |you can |just |you may )*call me (?!back\b|later\b|when\b|if\b|tomorrow\b|"
        r"anytime\b|at\b|on\b|after\b|before\b|around\b|tonight\b|today\b|in\b|by\b|between\b|from\b|"
        r"once\b|again\b|now\b|soon\b|next\b|this\b|every\b|sometime\b|any\b)" + _NAME,
        "User wants to be called {obj}.",
        obj=_title,
    ),
    _r("preferred_name", r"\bi go by " + _NAME, "User wants to be called {obj}.", obj=_title),
    _r(
        "name",
        r"(?:^|(?<=[,.!] ))(?i:(?:hi|hello|hey)[,!]? )?(?i:i'm|i am|i’m|im) (?P<obj>(?!(?:"
        + _NOT_NAMES
        + r")\b)[A-Z][a-z]+(?: [A-Z][a-z]+)?)(?=\s*(?:[,.!;]|$| and\b| here\b| from\b| by the way\b))",
        "User's name is {obj}.",
        flags=0,
    ),
    _r(
        "attribute",
        _I_AM + r" (?P<obj>\d{1,3}) (?P<cat>(?:years?|yrs?)) old\b",
        "User is {obj} years old.",
    ),
    # places (moves supersede; negation drops the old one)
    _r(
        "lives_in",
        r"(?i:\b(?:i|we) (?:have |'ve |’ve )?(?:just |recently |finally )?(?:moved|relocated) "
        r"(?:back )?to )" + _CAP,
        "User moved to {obj} and lives there now.",
        flags=0,
    ),
    _r(
        "lives_in",
        r"(?i:\b(?:i|we) (?:currently |now |still )?(?:live|reside) in )" + _CAP,
        "User lives in {obj}.",
        flags=0,
    ),
    _r(
        "lives_in",
        r"(?i:" + _I_AM + r" (?:currently |now )?(?:living|based|staying) in )" + _CAP,
        "User lives in {obj}.",
        flags=0,
    ),
    _r(
        "lives_in",
        r"(?i:\bi (?:no longer|don'?t|do not) live in )" + _CAP,
        "User no longer lives in {obj}.",
        negated=True,
        flags=0,
    ),
    _r(
        "hometown",
        r"(?i:" + _I_AM + r" (?:originally )?from |\bi grew up in |\bmy hometown is )" + _CAP,
        "User is originally from {obj}.",
        flags=0,
    ),
    # work
    _r("occupation", r"\bi work as (?:a |an )?" + _OBJ, "User works as {art} {obj}.", obj=_no_article),
    _r(
        "occupation",
        r"\bmy (?:job|profession|occupation) is (?:a |an )?" + _OBJ,
        "User works as {art} {obj}.",
        obj=_no_article,
    ),
    _r(
        "occupation",
        _I_AM + r" (?:a |an )(?P<obj>(?:(?:senior|junior|lead|freelance|high school|primary school|"
        r"university|college|full[- ]time|part[- ]time|retired|software|nurse) )?(?:" + OCCUPATIONS + r"))\b",
        "User works as {art} {obj}.",
    ),
    _r(
        "occupation",
        r"(?:"
        + _I_AM
        + r" no longer|"
        + _I_AM
        + r" not) (?:a |an )(?P<obj>(?:\w+ )?(?:"
        + OCCUPATIONS
        + r"))(?: anymore)?\b",
        "User no longer works as {art} {obj}.",
        negated=True,
    ),
    _r("works_at", r"(?i:\bi work (?:at|for) )" + _CAP, "User works at {obj}.", flags=0),
    # budget
    _r(
        "budget",
        r"\bmy budget (?:for [^,.;!?]{1,30}? )?(?:is|of|'s|’s|is about|is around|is roughly|is up to|is under)?"
        r"\s*(?:about |around |"
        r"roughly |under |up to |only )?" + _MONEY,
        "User's budget is {obj}.",
        obj=amount_key,
    ),
    _r(
        "budget",
        r"\b(?:a |my )?budget of (?:about |around |up to )?" + _MONEY,
        "User's budget is {obj}.",
        obj=amount_key,
    ),  # noqa: E501 (pattern table)
    _r(
        "budget",
        r"\bi can (?:only )?(?:spend|afford) (?:up to |about |at most )?" + _MONEY,
        "User's budget is {obj}.",
        obj=amount_key,
    ),  # noqa: E501 (pattern table)
    # language
    _r(
        "language",
        r"\b(?:please )?(?:reply|respond|answer|talk|speak|write|chat)(?: to me)? in (?P<obj>" + _LANGS + r")\b",
        "User prefers replies in {obj}.",
        obj=_title,
    ),
    _r("language", r"\bi prefer (?P<obj>" + _LANGS + r")\b", "User prefers replies in {obj}.", obj=_title),
    # diet
    _r("diet", _I_AM + r" (?:a |strictly |now )?(?P<obj>" + DIETS + r")\b", "User is {obj}."),
    _r(
        "diet",
        r"(?:" + _I_AM + r" no longer|" + _I_AM + r" not) (?:a )?(?P<obj>" + DIETS + r")(?: anymore)?\b",
        "User is no longer {obj}.",
        negated=True,
    ),
    _r(
        "diet",
        r"\bi (?:don'?t|do not|can'?t|cannot|never|no longer|won'?t) (?P<verb>eat|drink|touch) " + _OBJ,
        "User doesn't {verb} {obj}.",
        obj=lambda o: re.sub(r"\s+(?:anymore|any more|at all)$", "", o),
    ),
    _r("diet", _I_AM + r" (?:severely |very |highly )?allergic to " + _OBJ, "User is allergic to {obj}."),
    _r("diet", r"\bi (?:have|'ve got) an? (?P<obj>\w+) allergy\b", "User is allergic to {obj}."),
    # likes / dislikes (negated likes drop the old one)
    _r(
        "likes",
        r"\bi (?:don'?t|do not) (?:like|love|enjoy) (?P<obj>[^,.;!?]{2,60}?)\s+(?:anymore|any more)\b",
        "User no longer likes {obj}.",
        negated=True,
    ),
    _r("likes", r"\bi no longer (?:like|love|enjoy) " + _OBJ, "User no longer likes {obj}.", negated=True),
    _r(
        "dislikes",
        r"\bi (?:really |just |also )?(?:don'?t|do not) (?:like|enjoy|care for) (?!.*\b(?:anymore|"
        r"any more)\b)" + _OBJ,
        "User dislikes {obj}.",
    ),
    _r(
        "dislikes",
        r"\bi (?:really |also |absolutely )?(?:hate|dislike|detest|can'?t stand) " + _OBJ,
        "User dislikes {obj}.",
    ),  # noqa: E501 (pattern table)
    _r("dislikes", _I_AM + r" not (?:a |really a )?(?:big |huge )?fan of " + _OBJ, "User dislikes {obj}."),
    _r(
        "likes",
        r"\bi (?:might |may |probably |kind of |sort of )?(?:really |absolutely |also |just |totally )?"
        r"(?:like|love|enjoy|adore) (?!(?:is|was|are|were|has|had|so|too|makes|made|helps|keeps|gives|brings|gets|"
        r"means|feels|reminds|they|he|she|we|you|I|it's|they're|we're)\b)" + _OBJ,
        "User likes {obj}.",  # never "something I love is awesome" → "User likes is awesome", nor "the things I love
        # makes writing fun" → "User likes makes writing fun", nor "I love they got …" → "User likes they got …"
    ),
    _r("likes", _I_AM + r" (?:a |such a )?(?:big |huge )?fan of " + _OBJ, "User likes {obj}."),
    _r("likes", _I_AM + r" (?:really |very )?(?:into|passionate about|obsessed with) " + _OBJ, "User likes {obj}."),
    _r("likes", r"\bi (?:also )?collect " + _OBJ, "User collects {obj}."),
    _r(
        "likes",
        r"\bi (?:also |regularly |often |usually )?(?P<verb>play|practi[cs]e) "
        r"(?!it\b|that\b|this\b|so\b|not\b|my\b|them\b|what\b|some\b|a lot\b|well\b|too\b|the same\b|to\b)"
        + _EMPHATIC
        + _OBJ,
        "User {verb} {obj}.",  # "User plays the violin on weekends", never "User regularly does the violin"
    ),
    _r(
        "likes",
        r"\bi (?:also |regularly |often |usually )?(?P<verb>do) " + _DO_OBJECT + _OBJ,
        "User {verb} {obj}.",  # "User does yoga", never "User does use a case" (an emphatic "do" before a verb)
    ),
    _r(
        "prefers", r"\bi (?:usually |always |generally )?prefer (?!(?:" + _LANGS + r")\b)" + _OBJ, "User prefers {obj}."
    ),  # noqa: E501 (pattern table)
    # family, pets
    _r(
        "pet",
        r"(?i:\bi (?:also )?have )(?:a|an|one|two|three) (?P<obj>(?:\w+ )?(?:" + PETS_EN + r"|fish)"
        r"(?:s)?(?: (?:named|called) [A-Z]\w+(?: and [A-Z]\w+)?)?)",
        "User has a pet: {obj}.",
        flags=0,
    ),
    _r(  # "Oscar, my guinea pig." (an answer to "do you have any pets?"): the name before the kind
        "pet",
        r"(?:^|(?<=[-–—:,] )|(?<=[-–—:]))(?P<obj>[A-Z][a-z]+), (?i:my) (?P<cat>(?i:" + PETS_EN + r"))"
        r"(?=\s*[.!]|\s*$)",
        "User has a pet: {cat} named {obj}.",
        flags=0,
    ),
    _r(
        "family",
        r"\bi have (?P<obj>(?:a|an|one|two|three|four) (?:kids?|children|sons?|daughters?|"
        r"brothers?|sisters?|siblings?))\b",
        "User has {obj}.",
    ),
    _r("family", _I_AM + r" (?P<obj>married|engaged|divorced|single|pregnant)\b", "User is {obj}."),
]

# plans: need a plan verb, and either a date phrase or a strong plan verb
_PLAN_STRONG = re.compile(
    r"\bi(?:'m| am|’m)? (?:probably |definitely |also |still |actually )?(?:thinking about |thinking of |"
    r"considering )?(?:planning|plan|intend|intending|going|about|scheduled|booked|flying|travelling|traveling|"
    r"heading|moving|leaving|starting)\s+(?:to\s+|on\s+|for\s+)?" + _OBJ,
    re.IGNORECASE,
)
_PLAN_DATED = re.compile(
    r"\bi(?: will|'ll|’ll| want to| hope to| need to| have to| might| may| could) " + _OBJ, re.IGNORECASE
)
_PLAN_HAVE = re.compile(
    r"\bi have (?:a|an|my) (?P<obj>[\w\s'’-]{0,40}?(?:appointment|meeting|interview|exam|flight|trip|party|wedding|"
    r"deadline|surgery|class|test|presentation|conference|vacation|holiday|check-?up|concert|date)"
    # … and where, when a name says it: "a vacation in Florida", "a flight to Paris"
    r"(?:\s+(?:in|to|at)\s+(?-i:[A-Z][\w'’-]+)(?:\s+(?-i:[A-Z][\w'’-]+))*)?)\b",
    re.IGNORECASE,
)
_PLAN_CANCEL = re.compile(
    r"\b(?:i(?:'m| am|’m) not (?:going|travelling|traveling|flying|moving) (?:to )?|i (?:cancel(?:l)?ed|called off) "
    r"(?:my |the )?(?:trip to |plan to |plans to )?)" + _OBJ,
    re.IGNORECASE,
)
#: what "going to …" / "will …" says that is no plan: small talk, and a state foreseen ("I'm going to need new
#: shoes", "I'll miss this place", "I'm going to have to …" gave "User plans to need …")
_NOISE_PLAN = re.compile(
    r"^(?:sleep|bed|go|think|check|try|see|let you know|ask|be right back|do that|do it|"
    r"have to|need|want|miss|feel|know|love|like|hate|wish|wonder|regret|a bit|the bathroom|help|continue)\b",
    re.IGNORECASE,
)


def style_of(sentence: str) -> str | None:
    """A communication-style preference stated as a request about answers ("keep it short", "no emojis")."""
    if not re.search(
        r"\b(?:answers?|repl(?:y|ies)|responses?|explanations?|it|keep|be|please|i prefer|i like|"
        r"i want|use|give me|write)\b",
        sentence,
        re.IGNORECASE,
    ):
        return None
    if not re.search(
        r"^(?:please\b|keep\b|be\b|just\b|give\b|use\b|no\b|don'?t\b|write\b)|\b(?:i prefer|i like|"
        r"i want|i'd like|i’d like|i need|i'd rather|i’d rather)\b",
        sentence.strip(),
        re.IGNORECASE,
    ):
        return None
    for style, words in _STYLE_WORDS.items():
        if re.search(r"\b(?:" + words + r")\b", sentence, re.IGNORECASE):
            return style
    return None


_NOT_OBJECT_START = (
    r"^(?:it|that|this|you|your|how|what|when|where|why|who|which|it's|it’s)\b"
    # a time, not a thing: "a job I enjoy every day" gave "User likes every day."
    r"|^(?:every|each|all)\s+(?:day|days|morning|night|week|weekend|month|year|minute|second|time)\b"
)


def clean_object(obj: str) -> str | None:
    """Trim filler; refuse pronouns and empty objects (those are small talk, not facts)."""
    o = re.sub(
        r"\s+(?:a lot|so much|very much|too|as well|anymore|any more|these days|nowadays)$",
        "",
        obj.strip(),
        flags=re.IGNORECASE,
    )
    o = o.strip(" '\"“”.,")
    if len(o) < 2 or o.lower() in _STOP_OBJECTS or re.match(_NOT_OBJECT_START, o, re.IGNORECASE) or cut_short(o):
        return None
    return o


#: an object a rule's boundary cut in two: it opens with a conjunction ("I practice and train" → obj "and train") or a
#: dash that opens another clause ("passionate about - I'm loving it"), or ends on a word that needs what was cut
#: ("I like to keep track of when …" → "to keep track of")
_CUT_SHORT = re.compile(
    r"^(?:and|or|but|&)\b|^[-–—:;]|(?:^|\s)(?:the|a|an|my|our|their|your|and|or)$"  # a word, not "Xi'an"
    r"|(?<!\bto)\s+\w+\s+(?:of|to|with|about|from|into|by|for|at)$",  # "a buddy to volunteer with" is whole
    re.IGNORECASE,
)


def cut_short(obj: str) -> bool:
    """Whether a rule's object is a piece of a phrase, not a whole one (see ``_CUT_SHORT``)."""
    return bool(_CUT_SHORT.search(obj.strip()))
