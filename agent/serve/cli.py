"""`memlens serve api | mcp`: start the REST API or the MCP server (added to the app by ``agent.cli``)."""

from __future__ import annotations

from typing import Annotated, Literal

import typer

from memory.cli.common import service

cli = typer.Typer(help="Serve MemLens to other agents: a REST API or an MCP server (API keys: memlens apikey).")

HostOpt = Annotated[str, typer.Option("--host", help="Interface to listen on.")]


@cli.command("api")
def api(host: HostOpt = "127.0.0.1", port: Annotated[int, typer.Option("--port", min=1, max=65535)] = 8000) -> None:
    """The REST API (FastAPI + uvicorn); OpenAPI at /openapi.json, docs at /docs. Needs API keys."""
    import uvicorn

    from agent.serve.api import create_app

    svc = service()
    svc.warm()  # the index, the embedder and a frozen heap before the first request
    uvicorn.run(create_app(svc), host=host, port=port, log_level="warning")


@cli.command("mcp")
def mcp(
    transport: Annotated[
        Literal["stdio", "http"], typer.Option("--transport", help="stdio (local client) or http (needs API keys).")
    ] = "stdio",
    user: Annotated[
        str | None,
        typer.Option("--user", help="Pin the server to this user: calls naming another are refused."),
    ] = None,
    host: HostOpt = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=1, max=65535)] = 8765,
) -> None:
    """The MCP server: tools add_memory, search_memories, list_memories, delete_memory, get_profile."""
    from agent.serve.mcp import create_server

    svc = service()
    svc.warm()
    server = create_server(svc, pin_user=user, http=transport == "http", host=host, port=port)
    server.run("streamable-http" if transport == "http" else "stdio")
