"""One value per single-valued fact in the prompt: what the profile says wins, and what a person retracted is gone.

The profile (kept in step with the memories that state it, see ``memory.profile_sync``) is the truth for its
single-valued fields. A retrieved memory stating another value of such a field — or a second value of a
single-valued fact the profile does not hold — is left out (:func:`one_value_each`); so are the sentences of older
text (session bridges, rolling summaries) that state a value the profile contradicts or a statement a person
flagged, deleted or superseded (:func:`consistent_text`).
"""

from __future__ import annotations

from typing import Any

from memory.write.extract.base import PREDICATES, SINGLE_VALUED, amount_key, norm_object, sentences


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
    a single-valued fact (the profile's value wins, then the better-ranked memory); returns (kept, ids left out)."""
    seen: dict[str, Any] = {}
    kept, out = [], []
    for m in memories:
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


def _stale(sentence: str, profile: dict[str, Any], retracted: set[tuple[str, str]]) -> bool:
    from memory.storage.models import utcnow
    from memory.text.privacy import mask_pii
    from memory.write.extract.extractor import extract_rules

    probe = sentence.split(":", 1)[-1].split("：", 1)[-1]  # "Last time you told me: I live in …"
    # bridges speak to the user ("you live in Berlin", "你住在杭州"): read them the way assistant text is read
    for c in extract_rules(probe, at=utcnow()) or extract_rules(probe, role="assistant", at=utcnow()):
        if c.hedged:
            continue
        if _conflicts(profile, c.predicate, c.meta.get("display") or c.object):
            return True
        if retracted_key(c.predicate, mask_pii(c.object)) in retracted:
            return True
    return False


def consistent_text(text: str, profile: dict[str, Any], retracted: set[tuple[str, str]]) -> str:
    """``text`` without the sentences stating a value the profile contradicts or a retracted statement."""
    if not text or not (profile or retracted):
        return text
    parts = sentences(text)
    kept = [s for s in parts if not _stale(s, profile, retracted)]
    return text if len(kept) == len(parts) else " ".join(kept)
