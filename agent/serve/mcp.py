"""The MCP server (`memlens serve mcp`): MemLens memory as tools for Claude Desktop, Cursor and any MCP client.

Over stdio (the client starts the process: local, trusted, no key) or streamable HTTP (``--transport http``), where
every request needs ``Authorization: Bearer <key>`` (``memlens apikey create``), checked by the SDK's own bearer
auth through :class:`KeyVerifier`. A tool acts for ``user_id`` when given, else ``MEMLENS_MCP_DEFAULT_USER``; a key
restricted to some users cannot name another. ``memlens serve mcp --user alice`` *pins* the server to alice: every
call acts for her, and a call naming another user is refused with a tool error (and audited), on either transport.
Writes are tagged ``via=mcp`` (``mcp:<key name>`` over HTTP).

Refusals are audited as on the REST door: a request without a valid key (HTTP 401/403) and every refused tool call —
a user the key may not act for, an empty or missing user id, input the tool or MemLens refuses, a memory that is not
the user's — leave a ``denied`` row (the door, the tool, the reason; never the key or the arguments).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import anyio
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError

from agent.serve import limits
from agent.serve.refusals import RefusalAudit
from memory.client import Memory
from memory.config import Settings
from memory.errors import MemLensError
from memory.service import MemoryService
from memory.vocab import Actor, Role

if TYPE_CHECKING:
    from mcp.types import ContentBlock
    from starlette.applications import Starlette

INSTRUCTIONS = (
    "Long-term memory about the person you are talking with. Before answering anything personal (their plans, "
    "tastes, people, places, past conversations) call search_memories with a short question. When they tell you "
    "something durable about themselves — a fact, preference, plan or correction — call add_memory with it in "
    "their words. Memories are per user; never pass one user's id when talking with another."
)


class KeyVerifier:
    """The SDK's ``TokenVerifier`` over MemLens API keys: a key's name becomes the client id, its users the scopes."""

    def __init__(self, service: MemoryService) -> None:
        self.service = service

    async def verify_token(self, token: str) -> AccessToken | None:
        info = self.service.people.verify_key(token)
        if info is None:
            return None
        return AccessToken(token=token, client_id=info.name, scopes=[], claims={"users": list(info.users)})


def _tool(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Run a tool in a worker thread (the engine is synchronous; the server's event loop stays free), and turn a
    refused input or a missing memory into a clear tool error for the model, never a traceback."""

    @functools.wraps(fn)
    async def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs))  # copies the context
        except MemLensError as exc:
            raise ToolError(str(exc)) from None

    return call


class MemoryTools:
    """The five tools, each resolving the user and the door for the current call."""

    def __init__(self, service: MemoryService, default_user: str | None, *, pinned: bool = False) -> None:
        self.service, self.default_user, self.pinned = service, default_user, pinned
        s = service.settings
        self.costs = limits.Costs(s.api_max_request_tokens, s.api_tokens_per_minute)  # as the REST door's

    def _scope(self, user_id: str | None) -> tuple[Memory, str]:
        """The door (a ``Memory`` with MemLens's calibrated cut: a model should hear "nothing relevant" rather than
        get weak matches) and the user. An explicit but empty ``user_id`` is refused, never read as the default."""
        if user_id is not None and not user_id.strip():
            raise ToolError("user_id is empty: name the user, or leave it out to act for this server's default user")
        user = user_id if user_id is not None else self.default_user
        if not user:
            raise ToolError("user_id is required (this server has no default user)")
        if self.pinned and user != self.default_user:
            raise ToolError(
                f"this server acts only for user {str(self.default_user)[:80]!r} (started with --user); "
                f"it may not act for {user[:80]!r}"
            )
        token = get_access_token()
        if token is None:  # stdio: the local client started us
            return Memory(self.service, via="mcp", name="mcp", cut="calibrated"), user
        users = (token.claims or {}).get("users") or []
        if users and user not in users:
            raise ToolError(f"this API key may not act for user {user[:80]!r}")
        return Memory(self.service, via=f"mcp:{token.client_id}", name=token.client_id, cut="calibrated"), user

    def add_memory(self, text: str, user_id: str | None = None, agent_id: str | None = None) -> dict[str, Any]:
        """Remember something the user said about themselves (a fact, preference, plan or correction), in their
        words. MemLens extracts what is worth keeping, reinforces what it already knew and replaces what changed.
        Returns what was added, updated or left unchanged."""
        mem, user = self._scope(user_id)
        token = get_access_token()  # over HTTP: the key's budget; over stdio (a local client): the request bound only
        self.costs.charge(token.client_id if token is not None else None, [text])
        return mem.add(text, user_id=user, agent_id=agent_id)

    def search_memories(
        self, query: str, user_id: str | None = None, limit: int = 5, agent_id: str | None = None
    ) -> dict[str, Any]:
        """Find what is remembered about the user that is relevant to QUERY (a short question or topic, any
        language). Returns the memories that passed the relevance cut, best first, with their scores; an empty
        list means nothing relevant is remembered — say so rather than guess."""
        mem, user = self._scope(user_id)
        return mem.search(query, user_id=user, limit=limit, agent_id=agent_id)

    def list_memories(self, user_id: str | None = None, limit: int = 50, offset: int = 0) -> dict[str, Any]:
        """List the user's active memories, newest first (use search_memories to find something specific)."""
        mem, user = self._scope(user_id)
        return mem.get_all(user_id=user, limit=limit, offset=offset)

    def delete_memory(self, memory_id: str, user_id: str | None = None) -> dict[str, Any]:
        """Delete one memory by its id (from search_memories or list_memories) when the user says it is wrong or
        asks you to forget it. The deletion is logged."""
        mem, user = self._scope(user_id)
        return mem.delete(memory_id, user_id=user)

    def get_profile(self, user_id: str | None = None) -> dict[str, Any]:
        """The user's core profile: name, home, language and the other fields MemLens keeps explicitly."""
        mem, user = self._scope(user_id)
        return {"user_id": user, "profile": mem.get_profile(user)}


class MemLensMCP(FastMCP):
    """FastMCP with MemLens's refusal audit: every tool call that ends in a tool error (refused by the key, the input
    checks of the SDK or of MemLens, a missing memory) and every HTTP request refused before a tool runs leave a
    ``denied`` row, as the REST door's refusals do."""

    service: MemoryService

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> Sequence[ContentBlock] | dict[str, Any]:
        try:
            return await super().call_tool(name, arguments)
        except ToolError as exc:
            token = get_access_token()
            asked = arguments.get("user_id") if isinstance(arguments, dict) else None
            await anyio.to_thread.run_sync(functools.partial(self._audit_refusal, name, str(exc), token, asked))
            raise

    def _audit_refusal(self, tool: str, problem: str, token: AccessToken | None, asked: object) -> None:
        via = f"mcp:{token.client_id}" if token is not None else "mcp"
        who = Actor(name=token.client_id if token is not None else "mcp", role=Role.CURATOR, via=via)
        user = asked.strip()[:200] if isinstance(asked, str) and asked.strip() else None
        reason = f"MCP tool {str(tool)[:64]!r} refused: {problem[:500]}"
        self.service.record_refusal(who, reason, user_id=user, detail={"door": "mcp"})

    def streamable_http_app(self) -> Starlette:
        app = super().streamable_http_app()
        app.add_middleware(RefusalAudit, service=self.service, door="mcp")  # 401 / 403 before any tool runs
        return app


def create_server(
    service: MemoryService | None = None,
    *,
    default_user: str | None = None,
    pin_user: str | None = None,
    http: bool = False,
    host: str = "127.0.0.1",
    port: int = 8765,
) -> FastMCP:
    """The FastMCP server; ``http=True`` turns on bearer-key auth for the streamable HTTP transport. ``pin_user``
    (``--user``): the only user any call may act for; ``default_user``: the user of a call that names none."""
    service = service or MemoryService(Settings())
    if pin_user is not None:
        tools = MemoryTools(service, pin_user, pinned=True)
    else:
        tools = MemoryTools(service, default_user or service.settings.mcp_default_user)
    auth: dict[str, Any] = {}
    if http:
        url = f"http://{host}:{port}"
        auth = {
            "token_verifier": KeyVerifier(service),
            "auth": AuthSettings(issuer_url=url, resource_server_url=url, validate_token_resource=False),
        }
    server = MemLensMCP(
        "memlens",
        instructions=INSTRUCTIONS,
        host=host,
        port=port,
        stateless_http=True,
        log_level="WARNING",
        json_response=True,
        max_request_body_size=service.settings.api_max_body_bytes,
        **auth,
    )
    server.service = service
    for name in ("add_memory", "search_memories", "list_memories", "delete_memory", "get_profile"):
        server.tool(name=name)(_tool(getattr(tools, name)))
    return server
