"""Value filters as LangGraph's stores and mem0 spell them, applied to JSON documents in Python.

One matcher for both doors, run on the candidates *before* a limit is applied:

- equality: ``{"color": "red"}``; a nested object compares field by field, a list element by element;
- comparison operators, LangGraph's ``$eq $ne $gt $gte $lt $lte`` and mem0's ``eq ne gt gte lt lte in nin contains
  icontains`` (with or without ``$``); ``"*"`` as a value matches any present value (mem0's wildcard);
- logic (mem0): ``{"AND": [...]}``, ``{"OR": [...]}``, ``{"NOT": [...]}`` (also ``$and``/``$or``/``$not``);
- dotted paths: ``{"user.name": "ana"}`` reads ``doc["user"]["name"]`` (a key containing the dots is tried first).

A comparison that cannot be made (a number against text, NaN) is simply false, never an error; an unknown operator
is an :class:`InvalidInput`.
"""

from __future__ import annotations

import math
from typing import Any

from memory.errors import InvalidInput

_MISSING = object()
LOGIC = {"and": "and", "or": "or", "not": "not"}


def lookup(doc: Any, path: str) -> Any:
    """The value at ``path`` in ``doc`` (dotted), or a private marker when absent."""
    if isinstance(doc, dict) and path in doc:
        return doc[path]
    cur = doc
    for part in path.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return _MISSING
        cur = cur[part]
    return cur


def matches(doc: dict[str, Any], filters: dict[str, Any] | None) -> bool:
    """Whether ``doc`` passes every condition of ``filters`` (None or {} passes everything)."""
    if not filters:
        return True
    if not isinstance(filters, dict):
        raise InvalidInput("filters must be an object")
    for key, want in filters.items():
        logic = LOGIC.get(key.lower().lstrip("$")) if isinstance(key, str) else None
        if logic is not None and (key.isupper() or key.startswith("$")):
            parts = want
            if not isinstance(parts, list) or not all(isinstance(p, dict) for p in parts):
                raise InvalidInput(f"{key} takes a list of filter objects")
            results = [matches(doc, p) for p in parts]
            ok = all(results) if logic == "and" else any(results) if logic == "or" else not any(results)
            if not ok:
                return False
            continue
        if not _compare(lookup(doc, key), want):
            return False
    return True


def _is_ops(value: Any) -> bool:
    return isinstance(value, dict) and bool(value) and all(_op_name(k) is not None for k in value)


def _op_name(key: Any) -> str | None:
    if not isinstance(key, str):
        return None
    name = key[1:] if key.startswith("$") else key
    return name if name in OPERATORS else None


def _compare(value: Any, want: Any) -> bool:
    if want == "*":
        return value is not _MISSING and value is not None
    if _is_ops(want):
        return all(OPERATORS[_op_name(op) or ""](value, arg) for op, arg in want.items())
    if isinstance(want, dict) and any(isinstance(k, str) and k.startswith("$") for k in want):
        bad = next(k for k in want if isinstance(k, str) and k.startswith("$") and _op_name(k) is None)
        raise InvalidInput(f"unknown filter operator {bad!r}; one of: {', '.join('$' + o for o in OPERATORS)}")
    if value is _MISSING:
        return False
    if isinstance(want, dict):
        return isinstance(value, dict) and all(_compare(lookup(value, k), v) for k, v in want.items())
    if isinstance(want, (list, tuple)):
        return (
            isinstance(value, (list, tuple))
            and len(value) == len(want)
            and all(_compare(v, w) for v, w in zip(value, want, strict=True))
        )
    return _equal(value, want)


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b or (isinstance(a, bool) and isinstance(b, bool) and a == b)
    return bool(a == b)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        out = float(value)
    except OverflowError:
        out = math.copysign(math.inf, value)
    return None if math.isnan(out) else out


def _order(value: Any, arg: Any, test: Any) -> bool:
    a, b = _number(value), _number(arg)
    if a is not None and b is not None:
        if isinstance(value, int) and isinstance(arg, int) and not isinstance(value, bool):
            return bool(test(value, arg))  # exact for big integers
        return bool(test(a, b))
    if isinstance(value, str) and isinstance(arg, str):
        return bool(test(value, arg))
    return False


def _contains(value: Any, arg: Any, fold: bool) -> bool:
    if isinstance(value, str) and isinstance(arg, str):
        return arg.casefold() in value.casefold() if fold else arg in value
    if isinstance(value, list):
        return any(_equal(v, arg) for v in value)
    return False


def _in(value: Any, arg: Any) -> bool:
    if not isinstance(arg, (list, tuple)):
        raise InvalidInput("in / nin take a list of values")
    return value is not _MISSING and any(_equal(value, a) for a in arg)


OPERATORS: dict[str, Any] = {
    "eq": lambda v, a: v is not _MISSING and _equal(v, a),
    "ne": lambda v, a: not (v is not _MISSING and _equal(v, a)),
    "gt": lambda v, a: v is not _MISSING and _order(v, a, lambda x, y: x > y),
    "gte": lambda v, a: v is not _MISSING and _order(v, a, lambda x, y: x >= y),
    "lt": lambda v, a: v is not _MISSING and _order(v, a, lambda x, y: x < y),
    "lte": lambda v, a: v is not _MISSING and _order(v, a, lambda x, y: x <= y),
    "in": _in,
    "nin": lambda v, a: not _in(v, a),
    "contains": lambda v, a: _contains(v, a, fold=False),
    "icontains": lambda v, a: _contains(v, a, fold=True),
}
