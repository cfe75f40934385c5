"""Input checks shared by the service, the CLI and the pages: refuse clearly, never crash, never truncate silently."""

from __future__ import annotations

import re
import unicodedata

from memory.errors import InvalidInput

MAX_ID_CHARS = 10_000
AGENT_ID_RE = re.compile(r"^[A-Za-z0-9_.:-]{1,64}\Z")
ROLES = ("user", "assistant", "system", "tool")
MAX_IDEMPOTENCY_CHARS = 128


def _encodable(value: str, what: str) -> None:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInput(f"{what} is not valid Unicode (lone surrogate at position {exc.start})") from None
    if "\x00" in value:
        raise InvalidInput(f"{what} contains a NUL character")


def external_id(value: object, what: str = "user id") -> str:
    """Any printable identifier up to 10,000 characters; it is only ever stored, never used in a filter or a path."""
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be text")
    _encodable(value, what)
    if not value.strip():
        raise InvalidInput(f"{what} must not be empty")
    if len(value) > MAX_ID_CHARS:
        raise InvalidInput(f"{what} is {len(value):,} characters long; the limit is {MAX_ID_CHARS:,}")
    return value


def agent_id(value: str | None, default: str) -> str:
    value = default if value is None or value == "" else value
    if not AGENT_ID_RE.match(value):
        raise InvalidInput("agent id must be 1-64 characters of letters, digits, '_', '.', ':' or '-'")
    return value


def text(value: object, limit: int, what: str = "message", limit_name: str = "MEMLENS_MAX_MESSAGE_CHARS") -> str:
    """Normalise to NFC, refuse empty, over-long or unencodable text (``limit_name``: the setting that sets it)."""
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be text")
    _encodable(value, what)
    value = unicodedata.normalize("NFC", value)
    if not value.strip():
        raise InvalidInput(f"{what} is empty")
    if len(value) > limit:
        raise InvalidInput(f"{what} is {len(value):,} characters long; the limit is {limit:,} ({limit_name})")
    return value


def clean_value(value: object, what: str = "metadata", *, depth: int = 0) -> None:
    """Refuse a JSON-like value (metadata) holding a NUL or a lone surrogate in any key or text: PostgreSQL cannot
    store either, and a door must refuse them before anything is written, not fail half-way."""
    if depth > 64:
        raise InvalidInput(f"{what} is nested too deeply")
    if isinstance(value, str):
        _encodable(value, what)
    elif isinstance(value, dict):
        for k, v in value.items():
            if isinstance(k, str):
                _encodable(k, f"{what} key")
            clean_value(v, what, depth=depth + 1)
    elif isinstance(value, (list, tuple)):
        for v in value:
            clean_value(v, what, depth=depth + 1)


def role(value: object) -> str:
    """A message role; anything else would be a programming error or a hostile caller."""
    if value not in ROLES:
        raise InvalidInput(f"role must be one of {', '.join(ROLES)}")
    return str(value)


def idempotency_key(value: object) -> str | None:
    """A client's retry token: printable text up to 128 characters (``None`` = no idempotency)."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidInput("idempotency key must be text")
    _encodable(value, "idempotency key")
    if not value.strip():
        raise InvalidInput("idempotency key must not be empty")
    if len(value) > MAX_IDEMPOTENCY_CHARS:
        raise InvalidInput(f"idempotency key is {len(value):,} characters long; the limit is {MAX_IDEMPOTENCY_CHARS}")
    return value
