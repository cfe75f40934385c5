"""Name the occasion a memory is about when only the conversation names it (issue 44: a memory a reader can place).

"I challenged myself last Friday and did a charity event. It was great! I truly felt the power of our collective
effort to help people in need." — the third sentence alone gives "User truly felt the power of their collective
effort to help people in need", which points at nothing a detector can see, yet a reader asks: effort at what? Blind
readers of the sixteenth round, told that a memory leaving out the thing or occasion its point depends on is
unresolved, flagged one memory in five for exactly this, and most of those occasions are said either a sentence or two
earlier in the same message ("did a charity event", "had a picnic with some friends from church", "our camping
trip") or in the message it answers ("How did you manage to have the ceremony …?", "How long have you been
surfing?", "How did it go with those producer meetings?").

The occasion is written as the memory's label, in the words it was said with and nothing more: "Charity event: User
truly felt the power of their collective effort …", "Surfing: User likes the connection to nature." A label adds no
claim of its own: the memory's sentence is the speaker's, and the label only says which of the speaker's occasions it
is about, as a note-taker would head it.

Only a closed kind of thing is an occasion: an event, a gathering, a trip, a course or a group (``_SELF_NAMED``,
``_NEEDS_KIND``), a pastime said bare ("aerial yoga", "basketball", ``_PASTIME``), a place the speaker's doings are at
("the park", ``_PLACE``), or a work of the speaker's own ("my second script", ``_WORK``). A determiner opens the
phrase, up to three words describe it, and words of the moment ("great", "crazy", "little") are dropped from it: "a
crazy game" names no occasion (a game of what?). A head that names nothing a reader can place by itself ("the event",
"a trip", "the class") needs a word of its kind before it.

Where it is taken from, first found first:
1. the nearest of the two sentences before the memory's own in the same message that names one, in the speaker's
   voice or in no one's (not a question, not words about the listener's own occasion);
2. the message it answers: its last question that names one, else the one it tells the speaker of ("So glad you had
   fun at the charity gala!"), never the listener's own ("my pottery class", "I joined a travel club").
Where several are named, an event comes before a pastime and a pastime before a place; several of the first kind
name none.

A determiner opening a sentence counts as any other ("The gaming party was a great success!", "Your store looks
great"). It is not attached when the memory names the occasion already, or an occasion of its own (a memory that goes
on "afterward" from an event is still of that event, even beside a pastime it names: "We even played some Chess
afterward" → "Gaming party: …"); when its sentence moves on
("On another note, …") or says another time than the occasion's sentence; when it answers the question with a name
of its own ("User has been to Paris yesterday" after "How's the dance studio going?"); to a memory that is not a
statement in the speaker's own words (the caller decides: a name, a place, a budget say themselves whole).

Chinese alike, with the phrase cut where Chinese marks it rather than at word boundaries: after a measure word, a verb
of taking part or 的 ("上周我参加了一个慈善活动。我真切感受到了大家一起努力的力量。" → "慈善活动：用户真切感受到了
大家一起努力的力量。"), or a pastime said bare ("你最近还在弹钢琴吗？" → "钢琴：…"); a bare head ("活动", "比赛") names
none, and the listener's own ("我参加了一个派对，你呢？") is never taken.

What was tried and not kept (seventeenth round, docs/extraction.md): the session's one pastime for a memory of
playing, the photo's caption, the clause the memory was cut from, and any sentence of the message answered in no
one's voice: each labelled more memories wrongly than rightly.
"""

from __future__ import annotations

import re

from memory.text.language import has_cjk
from memory.text.sentences import sentences
from memory.write.extract.antecedent import quoted_at
from memory.write.extract.base import is_question
from memory.write.same import words as content_words

__all__ = ["occasion_of", "with_occasion"]

#: a place the speaker's doings are at ("Do you take your kid to the park often?" — "Yeah, we go a few times a week");
#: said with an event, the event is the occasion ("a bake sale for the animal shelter")
_PLACE = (
    r"park|beach|gym|museum|zoo|library|church|shelter|studio|lake|mountains|farm|pool|trail|campsite|stadium|"
    r"aquarium|theater|theatre"
)
_AT_PLACE = re.compile(rf"(?:^|\s)(?:{_PLACE})$", re.IGNORECASE)
#: a head noun that names an occasion by itself ("a picnic", "the ceremony", "our parade")
_SELF_NAMED = (
    r"party|parties|ceremony|wedding|conference|convention|tournament|competition|contest|marathon|concert|"
    r"festival|fundraiser|gala|reunion|picnic|barbecue|bbq|potluck|parade|vacation|getaway|cruise|retreat|workshop|"
    r"audition|recital|premiere|hike|meetup|meet-up|expo|exhibition|hackathon|bootcamp|sleepover|gig|"
    r"tryouts?|graduation|cookout|get-together|exam|exams|finals|midterms|choir|orchestra|" + _PLACE
)
#: a head noun that names an occasion only with a word of its kind before it ("a charity event", "our camping trip",
#: "those producer meetings"; "the event", "a trip" say nothing a reader can place). "game", "show", "match",
#: "drive", "session" and a singular "meeting" are not heads: "video game", "external drive", "a great time meeting
#: with …" named none on the tuning conversations
_NEEDS_KIND = (
    r"event|events|gathering|celebration|trip|tour|camp|fair|meetings|class|classes|race|lessons|course|sale|"
    r"brigade|club|league|drive"
)
#: what a drive is held for: "a food drive" is an occasion, "an external drive" is not
_DRIVE_KIND = frozenset(["food", "charity", "donation", "blood", "toy", "clothing", "coat", "book", "fundraising"])
#: a work of the speaker's own, an occasion only as theirs ("my second script", "your dance studio"; "a book" they
#: read is none): what a memory of how it goes is about ("Sometimes User is so relieved …" after "I wrapped up my
#: second script")
_WORK = r"script|screenplay|novel|manuscript|album|project|thesis|business|store|shop|startup|blog|podcast|campaign"
_POINTING = ("the", "that", "this", "those", "these")
_WORK_HEAD = re.compile(rf"^(?:{_WORK})s?$", re.IGNORECASE)
_HEAD = re.compile(rf"^(?:{_SELF_NAMED}|{_NEEDS_KIND}|{_WORK})(?:e?s)?$", re.IGNORECASE)
_HEAD_NEEDS_KIND = re.compile(rf"^(?:{_NEEDS_KIND})(?:e?s)?$", re.IGNORECASE)

#: a determiner opening a phrase, and the words after it up to the next pause (the phrase's head is found among
#: its first four: "a charity event", "the Harry Potter party", "those producer meetings")
_DETERMINER = re.compile(
    r"\b(?P<det>a|an|the|my|our|your|this|that|these|those|another)\s+(?=(?P<rest>[A-Za-z][^,.;:!?()]*))",
    re.IGNORECASE,
)
_WORD = re.compile(r"[A-Za-z][\w'-]*")
#: words of the moment, dropped from an occasion's description ("a crazy game" → "game", which then names none)
_OF_THE_MOMENT = frozenset(
    [
        "great",
        "amazing",
        "awesome",
        "crazy",
        "fun",
        "big",
        "small",
        "smaller",
        "little",
        "new",
        "old",
        "first",
        "last",
        "recent",
        "huge",
        "wonderful",
        "lovely",
        "nice",
        "cool",
        "special",
        "intimate",
        "whole",
        "entire",
        "next",
        "upcoming",
        "own",
        "favorite",
        "favourite",
        "best",
        "incredible",
        "epic",
        "cute",
        "beautiful",
        "long",
        "short",
        "quick",
        "real",
        "good",
        "bad",
        "tough",
        "hard",
        "wild",
        "busy",
        "fantastic",
        "other",
        "same",
        "few",
        "couple",
        "really",
        "super",
        "very",
        "such",
        "totally",
        "successful",
        "memorable",
        "unforgettable",
        "exciting",
        "intense",
        "massive",
        "tiny",
        "proper",
        "local",
        "annual",
        "weekly",
        "monthly",
        "yearly",
    ]
)
#: an adverb or a superlative ("really", "coolest"): of the moment too
_DEGREE = re.compile(r"^[a-z]{2,}(?:ly|est)$")
#: words that end a description before them: the phrase runs past its noun ("a party with friends" keeps "party")
_NOT_A_DESCRIPTION = re.compile(
    r"^(?:and|or|but|with|of|at|in|on|for|to|from|is|was|were|are|it|i|we|you|they|he|she|so|just|really)$",
    re.IGNORECASE,
)
#: a pastime named bare ("aerial yoga is totally worth it", "Do you still play basketball often?", "I've been
#: involved in some charity work"): a closed list, so that "running my biz" or "drawing attention" name none
_PASTIME = re.compile(
    r"\b(?:aerial yoga|hot yoga|yoga|pilates|basketball|football|soccer|tennis|golf|baseball|volleyball|hockey|rugby|"
    r"swimming|jogging|hiking|camping|surfing|skiing|snowboarding|skateboarding|rock climbing|cycling|biking|"
    r"dancing|ballet|painting|pottery|photography|gardening|cooking|baking|gaming|chess|piano|guitar|violin|cello|"
    r"drums|ukulele|singing|knitting|sewing|crocheting|volunteering|charity work|meditation|martial arts|karate|"
    r"boxing|kickboxing|fishing|poetry|calligraphy|woodworking|scrapbooking|physical therapy|rehab|crossfit|"
    r"weightlifting|horseback riding|kayaking|sailing)\b",
    re.IGNORECASE,
)
#: a bracketed note the product path appends to a message ("[shares a photo of …]"): the photo, not what was said
_BRACKETED = re.compile(r"\[[^\]]*\]")


def _described(words: list[str], det: str, *, asked: bool = False) -> str | None:
    """The occasion the words after a determiner ``det`` name: the first head noun among its first four words with the
    words before it, those of the moment dropped ("camping trip" of "our camping trip last summer"; "a crazy game":
    None, a game of what?), or None when no head comes before the phrase runs on."""
    for i, word in enumerate(words[:4]):
        if _NOT_A_DESCRIPTION.match(word):
            return None  # the phrase ran past its noun ("a lot of fun at the party": "the party" is seen on its own)
        if not _HEAD.match(word):
            continue
        if _WORK_HEAD.match(word) and det not in ("my", "our", "your") and not (asked and det in _POINTING):
            return None  # "a book", "the store": no work of the speaker's ("How's the campaign going?" asks of one)
        kept = [w for w in words[:i] if w.lower() not in _OF_THE_MOMENT and not _DEGREE.search(w)]
        if _HEAD_NEEDS_KIND.match(word) and not kept:
            return None
        if word.lower() == "drive" and kept[-1].lower() not in _DRIVE_KIND:
            return None
        return " ".join([*kept, word.lower()])
    return None


#: a pastime said in a list of doings ("… exploring and hiking or playing board games"): one of several, none the
#: occasion; the marker makes the sentence name several
_LISTED_BEFORE = re.compile(r"(?:\w\s+[\w'-]+\s*,|\band|\bor)\s*$", re.IGNORECASE)  # not "Cool, rehab …"
_LISTED_AFTER = re.compile(  # not a clause after it: "… some charity work and it's been really rewarding"
    r"\s*(?:,|and\b|or\b)(?!\s*(?:it|it's|i|i'm|i've|we|we're|they|that|this|he|she|so|then|but)\b)",
    re.IGNORECASE,
)
_SEVERAL = "several pastimes"


def _occasions(text: str, *, listener: bool = False, speaker: bool = False, yours: bool = False) -> list[str]:
    """Every occasion a text names (a pastime, or a determiner's phrase with an occasion's head), in the order last
    said; one per head noun, said with the most words ("the Harry Potter party … a lot of fun at the party" is the
    Harry Potter party). Said by the ``listener``, their own ("my pottery class") is not the speaker's occasion; said
    by the ``speaker``, nor is the listener's ("your trip"); ``yours``: only what the listener calls the speaker's
    ("I loved my trip, how was your camping trip?")."""
    text = _BRACKETED.sub(" ", text)
    found: list[tuple[int, str]] = []
    spans: list[tuple[int, int]] = []
    for m in _DETERMINER.finditer(text):
        det = m.group("det").lower()
        if (listener and det in ("my", "our")) or (speaker and det == "your") or (yours and det != "your"):
            continue
        phrase = _described(_WORD.findall(m.group("rest")), det, asked=listener)
        if phrase:
            found.append((m.start(), phrase))
            spans.append((m.start(), m.start("rest") + len(m.group("rest"))))
    for m in _PASTIME.finditer(text):
        if yours or any(start <= m.start() < end for start, end in spans):
            continue  # "our camping trip" is the trip, not camping as well
        found.append((m.start(), m.group().lower()))
        if _LISTED_BEFORE.search(text[: m.start()]) or _LISTED_AFTER.match(text[m.end() :]):
            found.append((m.start(), _SEVERAL))  # "exploring and hiking or playing board games": one of several
    by_head: dict[str, tuple[int, str]] = {}
    for at, phrase in sorted(found):
        head = phrase.split()[-1]
        longest = max(phrase, by_head.pop(head, (0, ""))[1], key=lambda o: len(o.split()))
        by_head[head] = (at, longest)
    return [phrase for _, phrase in sorted(by_head.values())]


#: a sentence to or about the listener ("congrats on the fair!", "sorry about the hike"): the occasions it names
#: are theirs in the speaker's message, and the speaker's only when the listener asks about them
_YOU = re.compile(r"\b(?:you|your|yours|you're|you've|ya)\b", re.IGNORECASE)


def _asked(previous: str) -> str | None:
    """The occasion of the speaker's that the message answered asks about: the one its last question naming any
    names, else the one occasion the message names in words to the speaker ("So glad you had a blast at the Harry
    Potter party! … Did you dress up?"); None when that names several ("hiking or board games?"), or only its
    own."""
    said = sentences(_BRACKETED.sub(" ", previous))
    for at, question in reversed([(i, s) for i, s in enumerate(said) if is_question(s)]):
        found = _occasions(question, listener=True, yours=bool(_FIRST.search(question)))
        if not found and at > 0 and _IT.search(question) and not _FIRST.search(said[at - 1]):
            found = _occasions(said[at - 1], listener=True)  # "Being in the mountains is the best. What was … of it?"
        if found:
            return _one(found)
    # "… wanted to let you know I joined a travel club!" is the listener's own news; "I wish you the best on your
    # party" is the speaker's
    told = [o for s in said if _YOU.search(s) for o in _occasions(s, listener=True, yours=bool(_FIRST.search(s)))]
    return _one(list(dict.fromkeys(told)))


#: a question about what the sentence before it names: "What was your favorite part of it?", "How's it coming along?"
_IT = re.compile(r"\bit\b", re.IGNORECASE)


def _one(found: list[str]) -> str | None:
    """The one occasion said, an event before a pastime before a place ("a bake sale for the animal shelter" is the
    bake sale, "your victory in the tournament … your gaming skills" the tournament); None for none, or several of
    the first kind said."""
    if _SEVERAL in found:
        return None
    pastimes = [o for o in found if _PASTIME.fullmatch(o)]
    places = [o for o in found if _AT_PLACE.search(o)]
    events = [o for o in found if o not in pastimes and o not in places]
    kind = events or pastimes or places
    return kind[0] if len(kind) == 1 else None


#: how many sentences back the message itself may name a memory's occasion ("… did a charity event. It was great! I
#: truly felt …"); further back, the speaker has usually moved on
_BACK = 2


def occasion_of(content: str, evidence: str, message: str, previous: str | None = None) -> str | None:
    """The occasion ``content`` (quoting ``evidence`` of ``message``) is about when it does not name it itself: the one
    the nearest of the two sentences before it names in the speaker's own words, else the one the message answered
    (``previous``) asks about; None when there is none, when the nearest names several, or when the memory names it,
    an occasion of its own ("User went to a pride parade" after "How was the concert?": the speaker moved on) or a
    place of its own ("User has been to Paris yesterday"), or moves on itself ("By the way, …"). Chinese:
    ``_occasion_zh``."""
    if not message:
        return None
    if has_cjk(content) or has_cjk(message):
        return _occasion_zh(content, evidence, message, previous)
    after = bool(_AFTERWARD.search(content))  # "We even played some Chess afterward": after what, not which pastime
    if not after and (_occasions(content) or _names_a_kind(content)):
        return None
    at = quoted_at(evidence, message)
    if _MOVES_ON.match(_SENTENCE_END.split(message[: max(at, 0)])[-1] + evidence):
        return None  # "On another note, my little dudes got a new tank!": not of the tournament just asked about
    before = sentences(message[:at])[-_BACK:] if at > 0 else []
    source = next((s for s in reversed(before) if _own(s, previous) and _occasions(s)), None)
    if source is not None and _other_time(source, evidence):
        return None  # "I went to a charity gala on Sunday. … I bought new running shoes today.": not at the gala
    found = _occasions(source, speaker=True) if source is not None else None
    if found is not None:
        occasion = _one(found)
    elif previous and not _NAME.search(content):  # "User has been to Paris …" after "How's the dance studio going?"
        occasion = _asked(previous)
    else:
        occasion = None
    if occasion is None or content_words(occasion) & content_words(content):
        return None  # none, several, or the memory names it ("… at the event for an important cause")
    if after and (_PASTIME.fullmatch(occasion) or _AT_PLACE.search(occasion)):
        return None  # "afterward" goes on from an event: a pastime or a place is not what it was after
    return occasion


#: a memory that goes on from an occasion said before it: "… played some Chess afterward", "After that, …"
_AFTERWARD = re.compile(r"\b(?:afterwards?|after that|after it)\b", re.IGNORECASE)


#: when a sentence says something happened ("on Sunday", "last week", "today", "two days ago")
_WHEN = re.compile(
    r"\b(?:yesterday|today|tonight|tomorrow|(?:last|this|next)\s+[a-z]+|on\s+(?:mon|tues|wednes|thurs|fri|satur|sun)day|"
    r"[a-z]+\s+(?:days?|weeks?|months?|years?)\s+ago)\b",
    re.IGNORECASE,
)


def _other_time(source: str, said: str) -> bool:
    """Whether the memory's sentence says it happened at another time than the occasion's sentence does."""
    then = {m.group().lower() for m in _WHEN.finditer(source)}
    now = {m.group().lower() for m in _WHEN.finditer(said)}
    return bool(then and now and not then & now)


def _own(sentence: str, previous: str | None) -> bool:
    """Whether a sentence said before the memory's own may name the speaker's occasion: a statement, in the
    speaker's voice ("I … did a charity event") or in no one's ("There were arts and crafts at a community event"),
    unless it is about the listener ("congrats on the fair!", "Hey Caroline, sorry about the hike": the hike the
    message answered told of)."""
    if is_question(sentence):
        return False
    if _FIRST.search(sentence):
        return True
    told = {o.split()[-1] for o in _occasions(previous or "")}
    return not _YOU.search(sentence) and not any(o.split()[-1] in told for o in _occasions(sentence))


#: a sentence that opens on a new topic: the occasion said or asked about before it is not its own
_MOVES_ON = re.compile(
    r"^\W*(?:(?:oh|and|so|hey|ah)\b\W*)?(?:on another note|by the way|btw|fyi|anyway|anyways|also|speaking of|"
    r"in other news|other than that)\b",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"[.!?…]\s+")
#: a place the memory names ("User has been to Paris yesterday", "… sitting in Florida …"): it is placed by it ("their
#: Gryffindor scarf", "talks with Gatorade" name things, and leave the occasion open)
_NAME = re.compile(
    r"\b(?:to|in|at|from|of|visited|visiting|around|across)\s+(?!(?:User|Last|This|Next|Monday|Tuesday|Wednesday|Thursday|"
    r"Friday|Saturday|Sunday|January|February|March|April|May|June|July|August|September|October|November|"
    r"December)\b)[A-Z][a-z]+"
)
_FIRST = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|me|my|we|we're|we've|us|our)\b")


def _names_a_kind(content: str) -> bool:
    """Whether the memory names an occasion's kind itself ("a career fair", "their trip"; a work it speaks of, "their
    script", is no occasion of its own)."""
    return bool(_PASTIME.search(content)) or any(
        _HEAD.match(w) and not _WORK_HEAD.match(w) for w in _WORD.findall(content)
    )


def with_occasion(content: str, occasion: str | None) -> str:
    """``content`` headed by ``occasion`` as its label ("Surfing: User likes the connection to nature.", "慈善活动：用户
    …")."""
    if not occasion:
        return content
    if has_cjk(occasion):
        return f"{occasion}：{content}"
    return f"{occasion[:1].upper()}{occasion[1:]}: {content}"


# -- Chinese ---------------------------------------------------------------------------------------------------
#: a Chinese occasion's head: an event, a gathering, a trip, a course ("慈善活动", "生日聚会", "篮球比赛")
_ZH_HEAD = (
    r"(?:活动|聚会|派对|比赛|婚礼|会议|音乐会|典礼|展览|马拉松|演出|训练营|野餐|烧烤|旅行|旅游|课|课程|讲座|义卖|集市)"
)
#: where a Chinese occasion's words begin: after a measure word, a verb of taking part or a possessive 的
#: ("参加了一个慈善活动", "去了音乐会", "报了一个瑜伽课", "你们的婚礼"), up to four characters of its kind before its
#: head; no word segmenter is needed because the phrase is cut at the measure word, the verb or 的, never inside a word
_ZH_OCCASION = re.compile(
    r"(?:一个|一场|一次|一趟|个|场|次|趟|参加了?|去了?|办了?|举办了?|组织了?|报了?|上了?|的)"
    rf"(?P<occ>[\u4e00-\u9fff]{{0,4}}?{_ZH_HEAD})"
)
#: a Chinese pastime said bare ("你最近还在弹钢琴吗？", "我最近迷上了瑜伽")
_ZH_PASTIME = re.compile(
    r"钢琴|吉他|小提琴|瑜伽|篮球|足球|网球|羽毛球|乒乓球|游泳|跑步|徒步|露营|冲浪|滑雪|攀岩|画画|绘画|陶艺|摄影|烘焙|"
    r"园艺|跳舞|舞蹈|书法|围棋|象棋|钓鱼|骑行|志愿服务|做志愿者"
)
#: the listener's voice without the speaker's: "你的派对怎么样？" asks of the speaker's; "我参加了一个派对，你呢？"
#: is the listener's own
_ZH_YOU = re.compile(r"[你您]")
_ZH_I = re.compile(r"我")
#: a Chinese sentence that opens on a new topic ("对了，…", "另外，…")
_ZH_MOVES_ON = re.compile(r"^(?:对了|另外|顺便说一下|顺便|话说|说起来)")


#: what the boundary left at the phrase's start ("参加了一个慈善活动": the measure word after the verb)
_ZH_LEAD = re.compile(r"^(?:一[个场次趟]|[个场次趟了])")
#: a head that names nothing a reader can place by itself ("活动", "比赛": which?)
_ZH_BARE_HEAD = frozenset(["活动", "比赛", "会议", "课", "课程", "旅行", "旅游", "讲座"])


def _zh_found(sentence: str) -> list[str]:
    """The occasions and pastimes a Chinese sentence names, in order, once each."""
    found = [
        occ
        for m in _ZH_OCCASION.finditer(sentence)
        if (occ := _ZH_LEAD.sub("", m.group("occ"))) and occ not in _ZH_BARE_HEAD
    ]
    found += [m.group() for m in _ZH_PASTIME.finditer(sentence) if not any(m.group() in o for o in found)]
    return list(dict.fromkeys(found))


def _occasion_zh(content: str, evidence: str, message: str, previous: str | None) -> str | None:
    """The Chinese occasion: the one the nearest of the two sentences before the memory's own names in the speaker's
    voice ("上周我参加了一个慈善活动。我真切感受到了大家一起努力的力量。" → "慈善活动"), else the one the message
    answered asks the speaker about ("你最近还在弹钢琴吗？"); None when several, none, the listener's own, or the
    memory names an occasion or a pastime itself."""
    if _zh_found(content) or _ZH_MOVES_ON.match(evidence.strip()):
        return None  # "对了，我的猫有了新窝": the speaker moved on
    at = message.find(evidence.strip()[:8]) if evidence.strip() else -1
    before = sentences(message[:at])[-_BACK:] if at > 0 else []
    own = [s for s in reversed(before) if not is_question(s) and not (_ZH_YOU.search(s) and not _ZH_I.search(s))]
    found = next((f for s in own if (f := _zh_found(s))), None)
    if found is None and previous:
        asked = [s for s in sentences(previous) if is_question(s) and _ZH_YOU.search(s) and not _ZH_I.search(s)]
        found = next((f for s in reversed(asked) if (f := _zh_found(s))), None)
    return found[0] if found and len(found) == 1 else None
