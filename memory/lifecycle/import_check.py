"""An import file is checked like live input before a row is written.

A file is data from outside, so nothing in it is trusted: the file's user is the only user (every row's user key is
replaced by the user row's key), lookup hashes are recomputed from the ids they hash, every row id is validated (key
characters only, at most 32 — the shape MemLens issues; anything else would later reach an index filter), agent ids
are validated like live ones, every row a foreign key hangs off must be in the file itself, and every text and JSON
value is masked again. The first problem raises ``InvalidInput`` naming the table and row ("memory row 3: …").
"""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import JSON, Table, Text
from sqlalchemy import String as SAString

from memory import validate
from memory.errors import InvalidInput
from memory.storage.models import id_hash, new_id
from memory.text.privacy import mask_pii, mask_value

ID_RE = re.compile(r"[A-Za-z0-9_-]{1,32}\Z")
#: columns whose text is an identifier or a machine value, never a person's words (not masked)
_NOT_TEXT = re.compile(r"(^|_)(id|key|hash|status|type|op|role|source|field|mode|name|model)$|^external_id$")


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


def _check_id(table: Table, n: int, row: dict[str, Any]) -> None:
    for col in table.primary_key.columns:
        value = row.get(col.name)
        if value is None:
            continue
        ok = ID_RE.match(value) if isinstance(value, str) else isinstance(value, int) and value > 0
        if not ok or isinstance(value, bool):
            raise _fail(table.name, n, f"id {str(value)[:60]!r} is not a valid id")


def _mask_row(table: Table, row: dict[str, Any]) -> dict[str, Any]:
    out = dict(row)
    for name, value in row.items():
        if name not in table.c or _NOT_TEXT.search(name):
            continue
        if isinstance(value, str) and isinstance(table.c[name].type, Text | SAString):
            out[name] = mask_pii(value)
        elif isinstance(table.c[name].type, JSON) or type(table.c[name].type).__name__ == "Variant":
            out[name] = mask_value(value)
    return out


def _row(table: Table, n: int, row: Any, key: str) -> dict[str, Any]:
    if not isinstance(row, dict):
        raise _fail(table.name, n, "is not an object")
    _check_id(table, n, row)
    row = dict(row)
    if "user_key" in table.c:
        row["user_key"] = key  # the file's user is the only user
    if "agent_id" in table.c and row.get("agent_id") is not None:
        try:
            validate.agent_id(row["agent_id"], "default")
        except InvalidInput as exc:
            raise _fail(table.name, n, f"agent id: {exc}") from None
    if "external_hash" in table.c and isinstance(row.get("external_id"), str):
        row["external_hash"] = id_hash(row["external_id"])
    return _mask_row(table, row)


def _check_parents(tables: dict[str, Table], rows: dict[str, list[dict[str, Any]]]) -> None:
    """A foreign key may only point at a row of this same file (never at another user's rows)."""
    for name, batch in rows.items():
        table = tables[name]
        for fk in table.foreign_keys:
            parent = fk.column.table.name
            if parent not in rows:
                continue
            present = {r.get(fk.column.name) for r in rows[parent]}
            for n, row in enumerate(batch, 1):
                value = row.get(fk.parent.name)
                if value is not None and value not in present:
                    raise _fail(name, n, f"{fk.parent.name} {str(value)[:40]!r} is not a {parent} of this file")


def checked_rows(data: Any, tables: dict[str, Table]) -> tuple[str, dict[str, list[dict[str, Any]]]]:
    """(user key, rows per table) ready to insert, or ``InvalidInput`` naming the first bad row."""
    user = header(data)
    validate.external_id(user["external_id"])
    given = user.get("key")
    key: str = given if isinstance(given, str) and ID_RE.match(given) else new_id()
    unknown = set(data["tables"]) - set(tables)
    if unknown:
        raise InvalidInput(f"export file has unknown tables: {', '.join(sorted(unknown))}")
    rows: dict[str, list[dict[str, Any]]] = {"user": [_row(tables["user"], 1, {**user, "key": key}, key)]}
    for name, batch in data["tables"].items():
        if not isinstance(batch, list):
            raise InvalidInput(f"import refused: table {name} is not a list of rows")
        rows[name] = [_row(tables[name], n, r, key) for n, r in enumerate(batch, 1)]
    _check_parents(tables, rows)
    return key, rows
