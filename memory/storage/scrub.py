"""The masking choke point: every INSERT and UPDATE the engine runs has its free text and JSON masked first.

Callers mask what they write (the write path, curation, profile edits, audit reasons, imports), but a new code path
— a new memory kind, a new table, a Core ``update().values(...)`` — must not be able to store raw PII by forgetting
to. So :func:`install` hooks the engine's ``before_execute`` event: for each INSERT or UPDATE of a MemLens table,
every bound value of a text or JSON column passes through :func:`mask_row` (:func:`memory.text.privacy.mask_pii` /
``mask_value``; masking is idempotent, so already-masked text costs one more scan). ORM flushes, Core statements and
bulk ``executemany`` all go through it; raw SQL strings (``text(...)``) are not parsed — MemLens uses them only
for DDL, maintenance and deletes.

Not masked (identifiers and machine values, never a person's words): ids, keys and hashes, statuses, types,
operations, roles, sources, field and section names, models, modes, a retrieval candidate's drop reason (one of
recall's fixed verdicts, ~190 of them per logged recall), the user's and session's external ids (the
host application's identifiers, looked up by hash), account and actor names (sign-in and the throttle match them),
the audit's user id (erasure clears it), a LangGraph store key inside ``meta``, and the configuration tables (live
settings — a model URL may hold an IP address —, accounts, API keys, migrations, the erasure and import journals).

Write paths for new kinds of rows need nothing more than writing through the engine; code that must mask a row
itself before it leaves the process (a log line, a file) calls :func:`mask_row` or
:func:`memory.text.privacy.mask_pii`.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from sqlalchemy import JSON, Engine, Table, Text, event
from sqlalchemy import String as SAString
from sqlalchemy.sql.dml import Insert, Update, ValuesBase
from sqlalchemy.sql.elements import BindParameter

#: columns that hold identifiers or machine values, never a person's words
NOT_TEXT = re.compile(
    r"(^|_)(id|ids|key|hash|status|type|op|role|source|field|mode|name|model|via|action|actor|by)$"
    r"|^(external_id|user_id|users|password_hash|prefix|labeled_by|version|drop_reason)$"
)
#: tables of configuration, not of people's words (a live setting may be a URL with an IP address in it)
_SKIP_TABLES = frozenset({"setting", "schemamigration", "account", "apikey", "erasurejob", "importjob"})
#: keys inside JSON values that are machine values (a LangGraph store key is looked up as given)
_JSON_KEEP = frozenset({"store_key", "hashed_ids", "receipt_id"})  # + an erasure receipt's hashes


@cache
def _columns(table: Table) -> tuple[frozenset[str], frozenset[str]]:
    """(text columns, JSON columns) of a table that may hold a person's words."""
    texts: set[str] = set()
    jsons: set[str] = set()
    if table.name in _SKIP_TABLES:
        return frozenset(), frozenset()
    for col in table.c:
        if NOT_TEXT.search(col.name):
            continue
        inner = getattr(col.type, "impl", col.type)
        if isinstance(inner, JSON) or type(inner).__name__ == "Variant":
            jsons.add(col.key)
        elif isinstance(inner, Text | SAString):
            texts.add(col.key)
    return frozenset(texts), frozenset(jsons)


def _mask_json(value: Any) -> Any:
    from memory.text.privacy import mask_value

    if isinstance(value, dict):
        return {k: v if k in _JSON_KEEP else _mask_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_mask_json(v) for v in value]
    return mask_value(value)


def mask_row(table: Table, values: dict[str, Any]) -> dict[str, Any]:
    """``values`` (column key → value) with every free-text and JSON value masked."""
    from memory.text.privacy import mask_pii

    texts, jsons = _columns(table)
    if not texts and not jsons:
        return values
    out = dict(values)
    for key, value in values.items():
        if key in texts and isinstance(value, str) and value:
            out[key] = mask_pii(value)
        elif key in jsons and value is not None:
            out[key] = _mask_json(value)
    return out


def _mask_statement(stmt: ValuesBase) -> ValuesBase:
    """The statement with the values bound inside it (``.values(content=...)``) masked."""
    values = getattr(stmt, "_values", None)
    if not values:
        return stmt
    table = stmt.table
    if not isinstance(table, Table):
        return stmt
    texts, jsons = _columns(table)
    changed: dict[Any, Any] = {}
    for col, bound in values.items():
        key = getattr(col, "key", col)
        if key not in texts and key not in jsons or not isinstance(bound, BindParameter):
            continue
        masked = mask_row(table, {key: bound.value})[key]
        if masked != bound.value:
            changed[key] = masked
    return stmt.values(**changed) if changed else stmt


def _before_execute(_conn: Any, clause: Any, multiparams: Any, params: Any, _options: Any) -> tuple[Any, Any, Any]:
    if not isinstance(clause, Insert | Update) or not isinstance(clause.table, Table):
        return clause, multiparams, params
    table = clause.table
    if _columns(table) == (frozenset(), frozenset()):  # nothing to mask (a retrieval log's hundred candidate rows)
        return clause, multiparams, params
    clause = _mask_statement(clause)
    if multiparams:
        multiparams = [mask_row(table, p) if isinstance(p, dict) else p for p in multiparams]
    if params:
        params = mask_row(table, params)
    return clause, multiparams, params


def install(engine: Engine) -> None:
    """Mask every INSERT/UPDATE this engine runs (see the module docstring), and MemLens's log lines."""
    event.listen(engine, "before_execute", _before_execute, retval=True)
    install_log_masking()


_LOG_PREFIXES = ("memory", "agent", "pages")
_log_masking: list[bool] = []


def install_log_masking() -> None:
    """MemLens's own log records (loggers ``memory.*``, ``agent.*``, ``pages.*``) have their message masked when
    they are created, whatever handler later writes them: an exception text quoting a row cannot log raw PII."""
    import logging

    if _log_masking:
        return
    _log_masking.append(True)
    previous = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        if record.name.startswith(_LOG_PREFIXES):
            from memory.text.privacy import mask_pii

            try:
                message = record.getMessage()
            except (TypeError, ValueError):
                return record
            masked = mask_pii(message)
            if masked != message:
                record.msg, record.args = masked, ()
        return record

    logging.setLogRecordFactory(factory)
