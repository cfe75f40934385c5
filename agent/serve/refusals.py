"""Every refusal at an HTTP door is audited: a 401 (no, unknown or revoked key) or 403 (a key used for a user it may
not touch) leaves a ``denied`` row with the door, the method and path, and the status — never the key or the body.

A pure ASGI middleware that watches the response status, so no route has to remember to record its refusals. The
REST API and the MCP server's HTTP transport both run it (``door`` names which); the MCP server also audits each
refused tool call itself (``agent.serve.mcp``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memory.vocab import Actor, Role

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

    from memory.service import MemoryService

AUDITED = {401: "no valid API key", 403: "the API key may not act for this user"}


class RefusalAudit:
    def __init__(self, app: ASGIApp, service: MemoryService, door: str = "api") -> None:
        self.app, self.service, self.door = app, service, door

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def watched(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] in AUDITED:
                status = message["status"]
                where = f"{scope.get('method', '')} {str(scope.get('path', ''))[:200]}"
                who = Actor(name=f"{self.door} client", role=Role.VIEWER, via=self.door)
                reason = f"{AUDITED[status]} ({status}, {where})"
                self.service.record_refusal(who, reason)
            await send(message)

        return await self.app(scope, receive, watched)
