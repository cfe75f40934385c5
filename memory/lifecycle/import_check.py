"""An import file is checked like live input, against the whole database, before a row is written.

A file is data from outside, so nothing in it is trusted:

- **Ids are remapped, never kept.** Every row gets a new id (text ids a fresh key, integer ids the database's next
  one); the file's ids only say which of its rows refer to which. A reference is rewritten through that map, so it
  can only ever reach a row of the same file, i.e. of the imported user (who must not exist yet).
- **Ids inside JSON** (:data:`_JSON_MEMORY_IDS`: a mem0 id kept across an UPDATE, ``meta.stable_id``, which the
  mem0 door looks memories up by; what a memory supersedes or was merged from; a write-log decision's memory and
  target ids; the memory and message ids a context section left out) are remapped the same way, or dropped when
  the file has no such row.
- **Actor names are the importer's**: a relevance label is filed under the person importing (:func:`labeller`).
- **Every reference is checked**, foreign key or not (:data:`REFS`: message ids in a memory's sources, a turn's
  messages, a write-log row's memory, message and turn, …). A reference to a row that is not in the file refuses
  the whole file when it names a row that exists in the database (someone else's: "memory row 3: source_message_ids
  17 is not a message of this file") or when the column cannot be empty; a reference to a row that exists nowhere
  (a message of a session deleted before the export) is cleared, as the live product clears it.
- **Values are checked like live input**: the user key is the new user's on every row; types (text, integer,
  number, yes/no, JSON), statuses, memory types, roles and operations from the vocabulary; text at most
  ``MEMLENS_MAX_MESSAGE_CHARS`` per field and ids at most 32 key characters; times ISO-8601, not before 1970 and
  not after tomorrow (except a memory's event and expiry times); agent ids validated like live ones; lookup hashes
  recomputed; every text and JSON value masked again; at most :data:`MAX_ROWS` rows per file.

The first problem raises ``InvalidInput`` naming the table and row ("import refused: memory row 3: …") and nothing
is written (:func:`memory.lifecycle.export.import_user` inserts in one transaction, after this check).
"""

from __future__ import annotations

import graphlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import JSON, Boolean, Connection, DateTime, Float, Integer, Table, Text, select
from sqlalchemy import String as SAString

from memory import validate
from memory.errors import InvalidInput
from memory.storage.models import id_hash, new_id
from memory.text.privacy import mask_pii, mask_value
from memory.vocab import ANY_AGENT, EventOp, MemoryStatus, MemoryType, SessionStatus, SourceType

ID_RE = re.compile(r"[A-Za-z0-9_-]{1,32}\Z")
#: a memory id's shape (``uuid4().hex``)
_HEX_ID = re.compile(r"[0-9a-f]{32}\Z")
#: most rows one file may hold (a user with years of daily conversations has well under this)
MAX_ROWS = 500_000
#: columns whose text is an identifier or a machine value, never a person's words (not masked)
_NOT_TEXT = re.compile(r"(^|_)(id|key|hash|status|type|op|role|source|field|mode|name|model)$|^external_id$")

#: every column that names another row of the user, foreign key or not: {table: {column: target table}}. A list
#: column holds several ids. New tables with references must be listed here (tests/test_import_validation.py fails
#: on an ``*_id`` column that is neither here nor in :data:`NOT_REFS`).
REFS: dict[str, dict[str, str]] = {
    "profilefield": {"source_message_id": "message"},
    "profilechange": {"source_message_id": "message", "memory_id": "memory"},
    "message": {"session_id": "session"},
    "summaryanchor": {"session_id": "session", "from_message_id": "message", "to_message_id": "message"},
    "sessionbridge": {"from_session_id": "session", "to_session_id": "session"},
    "memory": {"superseded_by": "memory", "source_message_ids": "message"},
    "memoryevent": {"memory_id": "memory", "message_id": "message", "turn_id": "turn"},
    "turn": {"session_id": "session", "user_message_id": "message", "reply_message_id": "message"},
    "retrieval": {"session_id": "session", "turn_id": "turn"},
    "retrievalhit": {"retrieval_id": "retrieval", "memory_id": "memory"},
    "contextsnapshot": {"turn_id": "turn", "session_id": "session"},
    "contextsection": {"snapshot_id": "contextsnapshot"},
    "hitlabel": {"retrieval_id": "retrieval", "memory_id": "memory"},
}
#: ``*_id`` columns that are not references to a row (checked as values)
NOT_REFS = {"external_id", "agent_id"}
#: memory ids inside JSON values (remapped when in the file, dropped otherwise)
_JSON_MEMORY_IDS = {
    # stable_id: the id a mem0 caller holds after an UPDATE replaced the row (the door looks memories up by it)
    ("memory", "meta"): ("merged_from", "folded_from", "episode_id", "stable_id", "supersedes"),
    ("memoryevent", "detail"): ("merged_from", "superseded_by", "memory_id", "target_ids"),
}
#: JSON maps whose values are memory ids (remapped when in the file, dropped otherwise)
JSON_MEMORY_MAPS = {("profilefield", "memory_ids")}
#: closed vocabularies: {(table, column): allowed values}
_VOCAB: dict[tuple[str, str], tuple[str, ...]] = {
    ("memory", "status"): tuple(MemoryStatus),
    ("memory", "type"): tuple(MemoryType),
    ("memory", "source_type"): tuple(SourceType),
    ("session", "status"): tuple(SessionStatus),
    ("message", "role"): validate.ROLES,
    ("memoryevent", "op"): tuple(EventOp),
}
#: times that may lie in the future (a planned event, an expiry date)
_FUTURE_OK = {("memory", "event_time"), ("memory", "expires_at")}
_EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
#: fields longer than one message by nature, in multiples of the message limit (a prompt holds many messages)
_LONGER = {("contextsnapshot", "prompt"): 64, ("contextsection", "dropped_items"): 64}
#: JSON values in multiples of the message limit, and their deepest nesting (live REST bodies: 32)
_JSON_LIMIT = 4
MAX_JSON_DEPTH = 32


def _too_deep(value: Any, limit: int = MAX_JSON_DEPTH) -> bool:
    """Is a JSON value nested deeper than ``limit``? (Iterative: a hostile value must not exhaust the stack.)"""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > limit:
                return True
            stack.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict) else item))
    return False


def _fail(table: str, n: int, what: str) -> InvalidInput:
    return InvalidInput(f"import refused: {table} row {n}: {what}")


def header(data: Any) -> dict[str, Any]:
    """The user object of a well-formed file (clear errors for a malformed one)."""
    if not isinstance(data, dict):
        raise InvalidInput("import refused: the file is not a JSON object")
    user = data.get("user")
    if not isinstance(user, dict):
        raise InvalidInput("import refused: the file has no 'user' object")
    if not isinstance(user.get("external_id"), str):
        raise InvalidInput("import refused: the user object has no text 'external_id'")
    if not isinstance(data.get("tables"), dict):
        raise InvalidInput("import refused: the file has no 'tables' object")
    return user


def refs(table: Table) -> dict[str, str]:
    """The reference columns of a table: the declared ones plus its foreign keys (except to ``user``)."""
    out = {fk.parent.name: fk.column.table.name for fk in table.foreign_keys if fk.column.table.name != "user"}
    out.update(REFS.get(table.name, {}))
    return out


def insert_order(tables: dict[str, Table]) -> list[str]:
    """Tables so that every integer-keyed row is inserted before the rows that refer to it (text ids are known
    before any insert, so a memory may refer to another memory)."""
    graph: graphlib.TopologicalSorter[str] = graphlib.TopologicalSorter()
    for name, table in tables.items():
        graph.add(name)
        if "user_key" in table.c and name != "user":
            graph.add(name, "user")
        for target in refs(table).values():
            if target != name and target in tables:
                graph.add(name, target)
    return list(graph.static_order())


def text_key(table: Table) -> bool:
    """Is the table's primary key text (chosen by MemLens) rather than an integer (chosen by the database)?"""
    return not isinstance(next(iter(table.primary_key.columns)).type, Integer)


def is_datetime(sa_type: Any) -> bool:
    """True for DateTime columns, including SQLModel's aware-datetime decorator."""
    return isinstance(getattr(sa_type, "impl", sa_type), DateTime) or isinstance(sa_type, DateTime)


# -- one row ----------------------------------------------------------------------------------------------------
def _python_type(table: Table, name: str) -> type | None:
    sa_type = table.c[name].type
    inner = getattr(sa_type, "impl", sa_type)
    if isinstance(inner, Boolean):
        return bool
    if isinstance(inner, Integer):
        return int
    if isinstance(inner, Float):
        return float
    if isinstance(inner, Text | SAString):
        return str
    if isinstance(inner, JSON) or type(inner).__name__ == "Variant":
        return None  # any JSON value
    return None  # datetimes: parsed by :func:`_time`


def _time(table: Table, n: int, name: str, value: Any, now: datetime) -> datetime:
    if not isinstance(value, str):
        raise _fail(table.name, n, f"{name} must be an ISO-8601 time")
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        raise _fail(table.name, n, f"{name} {value[:40]!r} is not an ISO-8601 time") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    future_ok = (table.name, name) in _FUTURE_OK
    if when < _EARLIEST or (not future_ok and when > now + timedelta(days=1)) or when.year > 2200:
        raise _fail(table.name, n, f"{name} {value[:40]!r} is not a plausible time")
    return when


def _check_value(table: Table, n: int, name: str, value: Any, limit: int, now: datetime) -> Any:
    col = table.c[name]
    limit *= _LONGER.get((table.name, name), 1)
    if value is None:
        if not col.nullable and not col.primary_key and name not in refs(table):
            raise _fail(table.name, n, f"{name} may not be empty")
        return None
    if is_datetime(col.type):
        return _time(table, n, name, value, now)
    want = _python_type(table, name)
    if want is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if want is not None and (not isinstance(value, want) or (want is int and isinstance(value, bool))):
        raise _fail(table.name, n, f"{name} must be {want.__name__}, not {type(value).__name__}")
    if isinstance(value, str):
        longest = getattr(col.type, "length", None) or limit
        if len(value) > longest:
            raise _fail(table.name, n, f"{name} is {len(value):,} characters long; the limit is {longest:,}")
    elif want is None and _too_deep(value):
        raise _fail(table.name, n, f"{name} is nested deeper than {MAX_JSON_DEPTH} levels")
    elif want is None and len(str(value)) > limit * _JSON_LIMIT:  # JSON: bounded like text
        raise _fail(table.name, n, f"{name} is over {limit * _JSON_LIMIT:,} characters of JSON")
    allowed = _VOCAB.get((table.name, name))
    if allowed is not None and value not in allowed:
        raise _fail(table.name, n, f"{name} {str(value)[:40]!r} is not one of {', '.join(allowed)}")
    return value


def _mask_row(table: Table, row: dict[str, Any]) -> dict[str, Any]:
    out = dict(row)
    for name, value in row.items():
        if _NOT_TEXT.search(name):
            continue
        if isinstance(value, str) and _python_type(table, name) is str:
            out[name] = mask_pii(value)
        elif value is not None and _python_type(table, name) is None and not isinstance(value, datetime):
            out[name] = mask_value(value)
    return out


def _row(table: Table, n: int, row: Any, key: str, limit: int, now: datetime) -> dict[str, Any]:
    if not isinstance(row, dict):
        raise _fail(table.name, n, "is not an object")
    unknown = set(row) - set(table.c.keys())
    if unknown:
        raise _fail(table.name, n, f"unknown columns {', '.join(sorted(unknown))[:200]}")
    out: dict[str, Any] = {}
    for name, value in row.items():
        if name in refs(table) or name in table.primary_key.columns:
            out[name] = value  # checked and remapped by :class:`_Remap`
        else:
            out[name] = _check_value(table, n, name, value, limit, now)
    for col in table.c:
        required = not col.nullable and col.default is None and col.server_default is None
        if required and col.name not in out and not col.primary_key and col.name != "user_key":
            raise _fail(table.name, n, f"{col.name} is missing")
    if "user_key" in table.c:
        out["user_key"] = key  # the file's user is the only user
    if "agent_id" in table.c and out.get("agent_id") is not None and not _any_agent(table, out["agent_id"]):
        try:
            validate.agent_id(out["agent_id"], "default")
        except InvalidInput as exc:
            raise _fail(table.name, n, f"agent id: {exc}") from None
    if "external_id" in table.c and table.name != "user":
        out["external_id"] = validate.external_id(out.get("external_id"), f"{table.name} row {n} external id")
    if "external_hash" in table.c and isinstance(out.get("external_id"), str):
        out["external_hash"] = id_hash(out["external_id"])
    return _mask_row(table, out)


def _any_agent(table: Table, agent_id: Any) -> bool:
    """A logged search over every agent (every door's search is one): filed under :data:`ANY_AGENT`."""
    return table.name == "retrieval" and agent_id == ANY_AGENT


# -- references -------------------------------------------------------------------------------------------------
@dataclass
class _Remap:
    """The file's ids → new ids, and the checks on every reference."""

    tables: dict[str, Table]
    conn: Connection
    #: {table: {file id: new id}}; an integer table's new ids are filled in as its rows are inserted
    ids: dict[str, dict[Any, Any]] = field(default_factory=dict)

    def _pk(self, name: str):
        return next(iter(self.tables[name].primary_key.columns))

    def _text_key(self, name: str) -> bool:
        return text_key(self.tables[name])

    def own_ids(self, name: str, rows: list[dict[str, Any]]) -> None:
        """Validate this table's ids (unique, key-shaped) and, for text ids, choose the new ones now."""
        pk = self._pk(name)
        seen: dict[Any, Any] = {}
        for n, row in enumerate(rows, 1):
            value = row.get(pk.name)
            if pk.name not in row or value is None:
                if self._text_key(name):
                    raise _fail(name, n, f"{pk.name} is missing")
                value = ("row", n)  # no id: nothing can refer to it
            elif isinstance(value, bool) or not (
                (isinstance(value, str) and ID_RE.match(value)) or (isinstance(value, int) and 0 < value < 2**63)
            ):
                raise _fail(name, n, f"id {str(value)[:60]!r} is not a valid id")
            if value in seen:
                raise _fail(name, n, f"id {str(value)[:40]!r} appears twice in the file")
            seen[value] = new_id() if self._text_key(name) else None
        self.ids[name] = seen

    def _exists(self, target: str, value: Any) -> bool:
        pk = self._pk(target)
        if self._text_key(target) != isinstance(value, str):
            return False
        return self.conn.execute(select(pk).where(pk == value).limit(1)).first() is not None

    def _one(self, name: str, n: int, column: str, target: str, value: Any, nullable: bool) -> Any:
        if isinstance(value, bool) or not isinstance(value, str | int):
            raise _fail(name, n, f"{column} {str(value)[:40]!r} is not an id")
        known = self.ids.get(target, {})
        if value in known:
            return known[value]
        what = f"{column} {str(value)[:40]!r} is not a {target} of this file"
        if self._exists(target, value):
            raise _fail(name, n, f"{what} (it names another user's row)")
        if not nullable:
            raise _fail(name, n, what)
        return None  # a row deleted before the export: the reference is cleared, as the product clears it

    def rewrite(self, name: str, n: int, row: dict[str, Any]) -> dict[str, Any]:
        """The row with its own id replaced (text ids) or dropped (integer ids) and every reference remapped."""
        table = self.tables[name]
        out = dict(row)
        pk = self._pk(name)
        if self._text_key(name):
            out[pk.name] = self.ids[name][row[pk.name]]
        else:
            out.pop(pk.name, None)
        for column, target in refs(table).items():
            value = row.get(column)
            nullable = bool(table.c[column].nullable)
            if value is None:
                if not nullable:
                    raise _fail(name, n, f"{column} is empty: it must name a {target} of this file")
                continue
            if isinstance(value, list):
                mapped = [self._one(name, n, column, target, v, True) for v in value]
                out[column] = [v for v in mapped if v is not None]
            else:
                out[column] = self._one(name, n, column, target, value, nullable)
        for (tname, column), keys in _JSON_MEMORY_IDS.items():
            if tname == name and isinstance(out.get(column), dict):
                given = out[column]
                soft = {k: self._soft(v) if k in keys and v is not None else v for k, v in given.items()}
                # an id the file does not hold is dropped with its key (the mem0 door then shows the row's own id)
                out[column] = {k: v for k, v in soft.items() if v is not None or given[k] is None}
        if name == "contextsection" and isinstance(out.get("dropped_items"), list):
            out["dropped_items"] = self._dropped(out["dropped_items"])
        for tname, column in JSON_MEMORY_MAPS:
            if tname == name and isinstance(out.get(column), dict):
                soft = {k: self._soft(v) for k, v in out[column].items()}
                out[column] = {k: v for k, v in soft.items() if v is not None}
        return out

    def _dropped(self, items: list[Any]) -> list[Any]:
        """What a context section left out: memory ids and message ids (as text) remapped when in the file and
        dropped otherwise; section words ("system", "input") kept."""
        memories, messages = self.ids.get("memory", {}), self.ids.get("message", {})
        out: list[Any] = []
        for item in items:
            if isinstance(item, str) and item in memories:
                out.append(memories[item])
            elif isinstance(item, str) and item.isdigit():
                if messages.get(int(item)) is not None:
                    out.append(str(messages[int(item)]))
            elif isinstance(item, str) and not _HEX_ID.match(item):
                out.append(item)
        return out

    def _soft(self, value: Any) -> Any:
        """A memory id inside JSON: remapped when it is in the file, dropped otherwise (never another user's)."""
        known = self.ids.get("memory", {})
        if isinstance(value, list):
            return [known[v] for v in value if isinstance(v, str) and v in known]
        return known.get(value) if isinstance(value, str) else None


# -- the whole file ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Checked:
    """A file that passed the value checks: the new user key and its rows per table (ids still the file's)."""

    key: str
    rows: dict[str, list[dict[str, Any]]]


#: how an imported label names who labelled it: the importer, then the name the file gave (kept, never trusted)
_IMPORTED_LABEL = re.compile(r"^.* \(imported: (?P<claimed>.*)\)\Z", re.S)


def labeller(claimed: Any, importer: str) -> str:
    """The name an imported relevance label is filed under. Labels are one per query, memory and labeller, and a
    labeller's own labels show again when that person searches: a file must not file labels under someone's name,
    so the importer's name is used — with the file's name after it when that was someone else ("ana (imported:
    ben)"; a label imported before keeps its first claim rather than nesting)."""
    name = claimed if isinstance(claimed, str) else ""
    found = _IMPORTED_LABEL.match(name)
    name = found.group("claimed") if found else name
    return importer if name in ("", importer) else f"{importer} (imported: {name})"


def checked_rows(data: Any, tables: dict[str, Table], *, max_chars: int, importer: str) -> Checked:
    """The file's rows with values checked and masked, or ``InvalidInput`` naming the first bad row; relevance
    labels are filed under the ``importer``'s name (:func:`labeller`)."""
    user = header(data)
    validate.external_id(user["external_id"])
    unknown = set(data["tables"]) - set(tables) - {"user"}
    if unknown:
        raise InvalidInput(f"import refused: unknown tables: {', '.join(sorted(unknown))[:200]}")
    total = sum(len(b) for b in data["tables"].values() if isinstance(b, list))
    if total > MAX_ROWS:
        raise InvalidInput(f"import refused: the file has {total:,} rows; the limit is {MAX_ROWS:,}")
    key = new_id()
    now = datetime.now(UTC)
    rows: dict[str, list[dict[str, Any]]] = {
        "user": [_row(tables["user"], 1, {**user, "key": key}, key, max_chars, now)]
    }
    for name, batch in data["tables"].items():
        if name == "user":
            raise InvalidInput("import refused: the user is the file's 'user' object, not a table")
        if not isinstance(batch, list):
            raise InvalidInput(f"import refused: table {name} is not a list of rows")
        rows[name] = [_row(tables[name], n, r, key, max_chars, now) for n, r in enumerate(batch, 1)]
    for row in rows.get("hitlabel", []):
        row["labeled_by"] = labeller(row.get("labeled_by"), importer)
    return Checked(key, rows)


def insert_all(
    conn: Connection,
    tables: dict[str, Table],
    checked: Checked,
    insert_batch: Callable[[Table, list[dict[str, Any]]], Iterable[Any]],
) -> dict[str, int]:
    """Remap and insert every row in reference order inside ``conn``'s transaction; ``insert_batch`` inserts rows
    and returns their new primary keys in the same order. Raises ``InvalidInput`` (the caller rolls back)."""
    remap = _Remap(tables, conn)
    for name, batch in checked.rows.items():
        if name != "user":
            remap.own_ids(name, batch)
    counts: dict[str, int] = {}
    for name in insert_order(tables):
        batch = checked.rows.get(name, [])
        if not batch:
            continue
        new_rows = batch if name == "user" else [remap.rewrite(name, n, r) for n, r in enumerate(batch, 1)]
        keys = list(insert_batch(tables[name], new_rows))
        if name != "user" and not text_key(tables[name]):
            pk = next(iter(tables[name].primary_key.columns)).name
            for row, new in zip(batch, keys, strict=True):
                if row.get(pk) is not None:
                    remap.ids[name][row[pk]] = new
        counts[name] = len(batch)
    return counts
