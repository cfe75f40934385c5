"""Knowledge updates: when something changed over time (a job, a city, a car, a habit), the newer statement outranks
the older one, and the older one stays findable as history.

Two ways a value is replaced, both handled after the cut (relevance and the signals keep their meaning):

- **the write path superseded it** (a single-valued predicate with another value, "I no longer …"): the old memory
  leaves recall (status ``superseded``) and the new one names it in ``meta.supersedes``. A question about the past
  ("Where did I live before?", 我以前住在哪里?: :func:`asks_past`) follows those links from the selected memories back
  to the older values (:func:`history`), shown as earlier;
- **both memories are active** (the extractor read the change as a free-text fact, or only the message says it):
  a selected memory is *replaced* by a newer candidate when the newer one says it changed — a change word of the same
  topic ("I just started a new job at Globex" replaces "User works at Acme"; :data:`TOPIC_CHANGE`), or a word naming
  what it replaced ("instead of running", "把卡罗拉卖了" replace what says running / 卡罗拉; :data:`REPLACED`). The
  newer one is then ranked just above the older (taken into the selection when the threshold had cut it), and the
  older is labelled ``earlier`` with the day it was replaced (:func:`settle`).

A hit labelled ``earlier`` is history, never the current value: the composer shows it as earlier (and keeps it beside
the profile's value instead of leaving it out as a contradiction), and the offline engine says it as earlier on a
question about the past and leaves it out of an answer about now.
"""

from __future__ import annotations

import functools
import re
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import select
from sqlmodel import col

from memory.retrieval.hits import IN_CONVERSATION, RETRACTED, Hit, MemoryRow, hit_of_row, stored_rows
from memory.storage.models import Message
from memory.text.language import CJK
from memory.text.sentences import sentences
from memory.vocab import MemoryStatus, MemoryType, SourceType, Update
from memory.write.extract.base import is_question

if TYPE_CHECKING:
    from memory.retrieval.filters import RecallFilters
    from memory.storage.store import Storage

EARLIER, CURRENT = Update.EARLIER.value, Update.CURRENT.value

#: a question about the past: "used to", "before", "previously", "my old job", 以前, 之前, 原来, 曾经 …
PAST = re.compile(
    r"\b(?:used? to|before|previously|formerly|former|earlier|in the past|originally|back then|prior|previous|"
    r"(?:my )?old (?:job|car|place|city|home|apartment|flat|house|address|company|employer|habit|routine))\b|"
    r"以前|之前|原来|原先|过去|曾经|从前|先前|以往|当初|上一(?:个|份|辆|家|套)",
    re.IGNORECASE,
)

#: topics a value can change in, each: (words that place a memory in it, words that say it changed, predicates)
TOPIC_WORDS = {
    "job": re.compile(
        r"\b(?:work(?:s|ed|ing)?|job|jobs|employ\w*|career|occupation|company|employer|colleagues?|boss)\b|"
        r"工作|上班|公司|职业|单位|同事|老板|当\w{0,6}?(?:员|师|工)",
        re.IGNORECASE,
    ),
    "home": re.compile(
        r"\b(?:live[sd]?|living|move[sd]?|moving|relocat\w*|city|apartment|flat|neighbou?rhood)\b|住|搬|城市|公寓",
        re.IGNORECASE,
    ),
    "car": re.compile(r"\b(?:cars?|drive[sn]?|driving|drove|vehicle|suv|sedan)\b|车|驾驶", re.IGNORECASE),
}
TOPIC_CHANGE = {
    "job": re.compile(
        r"\b(?:new (?:job|role|position|employer)|started (?:a |my )?new (?:job|role|position)|"
        r"(?:started|now|currently) work(?:s|ing)? (?:at|for|as)|switched jobs|changed jobs|got (?:a job|hired)|"
        r"was hired|promoted to|retired)\b|换了?(?:个|份)?工作|跳槽|入职|新工作|升职|升为|当上了|退休了|"
        r"现在在\w{0,10}?(?:上班|工作)",
        re.IGNORECASE,
    ),
    "home": re.compile(
        r"\b(?:moved (?:to|into|back to|out of)|relocated|now live[sd]? in|now living in|"
        r"new (?:place|apartment|flat|house|home|city))\b|搬到|搬去|搬家|现在住",
        re.IGNORECASE,
    ),
    "car": re.compile(r"\b(?:new car|now drives?|traded in)\b|换了?车|新车", re.IGNORECASE),
}
TOPIC_PREDICATES = {"job": {"works_at", "occupation"}, "home": {"lives_in", "moved_to"}, "car": set()}

#: words naming what a newer statement replaced ("instead of running", "no longer eat meat", 不跑步了, 把卡罗拉卖了)
REPLACED = re.compile(
    r"\binstead of (\w+(?: \w+){0,2})|\bno longer (\w+(?: \w+){0,2})|"
    r"\b(?:sold|quit|stopped|gave up|switched from|replaced|traded in) (?:my |their |his |her |the |our |a )?(\w+)|"
    r"\b(?:not|don'?t|doesn'?t) (\w+(?: \w+)?) any ?more|"
    r"不再(\w{2,4}?)(?:了|，|。|$)|不(?!知道|一样|好意思)(\w{2,3})了|把(\w{1,6}?)(?:卖|换|扔|送)(?:掉)?了|戒了(\w{1,4})|"
    r"放弃了(\w{1,4})",
    re.IGNORECASE,
)
#: a newer count or amount ("I now have 20 dozen eggs" after "I have 15 dozen eggs", 我现在攒了两万 after 攒了一万):
#: said with one of these words, with another number, and a content word in common
NOW = re.compile(r"\b(?:now|currently|these days|at the moment|so far|by now|up to)\b|现在|目前|如今|至今|到现在", re.I)
_FILLER = frozenset(
    re.findall(
        r"\w+",
        "a an the my their his her our and or of to in at on for with every each some go goes going do does doing "
        "have has had any more",
    )
)


def asks_past(query: str) -> bool:
    """Does the question ask about how things were before ("Where did I work before?", 我以前住在哪里?)?"""
    return bool(PAST.search(query))


def _replaced(text: str) -> list[frozenset[str]]:
    """What ``text`` says it replaced, one set of content words per phrase ("no longer work at Acme" → work, acme)."""
    out = []
    for m in REPLACED.finditer(text):
        said = next(g for g in m.groups() if g)
        words = {said} if CJK.match(said) else {w.lower() for w in re.findall(r"[A-Za-z]{3,}", said)} - _FILLER
        if words:
            out.append(frozenset(words))
    return out


def _names(text: str, word: str) -> bool:
    if CJK.match(word):
        return word in text
    stem = word[:-3] if word.endswith("ing") and len(word) > 5 else word  # running ↔ runs, run
    return bool(re.search(rf"\b{re.escape(stem)}", text, re.IGNORECASE))


def _topics(h: Hit) -> set[str]:
    return {t for t, words in TOPIC_WORDS.items() if h.predicate in TOPIC_PREDICATES[t] or words.search(h.content)}


def replaces(newer: Hit, older: Hit, said: str) -> bool:
    """Does ``newer`` (its message said ``said``) replace what ``older`` states? Newer, from another message, and
    saying it changed: a change word of a topic ``older`` is in, or a word naming what ``older`` states."""
    if newer.created_at is None or older.created_at is None or newer.created_at <= older.created_at:
        return False
    if newer.source_type not in _SAYERS or is_question(newer.content):  # only what the user (or a person) says
        return False
    learnt = [str(s) for s in older.source_message_ids[:1]]  # where the older one was first said (a later message
    if set(learnt) & set(map(str, newer.source_message_ids)):  # that reinforced it may be the very change)
        return False
    if newer.object and older.object and newer.object.lower() == older.object.lower():
        return False
    if len(older.content) > SHORT:
        return False
    topics, replaced = _change("\n".join(_short(f"{newer.content}\n{said}")))
    if topics & _topics(older):
        return True
    if any(all(_names(older.content, w) for w in words) for words in replaced):
        return True
    return _recounted(f"{newer.content}\n{said}", older.content)


def _recounted(newer: str, older: str) -> bool:
    """A newer count of the same thing: a sentence of the newer says "now" / 现在 and counts something the older
    counts too, with another number ("20 dozen eggs" after "30 dozen eggs", 两万块 after 一万块)."""
    was = _counts(older)
    if not was:
        return False
    for sentence in _short(newer):
        if NOW.search(sentence):
            now = _counts(sentence)
            if any(thing in was and numbers != was[thing] for thing, numbers in now.items()):
                return True
    return False


#: a number and the thing it counts: "20 dozen eggs", "50 episodes", "两万块", "3辆车"
_COUNT = re.compile(
    r"(\d+(?:[.,]\d+)*|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|"
    r"forty|fifty|hundred)\b)\s+(?:dozen |of (?:the |my )?)?([a-z]{3,})|([零〇一二两三四五六七八九十百千万亿\d]{1,8})"
    r"\s*([\u3400-\u9fff]{1,2})",
    re.IGNORECASE,
)


@functools.lru_cache(maxsize=4096)
def _counts(text: str) -> dict[str, frozenset[str]]:
    """Thing counted → the numbers counting it, in a short text (a long one counts too many things to compare)."""
    if len(text) > SHORT:
        return {}
    out: dict[str, set[str]] = {}
    for m in _COUNT.finditer(text):
        number, thing = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        if number.isdigit() and len(number) == 4 and number.startswith(("19", "20")):
            continue  # a year, not a count
        out.setdefault(thing.lower().rstrip("s"), set()).add(number.lower().replace(",", ""))
    return {k: frozenset(v) for k, v in out.items()}


#: the longest statement read for a change, in characters: a sentence of a longer message is read on its own, and a
#: longer memory is never labelled earlier (a long message mentions every topic in passing)
SHORT = 300


#: a wish or a plan is not a change yet ("wants to move to Shenzhen", 想搬到深圳, "thinking about a new job")
INTENT = re.compile(
    r"\b(?:wants?|wanted|wish(?:es)?|hopes?|hoping|plans?|planning|intends?|thinking (?:about|of)|considering|"
    r"would like|'d like|going to|might|maybe|someday)\b|想|打算|计划|希望|准备|考虑|梦想|也许|可能",
    re.IGNORECASE,
)


def _short(text: str) -> list[str]:
    """The sentences of ``text`` short enough to state one change and not a wish or a plan."""
    return [p for p in sentences(text, semicolons=False) if len(p) <= SHORT and not INTENT.search(p)]


@functools.lru_cache(maxsize=4096)
def _change(text: str) -> tuple[frozenset[str], tuple[frozenset[str], ...]]:
    """What a statement says changed: the topics of its change phrases, and the words of what it replaced (read once
    per text: a search compares every selected memory with every candidate)."""
    return frozenset(t for t, words in TOPIC_CHANGE.items() if words.search(text)), tuple(_replaced(text))


#: who can say that something changed: the user, or a person correcting what they said (not an inference, not the
#: agent's own words)
_SAYERS = (SourceType.USER_STATED, SourceType.PERSON_EDIT)


def settle(hits: list[Hit], k: int, said: dict[str, str] | None = None) -> list[Hit]:
    """Pure: the ranked, cut ``hits`` with each selected memory a newer candidate replaces labelled
    :data:`EARLIER` (``replaced_by``, ``replaced_on``) and that newer one ranked just above it (selected, even if
    the threshold had cut it; the selection stays at most ``k``, counting the newer ones). ``said``: source message
    id → its text, where a fact's change word may be."""
    said = said or {}
    pool = [h for h in hits if h.drop_reason != RETRACTED and not h.flagged]  # never taken back in
    by_rank = sorted(pool, key=lambda h: h.rank)
    moved: dict[str, str] = {}  # newer id → the id of the older memory it goes above
    for old in [h for h in by_rank if h.selected]:
        if old.update == EARLIER:
            continue
        newer = next((n for n in by_rank if n is not old and replaces(n, old, _said(n, said))), None)
        if newer is None:
            continue
        if not newer.selected and (twin := _selected_twin(newer, by_rank)) is not None:
            newer = twin  # the other layer's memory of the same message already says it: that one goes above
        old.update, old.replaced_by, old.replaced_on = EARLIER, newer.memory_id, newer.created_at
        if newer.update != EARLIER:
            newer.update = CURRENT
        if newer.rank > old.rank and newer.drop_reason != IN_CONVERSATION:  # the prompt shows that one anyway
            moved.setdefault(newer.memory_id, old.memory_id)
    if not moved:
        return hits
    order = [h for h in hits if h.memory_id not in moved]
    for nid, oid in moved.items():
        newer = next(h for h in hits if h.memory_id == nid)
        order.insert(next(i for i, h in enumerate(order) if h.memory_id == oid), newer)
        if not newer.selected:
            newer.selected, newer.drop_reason = True, None
    _renumber(order, k)
    return order


def _selected_twin(h: Hit, hits: list[Hit]) -> Hit | None:
    """A selected hit drawn from the same message as ``h`` (an episode and the fact read from it)."""
    own = set(map(str, h.source_message_ids))
    return next((o for o in hits if o.selected and own & set(map(str, o.source_message_ids[:1]))), None)


def _said(h: Hit, said: dict[str, str]) -> str:
    return "\n".join(said.get(str(s), "") for s in h.source_message_ids)


#: how many supersede links a question about the past follows back from a selected memory (A → B → C)
HISTORY_DEPTH = 3


def history(
    store: Storage,
    user_key: str,
    hits: list[Hit],
    k: int,
    agent_id: str | None = None,
    filters: RecallFilters | None = None,
) -> list[Hit]:
    """For a question about the past: after each selected memory the user stated, the memories it superseded
    through the write path (``meta.supersedes``, followed back :data:`HISTORY_DEPTH` steps), as selected hits
    labelled :data:`EARLIER`. They are out of the index, so no search finds them: each is found through the memory
    that replaced it and carries that memory's scores (its similarity is unknown: None). A person's correction is
    not history: what it replaced was wrong, not earlier. The search's agent and filters hold for them as for any
    candidate (a door's metadata filter, memory and source types, event time), and so does ``k``: the lowest-ranked
    selected hits make room."""
    have = {h.memory_id for h in hits}
    out: list[Hit] = []
    for h in hits:
        out.append(h)
        if not h.selected or h.source_type == SourceType.PERSON_EDIT:
            continue
        later, wanted = h, _superseded_ids(h.meta)
        for _ in range(HISTORY_DEPTH):
            wanted = [i for i in wanted if i not in have]
            if not wanted:
                break
            rows = [r for r in _superseded(store, user_key, wanted) if _kept(r, agent_id, filters)]
            if not rows:
                break
            for row in rows:
                old = hit_of_row(row, {}, {}, {row.id: later.score})
                old.similarity, old.relevance, old.rank = None, later.relevance, later.rank
                old.selected, old.passed = True, True
                old.update, old.replaced_by, old.replaced_on = EARLIER, later.memory_id, later.created_at
                out.append(old)
                have.add(old.memory_id)
            later, wanted = old, [i for r in rows for i in _superseded_ids(r.meta)]
        if h.update is None and len(out) and out[-1] is not h:
            h.update = CURRENT
    if len(out) == len(hits):
        return hits
    _renumber(out, k)
    return out


def _renumber(hits: list[Hit], k: int) -> None:
    """Ranks in list order; selected hits beyond the first ``k`` are cut ("beyond top-k")."""
    chosen = 0
    for rank, h in enumerate(hits, 1):
        h.rank = rank
        if h.selected:
            chosen += 1
            if chosen > k:
                h.selected, h.drop_reason = False, "beyond top-k"


def _kept(row: Any, agent_id: str | None, filters: RecallFilters | None) -> bool:
    if agent_id is not None and row.agent_id != agent_id:
        return False
    if filters is None:
        return True
    return (not filters.types or row.type in filters.types) and (not filters.sql_side or filters.keeps_row(row))


def _superseded_ids(meta: Any) -> list[str]:
    ids = meta.get("supersedes") if isinstance(meta, dict) else None
    return [str(i) for i in ids] if isinstance(ids, list) else []


def _superseded(store: Storage, user_key: str, ids: list[str]) -> list[MemoryRow]:
    """The superseded memories among ``ids`` (the first 50), this user's only, oldest first."""
    rows = stored_rows(store.engine, user_key, ids[:50], MemoryStatus.SUPERSEDED)
    return sorted(rows, key=lambda r: r.created_at or datetime.min)


#: candidates (best first) whose source message is read for a change word when no episode among the candidates
#: holds it: bounds the one SQL read per search
SOURCE_READ = 24


def source_texts(store: Storage, user_key: str, hits: list[Hit]) -> dict[str, str]:
    """Source message id → text, for the best-ranked candidates: from the episodes among the candidates, and one
    bounded SQL read (this user's messages only) for the facts whose message no candidate episode holds."""
    said = {str(s): h.content for h in hits if h.type == MemoryType.EPISODE for s in h.source_message_ids}
    wanted = {
        int(s)
        for h in sorted(hits, key=lambda h: h.rank)[:SOURCE_READ]
        if h.type != MemoryType.EPISODE
        for s in h.source_message_ids
        if str(s).isdigit() and str(s) not in said
    }
    if wanted:
        with store.engine.connect() as conn:
            for mid, text in conn.execute(
                select(col(Message.id), col(Message.content)).where(
                    col(Message.id).in_(sorted(wanted)), col(Message.user_key) == user_key
                )
            ).all():
                said[str(mid)] = text
    return said


def apply(
    store: Storage,
    user_key: str,
    query: str,
    hits: list[Hit],
    k: int,
    agent_id: str | None = None,
    filters: RecallFilters | None = None,
) -> list[Hit]:
    """The knowledge-update step of a search (after the cut and the retraction reading, before source context):
    :func:`settle`, then, for a question about the past, :func:`history`."""
    if hits:
        hits = settle(hits, k, source_texts(store, user_key, hits))
    if asks_past(query):
        hits = history(store, user_key, hits, k, agent_id, filters)
    return hits
