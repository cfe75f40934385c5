"""One truth per fact: a profile value and the memory that states it move together.

Every profile value records the memory that set it (``ProfileField.memory_ids``: value item → memory id). When a
person edits, supersedes, flags, deletes, unflags or restores that memory, the field follows (with a change-log
entry naming the person and the reason); when a person edits the field, the matching memories are superseded (or a
memory is created) so recall never brings back the old value. Multi-valued fields (interests, diet) follow the same
rule per item. Only person operations and maintenance come here: the write pipeline links its own values as it writes
them. Maintenance: forgetting (archive, purge) drops the values a forgotten memory stated, like a deletion, unless
another active memory states the same value (the link moves to it); compaction moves each link from a merged source
to the merged record, which states the same value (no change-log entry: the value did not change).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sqlmodel import col, select

from memory import profile
from memory.errors import NotFound
from memory.storage import records
from memory.storage.models import Memory, ProfileChange, ProfileField, User, utcnow
from memory.text.language import has_cjk
from memory.vocab import Actor, MemoryStatus, SourceType, is_flagged
from memory.write.extract.base import PREDICATES, Candidate, amount_key, norm_object

if TYPE_CHECKING:
    from memory.storage.db import Database

#: profile field → the predicates whose memories state it
FIELD_PREDICATES: dict[str, tuple[str, ...]] = {}
for _pred, (_t, _single, _i, _field) in PREDICATES.items():
    if _field:
        FIELD_PREDICATES[_field] = (*FIELD_PREDICATES.get(_field, ()), _pred)
#: field → (English, Chinese) sentence a person's value is stored as (so recall finds it like any other memory)
TEMPLATES = {
    "display_name": ("User's name is {v}.", "用户的名字是{v}。"),
    "preferred_name": ("User prefers to be called {v}.", "用户希望被称为{v}。"),
    "city": ("User lives in {v}.", "用户住在{v}。"),
    "language": ("User prefers replies in {v}.", "用户希望用{v}回复。"),
    "communication_style": ("User prefers a {v} communication style.", "用户偏好的沟通风格：{v}。"),
    "budget": ("User's budget is {v}.", "用户的预算是{v}。"),
    "interests": ("User likes {v}.", "用户喜欢{v}。"),
    "dietary": ("User's diet: {v}.", "用户的饮食：{v}。"),
    "occupation": ("User works as {v}.", "用户的职业是{v}。"),
    "notes": ("Note about the user: {v}.", "关于用户的备注：{v}。"),
}
_EN_SUBJECT = re.compile(r"^\s*(?:the\s+)?user(?:'s|’s)?\s+", re.IGNORECASE)
_IRREGULAR = {"is": "am", "has": "have", "was": "was", "does": "do"}


def label(actor: Actor) -> str:
    return f"{actor.name} · {actor.via}"


def first_person(text: str) -> str:
    """A stored third-person statement said by the user again ("User lives in Porto." → "I live in Porto."), so the
    extraction rules read a person's wording exactly as they read the user's."""
    text = text.strip()
    if text.startswith("用户"):
        return "我" + text[2:]
    m = _EN_SUBJECT.match(text)
    if not m:
        return text
    rest = text[m.end() :]
    if m.group(0).rstrip().lower().endswith(("'s", "’s")):
        return "My " + rest
    verb, _, tail = rest.partition(" ")
    low = verb.lower()
    if low in _IRREGULAR:
        verb = _IRREGULAR[low]
    elif low.endswith("ies") and len(low) > 4:
        verb = verb[:-3] + "y"
    elif low.endswith(("ches", "shes", "sses", "xes")):
        verb = verb[:-2]
    elif low.endswith("s") and not low.endswith("ss"):
        verb = verb[:-1]
    return f"I {verb} {tail}".strip()


def statement(text: str) -> Candidate | None:
    """The profile statement a memory's text makes, if any (first one with a profile field, never hedged)."""
    from memory.write.extract.extractor import extract_rules

    for probe in dict.fromkeys([text, first_person(text)]):
        for c in extract_rules(probe, at=utcnow()):
            if c.profile_field and not c.hedged:
                return c
    return None


def _display(c: Candidate) -> Any:
    from memory.write.profile_step import item

    return item(c) if c.profile_field in profile.LIST_FIELDS else (c.meta.get("display") or c.object)


def _same(field: str, a: Any, b: Any) -> bool:
    if field == "budget":
        return amount_key(str(a)) == amount_key(str(b))
    return norm_object(str(a)) == norm_object(str(b))


def _row(store: Database, user_key: str, field: str) -> ProfileField | None:
    with store.db() as db:
        return db.exec(
            select(ProfileField).where(ProfileField.user_key == user_key, ProfileField.field == field)
        ).first()


def _user(store: Database, key: str) -> User:
    user = records.user_by_key(store, key)
    if user is None:
        raise NotFound(f"no user with key {key!r}")
    return user


def linked_fields(store: Database, user_key: str, memory_id: str) -> list[ProfileField]:
    with store.db() as db:
        rows = db.exec(select(ProfileField).where(ProfileField.user_key == user_key)).all()
    return [r for r in rows if memory_id in (r.memory_ids or {}).values()]


def _write(
    store: Database, user_key: str, field: str, value: Any, links: dict[str, str], *, source: str = "", **kw: Any
) -> None:
    source = source or SourceType.PERSON_EDIT.value
    profile.set_field(store, _user(store, user_key), field, value, source=source, links=links, **kw)


def _usable(store: Database, memory_id: str | None, but: str) -> bool:
    if not memory_id or memory_id == but:
        return False
    with store.db() as db:
        m = db.get(Memory, memory_id)
    return m is not None and m.status == MemoryStatus.ACTIVE and not is_flagged(m.meta)


def _previous(store: Database, row: ProfileField, memory_id: str) -> tuple[Any, str] | None:
    """The latest earlier value of a single-valued field whose memory still holds (active, not flagged)."""
    with store.db() as db:
        changes = db.exec(
            select(ProfileChange)
            .where(ProfileChange.user_key == row.user_key, ProfileChange.field == row.field)
            .order_by(col(ProfileChange.id).desc())
        ).all()
    for ch in changes:
        differs = ch.new_value is not None and not _same(row.field, ch.new_value, row.value or "")
        if differs and ch.memory_id is not None and _usable(store, ch.memory_id, memory_id):
            return ch.new_value, ch.memory_id
    return None


def drop(
    store: Database,
    memory: Memory,
    *,
    actor: Actor,
    why: str,
    note: str = "",
    rows: list[ProfileField] | None = None,
    source: str = "",
) -> None:
    """``memory`` no longer holds (flagged, deleted, superseded, forgotten): each value it set is removed, and a
    single-valued field reverts to the last earlier value whose memory still holds, else is cleared. ``rows``: the
    linked fields when the caller has them already."""
    for row in linked_fields(store, memory.user_key, memory.id) if rows is None else rows:
        links = dict(row.memory_ids or {})
        if row.field in profile.LIST_FIELDS:
            value: Any = [i for i in row.value or [] if links.get(str(i)) != memory.id]
            links = {k: v for k, v in links.items() if v != memory.id}
            value = value or None
        else:
            back = _previous(store, row, memory.id)
            value, links = (back[0], {str(back[0]): back[1]}) if back else (None, {})
        what = "reverted" if value is not None and row.field not in profile.LIST_FIELDS else "cleared"
        _write(
            store,
            memory.user_key,
            row.field,
            value,
            links,
            reason=f"{what}: memory {memory.id[:8]} {why} by {actor.name}" + (f": {note}" if note else ""),
            memory_id=memory.id,
            actor=label(actor),
            source=source,
        )


def put(
    store: Database, memory: Memory, *, actor: Actor, why: str, note: str = "", only_if_empty: bool = False
) -> str | None:
    """If ``memory`` states a profile value, make the field say it (linked to the memory); returns the field."""
    c = statement(memory.content)
    if c is None or c.profile_field is None:  # statement() only returns claims with a field
        return None
    field, value = c.profile_field, _display(c)
    row = _row(store, memory.user_key, field)
    links = dict(row.memory_ids or {}) if row else {}
    if field in profile.LIST_FIELDS:
        items = [i for i in (row.value if row else None) or [] if not _same(field, i, value)]
        links = {k: v for k, v in links.items() if v != memory.id and not _same(field, k, value)}
        new: Any = [*items, value]
    else:
        if only_if_empty and row is not None and row.value is not None and _usable(store, _link(row), memory.id):
            return None
        links, new = {}, value
    links[str(value)] = memory.id
    _write(
        store,
        memory.user_key,
        field,
        new,
        links,
        reason=f"memory {memory.id[:8]} {why} by {actor.name}" + (f": {note}" if note else ""),
        memory_id=memory.id,
        actor=label(actor),
    )
    return field


def _link(row: ProfileField) -> str | None:
    return next(iter((row.memory_ids or {}).values()), None)


def changed(store: Database, memory: Memory, *, actor: Actor, why: str, note: str = "") -> None:
    """A memory's text changed (a person's edit): its field follows the new statement, or loses the old value."""
    field = put(store, memory, actor=actor, why=why, note=note)
    for row in linked_fields(store, memory.user_key, memory.id):
        if row.field != field:
            drop(store, memory, actor=actor, why=f"{why} (no longer states {row.field})", note=note)
            break


def memory_text(field: str, value: Any) -> str:
    en, zh = TEMPLATES[field]
    return (zh if has_cjk(str(value)) else en).format(v=value)


def stating(store: Database, user_key: str, field: str) -> list[Memory]:
    """Active memories whose statement is this field's (by predicate), plus those the field links to."""
    row = _row(store, user_key, field)
    linked = set((row.memory_ids or {}).values()) if row else set()
    preds = list(FIELD_PREDICATES.get(field, ()))
    query = select(Memory).where(Memory.user_key == user_key, Memory.status == MemoryStatus.ACTIVE)
    with store.db() as db:
        rows = db.exec(query.where(col(Memory.predicate).in_(preds) | col(Memory.id).in_(list(linked)))).all()
    return list(rows)


def retracted_statements(store: Database, user_key: str, limit: int = 1000) -> set[tuple[str, str]]:
    """(predicate, object) of the user's statements that no longer hold — flagged, deleted, superseded or edited
    away by a person (``meta.retracts``) — unless an active, unflagged memory still states them (older bridges,
    summaries and episodes quoting them are then left out)."""
    from memory.write.consistency import retracted_key

    query = (
        select(Memory.predicate, Memory.object, Memory.status, Memory.meta)
        .where(Memory.user_key == user_key, col(Memory.predicate).is_not(None))
        .order_by(col(Memory.updated_at).desc())
        .limit(limit)
    )
    with store.engine.connect() as conn:
        rows = conn.execute(query).all()
    holding: set[tuple[str, str]] = set()
    gone: set[tuple[str, str]] = set()
    for predicate, obj, status, meta in rows:
        key = retracted_key(str(predicate), None if obj is None else str(obj))
        if key is None:
            continue
        live = status == MemoryStatus.ACTIVE and not is_flagged(meta)
        (holding if live else gone).add(key)
        for pair in (meta or {}).get("retracts", []) if isinstance(meta, dict) else []:
            if isinstance(pair, list) and len(pair) == 2 and (old := retracted_key(str(pair[0]), str(pair[1]))):
                gone.add(old)
    return gone - holding


def retracted_reader(store: Database, user_key: str) -> Callable[[str], str] | None:
    """Episode text without the sentences stating what no longer holds for this user (flagged, deleted,
    superseded or edited-away memories): what was said stays in the conversation, but is not recalled as true.
    None when nothing was retracted (the usual case: no work per recall)."""
    retracted = retracted_statements(store, user_key)
    if not retracted:
        return None
    from memory.write.consistency import consistent_text

    return lambda text: consistent_text(text, {}, retracted)


def text_filter(store: Database, user_key: str) -> Callable[[str], str]:
    """The one status helper for composed text (bridges, summaries) outside a turn: the user's profile and
    retracted statements read once, and :func:`memory.write.consistency.consistent_text` applied with them.
    A bridge a page shows, one being written, and one a turn injects are filtered alike."""
    from memory.write.consistency import consistent_text

    with store.db() as db:
        rows = db.exec(select(ProfileField).where(ProfileField.user_key == user_key)).all()
    current = {row.field: row.value for row in rows}
    gone = retracted_statements(store, user_key)
    return lambda text: consistent_text(text, current, gone) if text else text


# -- maintenance: forgetting and compaction ----------------------------------------------------------------------
#: who forgetting and compaction act as when no person applied them (a scheduled run)
MAINTENANCE = Actor(name="maintenance", via="lifecycle")


def _fields_linking(store: Database, user_key: str, ids: set[str]) -> list[tuple[ProfileField, set[str]]]:
    """The user's profile fields that link one of ``ids``, each with the ids it links (one query)."""
    with store.db() as db:
        rows = db.exec(select(ProfileField).where(ProfileField.user_key == user_key)).all()
    out = []
    for row in rows:
        hit = set((row.memory_ids or {}).values()) & ids
        if hit:
            out.append((row, hit))
    return out


def _restating(store: Database, row: ProfileField, value: Any, gone: set[str]) -> str | None:
    """An active, unflagged memory (not among ``gone``) that states ``value`` for this field."""
    for m in stating(store, row.user_key, row.field):
        if m.id in gone or is_flagged(m.meta):
            continue
        c = statement(m.content)
        if c is not None and c.profile_field == row.field and _same(row.field, _display(c), value):
            return m.id
    return None


def _relink(store: Database, row: ProfileField, moves: dict[str, str]) -> None:
    """Point the field's links from old memory ids to new ones; the value is unchanged (compare-and-set on version)."""
    from sqlalchemy import update

    links = {k: moves.get(v, v) for k, v in (row.memory_ids or {}).items()}
    with store.engine.begin() as conn:
        conn.execute(
            update(ProfileField)
            .where(col(ProfileField.id) == row.id, col(ProfileField.version) == row.version)
            .values(memory_ids=links, updated_at=utcnow(), version=row.version + 1)
        )


def forgotten(store: Database, forgotten_ids: dict[str, str], reasons: dict[str, str], *, actor: Actor | None) -> int:
    """Forgetting archived or purged these memories (id → user key): a profile value one of them stated moves to
    another active memory stating it, else is dropped like a deletion (change-log entry with the rule's reason).
    Returns how many fields changed."""
    who = actor or MAINTENANCE
    by_user: dict[str, set[str]] = {}
    for mid, user_key in forgotten_ids.items():
        by_user.setdefault(user_key, set()).add(mid)
    changed_fields = 0
    for user_key, ids in by_user.items():
        for row, hit in _fields_linking(store, user_key, ids):
            moves = {}
            for value, mid in (row.memory_ids or {}).items():
                if mid in hit and (other := _restating(store, row, value, ids)) is not None:
                    moves[mid] = other
            if moves:
                _relink(store, row, moves)
                changed_fields += 1
            for mid in sorted(hit - set(moves)):
                fresh = [r for r in linked_fields(store, user_key, mid) if r.field == row.field]
                gone = Memory(id=mid, user_key=user_key, content="")
                why = f"forgotten ({reasons.get(mid, 'forgetting policy')})"
                drop(store, gone, actor=who, why=why, rows=fresh, source=SourceType.SYSTEM.value)
                changed_fields += bool(fresh)
    return changed_fields


def merged(store: Database, moves: dict[str, str], user_keys: dict[str, str]) -> int:
    """Compaction merged sources into records (source id → merged id; source id → user key): every profile link to
    a source now points at its merged record, which states the same value. Returns how many fields were relinked."""
    by_user: dict[str, set[str]] = {}
    for sid in moves:
        by_user.setdefault(user_keys[sid], set()).add(sid)
    relinked = 0
    for user_key, ids in by_user.items():
        for row, _hit in _fields_linking(store, user_key, ids):
            _relink(store, row, moves)
            relinked += 1
    return relinked
