"""What one REST or MCP request may cost: its body size, its JSON nesting, the messages and the text tokens one
request may carry, and the tokens one API key may send per minute.

A write's server CPU grows with the text it carries (every ~400-token episode is embedded: a 200,000-character add
cost ~89 s of CPU), so a request's cost is bounded by bounding what it carries:

- **Body size**: ``MEMLENS_API_MAX_BODY_BYTES`` (1 MB by default) → 413 (``agent.serve.api.BodyLimit``).
- **Nesting depth**: at most :data:`MAX_DEPTH` levels of ``[`` / ``{`` → 422, checked on the raw bytes before any
  parser recurses into them (a deeply nested body used to end in a 500 or a dropped connection).
- **Messages per add**: at most :data:`MAX_MESSAGES` → 413 (one add of 2,000 messages used to take ~2 minutes of
  server CPU); each message is already at most ``MEMLENS_MAX_MESSAGE_CHARS``. Send a long conversation in several
  adds (the write pipeline keeps their order by session).

- **Tokens per request**: the text of an add's messages, or of a chat message, at most
  ``MEMLENS_API_MAX_REQUEST_TOKENS`` (4,000 by default) → 413 before any of it is stored or embedded.
- **Tokens per key per minute**: at most ``MEMLENS_API_TOKENS_PER_MINUTE`` (12,000 by default) per API key, a budget
  that refills continuously (:class:`TokenBudget`) → 429 with ``Retry-After``. The MCP door over HTTP charges its
  key's budget too; over stdio (a local client that started the server) only the per-request bound applies.

So one request costs at most the write path on ``MEMLENS_API_MAX_REQUEST_TOKENS`` tokens, and one key at most the
write path on ``MEMLENS_API_TOKENS_PER_MINUTE`` tokens a minute (``bench/max_message.py --rest`` measures both ends).
"""

from __future__ import annotations

import json
import math
import re
import threading
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from fastapi import HTTPException

from memory.errors import MemLensError
from memory.text.tokens import count_tokens

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: most messages one ``POST /v1/memories`` may carry
MAX_MESSAGES = 50
#: deepest JSON nesting a request body may have (MemLens's own bodies need 4; metadata gets the rest)
MAX_DEPTH = 32

_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(rb"[\[\]{}]")


def json_depth(body: bytes, stop_at: int = MAX_DEPTH) -> int:
    """The nesting depth of a JSON body (strings skipped); stops counting once past ``stop_at``."""
    depth = deepest = 0
    for m in _BRACKET.finditer(_STRING.sub(b"", body)):
        if m.group() in (b"[", b"{"):
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > stop_at:
                    break
        else:
            depth -= 1
    return deepest


def check_messages(messages: str | list[Any]) -> None:
    """413 when one add carries more than :data:`MAX_MESSAGES` messages."""
    if isinstance(messages, list) and len(messages) > MAX_MESSAGES:
        raise HTTPException(
            413, f"{len(messages):,} messages in one add; the limit is {MAX_MESSAGES} (send them in several adds)"
        )


class TooCostly(MemLensError):
    """A request over a cost bound: ``status`` 413 (one request too large) or 429 (the key's budget is spent, try
    again after ``retry_after`` seconds)."""

    def __init__(self, message: str, status: int, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status, self.retry_after = status, retry_after


def request_tokens(texts: Iterable[str], limit: int) -> int:
    """The tokens of a request's texts; :class:`TooCostly` (413) past ``limit``. A text far longer than any
    ``limit``-token text could be is refused by its length alone (no tokenizer pass over a megabyte)."""
    total = 0
    for text in texts:
        if len(text) > limit * 12:  # no tokenizer packs 12 characters in a token: over the limit for sure
            total = limit + 1
            break
        total += count_tokens(text)
        if total > limit:
            break
    if total > limit:
        raise TooCostly(
            f"this request carries more than {limit:,} tokens of text (MEMLENS_API_MAX_REQUEST_TOKENS): send a "
            "long text in several requests",
            413,
        )
    return total


class TokenBudget:
    """Per API key, the text tokens it may send per minute: a bucket of ``per_minute`` tokens that refills
    continuously (so a client may burst up to a minute's budget, then goes at the refill rate). Per process."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute, self.clock = per_minute, clock
        self._lock = threading.Lock()
        self._left: dict[str, tuple[float, float]] = {}  # key -> (tokens left, when)

    def charge(self, key: str, tokens: int) -> None:
        """Take ``tokens`` from ``key``'s budget, or raise :class:`TooCostly` (429) naming when to retry."""
        if self.per_minute <= 0:
            return
        rate = self.per_minute / 60.0
        with self._lock:
            now = self.clock()
            left, when = self._left.get(key, (float(self.per_minute), now))
            left = min(float(self.per_minute), left + (now - when) * rate)
            if tokens > left:
                self._left[key] = (left, now)
                wait = max(1, math.ceil((tokens - left) / rate))
                raise TooCostly(
                    f"this API key has sent its {self.per_minute:,} tokens a minute (MEMLENS_API_TOKENS_PER_MINUTE): "
                    f"retry in {wait} s",
                    429,
                    wait,
                )
            self._left[key] = (left - tokens, now)


class Costs:
    """The cost bounds one server applies (its settings, one :class:`TokenBudget`)."""

    def __init__(self, max_request_tokens: int, tokens_per_minute: int) -> None:
        self.max_request_tokens = max_request_tokens
        self.budget = TokenBudget(tokens_per_minute)

    def charge(self, key: str | None, texts: Iterable[str]) -> int:
        """Bound one request carrying ``texts`` for ``key`` (None: a local stdio client, no per-key budget)."""
        tokens = request_tokens(texts, self.max_request_tokens)
        if key is not None:
            self.budget.charge(key, tokens)
        return tokens


def texts_of(messages: str | list[Any]) -> list[str]:
    """The texts of an add's ``messages`` (a string or {role, content} items)."""
    if isinstance(messages, str):
        return [messages]
    return [m.content if hasattr(m, "content") else str(m.get("content", "")) for m in messages]


class DepthLimit:
    """Pure ASGI middleware: refuse a JSON body nested deeper than :data:`MAX_DEPTH` with a 422, before parsing.
    It reads the body (already bounded by ``BodyLimit``, which must wrap it) and hands the same bytes on."""

    def __init__(self, app: ASGIApp, limit: int = MAX_DEPTH) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") in ("GET", "HEAD", "OPTIONS"):
            return await self.app(scope, receive, send)
        chunks: list[bytes] = []
        more = True
        try:
            while more:
                message = await receive()
                if message["type"] != "http.request":
                    return await self.app(scope, _replay([message], receive), send)
                chunks.append(message.get("body", b""))
                more = message.get("more_body", False)
        except HTTPException as exc:  # BodyLimit's 413 while streaming: answered here, outside the app's handlers
            return await _respond(send, exc.status_code, str(exc.detail))
        body = b"".join(chunks)
        if json_depth(body, self.limit) > self.limit:
            return await _respond(send, 422, f"request body nested deeper than {self.limit} levels")
        first: Message = {"type": "http.request", "body": body, "more_body": False}
        return await self.app(scope, _replay([first], receive), send)


async def _respond(send: Send, status: int, error: str) -> None:
    headers = [(b"content-type", b"application/json")]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": json.dumps({"error": error}).encode()})


def _replay(messages: list[Message], then: Receive) -> Receive:
    """The buffered messages, then the connection's own ``receive`` (which waits for a disconnect)."""
    queue = list(messages)

    async def receive() -> Message:
        if queue:
            return queue.pop(0)
        return await then()

    return receive
