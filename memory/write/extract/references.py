"""References a fact cannot carry alone: "it", "this X", "him", "one", "that place" — 它、这个、那里、他/她.

A memory is read months later, away from the conversation: "User wants to try it and see if it helps them sleep"
says nothing unless "it" is named. :func:`unresolved` lists the words in a candidate's *head* (the statement before
any "; …" the extractor appended: the head names what the rest goes on about) that point at something the memory does
not name. The extractor abstains on such a candidate (the episode already holds what was said) unless
:func:`resolve` can name it; ``bench/facts_standalone.py`` uses the same detector to measure the share that gets
through. One detector, one place: the extractor and the measure cannot drift apart.

What is *not* a reference here: the speaker's own they / them / their (the extractor writes them for "I" / "me" /
"my"), a dummy "it" ("it's been a while", "make it to …"), "this week / this year" (a date the extractor resolves),
"that" joining a clause ("User thinks that …", "the book that changed …"), a he / she / him / her after the
person it stands for is named in the same statement ("User's sister moved; she …"), a they / them / their after the
plural it stands for ("veterans and their rights"), and a pronoun of kind after a plural noun ("moments like these"
reads "such moments": the noun says what is meant).
"""

from __future__ import annotations

import re

from memory.text.auxiliaries import BE_HAVE, MODALS
from memory.text.language import has_cjk
from memory.write.extract.base import a_or_an

__all__ = [
    "NAMED_ONLY_BY_KIND",
    "PERSON_PRONOUNS",
    "QUANTITY_END",
    "ZH_PERSON_PRONOUN",
    "head",
    "points_unnamed",
    "resolve",
    "unresolved",
]

# -- English -------------------------------------------------------------------------------------------------------
_TIME = (
    r"(?:week|weekend|month|year|morning|afternoon|evening|summer|winter|spring|fall|autumn|season|semester|term|"
    r"time of year|past (?:week|month|year)|days|point|moment|monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
)
#: "this X" / "these X" pointing at a thing named elsewhere; a date word, "these days", "those who" are not
_DEICTIC = re.compile(
    rf"\b(?P<det>this|these|those|that)\b(?!\s+{_TIME}\b)(?!\s+(?:who|which|whom|in need|around)\b)"
    r"(?!(?<=hose)\s+with\b)",  # "those with higher education": people, not a pointer
    re.I,
)
#: "moments like these", "places like that", "physical reminders like this": after a plural noun and "like", the
#: pointer stands for the instance compared to, which only the conversation names; never after a verb of seeming
#: ("feels like this is …") or a word that is no plural
_KIND_LIKE = re.compile(
    r"\b(?P<noun>(?!(?:feels|looks|sounds|seems|tastes|smells|is|was|has|does|this|its|thus|always|as|us|yes|less|"
    r"across|unless|his|hers|ours|yours|theirs|just)\b)[A-Za-z-]{2,}s)\s+like\s+$"
)
#: what makes the word before "like" a verb, not a plural noun: "User dresses like that", "it works like this"
_VERB_AFTER = re.compile(
    r"\b(?:User|they|it|he|she|who|that|which|also|really|just|always|still|often|usually|never|sometimes|even|"
    r"only|\w+ly)\s+$",
    re.I,
)
#: after "that", what makes it a conjunction or a relative pronoun, not a pointer
_THAT_JOINS = re.compile(
    r"\s+(?:User|user|they|it|he|she|we|you|there|the|a|an|his|her|their|its|our|this|these|those|some|one|all|"
    r"every|no|many|much|more|most|is|was|are|were|has|had|have|can|could|will|would|should|might|may|must|"
    r"do|does|did|not|never|always|really|just|also|\w+ed|\w+s)\b",
)
#: a word that ends a clause: "that" before it is a pronoun ("User loves that.")
_END = re.compile(r"^\s*(?:[,.;:!?)]|$|and\b|but\b|so\b|because\b|too\b|again\b|now\b|with\b)")
_PRONOUN = re.compile(r"\b(?P<p>it|its|itself|him|himself|he|his|she|her|herself|one|ones)\b", re.I)
#: "it" that points at nothing: weather, time, idioms
_DUMMY_IT = re.compile(
    r"\bma(?:ke|de) it (?:to(?= (?:the|a|an|their|User's|(?-i:[A-Z0-9])))|through|work|happen|out|big)\b|"
    r"\bit(?:'s| is| was| has been|'s been| had been) (?:been )?(?:a while|time|hard to|easy to|great to|nice to|"
    r"fun to|good to|amazing to|cool to|awesome to|tough to|important to|essential to|necessary to|crucial to|vital to|"
    r"helpful to|useful to|normal to|common to|possible to|impossible to|better to|best to|wise to|smart to|"
    r"a good idea to|worth|like|(?:\w+ )?that\b)|"
    r"\bit (?:took|takes|take) \w+|\btake it easy\b|\bhit it off\b|\bcall it\b|"
    r"\b(?:giv(?:e|es|ing|en)|gave) it (?:\w+'s |their |his |her |my )?all\b|"
    r"\bma(?:ke|kes|de|king) it so (?:that|User|they|he|she|we|you|it|the|everyone|people)\b|"
    r"\bit(?:'s| is| was) a (?:bummer|shame|pity) that\b|\bthe way it (?:was|is|went|goes)\b|"
    r"\bma(?:ke|kes|de|king) it (?:so |much |a lot |way |even )*(?:easier|harder|easy|hard|possible|impossible|simpler|"
    r"quicker|faster) (?:to|for)\b|"
    r"\bhow (?:\w+ )?it (?:must|might|can|could) be\b|"
    # "User finds it hard to …", "User thinks it's odd that …": "it" holds the place of the clause after
    r"\b(?:find|finds|found|finding|think|thinks|thought|consider|considers|considered)\s+it(?:'s|\s+is|\s+was)?\s+"
    r"(?:\w+\s+)?\w+\s+(?:to|that|how|when|because|if)\b",
    re.I,
)
#: a thing the memory names with a determiner ("a bowl", "their old car"); an amount names nothing ("a lot", "a few")
_DET = r"(?:a|an|the|their|User's)"
#: a name, "LeBron" and "McDonald" too
_NAME = r"(?:Mc|Mac|Le|La|De|Di|O')?[A-Z][a-z]+"
_AMOUNT = r"(?:lot|bit|little|few|couple)"
#: "it" is fine after the statement names what it stands for: "User started pottery and it keeps them calm"; an
#: amount names nothing ("User put a lot of effort into it")
_NOUN_BEFORE_IT = re.compile(
    rf"\b(?:User|user)\b.*?(?:\b{_DET}\s+(?!{_AMOUNT}\b)\w+|"
    r"\"[^\"]+\"|(?<=\s)(?-i:[A-Z][a-z]+)).*?\bit\b",  # a title or a name said before: "seeing Hadestown when it …"
    re.I,
)
#: "one": "a new one", "the one", "this one" (not "one day", "one of the …", "no one", a number)
#: a word "that" follows as a conjunction even before "so" / "too": "had no idea that so many …"
_THAT_OPENS = re.compile(
    r"\b(?:idea|fact|news|sure|glad|fascinating|interesting|amazing|surprising|surprised|crazy|funny|great|cool|"
    r"sad|weird|strange|wild|impressive|important|clear|obvious|shocked|"
    r"something|anything|everything|nothing|someone|anyone|everyone|somebody)\s+$|"  # "something that's bright"
    r"\bit(?:'s|\s+is|\s+was)?\s+(?:\w+\s+)?\w+\s+$",  # "finds it concerning that …"
    re.I,
)
#: a verb of doing in the past whose form is not "-ed" ("made", "bought" …): one list for the patterns below that
#: read what the user did with a thing
_MADE = r"(?:made|bought|got|took|saw|drew|wrote|built|found|won|ate|did|sang|grew|sold)"
#: after a pointer, what tells the thing: "that designer handbag they bought at Saks last weekend" (a relative
#: clause with where or when)
_KNOWN_BY = re.compile(
    rf"^(?:\s+[\w$'-]+){{0,3}}?\s+(?:they|User)\s+(?:\w+ed|{_MADE}|went|met|had|read|gave|heard|ran|swam|spent)\s+"
    r"(?:\w+\s+){0,2}?(?:at|in|on|from|last|during|with|for)\b",
    re.I,
)
#: after these / those, the examples that tell them: "some of those, like …", "those things, such as …"
_EXAMPLES_AFTER = re.compile(
    r"^(?:\s+[a-z-]+s)?(?:\s+(?:already|too|also|before|yet))?,?\s+(?:like|such as|including)\s", re.I
)
#: a these / those standing for its noun, not before one: "… review those before the trip", "focus on those first"
_STANDS_ALONE = re.compile(
    r"^\s*(?:[,.;:!?)]|$|first|before|from|in|on|at|too|again|now|instead|and|but|so|for|with|later|soon)", re.I
)
#: a title in quotes: its words are a name ("the \"How They Built This\" podcast")
_TITLE = re.compile(r'"[^"]{1,60}"')
#: "besides that, …", "on top of that": a connective going on from what was said, no thing to name
_CONNECTIVE = re.compile(r"\b(?:besides|apart from|other than|aside from|on top of)\s+$", re.I)
#: … only where it opens the statement: "… had a tough time recently besides that" points back at what else was said
_A_WORD = re.compile(r"\b(?!User\b)[A-Za-z]{2,}\b")
#: a head that says nothing of the thing, so what follows it does not tell it: "that stuff they baked"
_VAGUE_AFTER = re.compile(r"^\s+(?:stuff|thing|things|one|ones)\b", re.I)
#: "something similar", "something like that", "other types of books": what it is like, or what it is other than,
#: only the conversation says
_SIMILAR = re.compile(
    r"\bsomething (?:similar|like (?:that|this|it))\b(?!\s+to\b)|\bother (?:types|kinds|sorts) of\b(?!.*\bthan\b)|"
    r"^Certain [a-z]+s\b(?!\s+(?:like|such as|including)\b)",  # "Certain authors are …": which, the chat says
    re.I,
)
#: "the cause", "the idea", "the project" with nothing after them that says which: an aim or a plan the conversation
#: spoke of ("User and others will find some awesome people for the cause")
_AIMS = "cause|idea|project"
_THE_AIM = re.compile(rf"\bthe (?:{_AIMS})\b(?!\s+(?:of|for|to|that|about|behind|was|is)\b)", re.I)
#: an occasion or a thing of the conversation's, "the" and nothing after it that says which: "User even made some
#: friends at the convention …", "User and others are still deciding on the destination"
_OCCASIONS = (
    "tournament|convention|event|feast|situation|destination|collection|festival|competition|contest|ceremony|"
    "fundraiser|gala|meetup|concert|wedding|reunion|performance|recital|audition|interview|figure|regular options"
)
_THE_OCCASION = re.compile(
    rf"\bthe (?:whole |big |final |main |last |next )?(?:{_OCCASIONS})\b"
    r"(?!\s+(?:of|for|to|that|about|in|at|on|with|which|where|who|they|User|was|is)\b)(?!-)",
    re.I,
)


def introduced(before: str, noun: str) -> bool:
    """Whether ``before`` (the memory up to a "the X") introduced the X itself ("… a bowl … the bowl", "User started a
    project on tide pools; the project …"), so the "the" points at the memory's own words. ``noun``: a pattern."""
    return bool(re.search(rf"\b(?:an?|their|User's)\s+(?:[a-z-]+\s+){{0,3}}(?:{noun})\b", before, re.I))


#: "this is Max", "that was Jordan": the pointer is introduced by the name it stands for
_INTRODUCED = re.compile(rf"\s+(?:is|was)\s+{_NAME}\b(?!\s+(?:is|was)\b)")
#: a noun phrase "of it" completes: "a huge fan of it", "the rest of it" (it names nothing the phrase says)
_OF_IT = re.compile(rf"\b{_DET}\s+(?:[\w-]+\s+){{0,2}}[\w-]+\s+of\s+$", re.I)
#: "the impact it'll have": an "it" right after a noun opens a clause about that noun, it does not stand for it
_RELATIVE_IT = re.compile(rf"\b{_DET}\s+\w+\s+it$", re.I)
#: "User hasn't had one in ages.": "one" after a verb, standing for a thing the memory does not name
_BARE_ONE = re.compile(
    r"\b(?:had|have|has|got|get|gets|getting|want|wants|wanted|need|needs|needed|buy|bought|try|tried|make|made|"
    r"read|found|find|pick|picked|order|ordered|shared|showed|sent|posted|been|be)\s+(?P<one>one)\b"
    r"(?=\s*(?:[.!?,;]|$)|\s+(?:in|yet|too|soon|already|now|again|last|next|since|for|before|myself|themself|they|"
    r"User|'cause|cause|because)\b)",
    re.I,
)
#: "User likes the color and texture.", "User loves the results.": a like of how an unnamed thing looks or turned out
#: (a photo's, the other speaker's), which names nothing of its own
_LOOKS = (
    r"(?:colou?rs?|texture|results?|design|pattern|look|shape|smell|taste|thought|details?|vibe|shade|style|idea|"
    r"acting|plot|story|storyline|characters?|soundtrack|music|atmosphere|energy|view|scenery|message|concept|theme|"
    r"ending|lyrics|vibes|setting|writing)"
)
_LIKES_A_LOOK = re.compile(
    rf"^User (?:(?:really|also|just|totally)\s+)?(?:likes|loves|enjoys|adores) (?P<what>the (?:\w+ )?{_LOOKS}"
    rf"(?:\s+and\s+(?:the\s+)?{_LOOKS})?)(?:\s+[A-Z][a-z]+)?\s*[.!]?$"
)
#: "User is totally hooked.": hooked / obsessed / addicted, and nothing else said of what on
_HOOKED = re.compile(
    r"^(?:User|User and others)(?: is| was| are| were| got| gets| has been| have been)\s+(?:(?:so|really|just|totally|"
    r"completely|\w+ly)\s+)*(?P<word>hooked|obsessed|addicted)(?=\s*[.!]?$)",
    re.I,
)
#: "… a coffee mug to replace their favorite one": a thing named before the "one" that stands for it
_NOUN_BEFORE_ONE = re.compile(rf"\b{_DET}\s+(?:(?:new|old|good|nice)\s+)?(?!(?:{_AMOUNT}|one|new|old)\b)[\w-]{{3,}}")
_ONE = re.compile(
    r"\b(?:a|an|the|this|that|new|old|another|big|little|small|good|nice|each|which|other|first|last|second|"
    r"favourite|favorite|same)\s+ones?\b(?!\s+of\b)(?!-)(?!\s+(?:they|User|who)\s+(?:love|loves|loved|care|cares))",
    re.I,
)
_THERE = re.compile(
    r"\b(?:go|goes|went|gone|going|been|moved|move|live|lived|lives|stay|stayed|get|got|back|visit|visited|"
    r"work|worked|works|travel|travelled|traveled)\s+there\b",
    re.I,
)
#: a "there" ending its clause after any word ("had a blast there last month", "the food there is …" is left): a
#: place only the conversation names (not "there is …", which points nowhere)
_THERE_ENDS = re.compile(
    r"\b(?P<word>[a-z]+)\s+there\b(?=\s*(?:[,.;:!?()]|$)|\s+(?:and|but|so|last|next|yesterday|today|too|again|now|"
    r"for(?!\s+(?:me|them|you|us|him|her|each|one|my|their|our)\b)|with|before|after|when|since|this|every|once)\b)"
)
#: "the architecture there", "the library there": a place said after a thing of it, which only the conversation names
_NOUN_THERE = re.compile(
    r"\b(?:[Tt]he|[Tt]heir|User's)\s+[a-z]+\s+there\b"
    r"(?!\s+(?:is|are|was|were)\s+(?:a|an|no|little|some|many|much|lots|plenty|nothing|something)\b)"
)
#: "there's one that helps with balance", "brainstorming some to help": a "one" / "some" of a thing not named
_THERE_ONE = re.compile(r"\bthere(?:'s| is| was)\s+(?P<one>one)\b(?=\s+(?:that|which|who)\b)", re.I)
_BARE_SOME = re.compile(
    r"\b(?:brainstorming|planning|making|doing|getting|trying|having|have|had|got|get|want|wants|need|needs)\s+"
    r"(?P<some>some)(?=\s+(?:to|for)\b|\s*[.!]?$)",
    re.I,
)
#: before such a "there": idioms ("out there", "be there for", "get there", "over there") and clause openers
_NOT_BEFORE_THERE = frozenset(
    [
        "out",
        "over",
        "up",
        "down",
        "in",
        "from",
        "right",
        "here",
        "and",
        "but",
        "so",
        "be",
        "is",
        "are",
        "was",
        "were",
        "am",
        "get",
        "gets",
        "getting",
        "all",
        "hang",
        "hanging",
        "hey",
        "hi",
        "oh",
        "then",
        "that",
        "if",
        "when",
    ]
)
#: "User is planning a few.", "User actually just submitted a few more last week (2022-10-31).": a quantity of
#: something not named, at the end of the memory but for when it was ("a few more" of what: the question said)
QUANTITY_END = re.compile(
    r"\b(?P<count>a few|a couple|a bunch|several|plenty|one of them|some of them|some(?=\s+more\b))"
    r"(?P<more>\s+more)?(?P<rest>\s*(?:too|also|now)?"
    r"(?:\s+(?:(?:last|this|next)\s+[a-z]+|yesterday|today|recently|lately|already|again))?"
    r"\s*(?:\([^()]*\d{4}[^()]*\))?\s*[.!]?)$",
    re.I,
)
#: "User doesn't really want to get any": any of a thing not named
_BARE_ANY = re.compile(
    r"\b(?:get|got|have|had|want|need|buy|bought|find|found|try|tried|read|see|seen|watch|watched|own)\s+"
    r"(?P<any>any)(?=\s*[.!?,;]|\s*$)",
    re.IGNORECASE,
)
#: "User is working on one with their group": one of what, the sentence before said
_ON_ONE = re.compile(r"\bwork(?:ing|ed|s)?\s+on\s+(?P<one>one)\b(?!\s+of\b)", re.IGNORECASE)
#: "User got a book while they were there": where, the conversation said
_WHILE_THERE = re.compile(r"\b(?:while|when)\s+(?:they|User)\s+(?:was|were)\s+there\b")
#: "Making a difference like that is truly amazing": like what, the message answered said
_DOING_LIKE_THAT = re.compile(r"^[A-Z][a-z]+ing\b[^;,.]*?\b(?P<like>like (?:that|this))\b")
#: the references above (and "something similar", "like that": ``_SIMILAR``, ``_DOING_LIKE_THAT``) as ``unresolved``
#: reports them, which only a kind or a place named for them resolves: a statement said before them gives neither
#: ("working on one", "want to get any", "while they were there"; a place there is named by the place itself:
#: "Lisbon … there"), so ``lead_in`` neither leads them in nor joins them on
NAMED_ONLY_BY_KIND = re.compile(
    r"^(?:one|ones|any|some|while they were there|when they were there|something similar|something like that|"
    r"like that|like this)$",
    re.IGNORECASE,
)
#: "User's sister moved to Lyon and lives there now": the place is named before "there"
_PLACE_NAMED = re.compile(r"\b(?:to|in|at|from|near|around|visit(?:ed)?)\s+(?:the\s+)?[A-Z][a-z]+")
#: "Haven't been there yet, but User has heard great things about Universal Studios": named after "there"
_PLACE_NAMED_AFTER = re.compile(r"\b(?:about|visit(?:ed|ing)?)\s+(?:the\s+)?(?!User\b)[A-Z][a-z]+")
_THE_PLACE = re.compile(
    r"\b(?:the|that)\s+(?:city|town|place|spot|village)\b(?!\s+(?:of|where|called|named|[a-z]+(?:al|er|s)?\b(?<!and)"
    r"(?<!but)(?<!with)(?<!for)(?<!to)(?<!in)(?<!on)(?<!at)(?<!since)(?<!last)(?<!again)(?<!too)(?<!now)))"
)
#: a capitalised word that opens a statement and names nobody ("The name helps User remember her": no one is named)
_OPENER = (
    r"(?:The|A|An|This|That|These|Those|It|Its|Being|Seeing|Having|Getting|Picking|Watching|Knowing|Finding|Making|"
    r"Now|Then|Even|Also|Just|Still|Since|When|After|Before|While|Some|Most|All|Every|Each|Our|Their|His|Her|"
    r"What|Why|How|Where|Who|Winning|Working|Spending)"
)
#: a person named in the statement: a he / she / him / her after it has someone to stand for
_PERSON = re.compile(
    rf"\b(?:(?!{_OPENER}\b){_NAME}(?<!User)|"
    r"mom|mum|mother|dad|father|son|daughter|brother|sister|husband|wife|partner|boyfriend|girlfriend|friend|buddy|"
    r"boss|colleague|coworker|co-worker|kid|child|baby|youngest|oldest|eldest|grandma|grandpa|"
    r"grandmother|grandfather|aunt|uncle|cousin|nephew|niece|neighbo(?:u)?r|teacher|coach|mentor|mentee|"
    r"therapist|doctor|roommate|fiancée?|bf|gf|guy|girl|boy|man|woman|lady|dog|cat|puppy|kitten|"
    r"pet(?! store| shop| food| supplies)|"
    r"(?:one|two|three|four|five|six|seven|eight|nine|ten|\d+)-(?:year|month|week)-old)s?\b",
)
#: a subject pointing back: "Their love has helped User …", "He was okay …", "It was amazing …"
_LEADING = re.compile(rf"^(?:They|Their|Them|He|She|His|Her|It|Its|This|That|These|Those)\b(?!\s+{_TIME}\b)")


#: what a thing's own relative clause says User did with it ("That painting User made …", "These figurines User
#: bought …"); a verb before "User" makes it the main clause instead ("This quote kept User positive …")
_DID = (
    rf"(?:\w+ed|{_MADE}|gave|had|has|have|read|keeps?|kept|wears?|wore|holds?|held|carries|uses?|owns?|brought|chose|"
    r"knit|caught|shot|learnt|began|'s|'d)\b"
)
#: a pointing subject that names its thing: "This scarf from User's aunt …", "That painting User made …", "These
#: figurines User bought …"; not a pointer followed by a verb ("That should help User …", "These critters make User
#: …": a plural's verb has no -s to tell it from a noun, so "These" / "Those" name it only right before "User")
_NAMED_SUBJECT = re.compile(
    r"^(?:(?:This|That)\s+(?!(?:should|will|would|could|can|might|may|must|is|was|has|had|does|did)\b)[a-z]+"
    r"(?:\s+[a-z]+)?\s+(?:from|of|by|(?:that |which )?User(?=\s+(?:just |recently |also |finally )?" + _DID + r"))|"
    r"(?:These|Those)\s+[a-z]+(?:\s+[a-z]+)?\s+(?:from|of|by|(?:that |which )?User(?=\s+(?:just |recently |also |"
    r"finally )?" + _DID + r")))\b"
)
#: a statement opening on "this <thing>" that says what the thing is to the speaker ("This necklace is super special
#: to User", "This design reminds User of …"): the noun says what it is
_THIS_THING_TO_USER = re.compile(
    r"^(?P<det>This|That) (?P<noun>[a-z]+(?: [a-z]+)?) (?=(?:(?:is|was|has been|'s) (?:(?:so|super|really|very|"
    r"truly) )?(?:special|important|precious|dear|meaningful|a reward|a reminder)\b|means|meant|reminds|reminded)"
    r"[^;]*\bUser\b)"
)
#: what was said opens by pointing at a thing it never names: "这是我去年买的", "That's what I made last week"
_SAID_POINTING = re.compile(
    r"^(?:(?:这|那)(?:个|些)?(?:是|就是)|"
    r"(?:this|that|these|those)(?:'s|\s+is|\s+was|\s+are|\s+were)\s+(?:what|how|where|why|when|the one)\b)",
    re.I,
)


def points_unnamed(sentence: str) -> bool:
    """Whether a sentence opens by pointing at something it never names ("这是我去年买的", "That's what I made"):
    whatever is read from it is about a thing only the conversation shows."""
    return bool(_SAID_POINTING.match(sentence.strip()))


def head(content: str) -> str:
    """The statement a memory makes before what the extractor appended to it ("…; it keeps them calm")."""
    return re.split(r"[;；]", content, maxsplit=1)[0]


def unresolved(content: str, evidence: str = "") -> list[str]:
    """The references in ``content``'s head that it does not name (empty: the memory stands on its own).

    ``evidence`` (what was said) tells the speaker's own "they" from a third party's: a leading They / Their is
    a reference only when the speaker said it ("Their love has helped me …"), not when it stands for "I"."""
    text = _TITLE.sub('"Title"', head(content).strip())  # "How They Built This" points at nothing: it is a name
    pointed = _SAID_POINTING.match(evidence.strip())
    if pointed and not _LEADING.match(text):
        return [pointed.group().strip()]  # "这是我去年买的" / "This is what I made": what it is, is not said
    if has_cjk(text):
        return _unresolved_zh(text)
    found: list[str] = []
    lead = _LEADING.match(text)
    if lead and _NAMED_SUBJECT.match(text):
        lead = None  # "This scarf from User's aunt is special to them": the thing is named where it is pointed at
    if lead and not (
        lead.group().lower() in ("they", "their", "them") and not re.match(r"(?i)\s*(?:they|their|them)\b", evidence)
    ):
        found.append(lead.group())
    named_subject = bool(_NAMED_SUBJECT.match(text))
    for m in _DEICTIC.finditer(text):
        if m.start() == 0 and (lead or named_subject):
            continue
        det, before, after = m.group("det").lower(), text[: m.start()], text[m.end() :]
        going_on = _CONNECTIVE.search(before)
        if (going_on and not _A_WORD.search(before, 0, going_on.start())) or _INTRODUCED.match(after):
            continue  # "Besides that, …" opening the memory goes on; "this is Max" names what it points at
        kind = _KIND_LIKE.search(before)
        if kind and not _VERB_AFTER.search(text[: kind.start()]):
            # "Moments like these remind User …", "physical reminders like this": the kind is named, the instance
            # it was said of is not (blind readers of held-out memories ask "like what?")
            found.append(kind.group() + m.group())
            continue
        if det == "that":
            if _THAT_OPENS.search(before) and not re.match(r"\s*[.!?]?$", after):
                continue  # "User had no idea that so many …", "… finds it fascinating that …": a clause follows
            # "User painted that lake sunrise last year", "User will always remember that trip.": a noun phrase that
            # ends there after a verb, of doing or of saying ("remember that …" opens a clause only with a verb after)
            ends = _NP_ENDS.match(after)
            done = ends and (_DID_BEFORE.search(before) or (_after_saying(before) and _one_noun(after, ends.end())))
            if not _END.match(after) and (_THAT_JOINS.match(after) or not (_before_is_verb_or_prep(before) or done)):
                continue
        if _KNOWN_BY.match(after) and not _VAGUE_AFTER.match(after):
            continue  # "that designer handbag they bought at Saks last weekend": told right after
        if det in ("these", "those") and (
            _EXAMPLES_AFTER.match(after) or (_STANDS_ALONE.match(after) and _GROUP.search(before))
        ):
            continue  # "some of those, like …" (told after), "… different cooking oils … any of those" (said before)
        found.append(m.group() if m.end() >= len(text) else _phrase(text, m.start()))
    for m in _PRONOUN.finditer(text):
        p = m.group("p").lower()
        if m.start() == 0 and lead:
            continue
        if p in ("one", "ones"):
            continue  # counted by _ONE with its determiner
        if p == "his" and _HE.search(text):
            continue  # "… catch up with him and his family": one reference, him (named as one, never twice)
        if p in ("it", "its", "itself"):
            window = text[max(0, m.start() - 20) : m.end() + 30]
            if p == "its" and _named_before(text[: m.start()]):
                continue
            # "a huge fan of it", "a picture of it": the noun before is what "it" completes, not what it stands for
            of_it = _OF_IT.search(text[: m.start()])
            scope = text[: of_it.start()] + " it" if of_it else text[: m.end()]
            noun_before = _NOUN_BEFORE_IT.search(scope) and not _RELATIVE_IT.search(scope)
            if _DUMMY_IT.search(window) or noun_before or _clause_before(text[: m.start()]):
                continue
        elif _PERSON.search(text[: m.start()].replace("User", "")):
            continue  # "User's sister … she …": named before
        found.append(m.group())
    found += [m.group() for m in _ONE.finditer(text) if not _NOUN_BEFORE_ONE.search(text[: m.start()])]
    found += [m.group("one") for m in [*_BARE_ONE.finditer(text), *_THERE_ONE.finditer(text)]]
    found += [m.group("some") for m in _BARE_SOME.finditer(text)]
    found += [m.group("any") for m in _BARE_ANY.finditer(text)]
    found += [m.group("one") for m in _ON_ONE.finditer(text)]
    found += [m.group() for m in _WHILE_THERE.finditer(text) if not _PLACE_NAMED.search(text[: m.start()])]
    found += [m.group("like") for m in _DOING_LIKE_THAT.finditer(text)]
    found += [m.group("word") for m in _HOOKED.finditer(text)]
    found += [m.group("what") for m in _LIKES_A_LOOK.finditer(text)]
    theres = [
        *_THERE.finditer(text),
        *_NOUN_THERE.finditer(text),
        *(
            m
            for m in _THERE_ENDS.finditer(text)
            if m.group("word").lower() not in _NOT_BEFORE_THERE and not _THERE.search(m.group())
        ),
    ]
    found += [
        m.group()
        for m in theres
        if not _PLACE_NAMED.search(text[: m.start()]) and not _PLACE_NAMED_AFTER.search(text[m.end() :])
    ]
    found += [m.group() for m in _THE_PLACE.finditer(text) if not _PLACE_NAMED.search(text[: m.start()])]
    found += [m.group() for m in _HERE.finditer(text)]
    found += [m.group() for m in _EACH_TIME.finditer(text) if not _A_KIND_OF.search(text, 0, m.start())]
    found += [m.group("verb") for m in _BEGAN_WHAT.finditer(text)]
    found += [m.group() for m in _THE_PIC.finditer(text)]
    found += [m.group("np") for m in _THE_OPENER.finditer(text) if not _THE_PIC.match(text)]
    found += [m.group() for m in _THAT_HAPPENED.finditer(text)]
    found += [m.group() for m in _SIMILAR.finditer(text)]
    found += [m.group() for m in _THE_AIM.finditer(text) if not introduced(text[: m.start()], _AIMS)]
    found += [m.group() for m in _THE_OCCASION.finditer(text) if not introduced(text[: m.start()], _OCCASIONS)]
    found += _third_party(text, evidence)
    found += [m.group() for m in QUANTITY_END.finditer(text)]
    return found


_HE = re.compile(r"\b(?:he|him|himself|he's|he'd|he'll)\b", re.I)
#: "The pic takes User back.": the photo shared in the chat, which the memory's reader never sees ("The photo is
#: from a forest near …" says what it shows)
_THE_PIC = re.compile(
    r"^The (?:pics?|photos?|pictures?|snaps?|shots?|videos?|selfies?|images?)\b"
    r"(?!\s+(?:of|from|shows?|(?:is|was) (?:of|from|taken))\b)"
)
#: "User was so excited when that happened": what happened, the sentence before said
_THAT_HAPPENED = re.compile(
    r"\b(?:when|after|before|since|until|once|if)\s+that\s+(?:happened|happens|was over)\b", re.IGNORECASE
)
#: "The training was intense …", "The gym is awesome, but …", "The colors were amazing, and …": a memory that opens on
#: a bare "the X" as its subject judges or tells of the thing the conversation was about, which the memory never
#: names (every blind reader of the fourteenth round flagged 57 of 80 such readings). Told right there, it is not one:
#: "The people at a homeless shelter …" (a qualifier), "The screenplay User sent in …" (a clause), "The Hobbit …", "The
#: Nike deals …" (a name)
_THE_OPENER = re.compile(
    # (a qualifier tells which, but not one of User: "The best part for User was …" of what?)
    r"^The (?P<np>(?!(?:[a-z-]+\s+){0,2}(?:of|at|from|in|on|for(?!\s+(?:User|them)\b)|with|about|to|that|who|which|"
    r"where|whose|and|or)\b)"
    r"(?:(?!(?:is|are|was|were|has|have|had|be|been)\b)[a-z][a-z-]*\s+){0,2}"
    r"(?!(?:is|are|was|were|has|have|had|be|been)\b)[a-z][a-z-]*)(?:\s+for\s+(?:User|them))?\s+"
    r"(?!(?:is|was|are|were) (?:called|named)\b)"  # "The game was called Counter-Strike": named right there
    r"(?:(?:really|always|just|also|still|definitely|totally|all)\s+)?"
    r"(?:is|are|was|were|has|have|had|went|goes|go|might|may|seems?|seemed|looks?|looked|feels?|felt|makes?|made|"
    r"gives?|gave|got|gets|helps?|helped|reminds?|reminded|inspired|inspires|brings?|brought|keeps?|kept|means|meant|"
    r"turned|came|comes|sounds?|sounded|[a-z]+ed)\b"
)
#: "User started when they were young": started what, the sentence before said
_BEGAN_WHAT = re.compile(
    r"\bUser (?:first |just |only |actually )?(?P<verb>started|began|stopped|quit|gave up)(?=\s+(?:when|at age|at the "
    r"age|as a|in \d|last|a few|years|ago|back)\b|\s*[.,;]|$)"
)
#: "User feels great after each session": a session of what, the sentence before said ("I started a yoga class")
_OCCASION = r"(?:session|class|lesson|practice|meeting|workout|round|episode|chapter|shift)"
_EACH_TIME = re.compile(rf"\b(?:each|every|after the|after every)\s+{_OCCASION}\b(?!\s+of\b)", re.I)
#: ... unless the memory says which kind before it ("User started a yoga class; they feel great after each class")
_A_KIND_OF = re.compile(rf"\b(?!(?:a|an|the|each|every|their|this|that)\b)[a-z-]{{3,}}\s+{_OCCASION}s?\b", re.I)
#: the pronouns that stand for a person: named by memory.write.extract.persons / recent, never by what stands near
PERSON_PRONOUNS = frozenset(["he", "him", "his", "himself", "she", "her", "hers", "herself"])
#: "User started volunteering here": where "here" is, only the conversation says
_HERE = re.compile(r"\bhere\b(?!\s+and\s+there)", re.I)
_THEY = re.compile(r"\b(?:they|them|their|theirs|they're|they've|they'll|they'd)\b", re.I)
_MINE = re.compile(r"\b(?:I|me|my|mine|myself|we|us|our|ours|ourselves|I'm|I've|I'll|I'd|we're|we've)\b", re.I)
#: a plural or a group named before a they / them that stands for it ("met some young folks and supported them",
#: "passionate about veterans and their rights", "opportunities for young athletes and help them succeed")
_GROUP = re.compile(
    r"\b(?:(?:the|some|my|their|these|those|many|few|all|his|her|our|other|several|both|two|three|four|five|of|"
    r"and|User's|different|various)\s+(?:[\w-]+\s+){0,2}[\w-]+s|(?:about|for|with|among)\s+(?:[a-z-]+\s+){0,2}"
    r"[a-z-]{3,}s|(?:film)?makers|influencers|dancers|players|teachers|readers|writers|authors|artists|musicians|"
    r"doctors|students|customers|clients|users|members|volunteers|fans|brands|companies|businesses|developers|"
    r"designers|owners|workers|employees|athletes|people|folks|kids|children|family|fam|team|friends|everyone|"
    r"everybody|group|crew|gang|class|club|parents|guys|others)\b",
    re.I,
)
_NOT_PLURAL = re.compile(r"\b(?:is|was|has|does|its|this|thus|always|as|us|yes|lots|less|across|unless)\b")


_WORDS = re.compile(r"[\w']+")


def _said_on(after: list[str], follows: list[str]) -> bool:
    """Whether the words after a memory's they / them are the words said after the speaker's (as far as either goes)."""
    return bool(after) and after == follows[: len(after)]


def _third_party(text: str, evidence: str) -> list[str]:
    """A they / them the speaker said of others ("I rely on them for strength"), which the extractor keeps as said:
    the memory still holds it, and no group is named before it in the memory."""
    said = _THEY.search(evidence) if evidence else None
    if said is None:
        return []
    theirs = list(_THEY.finditer(text))
    # found by the words it was said with ("them for strength"): the memory may have dropped some of the speaker's
    # words before it ("Even though mine is small, I rely on them …"), so counting them misplaces it
    follows = _WORDS.findall(evidence[said.end() :])[:2]
    # … up to where the memory ends: "I haven't read them yet but I'll …" kept as "User hasn't read them yet."
    kept = [t for t in theirs if follows and _said_on(_WORDS.findall(text[t.end() :])[:2], follows)]
    if kept:
        first = kept[0]
    else:
        rewritten = max(0, len(_MINE.findall(evidence)) - 1)  # the first became "User"
        if len(theirs) <= rewritten:
            return []
        # the speaker's own words before it were rewritten to User / they: "Being with them brings me joy" → the
        # first "them" of the memory is theirs, not the one after
        mine_before = len(_MINE.findall(evidence[: said.start()]))
        first = theirs[min(max(0, mine_before - 1), len(theirs) - 1)]
    before = _NOT_PLURAL.sub("", text[: first.start()].replace("User and others", ""))
    # a group, a company or a person named before: "Everlane … their pricing", "an author … their style"
    return [] if _GROUP.search(before) or _PERSON.search(before[1:]) else [first.group()]


def _clause_before(prefix: str) -> bool:
    """'it' opening a clause after one that names something: "Clay is incredible, it brings User joy", "User has
    been networking lately and it's paid off" (it stands for what the clause before is about)."""
    cut = [m.start() for m in _BOUNDARY_ANY.finditer(prefix)]
    if not cut:
        return False
    before = prefix[: cut[-1]]
    words = [w for w in re.findall(r"[A-Za-z']+", before) if w.lower() not in _FUNCTION and w.lower() not in _SELF]
    return len(words) >= 2


_BOUNDARY_ANY = re.compile(r",|\s(?:and|but|as|so|because|which)\s|\s-+\s")


def _named_before(prefix: str) -> bool:
    """'its' after the statement names something it can belong to ("running User's biz has had its ups")."""
    words = [w for w in re.findall(r"[A-Za-z']+", prefix) if w.lower() not in _FUNCTION and w.lower() not in _SELF]
    return len(words) >= 1


_SELF = frozenset(["user", "user's", "they", "them", "their", "they're", "they've", "themself", "others"])


#: a verb of doing in the past right before "that" ("painted that …", "bought that …"; a verb of saying, "realized
#: that …", is in ``_SAYING``) ...
_DID_BEFORE = re.compile(
    r"\b(?!(?:realized|realised|learned|learnt|noticed|decided|hoped|figured|guessed|believed|felt|heard|said|"
    r"told|showed|agreed|promised|assumed|expected|discovered|remembered|wished|admitted|explained|mentioned|"
    r"answered|replied|suggested|proved|ensured|insisted|worried|joked|warned|argued|claimed|confirmed)\b)"
    rf"(?:\w+ed|{_MADE}|wore|kept)\s+$",
    re.I,
)
#: ... and after it a noun phrase that ends there (the end, a comma, a date word, a preposition), not a clause's
#: subject before its verb ("User realized that people are kind")
_NP_ENDS = re.compile(
    r"^(?:\s+[a-z-]+){1,3}(?=\s*(?:[,.;:!?(]|$)|\s+(?:last|this|yesterday|today|recently|in|at|on|for|with|from|"
    r"and|but|because|when)\b)"
)


def _last_word(before: str) -> str:
    """The last word of ``before``, lower-cased ("" when none)."""
    words = re.findall(r"[A-Za-z']+", before)
    return words[-1].lower() if words else ""


def _after_saying(before: str) -> bool:
    """Whether ``before`` ends on a verb of saying or knowing ("User will always remember …")."""
    return _last_word(before) in _SAYING


def _one_noun(after: str, end: int) -> bool:
    """Whether the words of ``after`` (what follows a "that") up to ``end`` can only be one thing's noun phrase: one
    or two words, none a verb's form, and no "and" / "but" going on after them ("that people are kind", "that works
    out", "that counseling and mental health is …" are clauses; a singular "that" never points at a plural)."""
    if re.match(r"\s+(?:and|but|because|when)\b", after[end:]):
        return False
    said = after[:end].split()
    return len(said) <= 2 and not any(
        w in BE_HAVE or w in MODALS or (w.endswith("s") and not w.endswith("ss")) for w in said
    )


def _before_is_verb_or_prep(before: str) -> bool:
    """'that' after a verb or a preposition points ("User loves that", "User is proud of that design")."""
    word = _last_word(before)
    if word in _SAYING:
        return False  # "User thinks that …", "User realized that …"
    # after a verb, a gerund or a preposition it points; after a noun it is a relative pronoun ("brands that align")
    return word in _POINTING_AFTER or (word.endswith("ing") and len(word) > 5)


#: verbs and adjectives "that" follows as a conjunction
_SAYING = frozenset(
    [
        "think",
        "thinks",
        "thought",
        "say",
        "says",
        "said",
        "know",
        "knows",
        "knew",
        "feel",
        "feels",
        "felt",
        "hope",
        "hopes",
        "hoped",
        "believe",
        "believes",
        "believed",
        "realize",
        "realizes",
        "realized",
        "realise",
        "realised",
        "guess",
        "guessed",
        "mean",
        "means",
        "meant",
        "sure",
        "glad",
        "proud",
        "happy",
        "found",
        "learned",
        "learnt",
        "noticed",
        "notices",
        "told",
        "tells",
        "tell",
        "show",
        "shows",
        "showed",
        "shown",
        "remember",
        "remembers",
        "remembered",
        "reminded",
        "reminds",
        "decided",
        "decide",
        "decides",
        "agree",
        "agrees",
        "agreed",
        "wish",
        "wishes",
        "wished",
        "understand",
        "understands",
        "understood",
        "so",
        "such",
    ]
    # their gerunds: "User is still thinking that counseling … is the way to go" (was rewritten "a counseling")
    + [
        "thinking",
        "knowing",
        "hoping",
        "believing",
        "realizing",
        "realising",
        "saying",
        "guessing",
        "feeling",
        "noticing",
        "remembering",
        "wishing",
        "meaning",
        "telling",
        "showing",
        "learning",
        "deciding",
        "agreeing",
        "understanding",
    ]
)


_POINTING_AFTER = frozenset(
    [
        "bring",
        "brought",
        "watch",
        "visit",
        "visited",
        "loved",
        "tried",
        "wear",
        "wore",
        "cook",
        "cooked",
        "buy",
        "play",
        "played",
        "eat",
        "ate",
        "sell",
        "sold",
        "keep",
        "about",
        "of",
        "for",
        "with",
        "like",
        "in",
        "on",
        "at",
        "from",
        "to",
        "into",
        "do",
        "did",
        "does",
        "love",
        "like",
        "hate",
        "try",
        "make",
        "made",
        "got",
        "get",
        "had",
        "have",
        "has",
        "read",
        "watched",
        "finished",
        "use",
        "used",
        "using",
        "want",
        "need",
        "enjoy",
        "share",
        "shared",
        "capture",
        "captured",
        "bought",
        "took",
        "take",
        "keep",
        "kept",
        "found",
        "remember",
        "missed",
        "miss",
        "know",
        "knew",
        "through",
        "by",
    ]
)


def _phrase(text: str, start: int) -> str:
    """'this bowl' (a determiner and the noun it points with), or 'this' alone when no noun follows."""
    words = [w.rstrip(".,;!?") for w in text[start:].split()[:2]]
    if len(words) < 2 or words[1].lower() in _FUNCTION or not re.match(r"[a-z]", words[1]):
        return words[0]
    return " ".join(words)


_FUNCTION = (
    frozenset(
        [
            "after",
            "before",
            "for",
            "with",
            "and",
            "or",
            "but",
            "in",
            "on",
            "at",
            "to",
            "of",
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
            "do",
            "does",
            "did",
            "not",
            "so",
            "as",
            "than",
            "then",
            "too",
            "very",
            "really",
            "just",
            "also",
            "even",
            "still",
            "again",
            "within",
            "without",
            "because",
            "while",
            "if",
            "when",
            "where",
            "who",
            "which",
            "what",
            "how",
            "all",
            "both",
            "each",
            "every",
            "some",
            "any",
            "many",
            "much",
            "more",
            "most",
            "such",
            "own",
            "same",
            "other",
            "another",
            "one",
            "ones",
        ]
    )
    | BE_HAVE
    | MODALS
)


# -- Chinese -------------------------------------------------------------------------------------------------------
_ZH_DEICTIC = re.compile(
    r"(?:这|那)(?:个|些|里|儿|边|件|本|种|次|家|位|只|张|幅|首|部|条|样|款|座|所|辆)(?!(?:月|星期|礼拜|周末|学期|季))|"
    r"(?:这|那)(?=是|就是|让|使|令|给|对|也|都|真|太|很|可)|它们?|那儿|那里|这里|这儿"
)
#: 他 / 她 (们) standing for a person; not inside a word: 其他 (other), 吉他 (guitar), 利他, 他人 (others)
ZH_PERSON_PRONOUN = re.compile(r"(?<![其吉利])[他她](?!人)(?:们)?")
_ZH_PERSON = re.compile(
    r"妈妈|母亲|爸爸|父亲|儿子|女儿|老婆|妻子|丈夫|老公|朋友|同事|老板|哥哥|姐姐|弟弟|妹妹|孩子|男朋友|女朋友|"
    r"男友|女友|室友|邻居|老师|同学|爷爷|奶奶|外公|外婆|姥姥|姥爷|叔叔|阿姨|舅舅|表哥|表姐|堂哥|宝宝|猫|狗|"
    r"[A-Z][a-z]+|小[\u4e00-\u9fff]|老[\u4e00-\u9fff]"
)


#: a place named before a 那里 / 这里 that stands for it ("用户搬到了上海，现在住在那里"; not 去年, last year:
#: "用户去年在那里住了一个月" names no place)
_ZH_PLACE_BEFORE = re.compile(r"(?:搬到了?|住在|去(?!年)了?|到了|来到|回到|在)(?![这那])[\u4e00-\u9fff]{2,}")


def _unresolved_zh(text: str) -> list[str]:
    found = [
        m.group()
        for m in _ZH_DEICTIC.finditer(text)
        if not (m.group() in ("那里", "这里", "那儿", "这儿") and _ZH_PLACE_BEFORE.search(text[: m.start()]))
    ]
    for m in ZH_PERSON_PRONOUN.finditer(text):
        if not _ZH_PERSON.search(text[: m.start()].replace("用户", "")):
            found.append(m.group())
    return found


# -- resolving -----------------------------------------------------------------------------------------------------


def resolve(content: str, evidence: str = "") -> str | None:
    """The memory with its references named, or None when something is left that only the conversation names.

    What can be named without guessing: a determiner that points ("this adoption group", "these lovely flowers",
    "这幅画") where the noun it points with says what the thing is — it becomes an article ("an adoption group",
    "lovely flowers"); the fact then stands alone as a statement of its kind. A pointing subject that the memory
    names right there ("These figurines User bought yesterday …") points at nothing a reader lacks: "The figurines
    User bought yesterday …". A bare pronoun ("it", "him",
    "这个", "它") is not guessed at."""
    refs = unresolved(content, evidence)
    if not refs:
        if _NAMED_SUBJECT.match(content):  # "These figurines User bought …" → "The figurines User bought …"
            return "The" + content[content.index(" ") :]
        return content
    fixed = content
    zh = has_cjk(content)
    if zh:
        return _resolve_zh(content, refs)
    thing = _THIS_THING_TO_USER.match(content)
    if thing and [r.lower() for r in refs] == [thing.group("det").lower()]:
        noun = thing.group("noun")
        if noun.split()[-1] not in _NOT_A_NOUN and noun.split()[-1] not in _VAGUE_BARE:
            # "This necklace is super special to User" → "A necklace is super special to User": what it is, is said
            return f"{a_or_an(noun).capitalize()} {noun}{content[thing.end('noun') :]}"
    for ref in refs:
        det, _, noun = ref.partition(" ")
        if det.lower() not in ("this", "these", "those", "that") or not noun or not re.match(r"[a-z]", noun):
            return None
        bare = re.sub(r"\W+$", "", noun).lower()
        if bare in _NOT_A_NOUN or bare in _ORDINAL or _LIKE_BEFORE.search(fixed.split(ref)[0]):
            return None  # "that last match", "moments like these": what is meant is not in the words
        if _head(fixed, ref) in _VAGUE or re.sub(r"\W+$", "", noun).lower() in _VAGUE_BARE:
            return None  # "this charity thing" → "a charity thing", "that world" → "a world": named in name only
        article = f"{a_or_an(noun)} " if det.lower() in ("this", "that") else ""
        if _PARTITIVE.search(fixed.split(ref)[0]):
            article = "the "  # "some of that charm" → "some of the charm", never "some of a charm" / "all games"
        if det[0].isupper():
            return None  # a pointing subject ("This hoodie isn't for sale") stays a remark about the moment
        fixed = re.sub(rf"\b{det}\s+(?={re.escape(noun)}\b)", article, fixed, count=1)
    return fixed if not unresolved(fixed, evidence) else None


#: heads that say nothing of which thing was meant: "this charity thing", "that world", "those places" read as
#: "a charity thing", "a world", "places" would look named while a reader still cannot tell what was meant
_VAGUE = frozenset(
    ["thing", "things", "stuff", "world", "worlds", "place", "places", "one", "ones", "kind", "sort", "way", "part"]
    + ["side", "stage", "point", "level", "bit", "moment", "moments", "situation", "feeling", "feelings", "vibe"]
    # a pet name for things shown or said before: "those little guys" → "little guys" names no kind
    + ["guys", "dudes", "fellas", "buddies"]
)
#: kinds that say which one only with a word of their own: "this genre", "that spot" read as "a genre", "a spot" say
#: nothing ("User is a huge fan of a genre"), while "this amazing fantasy series" → "an amazing fantasy series" does
_VAGUE_BARE = frozenset(
    ["genre", "series", "spot", "recipe", "color", "colour", "shade", "style", "type", "flavor", "flavour", "brand"]
    + ["name", "names", "topic", "topics", "subject", "subjects", "option", "options"]
)


def _head(content: str, ref: str) -> str:
    """The last word of the noun phrase ``ref`` opens in ``content`` ("this charity thing" → "thing")."""
    at = content.find(ref)
    words = [w.strip(".,;:!?'\"").lower() for w in content[at:].split()[1:4]] if at >= 0 else []
    head = ""
    for w in words:
        if not w or w in _FUNCTION or not re.fullmatch(r"[a-z][a-z-]*", w):
            break
        head = w
    return head


#: a quantifier the pointer follows ("some of that charm", "one of those photos", "all these games"): the thing is
#: one the speaker had in mind, so it is named "the …"; an article there reads "some of a charm", and a bare plural
#: ("all games") says something else
_PARTITIVE = re.compile(
    r"\b(?:(?:some|any|all|most|many|much|none|one|each|both|either|neither|part|half|few|several|rest|lots?|"
    r"bits?|pieces?|plenty|couple|two|three|four|five) of|all|both|half)\s+$",
    re.I,
)
_ORDINAL = frozenset(["last", "first", "next", "second", "third", "same", "other", "very", "exact", "whole", "entire"])
_LIKE_BEFORE = re.compile(r"\b(?:like|as)\s*$", re.I)
_NOT_A_NOUN = (
    frozenset(
        [
            "one",
            "ones",
            "stuff",
            "thing",
            "things",
            "way",
            "kind",
            "sort",
            "too",
            "so",
            "much",
            "many",
            "all",
            "is",
            "feeling",
            # an adverb: "haven't read that yet", "never saw this coming" point with no noun ("read a yet")
            "yet",
            "again",
            "already",
            "before",
            "now",
            "either",
            "first",
            "later",
            "soon",
            "lately",  # "I've been really into making this lately"
            "coming",  # "never saw this coming"
            # a verb: "this sounds like a great start" points with no noun ("a sounds like …")
            "sounds",
            "seems",
            "looks",
            "feels",
            "means",
            "makes",
            "helps",
            "works",
            # a particle: "try some of these out" points with no noun ("some of the out")
            "out",
            "up",
            "off",
            "back",
            "down",
            "over",
            "away",
        ]
    )
    | (BE_HAVE - {"be", "been"})
    | (MODALS & {"can", "could", "will", "would"})
)


#: "这幅画", "那本书", "这些照片": a pointing determiner with its measure word, before the noun it points with
_ZH_DET_NOUN = re.compile(
    r"(?P<det>这|那)(?P<measure>些|件|本|种|家|位|只|张|幅|首|部|条|款|座|所|辆)(?=[\u4e00-\u9fff])"
)


def _resolve_zh(content: str, refs: list[str]) -> str | None:
    """ "用户画了这幅画" → "用户画了一幅画"; a bare 它 / 这个 / 那里 / 他 is not guessed at, nor a pointing subject."""
    fixed = content
    for ref in refs:
        m = _ZH_DET_NOUN.search(fixed)
        if not ref.startswith(("这", "那")) or m is None or m.group() != ref or head(fixed).startswith(ref):
            return None
        one = "一些" if m.group("measure") == "些" else "一" + m.group("measure")
        fixed = fixed[: m.start()] + one + fixed[m.end() :]
    return fixed if not unresolved(fixed) else None
