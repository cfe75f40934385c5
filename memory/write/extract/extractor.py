"""Classify (worth remembering?) and extract candidate memories from one message.

``extract(text, role=..., at=...)`` runs the offline rules (English and Chinese, chosen per sentence); with a chat
model it runs the LLM extractor instead (memory.write.extract.llm) and falls back to the rules if the model fails.
Assistant text is read only for what it says about *the user* ("you live in …"), and everything taken from it is a
low-confidence ``inferred`` candidate: the agent's own guesses never become user facts.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import TYPE_CHECKING

from memory.text.language import CJK, has_cjk
from memory.text.numerals import find_amount
from memory.text.sentences import sentences
from memory.write import keep
from memory.write.extract import rules_en, rules_zh
from memory.write.extract.advice import advice
from memory.write.extract.antecedent import name_from_answered, name_from_message
from memory.write.extract.base import (
    CONF_EXPLICIT,
    CONF_HEDGED,
    CONF_INFERRED,
    Candidate,
    a_or_an,
    explicitness,
    hedge_of,
    is_question,
    make,
)
from memory.write.extract.clauses import Person, about_person, split_clauses
from memory.write.extract.context import advice_asked, answered_question, in_context
from memory.write.extract.definite import indefinite
from memory.write.extract.events import dated_statements
from memory.write.extract.general import (
    FIRST_PERSON,
    conjugate,
    continuation,
    later_person,
    self_disclosure,
    speaker_implied,
    without_tag_question,
)
from memory.write.extract.lead_in import joined, lead_in
from memory.write.extract.names_asked import name_given
from memory.write.extract.occasion import occasion_of, with_occasion
from memory.write.extract.own_clause import own_clause
from memory.write.extract.persons import name_person_from_message
from memory.write.extract.recent import RECENT, name_from_recent
from memory.write.extract.references import points_unnamed, resolve, unresolved
from memory.write.extract.we import we_named
from memory.write.extract.worth import names_nothing, pruned, trivial, untold

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

__all__ = ["Candidate", "classify", "extract", "extract_rules", "standing"]

_SMALL_TALK = re.compile(
    r"^(?:hi|hello|hey|thanks|thank you|thx|ok|okay|sure|yes|no|yep|nope|cool|great|nice|lol|haha|bye|good night|"
    r"good morning|got it|i see|sounds good|alright|wow|hmm|你好|您好|谢谢|多谢|好的|好|嗯|哦|哈哈+|收到|知道了|明白了|"
    r"再见|拜拜|晚安|早上好|不客气|没问题|可以|行)[\s!！.。~～?？]*$",
    re.IGNORECASE,
)
_SELF_REF = re.compile(
    r"\b(?:i|i'm|im|i’m|my|me|i've|i'd|i'll|we|we're|our)\b|我|咱|叫我|预算|call me|budget|"
    r"please|keep|用中文|用英文|回答|回复|简洁|简短|详细|说结论|brief|concise",
    re.IGNORECASE,
)


def classify(text: str, role: str = "user", previous: str | None = None) -> tuple[bool, str]:
    """Cheap gate before extraction: (worth extracting?, reason). ``previous`` is the other speaker's message this one
    answers: "Since I was twelve" after "How long have you been drawing?" states something."""
    stripped = text.strip()
    if role not in ("user", "assistant"):
        return False, f"{role} messages are not a source of user memories"
    if len(stripped) < 2:
        return False, "too short to hold a fact"
    worth, reason = _gate(stripped, role)
    if not worth and role == "user" and answered_question(previous) and _answers(stripped, previous):
        return True, "answers the message before"  # "Since I was twelve" after "How long have you been drawing?"
    if not worth and role == "user" and advice(stripped, previous) is not None:
        return True, "gives the advice asked for"  # "Any tips?" — "Do your research and find an agency."
    if not worth and role == "user" and name_given(stripped, previous) is not None:
        return True, "gives the name asked for"  # "What's her name?" — "Her name is Shadow!"
    return worth, reason


def _gate(stripped: str, role: str) -> tuple[bool, str]:
    if _SMALL_TALK.match(stripped):
        return False, "small talk"
    if (
        not _SELF_REF.search(stripped)
        and not (role == "user" and speaker_implied(stripped))  # "Lost my job yesterday": chat drops the 'I'
        and not (role == "assistant" and re.search(r"\byou\b|你|您", stripped))
    ):
        return False, "no statement about the speaker"
    if all(is_question(without_tag_question(s)) for s in sentences(stripped)):
        return False, "only questions"
    return True, "may state something about the user"


def _second_to_first(sentence: str, lang: str) -> str:
    """Rewrite what the assistant says about the user into the user's voice; its own 'I' is neutralised first."""
    if lang == "zh":
        s = sentence.replace("我", "助手").replace("您", "我").replace("你", "我")
        return s
    s = re.sub(r"\b(?:I|me|my|I'm|I’m|I've|I'll)\b", "ASSISTANT", sentence)
    s = re.sub(r"\byou(?:'re| are|’re)\b", "I'm", s, flags=re.IGNORECASE)
    s = re.sub(r"\byour\b", "my", s, flags=re.IGNORECASE)
    return re.sub(r"\byou\b", "I", s, flags=re.IGNORECASE)


def _apply_rules(sentence: str, lang: str, at: datetime) -> list[Candidate]:
    mod = rules_zh if lang == "zh" else rules_en
    out: list[Candidate] = []
    claimed: list[tuple[int, int]] = []
    for rule in mod.RULES:
        for m in rule.pattern.finditer(sentence):
            s, e = m.span()
            if any(s < ce and cs < e for cs, ce in claimed):
                continue
            implicit = "(?:我|^" in rule.source and "我" not in m.group()
            if lang == "zh" and implicit and "我" not in sentence[:s]:
                continue  # a subject-less clause counts only after the speaker named themself
            raw = m.groupdict().get("obj") or ""
            evidence = m.group()
            if lang == "en" and rule.predicate in _COORDINATED and raw and (rest := _rest_of_object(raw, sentence[e:])):
                raw, e, evidence = raw + rest, e + len(rest), evidence + rest  # the rule's boundary cut a list short
            cleaned = mod.clean_object(raw) if raw else ""
            if cleaned is None or (raw and not cleaned) or _about_answers(cleaned, lang):
                continue
            shared = _shared_with_next(rule.predicate, cleaned, sentence[e:]) if lang == "en" else None
            if shared is not None:  # "the color and texture", "action and sci-fi movies": one thing liked
                cleaned, e, evidence = cleaned + shared.group(), e + shared.end(), evidence + shared.group()
            obj = rule.obj(cleaned) if rule.obj else cleaned
            display = cleaned if lang == "zh" or rule.predicate == "budget" else obj
            art = a_or_an(display)
            cat = re.sub(r"favorite", "favourite", m.groupdict().get("cat") or "", flags=re.IGNORECASE)
            verb = m.groupdict().get("verb") or ""
            if lang == "en" and verb:
                verb = (
                    conjugate(verb.lower()) if "{verb} {obj}" in rule.template and "n't" not in rule.template else verb
                )
            content = rule.template.format(obj=display, cat=cat, art=art, verb=verb.lower())
            if lang == "en" and rule.predicate in ("likes", "dislikes", "prefers"):
                content = re.sub(r"\bmy\b", "their", content)
            claimed.append((s, e))
            c = make(rule.predicate, obj or display, content, lang=lang, evidence=evidence, negated=rule.negated)
            c.meta["display"] = display or c.object
            _annotate(c, rule.predicate, cat, raw)
            out.append(c)
            if lang == "en" and rule.predicate in _COORDINATED and not rule.negated:
                more = _COORDINATION.match(sentence[e:])
                if more and not _NOT_AN_OBJECT.match(more.group("more")):
                    extra = mod.clean_object(more.group("more"))
                    if extra:
                        claimed.append((e, e + more.end()))
                        d = make(
                            rule.predicate,
                            extra,
                            rule.template.format(obj=extra, cat=cat, art=art, verb=verb),
                            lang=lang,
                            evidence=evidence + more.group(),
                            negated=rule.negated,
                        )
                        d.meta["display"] = extra
                        out.append(d)
    out += _styles(sentence, lang, claimed)
    out += dated_statements(sentence, lang, at, claimed)
    return out


def _shared_with_next(predicate: str, first: str, after: str) -> re.Match[str] | None:
    """The coordinated rest of a liked thing that shares a word with it, so is one thing: the determiner ("the color
    and texture", not "User likes texture.") or the head noun ("action and sci-fi movies", not "User likes
    action."); None for two things ("cats and dogs", "hiking and swimming")."""
    if predicate not in _COORDINATED:
        return None
    more = _COORDINATION.match(after)
    if more is None or _NOT_AN_OBJECT.match(more.group("more")):
        return None
    second = more.group("more").split()
    if second[0].lower().endswith("ed") and first.split()[-1].lower().endswith("ed"):
        return more  # "making sure veterans are supported and valued in our community": one phrase, two participles
    if _DETERMINED.match(first) and not _DETERMINED.match(more.group("more")) and len(second) <= 3:
        return more  # the determiner is the two's
    if _GERUND_OF.match(first) and not second[0].lower().endswith("ing") and not _DETERMINED.match(more.group("more")):
        return more  # "improving education and infrastructure …": the doing is the two's, never "User likes
        # infrastructure in their community"
    doings = first.lower().endswith("ing") or second[0].lower().endswith("ing")  # "hiking and exploring new trails"
    if len(first.split()) == 1 and len(second) >= 2 and second[-1].lower().endswith("s") and not first.endswith("s"):
        return None if doings else more  # the head noun is the two's
    return None


_DETERMINED = re.compile(r"^(?:the|my|our|their|his|her|this|that|these|those)\s", re.IGNORECASE)
#: a doing with its object: "improving education", "helping kids"
_GERUND_OF = re.compile(r"^[a-z]{3,}ing\s+\S", re.IGNORECASE)

#: "I love basketball and gaming": two tastes, one memory each
_COORDINATED = frozenset({"likes", "dislikes"})
_COORDINATION = re.compile(r"^\s*,?\s*(?:and|&|or)\s+(?P<more>[^,.;!?]{2,40}?)(?=\s*(?:[,.;!?]|$))", re.IGNORECASE)
_NOT_AN_OBJECT = re.compile(
    r"^(?:i|i'm|i’m|my|me|we|you|it|it's|that|this|they|he|she|also|then|so|now|really|just|not|am|is|are|was|"
    r"have|has|do|don't|can|will|would|love|like|hate|enjoy|maybe|even|perhaps|probably|especially)\b"
    # a verb with its own object ("… and train my dog", "… and dance the night away"), not a second thing liked
    r"|^(?![a-z]+ing\b|(?:a|an|the|my|our|their|his|her|some|this|that)\b)[a-z]+\s+"
    r"(?:a|an|the|my|our|their|his|her|it|them|some)\b(?!\s+(?:lot|bit|little|few)\b)",
    re.IGNORECASE,
)


#: a list the rules' object boundary cut at its first comma ("I love the energy, diversity, and awesome food of this
#: city" gave "User likes the energy."): more items, the last after "and" / "or", running to the end of the sentence
_LIST_REST = re.compile(
    r"^(?P<rest>(?:\s*,\s*(?!(?:and|or)\b)(?P<item>[^,.;!?]{2,40}?))+\s*,?\s+(?:and|or|&)\s+[^,.;!?]{2,60}?)"
    r"(?=\s*(?:[.;!?]|$))",
    re.IGNORECASE,
)
#: a list item that is a clause ("…, 'cause nature brings such peace and serenity")
_OPENS_CLAUSE = re.compile(
    r"^(?:'?cause|because|since|as|so|which|who|where|when|while|if|though|although|like|including|such as|but|"
    r"plus|then|too|especially)\b",
    re.IGNORECASE,
)
#: an object that ends in a phrase a preposition opens ("books about personal development", "getting immersed in the
#: feelings", "to cook"): an "and" right after it goes on inside that phrase ("… and mindset", "… and plots", "… and
#: bake"), it names no second thing liked
_ENDS_IN_PHRASE = re.compile(r"(?:^|\s)(?:about|of|in|on|with|for|from|into|at|by|to|like|over|through|around)\s+\S")


def _rest_of_object(obj: str, after: str) -> str:
    """What the rules' object boundary left of a whole object (``after`` is the sentence after it): the rest of a list
    of three or more, or the "and …" inside the phrase the object ends in; "" when the object is whole or the rest is
    a new clause ("… and dance the night away", "…, it's so calming, and …"): one memory keeps the whole object, the
    way it was said."""
    listed = _LIST_REST.match(after)
    if listed:
        items = re.split(r"\s*,\s*|\s+(?:and|or|&)\s+", listed.group("rest").strip(" ,"))
        if all(i and not _NOT_AN_OBJECT.match(i) and not _OPENS_CLAUSE.match(i) and len(i.split()) <= 6 for i in items):
            return listed.group("rest")
        return ""
    more = _COORDINATION.match(after)
    if more and _ENDS_IN_PHRASE.search(obj) and not _NOT_AN_OBJECT.match(more.group("more")):
        return more.group()[: more.end("more")]
    return ""


def _annotate(c: Candidate, predicate: str, cat: str, raw: str) -> None:
    """The attribute an attribute statement names; the currency a budget is in."""
    if predicate == "attribute":
        c.meta["attribute"] = "age" if re.match(r"years?|yrs?", cat, re.I) else cat.lower() if cat.isascii() else cat
    elif predicate == "budget":
        amount = find_amount(raw)
        if amount and amount.currency:
            c.meta["currency"] = amount.currency


def _about_answers(obj: str, lang: str) -> bool:
    """'I don't like long answers' is a communication-style statement, handled by the style rule instead."""
    pattern = r"\b(?:answers?|repl(?:y|ies)|responses?|emojis?|explanations?)\b"
    if lang == "zh":
        pattern = r"回复|回答|答案|解释|表情"
    return bool(re.search(pattern, obj, re.IGNORECASE))


def _styles(sentence: str, lang: str, claimed: list[tuple[int, int]]) -> list[Candidate]:
    style = (rules_zh if lang == "zh" else rules_en).style_of(sentence)
    if not style:
        return []
    content = f"用户喜欢{rules_zh.STYLE_ZH[style]}的回答。" if lang == "zh" else f"User prefers {style} answers."
    return [make("communication_style", style, content, lang=lang, evidence=sentence)]


def _answers(text: str, previous: str | None) -> bool:
    """Whether the message before completes one of this message's sentences (memory.write.extract.context)."""
    return any(read != said for read, said in in_context(sentences(text), previous))


def extract_rules(text: str, *, role: str = "user", at: datetime, previous: str | None = None) -> list[Candidate]:
    """Offline extraction, statement by statement; hedges lower confidence, assistant text yields only inferences.

    A sentence is split into clauses ("… but hate commuting"), each read with its own polarity; a clause about
    someone the user mentions ("my wife loves sushi") becomes a fact about that person. ``previous`` is the other
    speaker's message this one answers: a user's sentence is read with it (memory.write.extract.context), and quoted
    as said.
    """
    out: list[Candidate] = []
    seen: set[tuple[str, str, str, str, bool]] = set()
    last_general: Candidate | None = None  # a general fact the next sentence may go on with ("It's special to me")
    said_ = sentences(text)
    question = answered_question(previous) if role == "user" else None
    advised = advice_asked(previous) if role == "user" else False  # "Any advice?" — "Read lots …": said to them
    for read, said in in_context(said_, previous) if role == "user" else [(s, s) for s in said_]:
        sentence = without_tag_question(read) if role == "user" else read
        if is_question(sentence) or points_unnamed(sentence):  # "这是我去年买的": what it is, is not said
            last_general = None
            continue
        lang = "zh" if has_cjk(sentence) else "en"
        source = _second_to_first(sentence, lang) if role == "assistant" else sentence
        orphan = None  # a hedge in a clause that states nothing ("…，还没决定") covers the whole sentence
        found: list[tuple[Candidate, str | None]] = []
        for clause in split_clauses(source, lang):
            text_, person = about_person(clause, lang)
            cands = _about(person, _apply_rules(text_, lang, at), lang)
            hedge = hedge_of(clause, lang)
            if not cands and hedge:
                orphan = orphan or hedge
            found += [(c, hedge) for c in cands]
        found = [(c, h) for c, h in found if _speaker_resolved(c, lang)]
        if found and role == "user" and all(c.predicate in _PARTIAL for c, _ in found):
            whole = self_disclosure(sentence, lang, at)  # "I got hurt and had to pause climbing, which I do to …"
            if whole is not None and _more_said(whole.content, [c.content for c, _ in found]):
                found = [(whole, found[0][1])]
        if not found and role == "user" and not (advised and not FIRST_PERSON.search(sentence)):
            general = self_disclosure(sentence, lang, at)
            if general is None and last_general is not None:
                more = continuation(sentence, lang)
                if more:
                    sep, end = ("；", "。") if lang == "zh" else ("; ", ".")
                    last_general.content = last_general.content.rstrip(".。") + sep + more + end
                    last_general.evidence += " " + sentence.strip()
                last_general = None
                continue
            if general is not None and not hedge_of(sentence, lang):  # a hedged aside is not a fact to keep
                found = [(general, None)]
        last_general = (
            found[0][0]
            if len(found) == 1 and found[0][0].predicate in _GOES_ON and _says_last(found[0][0].evidence, sentence)
            else None
        )
        for c, hedge in found:
            marker = (c.subject, c.predicate, c.key()[2], c.evidence, c.negated)
            if marker in seen:
                continue
            seen.add(marker)
            _grade(c, sentence, lang, hedge or orphan, role)
            if c.evidence not in said:  # a clause given back its subject ("…，叫咪咪" → "我叫咪咪") was not said:
                c.evidence = said  # provenance quotes what was said, the sentence as it is
            if read != said:  # read with the message before: what it answered, for provenance
                c.meta["in_answer_to"] = question or (previous or "")[-200:]
            out.append(c)
    for told in (advice(text, previous), name_given(text, previous)) if role == "user" else ():
        if told is not None:  # "Any advice?" — "Read lots …"; "What's her name?" — "Her name is Shadow!"
            _grade(told, told.evidence, told.language, None, role)
            out.append(told)
    return out


#: what a next sentence may go on about ("I took up pottery last month. It's so calming for me."): not a name, a
#: place or a setting, which a template states whole
_GOES_ON = frozenset({"fact", "event", "likes", "plan"})
#: rules that keep one part of a sentence (an event, a plan): the sentence may say more than that part
_PARTIAL = frozenset({"event"})


#: what turns a sentence to another thing after the statement read from it: "…, but my favorite one is …"
_TURNS_TO = re.compile(r"\b(?:but|although|though|while|whereas)\b", re.IGNORECASE)


def _says_last(evidence: str, sentence: str) -> bool:
    """Whether the statement read from ``sentence`` is what it says last: a next sentence's "it" goes on about the
    last thing said ("I love playing songs on the piano, but my favorite one is a movie theme. It brings back …":
    the theme brings them back, not the playing)."""
    at = sentence.find(evidence)
    return at < 0 or not _TURNS_TO.search(sentence[at + len(evidence) :])


def _more_said(whole: str, parts: list[str]) -> bool:
    """Whether the sentence in the speaker's words says at least three content words (Chinese: characters) more than the
    rules' parts."""

    def words(text: str) -> set[str]:
        if has_cjk(text):  # Chinese: characters ("带孩子们" is four more than "去了博物馆")
            return set(CJK.findall(text.replace("用户", "")))
        return set(re.findall(r"[a-z]{3,}", text.lower())) - {"user", "they", "them", "their", "the", "and"}

    covered = set().union(*(words(p) for p in parts))
    return len(words(whole) - covered) >= 3


#: a verb whose object the sentence left out, read as said ("here's a pic I got from my walk" → "User got from their
#: walk"; "I've been working on for a while" → "User has been working on for a while"): the words are garbled, not
#: a fact
_OBJECT_MISSING = re.compile(
    r"\bUser (?:\w+ ){0,2}?(?:(?:working|worked) on\s+(?:for a while|for ages|for so long|since)\b|"
    r"(?:got|bought|took|received|brought)\s+from\s+(?:their|the|a)\s+\w+(?!\s+to\b))"
)


def _speaker_resolved(c: Candidate, lang: str) -> bool:
    """A rule's content in the user's words: first person left in an object ("keep me calm") becomes they/them;
    a statement that still addresses the other person ("took your advice") is not a fact about the user."""
    if lang == "zh":
        c.content = c.content.replace("我", "用户")
        return not re.search(r"[你您]", c.content)
    head, _, rest = c.content.partition(" ")
    c.content = head + " " + later_person(rest) if rest else c.content
    return not re.search(r"\b(?:you|your|yours|yourself)\b", c.content, re.IGNORECASE)


#: what may be said about someone else; names, budgets, reply style and language are only ever the user's
_ABOUT_OTHERS = frozenset(
    {"lives_in", "hometown", "occupation", "works_at", "works_in", "likes", "dislikes", "prefers", "diet", "pet"}
    | {"family", "plan", "event", "attribute"}
)


def _about(person: Person | None, cands: list[Candidate], lang: str) -> list[Candidate]:
    """Re-label candidates read from a clause about someone else as facts about that person."""
    if person is None:
        return cands
    out = []
    for c in cands:
        if c.predicate not in _ABOUT_OTHERS:
            continue
        c.subject = person.subject
        c.meta["relation"] = person.relation
        if person.name:
            c.meta["name"] = person.name
        c.meta.pop("weak_field", None)
        who = f"{person.relation} {person.name}" if person.name else person.relation
        if lang == "zh":
            c.content = re.sub(r"^用户", f"用户的{person.relation}{person.name or ''}", c.content, count=1)
        else:
            c.content = re.sub(
                r"^User(?:'s)?", f"User's {who}" + ("'s" if c.content.startswith("User's") else ""), c.content, count=1
            )
        out.append(c)
    return out


def _grade(c: Candidate, sentence: str, lang: str, hedge: str | None, role: str) -> None:
    c.hedged = hedge is not None
    c.explicitness = explicitness(sentence, lang, c.hedged)
    c.confidence = CONF_HEDGED if c.hedged else CONF_EXPLICIT
    if hedge:
        c.meta["hedge"] = hedge
        # said as a maybe, read as one: "Possibly, User likes sushi." (the confidence carries it too)
        c.content = "可能：" + c.content if lang == "zh" else "Possibly, " + c.content
    if role == "assistant":
        c.source_type = "inferred"
        c.confidence = min(c.confidence, CONF_INFERRED)
        c.explicitness = min(c.explicitness, CONF_INFERRED)
        c.evidence = sentence
        c.content = ("（助手推测）" if lang == "zh" else "(assistant's inference) ") + c.content


def extract(
    text: str,
    *,
    role: str = "user",
    at: datetime,
    model: BaseChatModel | None = None,
    previous: str | None = None,
    recent: list[str] | None = None,
) -> list[Candidate]:
    """Rules offline; the LLM extractor when a chat model is given (rules if it fails). ``previous``: the other
    speaker's message this one answers (the rules read short answers and pronouns with it; the model is given it as
    fenced context); ``recent``: the session's messages before this one, oldest first (see :func:`standing`)."""
    if model is not None:
        from memory.write.extract.llm import ExtractionFailed, extract_llm

        try:
            return standing(
                extract_llm(
                    model,
                    text,
                    role=role,
                    at=at,
                    previous=previous if role == "user" else None,
                    recent=recent[-RECENT:] if recent and role == "user" else None,
                ),
                text,
                previous if role == "user" else None,
                recent if role == "user" else None,
            )
        except ExtractionFailed:
            pass
    return standing(extract_rules(text, role=role, at=at, previous=previous), text, previous, recent)


def _own_words(c: Candidate) -> bool:
    """A statement in the speaker's own words: a fact, an event, a like or a plan, not hedged."""
    return c.predicate in _GOES_ON and not c.hedged


#: the most words a memory joined of two statements may have: a line a product person reads on a card; longer, it is
#: a paragraph, and the episode holds that
JOINED_WORDS = 40


#: a statement that tells another thing than the one before it: "I also have two cats.", "On another note, …"
_ANOTHER = re.compile(r"\b(?:also|as well|another|besides|by the way|btw|anyway|anyways)\b", re.IGNORECASE)


#: what is told together: statements and events; a like or a plan is one item of the user's profile each ("User
#: likes hiking.", "User likes chess."), edited and flagged one by one
_TOLD = frozenset({"fact", "event"})


def _told_together(first: Candidate, then: Candidate, told_twice: set[int]) -> bool:
    """Whether ``then``, a statement the speaker said right after ``first``, is told in ``first``'s memory: two
    statements of the offline rules (a model writes its own facts whole), ``first`` not a join already, the two short
    enough for one line. Read alone, the second sentence of a story leaves out what the first named ("User and others
    got stuff like canned food, toiletries, and clothes to help out" — for what?; "User and others raised a ton; User
    and others got stuff like canned food …"), which blind readers of the nineteenth round flagged as unplaceable;
    LoCoMo's annotators often write one observation of the two (docs/extraction.md, twentieth round)."""
    return (
        id(first) not in told_twice
        and not then.meta.get(keep.RENAMED)  # named from what was said before it, it stands alone already
        and not _ANOTHER.search(then.evidence)  # "I also have two cats.": another thing of the speaker's, told apart
        and all(c.predicate in _TOLD and c.extractor.startswith("rules") for c in (first, then))  # a like: one item
        and len(first.content.split()) + len(then.content.split()) <= JOINED_WORDS
    )


def _join_onto(out: list[Candidate], c: Candidate, message: str) -> bool:
    """Whether ``c`` was told in the memory said just before it (``lead_in.joined``), which then tells both."""
    one = joined((out[-1].content, out[-1].evidence), (c.content, c.evidence), message)
    if one is None:
        return False
    out[-1].content, out[-1].evidence = one
    return True


def _goes_on(first: Candidate, then: Candidate) -> bool:
    """Whether ``then`` may go on in ``first``'s memory: both the speaker's own words, in English, of one subject."""
    return (
        first.language == then.language == "en"
        and _own_words(first)
        and _own_words(then)
        and first.subject == then.subject
    )


def _named(content: str, evidence: str, message: str, previous: str | None, recent: list[str] | None) -> str | None:
    """``content`` with its references named from the words, the message, the message it answers or the session's
    window (see ``standing``), the same ``content`` when it has none, or None when one is left unnamed."""
    named = resolve(content, evidence)
    if recent and named is not None and named != content:  # "that place" → "a place": the session may name it
        named = name_from_recent(content, evidence, message, recent) or named
    if named is None:  # named by a sentence said before it in the message ("… my bowl. A friend made it …")
        named = name_from_message(content, evidence, message)
    if named is None:  # a he / she named by the one person the sentence before names ("my son … he was okay")
        named = name_person_from_message(content, evidence, message, previous)
    if named is None:  # named by what the message answered points at ("that agency … pick it?")
        named = name_from_answered(content, evidence, message, previous)
    if named is None and recent:  # named by the session's messages before ("a place called X" … "that place")
        named = name_from_recent(content, evidence, message, recent)
    if named is None and recent:  # "The support group …" the window introduced ("a LGBTQ support group")
        pointed = indefinite(content, evidence, message, recent)
        named = pointed if pointed and pointed != content and not unresolved(pointed, evidence) else None
    return named


def standing(
    cands: list[Candidate], message: str = "", previous: str | None = None, recent: list[str] | None = None
) -> list[Candidate]:
    """The candidates that stand on their own, whichever extractor proposed them: a reference the memory does not
    name is named where the words allow ("this adoption group" → "an adoption group") or where an earlier sentence of
    ``message`` names it (memory.write.extract.antecedent: "… like my hand-painted bowl. A friend made it …") or
    by the one thing the message it answers points at (``previous``: "that painting … What inspired you?" → "I
    painted this …") or by the one thing the session's ``recent`` messages name (memory.write.extract.recent: "… a
    place called Whispering Falls." … "The sound of that place …"), or, when none names it, led in by the sentence
    said just before it, which names what it goes on about (memory.write.extract.lead_in: "Renovating the old
    farmhouse went smoothly; User and others painted it a soft green"), or cut to the speaker's own clause when only
    the clause before it (or one about others after it) points back (memory.write.extract.own_clause: "The colors
    were amazing, and User had a feeling of gratitude …" → "User had a feeling of gratitude …"), and a reaction or a
    verdict of the moment is dropped (memory.write.extract.worth). A statement whose occasion only the conversation
    names is headed by it (memory.write.extract.occasion: "Charity event: User truly felt the power of their
    collective effort …"), and a statement said right after another is told with it (``_told_together``: "User and
    others raised a ton; User and others got stuff like canned food …"). A reference that cannot be named is dropped, in
    every language and from every extractor: the episode keeps what was said, and a fact a reader cannot place is no
    fact (LoCoMo's annotators, who saw the photos, agree with about 60 % of such memories, which is why the learned
    decision once kept them; a product person spot-checking memories cannot). What is dropped leaves no trace on the
    survivors: what was said is in the episode, and the write log records the message's reason when nothing is
    left."""
    out: list[Candidate] = []
    told_twice: set[int] = set()  # memories already told of two statements
    for c in cands:
        c.content = pruned(c.content)  # "…; it was amazing": the verdict of the moment is not the fact
        if trivial(c.content, c.predicate) or _OBJECT_MISSING.search(c.content):
            continue
        # "my friends … We chilled …", "… camping with your fam?" — "We bond …": not "User and others"
        c.content = we_named(c.content, c.evidence, message, previous)
        named = _named(c.content, c.evidence, message, previous, recent)
        rest = own_clause(c.content, c.evidence) if named is None else None
        if rest is not None:  # only the opening clause points back ("The colors were amazing, and User had …")
            named = _named(rest, c.evidence, message, previous, recent)
        own_words = named == c.content and _own_words(c)  # nothing to name: led in only if a word of it points back
        led = lead_in(c.content, c.evidence, message, own_words=own_words) if named is None or own_words else None
        if led is not None:  # led in by the sentence said before it ("Renovating … went well. We painted it …")
            c.content, c.evidence = led
            out.append(c)
            continue
        if named is None and out and _goes_on(out[-1], c) and _join_onto(out, c, message):
            continue  # "We made pizza! We had so much fun making them …": one memory, named in its head
        if named is None:  # resolve or abstain: the episode keeps what was said
            continue
        if named != c.content:
            if trivial(named, c.predicate):  # "… chasing after those dreams" named "… after dreams": a pep talk
                continue
            c.meta[keep.RENAMED] = True
        if recent:  # "the cake" the other speaker pointed at ("That cake looks amazing!") → "a cake"
            pointed = indefinite(named, c.evidence, message, recent)
            if pointed is None:  # "User likes the plate": only the photo shows which
                continue
            named = pointed
        c.content = named
        if (
            out
            and _goes_on(out[-1], c)
            and (untold(out[-1].content) or _told_together(out[-1], c, told_twice))
            and _join_onto(out, c, message)
        ):
            told_twice.add(id(out[-1]))
            continue  # "User picked up new skills; User recently started learning an instrument"
        out.append(c)
    # "User faced all kinds of hurdles.", "User has been working on a project lately": a kind, nothing named
    out = [c for c in out if not (_own_words(c) and names_nothing(c.content))]
    for c in out:  # "Charity event: User truly felt the power of their collective effort …"
        if _own_words(c):
            c.content = with_occasion(c.content, occasion_of(c.content, c.evidence, message, previous))
    return out
