"""The core profile: a few explicit fields per user, changed only by explicit statements or a person's edit.

Every change is logged as a ``ProfileChange`` (field, old, new, source, source message, reason). Hedged statements
("maybe I'll move to Beijing", "我可能会搬到北京") never change a value: they only lower the confidence of the field
they cast doubt on. The assistant's inferences never reach the profile. Each ``ProfileField`` row carries a
``version``; an edit with ``expected_version`` fails with ``Conflict`` when someone else changed the field first
(compare-and-set in one UPDATE statement, so it holds across processes).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlmodel import select
from tenacity import Retrying, retry_if_exception_type, stop_after_attempt, wait_random_exponential

from memory.errors import Conflict, InvalidInput
from memory.extract.base import Candidate, norm_object
from memory.models import ProfileChange, ProfileField, User, utcnow
from memory.privacy import mask_value

FIELDS = ("display_name", "preferred_name", "city", "language", "communication_style", "budget", "interests",
          "dietary", "occupation", "notes")
LIST_FIELDS = frozenset({"interests", "dietary"})
WEAK_FACTOR, WEAK_FLOOR = 0.8, 0.3


def fields(store, user: User) -> dict[str, ProfileField]:
    with store.db() as db:
        return {f.field: f for f in db.exec(select(ProfileField).where(ProfileField.user_key == user.key)).all()}


def get_profile(store, user: User) -> dict[str, Any]:
    return {name: f.value for name, f in fields(store, user).items()}


def history(store, user: User) -> list[ProfileChange]:
    query = select(ProfileChange).where(ProfileChange.user_key == user.key).order_by(ProfileChange.id)
    with store.db() as db:
        return list(db.exec(query).all())


def set_field(store, user: User, name: str, value: Any, *, source: str, reason: str, confidence: float = 1.0,
              source_message_id: int | None = None, expected_version: int | None = None) -> ProfileField:
    """Write one field (compare-and-set on ``version``) and log the change."""
    if name not in FIELDS:
        raise InvalidInput(f"profile field must be one of {', '.join(FIELDS)}")
    with store.db() as db:
        row = db.exec(select(ProfileField).where(ProfileField.user_key == user.key, ProfileField.field == name)).first()
        current = row.version if row else 0
        if expected_version is not None and expected_version != current:
            raise Conflict(f"profile field {name!r} is at version {current}, not {expected_version}: reload and retry")
        return _write(db, user, name, value, row, source=source, reason=reason, confidence=confidence,
                      source_message_id=source_message_id)


def _write(db, user: User, name: str, value: Any, row: ProfileField | None, *, source: str, reason: str,
           confidence: float, source_message_id: int | None) -> ProfileField:
    """Compare-and-set ``name`` from the state ``row`` (None = not set yet), log the change, commit; returns the
    field as now stored (no re-read: the compare-and-set proves nobody changed it in between)."""
    value = mask_value(value)
    old = row.value if row else None
    if row is None:
        new = ProfileField(user_key=user.key, field=name, value=value, confidence=confidence, source=source,
                           source_message_id=source_message_id)
        db.add(new)
    else:
        now, version = utcnow(), row.version  # read first: the UPDATE below also refreshes a session-bound ``row``
        done = db.execute(
            update(ProfileField).where(ProfileField.id == row.id, ProfileField.version == version).values(
                value=value, confidence=confidence, source=source, source_message_id=source_message_id,
                updated_at=now, version=version + 1)
        )
        if done.rowcount != 1:
            raise Conflict(f"profile field {name!r} changed concurrently: reload and retry")
        new = ProfileField(id=row.id, user_key=user.key, field=name, value=value, confidence=confidence,
                           source=source, source_message_id=source_message_id, updated_at=now,
                           version=version + 1)
    db.add(ProfileChange(user_key=user.key, field=name, old_value=old, new_value=value, source=source,
                         source_message_id=source_message_id, reason=mask_value(reason)))
    try:
        db.commit()
    except IntegrityError:
        raise Conflict(f"profile field {name!r} was created concurrently: reload and retry") from None
    return new


def _write_field(store, user: User, name: str, value: Any, row: ProfileField | None, *, reason: str,
                 confidence: float, msg: int | None) -> ProfileField:
    with store.db() as db:
        return _write(db, user, name, value, row, source="user-stated", reason=reason, confidence=confidence,
                      source_message_id=msg)


def _item(c: Candidate) -> str:
    """List entry for interests / dietary: the object for likes, the statement itself for diets."""
    if c.predicate == "likes":
        return c.object
    if norm_object(c.object) == "vegetarian":
        return "vegetarian"
    text = c.content.rstrip("。.")
    for prefix in ("User is ", "User ", "用户"):
        if text.startswith(prefix):
            return text[len(prefix):]
    return text


def _target(c: Candidate, current: Any) -> Any:
    """The value the field should have after an explicit statement (``current`` when nothing changes)."""
    display = c.meta.get("display") or c.object
    if c.profile_field in LIST_FIELDS:
        items = list(current or [])
        if c.negated:
            return [i for i in items if norm_object(c.object) not in norm_object(i)]
        item = _item(c)
        return items if any(norm_object(i) == norm_object(item) for i in items) else [*items, item]
    if c.negated:
        return None if current is not None and norm_object(str(current)) == norm_object(c.object) else current
    if current is not None and norm_object(str(current)) == norm_object(str(display)):
        return current
    if c.predicate == "budget" and current is not None:
        from memory.extract.base import amount_key

        if amount_key(str(current)) == c.object:
            return current
    return display


def apply_operations(store, user: User, ops, *, source_message_id: int | None) -> list[dict[str, Any]]:
    """Evolve the profile from an applied write plan; returns the logged changes as dicts.

    The fields are read once (at the first decision) and then kept current from our own compare-and-set writes;
    a lost race re-reads them (``_decide_fresh``)."""
    changes: list[dict[str, Any]] = []
    rows: dict[str, ProfileField] | None = None
    for op in ops:
        c: Candidate | None = op.candidate
        if c is None or c.source_type != "user-stated" or op.op == "NOOP":
            continue
        weak = c.meta.get("weak_field")
        if c.hedged or weak:
            decide = lambda r, c=c, w=weak: _weaken(store, user, c, r, w, source_message_id)  # noqa: E731
        elif c.profile_field and c.profile_field in FIELDS:
            decide = lambda r, c=c: _explicit(store, user, c, r, source_message_id)  # noqa: E731
        else:
            continue
        change, rows = _decide_fresh(store, user, rows, decide)
        if change:
            changes.append(change)
    return changes


def _explicit(store, user: User, c: Candidate, rows: dict[str, ProfileField], msg: int | None) -> dict | None:
    row = rows.get(c.profile_field)
    current = row.value if row else None
    new = _target(c, current)
    conf = max(c.confidence, row.confidence if row and new == current else 0.0)
    if row is not None and new == current and abs(conf - row.confidence) < 1e-9:
        return None
    if row is None and new is None:
        return None
    verb = "takes back" if c.negated else "states"
    reason = f"user {verb}: {c.evidence!r}" if new != current else f"user confirms: {c.evidence!r}"
    rows[c.profile_field] = _write_field(store, user, c.profile_field, new, row, reason=reason, confidence=conf,
                                         msg=msg)
    return {"field": c.profile_field, "old": current, "new": new, "confidence": conf, "reason": reason,
            "source_message_id": msg}


def _decide_fresh(store, user: User, rows: dict[str, ProfileField] | None, decide) -> tuple[dict | None, dict]:
    """Run one compare-and-set decision on ``rows`` (read now when None); when another process changed the field
    first (``Conflict``), re-read the fields and decide again, so concurrent writers never lose an update (e.g. two
    interests added at once). Returns the change and the fields as they now are."""
    for attempt in Retrying(retry=retry_if_exception_type(Conflict), stop=stop_after_attempt(8),
                            wait=wait_random_exponential(multiplier=0.01, max=0.3), reraise=True):
        with attempt:
            if rows is None or attempt.retry_state.attempt_number > 1:
                rows = fields(store, user)
            return decide(rows), rows
    raise AssertionError("unreachable")  # pragma: no cover


def _weaken(store, user: User, c: Candidate, rows: dict[str, ProfileField], weak, msg: int | None) -> dict | None:
    name, value = (weak[0], weak[1]) if weak else (c.profile_field, c.meta.get("display") or c.object)
    row = rows.get(name) if name else None
    if row is None or name in LIST_FIELDS or norm_object(str(row.value)) == norm_object(str(value)):
        return None
    conf = round(max(WEAK_FLOOR, row.confidence * WEAK_FACTOR), 4)
    if conf >= row.confidence:
        return None
    reason = (f"weak signal ({c.meta.get('hedge') or 'planned'}: {c.evidence!r}) doubts {row.value!r}: "
              f"confidence {row.confidence:.2f} → {conf:.2f}, value unchanged")
    rows[name] = _write_field(store, user, name, row.value, row, reason=reason, confidence=conf, msg=msg)
    return {"field": name, "old": row.value, "new": row.value, "confidence": conf, "reason": reason,
            "source_message_id": msg}
