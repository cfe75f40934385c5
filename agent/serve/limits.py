"""What one REST request may cost: its body size, its JSON nesting and the messages one add may carry.

The write pipeline costs about the same per message whatever the door, so a request's server CPU is bounded by
bounding what it carries:

- **Body size**: ``MEMLENS_API_MAX_BODY_BYTES`` (1 MB by default) → 413 (``agent.serve.api.BodyLimit``).
- **Nesting depth**: at most :data:`MAX_DEPTH` levels of ``[`` / ``{`` → 422, checked on the raw bytes before any
  parser recurses into them (a deeply nested body used to end in a 500 or a dropped connection).
- **Messages per add**: at most :data:`MAX_MESSAGES` → 413 (one add of 2,000 messages used to take ~2 minutes of
  server CPU); each message is already at most ``MEMLENS_MAX_MESSAGE_CHARS``. Send a long conversation in several
  adds (the write pipeline keeps their order by session).

So one request costs at most ``MAX_MESSAGES`` messages of the write pipeline (``bench/max_message.py`` measures one
maximum-size message).
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from fastapi import HTTPException

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
