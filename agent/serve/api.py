"""The REST API (`memlens serve api`): MemLens for services in any language, over the same ``memory.Memory`` facade.

Every route but ``/v1/health`` needs ``Authorization: Bearer <key>`` (``memlens apikey create``): missing or unknown
→ 401; a key restricted to some users asking about another → 403 (by memory id: 404, so ids of other users' memories
are not confirmed). Bodies over ``MEMLENS_API_MAX_BODY_BYTES`` → 413; an add or chat carrying more text than
``MEMLENS_API_MAX_REQUEST_TOKENS`` → 413; a key past ``MEMLENS_API_TOKENS_PER_MINUTE`` → 429
(``agent.serve.limits``). Every error — unknown routes and methods included — is one JSON object, ``ErrorBody``
(``{"error": "...", "detail": [{"where", "problem"}]}``), never a traceback, and the OpenAPI schema documents each
one. Writes are tagged ``via=api:<key name>``.
"""

from __future__ import annotations

import logging
import re
import threading
import traceback
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.exceptions import HTTPException as StarletteHTTPException

from agent.serve import limits
from agent.serve.refusals import RefusalAudit
from agent.serve.schemas import AddRequest, ChatRequest, ErrorBody, SearchRequest, UpdateRequest
from memory import provenance
from memory.apikeys import KeyInfo
from memory.client import Memory
from memory.config import Settings
from memory.errors import Conflict, Forbidden, InvalidInput, MemLensError, NotFound
from memory.service import MemoryService
from memory.vocab import Actor, Role

if TYPE_CHECKING:  # the agent (LangGraph) loads on the first chat, not when the API starts
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

    from agent.runtime import Agent

log = logging.getLogger(__name__)
STATUS = {InvalidInput: 400, NotFound: 404, Conflict: 409, Forbidden: 403}
#: the largest page offset a listing accepts (a bigger one would overflow SQL's integers: a clean 422 instead)
MAX_OFFSET = 1_000_000


def _documented(*codes: int) -> dict[int | str, dict[str, Any]]:
    why = {
        400: "Refused input (empty text, bad filter, a value out of range).",
        401: "Missing, unknown or revoked API key.",
        403: "The API key may not act for this user.",
        404: "No such memory (or not one this key may see), or no such route.",
        405: "Method not allowed on this route.",
        409: "A concurrent change won, or the operation is not allowed now.",
        413: "Request too large: body (MEMLENS_API_MAX_BODY_BYTES), messages or text tokens "
        "(MEMLENS_API_MAX_REQUEST_TOKENS).",
        429: "This API key's text tokens per minute are spent (MEMLENS_API_TOKENS_PER_MINUTE): see Retry-After.",
        422: "The request does not match the schema (detail says where).",
        500: "An unexpected error (the body names its type, never a traceback).",
    }
    return {c: {"model": ErrorBody, "description": why[c]} for c in codes}


#: what every authenticated route may answer besides its 200
ERRORS = _documented(400, 401, 403, 404, 409, 413, 422, 429, 500)
_bearer = HTTPBearer(auto_error=False, description="An API key made with `memlens apikey create`.")


class BodyLimit:
    """Pure ASGI middleware: refuse bodies over ``limit`` bytes (by Content-Length, and while streaming)."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            return await _too_large(self.limit)(scope, receive, send)
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                raise HTTPException(413, f"request body over {self.limit} bytes")
            return message

        return await self.app(scope, limited, send)


class Unexpected:
    """Pure ASGI middleware: an unexpected exception becomes the documented 500 answer (``ErrorBody``, never a
    traceback) and the connection stays usable. Starlette's handler for ``Exception`` answers and then re-raises, and
    uvicorn closes a keep-alive connection whose application raised: the client's next request on it was reset.
    The log line names the error's type, the route and the code line, never the error's text (SQL errors carry
    their parameters: user keys, memory text)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception as exc:
            route = getattr(scope.get("route"), "path", "?")
            log.error("internal error (%s) on %s %s at %s", type(exc).__name__, scope.get("method"), route, _at(exc))
            if started:  # the answer is half sent: nothing sane can follow on this connection
                raise
            body = {"error": f"internal error ({type(exc).__name__})"}
            await JSONResponse(body, status_code=500)(scope, receive, send)


def _at(exc: BaseException) -> str:
    """Where in MemLens's own code an error was raised (file:line of the deepest project frame), else "?"."""
    ours = [f for f in traceback.extract_tb(exc.__traceback__) if "site-packages" not in f.filename]
    return f"{ours[-1].filename}:{ours[-1].lineno}" if ours else "?"


def _too_large(limit: int) -> JSONResponse:
    return JSONResponse({"error": f"request body over {limit} bytes (MEMLENS_API_MAX_BODY_BYTES)"}, status_code=413)


class Doors:
    """What the routes share: the service, one agent (compiled graph) made on first chat, the key check."""

    def __init__(self, service: MemoryService) -> None:
        self.service = service
        s = service.settings
        self.costs = limits.Costs(s.api_max_request_tokens, s.api_tokens_per_minute)  # what one request / key costs
        self._agent: Agent | None = None
        self._lock = threading.Lock()

    @property
    def agent(self) -> Agent:
        with self._lock:
            if self._agent is None:
                from agent.runtime import Agent

                self._agent = Agent(self.service)
            return self._agent

    def memory(self, key: KeyInfo) -> Memory:
        return Memory(self.service, via=f"api:{key.name}", name=key.name)


def create_app(service: MemoryService | None = None) -> FastAPI:
    """The FastAPI application (uvicorn serves it; tests call it through a real server)."""
    service = service or MemoryService(Settings())
    doors = Doors(service)
    app = FastAPI(
        title="MemLens",
        version="1",
        summary="Inspectable long-term memory for LLM agents: add, search, correct and erase, per user.",
        description=__doc__,
    )
    app.state.doors = doors
    app.add_middleware(RefusalAudit, service=service)  # every 401 / 403 leaves a denied audit row
    app.add_middleware(limits.DepthLimit)  # inside BodyLimit: it reads a body already bounded
    app.add_middleware(BodyLimit, limit=service.settings.api_max_body_bytes)
    app.add_middleware(Unexpected)  # outermost: whatever fails inside answers a 500 and keeps the connection
    _errors(app)
    app.include_router(router)
    from agent.serve import desk_api  # the audit desk's routes (they import this module's key check)

    app.include_router(desk_api.router, responses=ERRORS, dependencies=[Depends(known_query)])
    return app


def _errors(app: FastAPI) -> None:
    @app.exception_handler(limits.TooCostly)
    async def too_costly(_request: Request, exc: limits.TooCostly) -> JSONResponse:
        headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after else None
        return JSONResponse({"error": str(exc)}, status_code=exc.status, headers=headers)

    @app.exception_handler(MemLensError)
    async def memlens_error(_request: Request, exc: MemLensError) -> JSONResponse:
        code = next((c for t, c in STATUS.items() if isinstance(exc, t)), 400)
        return JSONResponse({"error": str(exc)}, status_code=code)

    @app.exception_handler(StarletteHTTPException)  # FastAPI's own, and the router's 404 / 405 for unknown routes
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        headers = dict(exc.headers or {})
        if exc.status_code == 405:  # Starlette names only the first route's methods; a path may have several routes
            headers["Allow"] = ", ".join(_methods(request))
        return JSONResponse({"error": str(exc.detail)}, status_code=exc.status_code, headers=headers or None)

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        detail = [{"where": ".".join(str(p) for p in e["loc"]), "problem": e["msg"]} for e in exc.errors()]
        return JSONResponse({"error": "invalid request", "detail": detail}, status_code=422)


def _methods(request: Request) -> list[str]:
    """The methods the documented resource at this request's path supports, as ``/openapi.json`` lists them: the
    most specific path template that matches wins (``/v1/memories/search`` is its own resource, not a memory id)."""
    path = request.url.path
    paths: dict[str, dict[str, Any]] = request.app.openapi().get("paths", {})
    fitting = [t for t in paths if re.fullmatch(re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(t)), path)]
    if not fitting:
        return []
    best = min(fitting, key=lambda t: t.count("{"))
    return [m for m in ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS") if m.lower() in paths[best]]


def known_query(request: Request) -> None:
    """Refuse query parameters the route does not declare (422, like an unknown body field): a typo such as
    ``?ofset=`` must not silently list the first page. Refuse as well a parameter given more than once
    (``?run_id=a&run_id=b``): every query parameter of the API takes one value, and FastAPI would keep the last and
    answer for a filter the caller did not mean."""
    dependant = getattr(request.scope.get("route"), "dependant", None)
    params = list(getattr(dependant, "query_params", []))
    for dep in getattr(dependant, "dependencies", []):
        params += dep.query_params
    declared = {p.alias for p in params}
    errors = [
        {"loc": ("query", name), "msg": "unknown query parameter", "type": "extra_forbidden"}
        for name in sorted(set(request.query_params) - declared)
    ] + [
        {"loc": ("query", name), "msg": "given more than once", "type": "too_long"}
        for name in sorted(declared)
        if len(request.query_params.getlist(name)) > 1
    ]
    if errors:
        raise RequestValidationError(errors)


def doors_of(request: Request) -> Doors:
    return request.app.state.doors


def key_of(request: Request, creds: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]) -> KeyInfo:
    """The verified API key of the request (401 when missing, unknown or revoked)."""
    info = doors_of(request).service.people.verify_key(creds.credentials if creds else None)
    if info is None:
        raise HTTPException(401, "missing or invalid API key", headers={"WWW-Authenticate": "Bearer"})
    return info


Key = Annotated[KeyInfo, Depends(key_of)]
Service = Annotated[Doors, Depends(doors_of)]
router = APIRouter(prefix="/v1", responses=ERRORS, dependencies=[Depends(known_query)])


def allowed(key: KeyInfo, user_id: str) -> None:
    if not key.allows(user_id):
        raise HTTPException(403, f"this API key may not act for user {user_id[:80]!r}")


def owned(doors: Doors, key: KeyInfo, memory_id: str) -> dict[str, Any]:
    """The memory, if the key may see its user (else 404: ids of other users' memories are not confirmed)."""
    found = doors.memory(key).get(memory_id)
    if found is None or not key.allows(found["user_id"]):
        raise NotFound(f"no memory {memory_id[:80]!r}")
    return found


@router.get("/health", tags=["meta"], responses=_documented(404, 405, 413, 500))
def health() -> dict[str, str]:
    """Liveness: no key needed."""
    return {"status": "ok"}


@router.post("/memories", tags=["memories"])
def add(body: AddRequest, key: Key, doors: Service) -> dict[str, Any]:
    """Remember messages through the write pipeline (or verbatim with ``infer: false``)."""
    allowed(key, body.user_id)
    limits.check_messages(body.messages)
    doors.costs.charge(key.name, limits.texts_of(body.messages))  # 413 / 429 before anything is stored
    messages = body.messages if isinstance(body.messages, str) else [m.model_dump() for m in body.messages]
    return doors.memory(key).add(
        messages,
        user_id=body.user_id,
        agent_id=body.agent_id,
        run_id=body.run_id,
        metadata=body.metadata,
        infer=body.infer,
    )


@router.post("/memories/search", tags=["memories"])
def search(body: SearchRequest, key: Key, doors: Service) -> dict[str, Any]:
    """MemLens recall (hybrid, thresholded, logged for the retrieval lab): the memories that passed the cut."""
    allowed(key, body.user_id)
    return doors.memory(key).search(
        body.query,
        user_id=body.user_id,
        agent_id=body.agent_id,
        run_id=body.run_id,
        limit=body.limit,
        top_k=body.top_k,
        threshold=body.threshold,
        filters=body.filters,
        cut=body.cut,
    )


@router.get("/memories", tags=["memories"])
def list_memories(
    key: Key,
    doors: Service,
    user_id: Annotated[str, Query(min_length=1, max_length=10_000)],
    agent_id: str | None = None,
    run_id: str | None = None,
    limit: Annotated[int, Query(ge=0, le=1000)] = 100,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
) -> dict[str, Any]:
    """A user's active memories over every agent unless one is named, newest first."""
    allowed(key, user_id)
    return doors.memory(key).get_all(user_id=user_id, agent_id=agent_id, run_id=run_id, limit=limit, offset=offset)


@router.get("/memories/{memory_id}", tags=["memories"])
def get_memory(memory_id: str, key: Key, doors: Service) -> dict[str, Any]:
    return owned(doors, key, memory_id)


@router.patch("/memories/{memory_id}", tags=["memories"])
def update(memory_id: str, body: UpdateRequest, key: Key, doors: Service) -> dict[str, Any]:
    """Rewrite a memory's text (logged as an EDIT, tagged with this key)."""
    found = owned(doors, key, memory_id)
    return doors.memory(key).update(memory_id, body.text, user_id=found["user_id"])


@router.delete("/memories/{memory_id}", tags=["memories"])
def delete(memory_id: str, key: Key, doors: Service) -> dict[str, Any]:
    found = owned(doors, key, memory_id)
    return doors.memory(key).delete(memory_id, user_id=found["user_id"])


@router.get("/memories/{memory_id}/history", tags=["memories"])
def history(memory_id: str, key: Key, doors: Service) -> dict[str, Any]:
    """The memory's write log, oldest first, with where each change came from."""
    found = owned(doors, key, memory_id)
    return {"results": doors.memory(key).history(memory_id, user_id=found["user_id"])}


@router.delete("/users/{user_id}", tags=["users"])
def delete_user(user_id: str, key: Key, doors: Service) -> dict[str, Any]:
    """Erase a user completely (SQL rows, vectors, checkpoints)."""
    allowed(key, user_id)
    return {"deleted": doors.memory(key).delete_user(user_id)}


@router.get("/users/{user_id}/profile", tags=["users"])
def profile(user_id: str, key: Key, doors: Service) -> dict[str, Any]:
    allowed(key, user_id)
    return {"user_id": user_id, "profile": doors.memory(key).get_profile(user_id)}


@router.post("/chat", tags=["agent"])
def chat(body: ChatRequest, key: Key, doors: Service) -> dict[str, Any]:
    """One agent turn: recall, budgeted context, reply, memory writes (as ``memlens chat --json``)."""
    allowed(key, body.user_id)
    doors.costs.charge(key.name, [body.message])  # 413 / 429 before the turn runs
    actor = Actor(name=key.name, role=Role.CURATOR, via=f"api:{key.name}")
    with provenance.acting(actor):
        result = doors.agent.chat(
            body.user_id,
            body.session_id,
            body.message,
            agent_id=body.agent_id,
            idempotency_key=body.idempotency_key,
            actor=actor,
        )
    return result.to_dict()
