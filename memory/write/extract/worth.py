"""Worth keeping: a reaction or an evaluation of the moment is not a fact.

"User is so excited and thankful.", "User and others are a great team.", "User had a great time.", "Knowing User is
helping is amazing." are true when said and say nothing a reader needs later; the episode keeps them. Rules, read off
the tuning conversations of the LoCoMo dev split (conv-26, conv-30: memories no observation agreed with) and measured
on the conversations left out (``bench/facts_standalone.py``). A statement is trivial when its head (before any
"; …" appended) is only one of these shapes, with nothing named beyond the mood or the verdict:

- a mood or a state of the moment: "User is so excited (and thankful)", "User feels calm again", "User had a blast";
- a verdict on something: "<…> is/was amazing / so cool / the best", "User and others are a great team";
- a wish or a look forward without a thing or a date: "User is looking forward to more cool memories", "User and
  others will make some awesome memories";
- a pep talk or a reassurance: resolve with nothing named ("User is gonna keep chasing after dreams.", "User wants
  to keep making a difference.", "User keeps facing new challenges, but they're sure it'll be worth it in the end.",
  "Now User is stepping into the unknown and hoping for the best.");
- a mood caused by the moment ("The colors make User feel calm.", "Being around people who back User up is beyond
  words.", "User is so lucky to have such a great support
  system around them.");
- news announced, not told ("User shared some good news; they've got something to share.", "User has been working
  on something exciting.": what it is, the next sentence or the episode says);
- words to the listener, not about the speaker: "Look what User made.", "Take a look at what User found." (the
  offline grammar read an imperative as a statement; what was shown is in the episode), and a remark on the
  listener's lot: "User gets how life can be busy.", "User can only imagine how tough it must be.", "Sorry User
  hasn't been around.", "Count on User for support.";
- too little said: fewer than two content words besides the speaker ("User's full support.").

Chinese alike: "用户很开心。", "用户今天心情很好。", "用户觉得太棒了。", "用户期待更多美好的回忆。",
"用户会继续加油的。".
"""

from __future__ import annotations

import re

from memory.text.auxiliaries import BE_HAVE
from memory.text.language import has_cjk
from memory.write.extract.references import head

__all__ = ["DATE_STAMP", "pruned", "trivial", "untold"]

_MOOD = (
    r"(?:excited|thrilled|stoked|happy|glad|thankful|grateful|blessed|proud|pumped|psyched|ecstatic|overjoyed|"
    r"delighted|relieved|calm|relaxed|peaceful|content|fine|good|great|okay|ok|tired|exhausted|drained|sad|down|"
    r"bummed|upset|nervous|anxious|worried|scared|stressed|overwhelmed|inspired|motivated|touched|moved|amazed|"
    r"speechless|honored|honoured|lucky|fortunate|curious|hopeful|optimistic|positive|better|alive|refreshed|"
    r"energized|energised|rejuvenated|at peace|on cloud nine|over the moon|in awe|humbled|busy)"
)
_INTENS = (
    r"(?:so |really |super |very |pretty |truly |totally |absolutely |just |feeling |kinda |a bit |quite |extra |"
    r"also |still |now |finally |all |again )*"
)
#: "User is so excited and thankful.", "User feels calm again.", "User was really scared."
_MOOD_ONLY = re.compile(
    rf"^(?:User|User and others)(?:'s| is| was| are| were| feels| felt| has been| have been| 's been| got| gets| "
    rf"became| is feeling| was feeling| is getting)\s+{_INTENS}{_MOOD}"
    rf"(?:\s*(?:,|and|but|&)\s*{_INTENS}{_MOOD})*(?:\s+(?:again|now|today|right now|lately|too|as well))?\s*[.!]?$",
    re.I,
)
#: "User is so grateful for all the support.", "User was happy and thankful for everything."
_MOOD_FOR = re.compile(
    rf"^(?:User|User and others) (?:is|was|are|were|feels|felt)\s+{_INTENS}{_MOOD}"
    rf"(?:\s*(?:,|and|&)\s*{_INTENS}{_MOOD})*"
    r"\s+(?:for|about|of|with)\s+(?:all\s+)?(?:the|their|this|that|it|everything|them)\s*(?:support|help|love|"
    r"encouragement|kindness|kind words|chat|talk|advice)?(?:\s+(?:they've|they have|they) (?:got|gotten|had|received)"
    r"(?:\s+from [\w ]+)?)?\s*[.!]?$",
    re.I,
)
#: "User and others had a ton of fun.", "User and others ended up laughing and having a good time.", "User is not doing
#: anything then.", "User has been keeping busy.", "User is super proud of what they accomplished.", "User and others
#: have each other's back through good times and bad.": a moment's good time, or nothing, said as if it were news
_MOMENT = re.compile(
    r"^(?:User|User and others)\b[^;]{0,40}?\b(?:had|have|has had|having)\s+(?:so much |lots of |a lot of |a ton of |"
    r"tons of |loads of |such |some |a bunch of )?fun(?: together)?\s*[.!]?$|"
    r"^(?:User|User and others)\b[^;]{0,30}?\b(?:laughing and )?having a (?:good|great|fun) time\s*[.!]?$|"
    # "User and others had a great time talking about their childhood": a good talk, of the moment
    r"^(?:User|User and others) (?:had|have|has had) (?:a |such a )?(?:great|good|fun|wonderful|lovely) time "
    r"(?:talking|chatting|catching up|reminiscing)\b(?![^;]*\b(?!User\b)(?-i:[A-Z][a-z]))[^;]*$|"
    r"^(?:User|User and others) (?:is|are|was|were) (?:not |n't )?(?:doing|up to) (?:anything|nothing|much)"
    r"(?: (?:then|now|today|tonight|right now|at the moment))?\s*[.!]?$|"
    r"^(?:User|User and others) (?:has been|have been|is|are|was|were|'s been) keeping (?:busy|themselves busy)"
    r"(?: since they last talked| lately| recently)?\s*[.!]?$|"
    r"^(?:User|User and others) (?:is|are|was|were|feels?|felt) (?:so |really |super |very |pretty |totally )*"
    r"(?:proud|happy|glad|thrilled|pleased) (?:of|with|about) (?:what|how much|all) (?:they|User) "
    r"(?:accomplished|achieved|did|have done|'ve done|have achieved|'ve achieved)\s*[.!]?$|"
    r"^(?:User|User and others) (?:always )?(?:have|has|had) each other's backs?\b|"
    rf"^(?:User|User and others) (?:is|are|was|were|feels?|felt) {_INTENS}{_MOOD} (?:that )?(?:they|User) (?:could|can|"
    r"got to|get to|were able to|was able to) "
    r"(?:help|share|be there|make a difference|give back|contribute|support|lend a hand)"
    r"(?-i:[^.;()A-Z0-9]{0,40})[.!]?$|"  # "User is really happy they could help out."
    r"^(?:User|User and others) (?:have|has|'ve) (?:got )?the right (?:attitude|mindset|spirit)\b|"
    r"^(?:User|User and others) (?:have|has|'ve) (?:got )?the power to make a (?:real |big )?difference\b|"
    r"^(?:User|User and others) (?:wants? to |will |is gonna |are gonna )?keep reaching for (?:new |their |big )?"
    r"(?:goals|dreams|the stars)\s*[.!]?$|"
    r"^(?:User|User and others) (?:felt|feels?|had) (?:a )?(?:mix|rollercoaster|whirlwind) of (?:emotions|feelings)\b|"
    r"^Life(?:'s| has) been (?:a bit |pretty |kinda |so |really )?(?:rough|tough|hard|crazy|busy|good|great|hectic)"
    r"(?: lately| recently)?(?:,? but User(?: is|'s) (?:doing )?(?:alright|all right|ok|okay|fine|good|well))?"
    r"\s*[.!]?$|"
    r"^(?:User|User and others) (?:is |are |'s )?(?:gonna |going to |will )?keep (?:trying|doing|learning|exploring) "
    r"new things\s*[.!]?$|"
    r"^(?:User|User and others) (?:keeps?|kept) (?:bouncing|swinging|switching|going back and forth) between "
    r"(?:\w+ )?(?:emotions|feelings)\b|"
    r"^(?:User|User and others) (?:is|are|was|were|feels?|felt) (?:so |really |very |super )*(?:lucky|blessed|"
    r"fortunate) to have (?:everyone|everybody|them all|all of them)(?: with them| around)?\s*[.!]?$|"
    rf"^(?:User|User and others) (?:is|are|was|were|feels?|felt) {_INTENS}{_MOOD}(?:\s*(?:,|and)\s*{_INTENS}{_MOOD})* "
    r"to (?:make it through|get through it|be here|be back)(?: (?:without incident|safely|in one piece|okay|ok|alive|"
    r"home))?\s*[.!]?$",  # "User felt relieved and grateful to make it through without incident."
    re.I,
)
#: "User has been having some tough times lately.", "User had a busy week.", "A lot's been going on in User's life."
_SPELL = re.compile(
    r"^(?:User|User and others) (?:has been having|have been having|had|has had|have had|is having|are having|"
    r"has been through|went through)\s+(?:a |an |some |such a )?(?:really |so |pretty |super )?(?:tough|hard|rough|"
    r"busy|crazy|hectic|long|difficult|stressful|wild|good|great|nice|lovely|slow|quiet)\s+(?:few\s+)?(?:times?|weeks?|"
    r"days?|months?|year|while|patch|stretch|ride)(?:\s+(?:lately|recently|now|so far|since (?:they|User) (?:last )?"
    r"(?:talked|spoke|chatted)))?\s*[.!]?$|"
    r"^(?:A lot|So much|Lots|(?:Crazy|Many|So many) things)(?:'s| has| have) been (?:going on|happening) "
    r"(?:in User's life|with User|for User)(?: lately| recently)?\s*[.!]?$|"
    r"^(?:User|User and others) (?:has been|have been|is|are|'s been|was|were) (?:doing|going) (?:really |so |pretty |"
    r"super )?(?:great|well|good|fine|okay|ok|alright|all right)(?: lately| recently| so far)?\s*[.!]?$|"
    r"^User's (?:week|month|day|weekend|year|life)(?:'s| has| was| is|'s been| has been)\s+(?:really |so |super |"
    r"pretty |quite )?(?:busy|crazy|hectic|tough|rough|hard|wild|slow|quiet|long|good|great)(?: lately)?\s*[.!]?$|"
    r"^(?:This|Last|The past|The last) (?:week|month|year|weekend|few days)(?:'s| has| was| is|'s been| has been)\s+"
    r"(?:really |so |super |pretty |quite )?(?:busy|crazy|hectic|tough|rough|hard|wild|slow|quiet|long)"
    r"(?: for User)?\s*[.!]?$",
    re.I,
)
#: resolve with nothing named: "User is gonna keep chasing after dreams.", "User wants to help make a difference."
_PEP = re.compile(
    r"^(?:Now |So )?(?:User|User and others) (?:is |are |was |were |'s |'re )?(?:(?:really |so |totally |just )?"
    r"(?:gonna|going to|wants? to|will|plans? to|hopes? to|determined to|trying to|ready to|up for|can't wait to)\s+)?"
    r"(?:keep |keeps |continue to |help |always )?(?:chas\w+|follow\w*|pursu\w+|go(?:ing)? (?:after|for)|mak\w+|"
    r"reach\w*|liv\w+|do(?:ing)?) (?:after |on )?(?:their |the |a |all their |big )?(?:(?:real |positive |big |huge )?"
    r"difference|dreams?|goals?|best(?: life)?|it happen|it work|this work|things happen)(?: a reality| come true)?"
    r"(?: together)?\s*[.!]?$|"
    r"^(?:Now |So )?(?:User|User and others) (?:is |are )?(?:gonna |going to |will |won't )?(?:not |never )?"
    r"(?:gonna |going to )?"
    r"(?:keeps? (?:going|pushing|at it|trying|moving forward|fighting)|give up|giving up|stop(?:ping)?)\s*[.!]?$|"
    r"^Giving it (?:User's|their) all\b|"  # "Giving it User's all every time they're on the court": a motto
    r"(?:worth it in the end|pay off in the end|hoping for the best|hoping to hear back(?: from them)?(?: soon)?|"
    r"there's (?:still )?(?:more|a lot more|lots more) to do|nothing but good (?:stuff|things) (?:coming|ahead)|"
    r"(?:ain't|isn't|hasn't been|wasn't) (?:been )?a walk in the "
    r"park(?:, that's for sure)?|make everything just right|"
    r"even though it's been (?:so |really )?(?:tough|hard|rough))\s*[.!]?$|"
    # "User's hard work is paying off.": a pep line whatever it is said of, unless it says what paid off
    r"^(?:User's|User and others'|their) (?:hard )?work (?:is |has )?(?:paying|paid|pays) off\s*[.!]?$|"
    # "User has been working hard and it's paying off.", "… shows User's hard work paid off.": effort, nothing named
    r"^(?:User|User and others) (?:has been|have been|is|are|was|were) working (?:so |really )?hard(?: on it)? and "
    r"(?:it's|it is|it has been|it's been) (?:paying|paid) off\s*[.!]?$|"
    r"\bshows? (?:User's|their) hard work (?:paid|pays|is paying) off\s*[.!]?$|"
    # "User and others have been putting in a lot of work and achieving their goals.": effort and goals, unnamed
    r"^(?:User|User and others) (?:has been |have been |is |are )?putting in (?:a lot of |so much |lots of )?(?:hard )?"
    r"(?:work|effort) and (?:achieving|reaching|hitting|smashing) (?:their |our )?goals\s*[.!]?$|"
    # "Exams can be challenging, but User is putting in their best effort.": effort, whatever it is for
    r"(?:^|, but |; )User (?:is )?putting in their best effort\s*[.!]?$|"
    # "Having all the hard work … User put into writing pay off was definitely rewarding.": the same, said as a verdict
    r"^Having (?:all )?(?:the|User's|their) hard work\b[^;]*\bpay off\b|"
    # "User believes that providing the right assistance … can make a lasting impact.": a maxim, nothing of theirs
    r"^User believes? (?:that )?[^;]*\bcan make a (?:lasting|big|real|huge|positive) (?:impact|difference)\s*[.!]?$|"
    # "User is not gonna let anything or anyone stop them.", "User likes making a positive impact.": a motto
    r"^(?:User|User and others) (?:is |are |was |were )?(?:not |never )?(?:gonna |going to )?(?:let|letting) "
    r"(?:anything|anyone|nothing|no one)(?: or (?:anything|anyone))? (?:stop|hold) (?:them|User)(?: back)?\s*[.!]?$|"
    r"^(?:User|User and others) (?:likes?|loves?|enjoys?) making (?:a |an )?(?:positive |real |big |lasting )?"
    r"(?:impact|difference)\s*[.!]?$|"
    # "User's actions, no matter how small, can have a big impact.", "Being able to make a difference brings User
    # joy.": a maxim of making a difference, said of anyone
    r"^(?:User's|User and others'|their) (?:actions?|efforts?|choices|words)\b[^;]*\bcan (?:have|make) a (?:big|huge|"
    r"real|lasting|positive) (?:impact|difference)\s*[.!]?$|"
    r"^(?:Being able to |Getting to |Knowing (?:User|they) can )?(?:make|making|help make) a (?:real |positive |big )?"
    r"difference (?:in (?:people's|others'|someone's) lives )?(?:brings|gives) User (?:so much )?(?:joy|happiness|"
    r"purpose|meaning)\s*[.!]?$|"
    # "User plans to keep using their voice to make a change.": the same hope, with a voice
    r"^(?:User|User and others) (?:plans? to |wants? to |will )?(?:keep )?using their voices? to (?:make|create|"
    r"bring) (?:a |positive |real )?(?:change|difference)\s*[.!]?$|"
    # "User is hoping to raise awareness and start conversations to create positive change.": a hope, nothing named
    r"^(?:User|User and others) (?:is |are )?(?:hoping|hopes?|wants?) to\b[^.;]*\b(?:create|bring|make|spark) "
    r"(?:positive |real |lasting )?(?:change|a difference)\s*[.!]?$",
    re.I,
)
#: what a team says of itself: "User and others trust and rely on one another …", "User and others push each other
#: to be their best …", "User and others have different skills and talents, but they all contribute …"
_TEAM_SAYING = re.compile(
    r"^User and (?:others|their (?:team|teammates|crew|squad)) (?:all )?(?:trust|rely on|push|lift|support|motivate|"
    r"have each other's backs|have different skills|bring out the best)\b",
    re.I,
)
#: a way of coping said as a motto: "User is holding on to hope.", "User always tries to look on the bright side of
#: things.", "User is rolling with the punches." (the learned decision reads these as facts: p about 0.45 to 0.5)
_COPING = re.compile(
    r"^(?:Now |So )?(?:User|User and others)(?: is| are| was| 's)?(?:\s+(?:just|really|always|still|trying to|tries to|"
    r"try to|keeps?|choosing to|learning to))*\s+(?:hold(?:ing|s)? on to hope|look(?:ing|s)? on the bright side"
    r"(?: of things)?|stay(?:ing|s)? (?:positive|hopeful|in the moment)|count(?:ing|s)? their blessings|"
    r"roll(?:ing|s)? with the punches|go(?:ing|es)? with the flow|enjoy(?:ing|s)? the ride|"
    r"tak(?:e|es|ing) (?:it|things) (?:one day at a time|slow|easy)|find(?:ing|s)? their footing|"
    r"down for (?:something new|anything|whatever|new things)|"
    r"learn(?:s|ing)? (?:a lot|so much|a ton) from (?:their|the) (?:own )?(?:struggles|mistakes|failures|setbacks)|"
    r"(?:treasur|cherish)(?:es|ing)? every (?:memory|moment))"
    r"(?: these days| lately| right now| for now)?\s*[.!]?$",
    re.I,
)
#: a mood the moment caused: "The colors make User feel calm.", "Being around people who back User up is beyond words."
_MOOD_CAUSED = re.compile(
    rf"^(?:The|This|That|It|These|Those)\b[^,;]{{0,40}}\b(?:makes?|made|gets?|got) (?:User|User and others) "
    rf"(?:feel |so |really )*{_INTENS}{_MOOD}\s*[.!]?$|"
    # "Seeing these figures just makes User feel invincible."
    r"^(?:Seeing|Watching|Having|Being|Knowing|Hearing|Looking at)\b[^,;]{0,90}\b(?:makes?|made) "
    r"(?:User|User and others) feel (?:so |really |totally |truly )*[a-z-]+\s*[.!]?$|"
    r"^(?:Seeing|Watching|Having|Being|Knowing|Hearing)\b[^,;]{0,90}\b(?:warms|warmed|fills|filled|touches|touched) "
    r"User's heart\b|"  # "Seeing everyone come together warms User's heart and fills them with hope."
    r"^(?:Seeing|Watching|Having|Being|Knowing|Hearing)\b[^,;]{0,90}\b(?:fills|filled) User with (?:so much |such |"
    r"a lot of )?(?:joy|pride|hope|happiness|gratitude|love)\s*[.!]?$|"  # "Seeing the impact … fills User with joy."
    r"\b(?:is|was|'s) (?:so |just |truly |really )?(?:beyond words|indescribable|hard to put into words|"
    r"everything)\s*[.!]?$|"
    r"^(?:User|User and others) (?:is|are|was|were|feels?|felt) (?:so |really |very |super |pretty |also )*(?:lucky|"
    r"blessed|fortunate|grateful|thankful) (?:to have|for having|for|(?:that )?they have) (?:such )?(?:a |an |their )?"
    r"(?:great |amazing |awesome |wonderful |good |strong |solid |supportive |lovely )*(?:support(?: system)?|people|"
    r"friends|folks|fam|family|crew|gang|network|bunch)(?: and (?:family|friends))?(?: around (?:them|User))?"
    r"(?: like (?:that|this|them)| who (?:support|back|believe in) them)?\s*[.!]?$",
    re.I,
)
#: news announced, not told: "User shared some good news; they've got something to share."
_ANNOUNCED = re.compile(
    r"^(?:User|User and others) (?:has|have|shared|had|'s got|got|has got|have got) (?:some )?(?:good |great |big |"
    r"exciting |amazing )?(?:news(?: to (?:share|tell))?|something to (?:share|tell))"
    r"(?:\s*(?:;|,|and)\s*(?:they've|they have|they) (?:got|have) (?:something|some news) to (?:share|tell))?\s*[.!]?$",
    re.I,
)
#: news told by its kind only: "User picked up new skills.", "User had a milestone moment at the gym …", "User
#: recently went to an event.", "User tried something new on their vacation.": which skill, moment, event, the next
#: sentence of the message tells when anything does ("Recently started learning an instrument.")
_UNTOLD = re.compile(
    r"^(?:User|User and others) (?:\w+ ){0,4}?(?:(?:a|an|some|new|a few)\s+(?:(?:new|big|fun|cool|exciting|small|huge|"
    r"little|bit of a|great)\s+)?(?:projects?|events?|skills?|milestone(?: moment)?|setback|hobby|hobbies|challenge|"
    r"goal|change|changes|thing|things|adventure|experience)|something new|something (?:big|cool|fun|exciting))\b"
    # nothing after it but when and where: "… at the gym last Friday (2023-12-08)."
    r"(?:\s+(?:lately|recently|today|yesterday|too|again|now|at the \w+|on (?:their|the) \w+|(?:last|this) \w+))*"
    r"\s*(?:\([^()]*\))?\s*[.!]?$",
    re.I,
)


def untold(content: str) -> bool:
    """Whether ``content`` tells its news by its kind only ("User picked up new skills."): kept, unless the message's
    next memory tells which (``extractor.standing`` joins the two)."""
    return bool(_UNTOLD.search(head(content)))


#: a name in a memory besides the speaker's: "User was in Chicago" says where
_NAMED = re.compile(r"(?<=\s)(?!User\b)[A-Z][a-z]+")
#: the words of a line that names nothing of the speaker's life: a kind of news (project, event, game, hurdles),
#: a verdict or size (crazy, thrilling, big), the chat's light verbs (had, got, see, faced), times and function words
_NOTHING_NAMED = frozenset(
    word
    for line in (
        "user user's others and or but the a an some all kinds of another any this that these those their",
        "them they who which what when where it its to in on at for with from by up out about over as has",
        "have had having is are was were be been being got get gets getting go went going gone do did does",
        "done can could will would just also really so very too recently lately now still even again finally",
        "last week weekend month year day days ago today yesterday time times project projects event events",
        "experience experiences game games stories story spots spot scenery things thing stuff people someone",
        "somebody picture pic pics photo photos shot shots moment moments new big fun cool crazy thrilling",
        "lovely epic amazing great awesome nice special tough hard little huge exciting interesting beautiful",
        "see saw seen meet met held hold faced face working work worked talked talk shared share made make",
        "took take tried try started start career life lot lots hurdles challenges challenge kind kinds such",
        "quite pretty reminded remind reminds impact historic buildings sights views places funds raise raised able",
        "book books reading enjoy enjoyed tour tours trip trips watched watch movie movies show shows bunch inspiring",
        "they're it's place currently blast together creative hang hanging hung bond give gave during scrimmage",
        "pushing push supporting support each other themselves super motivating motivated all ton tons team teams",
        "need needs find better way focus passion enthusiasm",
    )
    for word in line.split()
)
_TOKEN = re.compile(r"[A-Za-z][A-Za-z']*|\d+")


def names_nothing(content: str) -> bool:
    """Whether the memory names nothing of the speaker's life: every word of every statement it makes is a kind of
    news, a verdict, a time or a light word ("User faced all kinds of hurdles.", "User has been working on a project
    lately", "User had a crazy game (last week, …)"). ``extractor.standing`` drops such a line, alone or beside
    another memory: the episode keeps the news, and a reader learns nothing from a kind. A statement joined to it that
    tells what the speaker did ("…; User and others won it by a tight score") names something; a remark joined to
    it ("…; it's hard to describe how beautiful they were") does not."""
    if has_cjk(content):
        return False
    first, *more = re.split(r"[;；]\s*", content)
    return all(
        all(re.sub(r"'s$", "", w.lower()) in _NOTHING_NAMED for w in _TOKEN.findall(DATE_STAMP.sub("", part)))
        for part in [first, *(m for m in more if m.startswith("User"))]
    )


#: an imperative to the listener: "Look what User made.", "Check out what User got.", "Guess what User did."
_TO_LISTENER = re.compile(
    r"^(?:(?:Wow|Hey|Oh|So|Ooh|Haha),? )?(?:Look|Look at|Check out|Check|Take a look(?: at)?|Have a look(?: at)?|See|"
    r"Guess|Imagine|Get this|Remember|Rest assured)\b(?! User\b)",
)
#: "User plans to come over.": a plan of the chat's, no place, no thing
_SMALL_PLAN = re.compile(
    r"^(?:User|User and others) (?:plans to|will|is gonna|is going to) (?:come over|stop by|drop by|swing by|hang out|"
    r"catch up|chat|talk)\s*[.!]?$",
    re.I,
)
#: "User has been working on something exciting.", "User just finished something.": a thing announced, not named
_TEASED = re.compile(
    r"^(?:User|User and others) (?:did|tried|has done) something (?:new|different|special)(?: that [^.;()]{0,40})?"
    r"\s*[.!]?$|"  # "User did something new that had an impact on them." (what, the next sentence says)
    r"^(?:User|User and others) (?:is|are) (?:starting|working on|planning|doing) (?:some )?(?:big |new |exciting |"
    r"cool )*things\s*[.!]?$|"  # "User is starting some big new things."
    r"^(?:User|User and others) shared (?:a|another) (?:pic|picture|photo|shot) of their (?:success|progress|"
    r"achievement|journey|day|moment)\s*[.!]?$|"
    r"^(?:User|User and others) shared (?:a look at|a pic of|a picture of|a photo of) what (?:they|User)"
    r"(?:'ve| have| has)? been (?:working on|up to|doing)\s*[.!]?$|"
    r"^(?:User|User and others)(?: just| also| finally| recently)? (?:has been working on|have been working on|"
    r"is working on|are working on|finished|has finished|just finished|did|has done|made|got|is planning|are planning|"
    r"has been up to|is up to) (?:some|any)thing(?: (?:new|exciting|cool|big|special|fun|interesting|amazing|great|"
    r"else))?\s*[.!]?$",
    re.I,
)
#: a photo shown in the chat, told by what it shows with nothing named: "User shared a pic of their fam at the
#: beach.", "User shared a shot they got when they volunteered." (the showing is the chat's act; a photo of what the
#: speaker made is read as the making, ``general._SHOWN_MADE``)
_SHOWN = re.compile(
    r"^(?:User|User and others) (?:just |also )?shared (?:a|another|one of their|some|their|this|these)?\s*"
    r"(?:\w+\s+)?(?:pics?|pictures?|photos?|shots?|snaps?|snapshots?|videos?|clips?|recipes?)\b"
    r"(?![^.;]*(?:\b[A-Z][a-z]|\d))",
)
#: the same in Chinese: "用户分享了一张全家在海边的照片。" (a number or a Latin name in it is something named)
_ZH_SHOWN = re.compile(
    r"^用户(?:也|还|刚)?分享了(?:一张|几张|一段|一个|一份|张|段)?[^，。；;0-9A-Za-z]{0,24}?(?:照片|图片|视频|食谱)[。！!]?$"
)
#: a like of a doing that needs its object to mean anything: "User likes playing.", "User likes to help."
_BARE_LIKE = re.compile(
    r"^User (?:really )?(?:likes|loves|enjoys) (?:to )?(?:play|playing|help|helping|watch|watching|make|making|do|"
    r"doing|try|trying|(?:push|pushing|challenge|challenging|test|testing) themself)\s*[.!]?$"
)
#: a remark on the listener's lot, not the speaker's: "User gets how life can be busy.", "Count on User for support."
_LISTENERS_LOT = re.compile(
    r"^(?:(?:Sorry,? )?User (?:(?:totally|really|definitely|completely|just|can)\s+)?(?:gets|understands|"
    r"can (?:only |totally |really )?imagine|can see) (?:how|why|what)\b(?!\s+to\b)|User can only imagine\b|"
    r"Sorry,? User\b|Count on User\b|"
    r"User (?:just )?(?:wanted|wants) to check in\b)",
    re.I,
)
DATE_STAMP = re.compile(r"\s*[(（][^()（）]*\d{4}[^()（）]*[)）]")
_VERDICT = (
    r"(?:amazing|awesome|great|so great|cool|so cool|incredible|wonderful|fantastic|fun|so much fun|a blast|"
    r"the best|the bomb|epic|unreal|wild|crazy|beautiful|stunning|gorgeous|lovely|perfect|special|magical|"
    r"inspiring|rewarding|worth it|nice|sweet|neat|fab|fabulous|brilliant|impressive|priceless|huge|a great team|"
    r"a good team|a team|such a team|a great time|a good time|the best time|a blast|an amazing time|a great day)"
)
#: "… was amazing.", "User and others are a great team.", "User had a great time."
_VERDICT_ONLY = re.compile(
    rf"(?:\b(?:is|was|are|were|'s|has been|have been|'s been|feels|felt|looks|looked|sounds|sounded)\s+{_INTENS}"
    rf"{_VERDICT}|^(?:User|User and others) (?:had|have|has had|are having|is having)\s+{_INTENS}(?:a |an |such a )?"
    rf"(?:great|good|wonderful|fantastic|amazing|awesome|lovely|fun|blast|wicked|nice|fab|super)\w*\s*"
    rf"(?:time|day|blast|night|weekend)?)\s*[.!]?$",
    re.I,
)
#: "User is looking forward to more cool memories.", "User and others will make some awesome memories."
_WISH = re.compile(
    r"^(?:User|User and others) (?:is |are |was )?(?:looking forward to|can't wait (?:to|for)|will make|hopes? for|"
    r"wants? (?:more|many)|will have|are gonna have|is gonna have|gonna make)\s+(?:more |many |lots of |some |a lot "
    r"of |so many |tons of )?(?:\w+ )?(?:memories|fun|times|moments|adventures|good times|great times|years|days|"
    r"it|that|this)"
    r"\s*[.!]?$|"
    r"^(?:User|User and others) (?:is |are )?(?:really |so |super )*(?:looking forward to|can't wait for|excited for) "
    r"(?:what's|what is) (?:coming|next|ahead|to come)(?: next)?\s*[.!]?$",
    re.I,
)
#: "User opened a store and it's been great": a fact with a verdict after it, kept
_TRAILING_VERDICT = re.compile(
    r"^User\b[^,;]*?\b\w+(?:ed|t|d)\b[^,;]*(?:,\s*(?:and|so|but)?|\band\b|\bso\b|\bbut\b)\s+(?:it|that|this)\b[^,;]*$"
)
_WORD = re.compile(r"[a-z0-9']+")
_LIGHT = (
    frozenset(
        [
            "user",
            "user's",
            "and",
            "others",
            "the",
            "a",
            "an",
            "so",
            "really",
            "very",
            "just",
            "also",
            "too",
            "their",
            "them",
            "they",
            "it",
            "its",
            "this",
            "that",
            "to",
            "of",
            "for",
            "with",
            "in",
            "on",
            "at",
            "my",
            "full",
        ]
    )
    | BE_HAVE
)

_ZH_MOOD = re.compile(
    r"^用户(?:现在|今天|真的|非常|特别|超级|很|太|好|挺|有点|也|又|终于|感到|觉得|感觉|心里)*"
    r"(?:开心|高兴|激动|兴奋|感动|感激|感谢|放松|平静|累|疲惫|难过|伤心|紧张|焦虑|害怕|满足|幸福|骄傲|自豪|期待)"
    r"(?:了|啊|呀|极了|坏了|死了)*[。！!]?$"
)
_ZH_TEAM = re.compile(
    r"^用户(?:一家|和(?:大家|朋友们|他们|她们))?(?:真)?是(?:一个|一支|个)?(?:很|超|非常|特别)?(?:棒|好|厉害|默契)的"
    r"(?:团队|组合|搭档)[。！!]?$"
)
_ZH_VERDICT = re.compile(
    r"(?:太棒了|真棒|好棒|很棒|太好了|真好|好开心|好有趣|真有意思|太美了|很有意思|很好玩)[。！!]?$"
)
#: "用户今天心情很好。", "用户心情不错。"
_ZH_SPIRITS = re.compile(
    r"^用户(?:今天|现在|这几天|最近|此刻)?(?:的)?(?:心情|状态|情绪)(?:真的|非常|特别|超级|很|挺|有点|不太|比较|还)*"
    r"(?:好|不错|棒|愉快|低落|差|糟|不好|一般|好多了|轻松)(?:了|极了)?[。！!]?$"
)
#: "用户会继续加油的。", "用户相信一切都会好起来的。"
_ZH_PEP = re.compile(
    r"^用户(?:会|要|一定会|一定要|将|决定)?(?:继续|一直)?(?:加油|努力|坚持(?:下去)?|不放弃|不会放弃|追逐梦想|追梦)"
    r"(?:的)?[。！!]?$|一切(?:都)?会(?:好起来|变好|顺利)(?:的)?[。！!]?$"
)
_ZH_WISH = re.compile(r"^用户(?:很|非常)?期待(?:更多|以后)?(?:美好|开心|快乐)?的?(?:回忆|时光|时刻)[。！!]?$")


#: what a verdict of the moment says of "it": the words of ``_VERDICT`` and the ones a tail adds ("it's so rewarding")
_TAIL_ADJ = (
    rf"(?:{_VERDICT}|rewarding|heartwarming|humbling|surreal|refreshing|relaxing|peaceful|tranquil|soothing|"
    r"calming|good|really good|delicious|immersive|wonderful|a wild ride|a thrill|such a thrill|a ton of fun|"
    r"exciting|enlightening|eye-opening|emotional|memorable|unforgettable|a great experience|an experience)"
)
_THE_MOMENT = r"(?:experience|time|day|feeling|ride|moment|one|night|trip|weekend)"
#: the verdict itself, one or several: "such an awesome experience", "super peaceful and refreshing"
_JUDGED = (
    rf"{_INTENS}(?:such an? |a |an )?{_INTENS}{_TAIL_ADJ}(?:\s*(?:,|and|&)\s*{_INTENS}{_TAIL_ADJ})*"
    rf"(?:\s+{_THE_MOMENT})?"
)
#: an appended part that is only a verdict on "it": "it's been pretty cool", "it was such an awesome experience",
#: "it was super peaceful and refreshing", "it was great getting to know them better", "it's cool to meet people …"
_TAIL_VERDICT = re.compile(
    rf"^(?:and |but |so )?(?:it|that|this|which)(?:'s| is| was| has been|'s been| had been| felt| feels| has felt)\s+"
    rf"{_JUDGED}(?:\s+(?:too|though|for (?:them|User)|overall))?"
    r"(?:\s+(?:to (?:see|meet|be|have|get|hear|know|watch|spend|work|share|connect|do|talk|help|learn)\b|being|getting|"
    r"seeing|watching|meeting|spending|knowing|hearing|having|competing|working|sharing|connecting|talking|learning|"
    r"doing)\b(?:\s+[^\s;]+){0,5})?\s*[.!]?$",  # a longer doing is what was enjoyed: "… spending time with them and …"
    re.I,
)
#: the same verdict said inside the statement's own clause: "… went camping and it was stunning (2023-06-20).",
#: after a bare comma ("User made some peach cobbler recently, it was great.") or as a relative clause on what was
#: done ("User watched a classic movie the other day that was awesome.")
_CLAUSE_VERDICT = re.compile(
    rf"(?:,?\s+(?:and|which|so|and so) (?:it(?='s)|that(?='s)|it |that )?|,\s+(?:it|that)(?='s)|,\s+(?:it|that) |"
    r"\s+that )"
    rf"(?:'s|is|was|has been|'s been)\s+{_JUDGED}"
    r"(?=\s*(?:\([^()]*\))?\s*[.!]?$)",
    re.I,
)
#: a part that tells its own news after a mood: "User has been doing great; they just won another tournament …"
_OWN_NEWS = re.compile(
    r"^(?:they|User|User and others)(?: just| also| recently| finally| even)? (?:\w+ed|won|got|went|made|took|began|"
    r"met|saw|found|bought|ran|wrote|gave|built|became|left|sold|taught|caught|held|led|flew|drove|rode|swam|threw)\b"
)


#: people of the user's whom a "they" after them stands for ("User's week's been busy; they started …" is User's own)
_THEIR_PEOPLE = re.compile(
    r"^User's (?:[a-z-]+\s+)?(?:fam|family|kids|children|friends|parents|team|teammates|crew|group|gang|folks|"
    r"siblings|brothers|sisters|colleagues|coworkers|classmates|neighbors|students|players|fans|customers|mentors)\b"
)


def pruned(content: str) -> str:
    """``content`` without what only judges the moment: an appended "; it was amazing" (or "…, and it was stunning"
    inside the statement) is dropped, and a mood before the news ("User has been doing great; they just won …")
    gives way to the news. What a verdict was on stays; the episode keeps the words. English only: the appended
    parts of the Chinese grammar are read by ``trivial`` as a whole."""
    if has_cjk(content):
        return content
    end = "." if content.rstrip().endswith(".") else ""
    parts = [p.strip() for p in re.split(r";\s+", content.rstrip().rstrip(".!"))]
    parts = [parts[0], *(p for p in parts[1:] if not _TAIL_VERDICT.match(p))]
    if (
        len(parts) > 1
        and "(" not in parts[0]
        and not _THEIR_PEOPLE.match(parts[0])  # "User's fam's been awesome; they helped out": they are the fam
        and trivial(parts[0])
        and _OWN_NEWS.match(parts[1])
    ):
        rest = re.sub(r"^they\b", "User", parts[1])
        parts = [rest[:1].upper() + rest[1:], *parts[2:]]
    head_ = _CLAUSE_VERDICT.sub("", parts[0])
    # a pep talk stays one ("…, which is awesome"); a fact with the verdict on it is the fact ("…, it was great")
    if len(head_.split()) >= 3 and not (trivial(parts[0]) and trivial(head_)):
        parts[0] = head_
    return "; ".join(parts) + end


#: what a template states whole (a name, a diet, a budget, a place …): never a reaction, however short
_OWN_WORDS = frozenset({"fact", "event", "likes", "plan"})


def trivial(content: str, predicate: str | None = None) -> str | None:
    """Why the memory is a reaction or a verdict of the moment, or None when it says something to keep. Only a
    statement in the speaker's own words is judged (``predicate`` fact / event / likes / plan, or unknown)."""
    if predicate is not None and predicate not in _OWN_WORDS:
        return None
    text = head(content).strip()
    if _TO_LISTENER.match(text) or _LISTENERS_LOT.match(text):
        return "words to the listener"
    undated = DATE_STAMP.sub("", text).strip()  # a mood is of the moment whatever day it was felt
    if has_cjk(text):
        if _ZH_TEAM.match(undated):
            return "a verdict on the moment"
        if _ZH_MOOD.match(undated) or _ZH_SPIRITS.match(undated):
            return "a mood of the moment"
        if _ZH_PEP.search(undated):
            return "a pep talk"
        if _ZH_VERDICT.search(text) and len(re.sub(r"用户|[，。！!、]", "", text)) <= 8:
            return "a verdict on the moment"
        if _ZH_WISH.match(text):
            return "a wish with nothing named"
        if _ZH_SHOWN.match(undated):
            return "shown in the chat, nothing named"
        return None
    if _MOOD_ONLY.match(undated) or _MOOD_FOR.match(undated) or _SPELL.match(undated):
        return "a mood of the moment"
    if _MOOD_CAUSED.search(undated) or _MOMENT.search(undated):
        return "a mood of the moment"
    if _ANNOUNCED.match(undated) or _TEASED.match(undated):
        return "news announced, not told"  # the day it was announced on tells nothing more
    if _SHOWN.match(undated):
        return "shown in the chat, nothing named"
    if _BARE_LIKE.match(undated):
        return "a like with nothing named"
    if _SMALL_PLAN.match(undated):
        return "a wish with nothing named"  # "User plans to come over (tomorrow)": small talk, whatever the day
    if re.search(r"\(\d{4}", text):
        return None  # dated: an event, whatever words it is told in
    if _PEP.search(text) or _COPING.match(text):
        return "a pep talk"
    if _TEAM_SAYING.match(text):
        return "a verdict on the team"
    if _VERDICT_ONLY.search(text) and not _TRAILING_VERDICT.search(text):
        return "a verdict on the moment"
    if _WISH.match(text):
        return "a wish with nothing named"
    if (
        predicate in (None, "fact")
        and len([w for w in _WORD.findall(text.lower()) if w not in _LIGHT]) < 2
        and not _NAMED.search(text)  # "User was in Chicago": a name is something said
    ):
        return "too little said"
    return None
