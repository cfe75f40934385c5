"""One value per single-valued fact in the prompt: what the profile says wins, and what a person retracted is gone.

The profile (kept in step with the memories that state it, see ``memory.write.profile_sync``) is the truth for its
single-valued fields. A retrieved memory stating another value of such a field — or a second value of a
single-valued fact the profile does not hold — is left out (:func:`one_value_each`); so are the sentences of older
text (session bridges, rolling summaries) that state a value the profile contradicts or a statement a person
flagged, deleted or superseded (:func:`consistent_text`).
"""

from __future__ import annotations

import functools
import re
from typing import Any

from memory.text.language import CJK
from memory.text.sentences import END_MARKS, sentences
from memory.vocab import Update
from memory.write.extract.base import PREDICATES, SINGLE_VALUED, amount_key, norm_object


def same_value(a: Any, b: Any, amount: bool = False) -> bool:
    a, b = str(a), str(b)
    return norm_object(a) == norm_object(b) or (amount and amount_key(a) == amount_key(b))


def _conflicts(profile: dict[str, Any], predicate: str | None, obj: str | None) -> bool:
    if predicate not in SINGLE_VALUED or not obj:
        return False
    field = PREDICATES[predicate][3]
    stated = profile.get(field) if field else None
    return stated not in (None, "", []) and not same_value(stated, obj, predicate == "budget")


def one_value_each(profile: dict[str, Any], memories: list) -> tuple[list, list[str]]:
    """Memories (``.memory_id``, ``.predicate``, ``.object``) in rank order, without those stating a second value of
    a single-valued fact (the profile's value wins, then the better-ranked memory); returns (kept, ids left out).
    A memory labelled as an earlier value (``update == "earlier"``: a newer memory replaced it, see
    ``memory.retrieval.updates``) is history, not a second current value: it is kept, and claims no value."""
    seen: dict[str, Any] = {}
    kept, out = [], []
    for m in memories:
        if getattr(m, "update", None) == Update.EARLIER:
            kept.append(m)
            continue
        if m.predicate not in SINGLE_VALUED or not m.object:
            kept.append(m)
            continue
        key = PREDICATES[m.predicate][3] or m.predicate
        first = seen.get(key)
        if _conflicts(profile, m.predicate, m.object) or (
            first is not None and not same_value(first, m.object, m.predicate == "budget")
        ):
            out.append(m.memory_id)
            continue
        seen.setdefault(key, m.object)
        kept.append(m)
    return kept, out


def retracted_key(predicate: str | None, obj: str | None) -> tuple[str, str] | None:
    return (predicate, norm_object(obj)) if predicate and obj else None


#: the fixed leads of bridges and summaries ("Last time you told me that …", "Facts: …", "上次你告诉我：…"): a clause
#: is read without them, never by splitting at its first colon (a fact may hold a colon of its own: "a pet: dog")
@functools.cache
def _leads() -> tuple[str, ...]:
    from memory.prompts import BRIDGE_WORDS, SUMMARY_LABELS

    words = [w for lang in BRIDGE_WORDS.values() for k, w in lang.items() if not k.endswith("sep") and k != "nothing"]
    words += [w for lang in SUMMARY_LABELS.values() for k, w in lang.items() if k != "sep"]
    return tuple(sorted({w.strip() for w in words if w.strip()}, key=len, reverse=True))


_FILLER = re.compile(r"\b(?:a|an|the|my|your|named|called|is|are|of|and|with)\b|叫做|名叫|叫|名字是|一只|一条|一个|的")
_WORD = re.compile(r"[\u3400-\u9fff]+|[^\W_]+", re.UNICODE)


def _core(clause: str) -> str:
    """The clause without its bridge or summary lead and the quotes around it."""
    text = clause.strip()
    for lead in _leads():
        if text.startswith(lead):
            text = text[len(lead) :]
            break
    return text.strip().strip("\"'“”‘’「」")


@functools.lru_cache(maxsize=4096)
def _object_words(obj: str) -> frozenset[str]:
    return frozenset(_words(obj))


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(_FILLER.sub(" ", text.lower()))}


def _mentions(have: set[str], joined: str, obj: str) -> bool:
    """Do a clause's words (``have``; ``joined``: its Chinese runs) name every content word of the retracted object
    ("dog named Biscuit" → dog, biscuit), as whole words (English) or as runs (Chinese)?"""
    wanted = _object_words(obj)
    if not wanted:
        return False
    return all(w in have or (CJK.match(w) and w in joined) for w in wanted)


class _Retracted:
    """The retracted objects indexed by their content words, built once per text (a clause only checks the objects
    that share a word with it; Chinese objects, matched as runs, are always checked)."""

    def __init__(self, retracted: set[tuple[str, str]]) -> None:
        self.keys = retracted
        self.by_word: dict[str, list[str]] = {}
        self.chinese: list[str] = []
        for _, obj in retracted:
            words = _object_words(obj)
            if any(CJK.match(w) for w in words):
                self.chinese.append(obj)
            elif words:
                self.by_word.setdefault(min(words), []).append(obj)

    def named_in(self, have: set[str]) -> bool:
        joined = "".join(w for w in have if CJK.match(w))
        objects = [o for w in have for o in self.by_word.get(w, ())] + self.chinese
        return any(_mentions(have, joined, obj) for obj in objects)


@functools.lru_cache(maxsize=8)
def _indexed(retracted: frozenset[tuple[str, str]]) -> _Retracted:
    """One index per retracted set (a turn filters many lines with the same set)."""
    return _Retracted(set(retracted))


def _stale(sentence: str, profile: dict[str, Any], retracted: _Retracted) -> bool:
    from memory.storage.models import utcnow
    from memory.text.privacy import mask_pii
    from memory.write.extract.extractor import extract_rules

    probe = _core(sentence)
    # bridges speak to the user ("you live in Berlin", "你住在杭州"): read them the way assistant text is read
    stated = extract_rules(probe, at=utcnow()) or extract_rules(probe, role="assistant", at=utcnow())
    keys = set()
    for c in stated:
        if c.hedged:
            continue
        if _conflicts(profile, c.predicate, c.meta.get("display") or c.object):
            return True
        key = retracted_key(c.predicate, mask_pii(c.object))
        if key in retracted.keys:
            return True
        if key is not None:
            keys.add(key)
    if keys:  # read, and what it states still holds ("you like jazz: the early years" once "likes jazz" went)
        return False
    # whatever the wording it could not be read in: a clause naming a retracted statement's object says it
    return retracted.named_in(_words(mask_pii(probe)))


def holds(text: str, profile: dict[str, Any], retracted: set[tuple[str, str]]) -> str:
    """The one status helper for composed text: ``text`` (a bridge, a summary, a context line) with every clause
    that states a retracted statement or a value the profile contradicts left out. The prompt, the offline reply,
    the chat banner and panel and the Sessions page all read bridges through it."""
    return consistent_text(text, profile, retracted)


def consistent_text(text: str, profile: dict[str, Any], retracted: set[tuple[str, str]]) -> str:
    """``text`` without the clauses stating a value the profile contradicts or a retracted statement, still reading
    as sentences (English and Chinese): a bridge's lead ("Last time you told me that", "上次你告诉我：") moves to the
    next kept clause of its own sentence (never into the next sentence), a sentence whose last clause goes ends on its
    own end mark (no dangling ";"), a sentence whose every clause goes goes whole, and what is kept keeps its
    spacing and line breaks."""
    if not text or not (profile or retracted):
        return text
    gone = _indexed(frozenset(retracted))
    said = _grouped(text)
    kept = [_keep(clauses, profile, gone) for _, clauses in said]
    if all(k is None for k in kept):  # nothing was left out
        return text
    out: list[str] = []
    pending: str | None = None  # the gap before a sentence left out: the next kept one takes the wider gap
    for (gap, clauses), k in zip(said, kept, strict=True):
        body = _join(clauses) if k is None else k
        if not body:
            pending = gap if pending is None else _wider(pending, gap)
            continue
        if not out:
            gap = gap if pending is None else ""
        elif pending is not None:
            gap = _wider(pending, gap)
        out.append(gap + body)
        pending = None
    return "".join(out).strip()


_SEMI = ";；"
_OPENS, _CLOSES = "(（[【「『《“", ")）]】」』》”"


def _grouped(text: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """``text`` as sentences, each (the gap before it, its clauses as (gap before, clause)), from the one splitter
    (:func:`memory.text.sentences.sentences`, which also ends a clause at ";"). A clause whose brackets are still
    open at its ";" goes on into the next ("（2026年12月；11月22日告诉我的）" is one clause)."""
    clauses: list[tuple[str, str]] = []
    cursor = 0
    for piece in sentences(text):
        at = text.find(piece, cursor)
        gap, cursor = text[cursor:at], at + len(piece)
        last = clauses[-1][1] if clauses else ""
        if last and last[-1] in _SEMI and _open(last) and "\n" not in gap:
            clauses[-1] = (clauses[-1][0], last + gap + piece)
        else:
            clauses.append((gap, piece))
    said: list[tuple[str, list[tuple[str, str]]]] = []
    for n, (gap, piece) in enumerate(clauses):
        continues = n > 0 and clauses[n - 1][1][-1] in _SEMI and "\n" not in gap
        if continues:
            said[-1][1].append((gap, piece))
        else:
            said.append((gap, [("", piece)]))
    return said


def _open(clause: str) -> bool:
    return sum(clause.count(c) for c in _OPENS) > sum(clause.count(c) for c in _CLOSES)


def _join(clauses: list[tuple[str, str]]) -> str:
    return "".join(gap + clause for gap, clause in clauses)


def _wider(a: str, b: str) -> str:
    """Of two gaps, the one that separates more (a paragraph break over a space)."""
    return max(a, b, key=lambda g: (g.count("\n"), len(g)))


def _keep(clauses: list[tuple[str, str]], profile: dict[str, Any], gone: _Retracted) -> str | None:
    """One sentence with its stale clauses left out; None when none is ("" when all are)."""
    stale = [_stale(clause, profile, gone) for _, clause in clauses]
    if not any(stale):
        return None
    if all(stale):
        return ""
    first = clauses[0][1].strip()
    lead = next((w for w in _leads() if first.startswith(w)), "") if stale[0] else ""
    ending = clauses[-1][1][len(clauses[-1][1].rstrip(END_MARKS)) :]  # the sentence's own end mark ("." "。" "")
    kept = [(gap, clause) for (gap, clause), dropped in zip(clauses, stale, strict=True) if not dropped]
    kept[0] = ("", kept[0][1])
    if lead and not any(kept[0][1].startswith(w) for w in _leads()):
        kept[0] = ("", lead + (" " if lead[-1].isascii() else "") + kept[0][1])
    if stale[-1]:  # the last clause went: the last kept one ends the sentence
        gap, clause = kept[-1]
        kept[-1] = (gap, clause.rstrip(_SEMI).rstrip() + ending.lstrip(_SEMI))
    return _join(kept)
