"""The audit desk from a shell: `memlens recall explain`, `memlens hygiene`, `memlens eval labels`,
`memlens replay`. Each calls the same service operation the back office's Audit desk page calls."""

from __future__ import annotations

from typing import Annotated

import typer

from memory.cli.common import AgentOpt, JsonOpt, UserOpt, emit, say, service

#: `memlens recall explain` (added to the recall group in memory/cli/main.py)
recall_cli = typer.Typer()


@recall_cli.command("explain")
def explain(
    user: UserOpt,
    memory: Annotated[str, typer.Option("--memory", "-m", help="The memory id to explain.")],
    query: Annotated[str | None, typer.Argument(help="The query (or give --retrieval).")] = None,
    retrieval: Annotated[
        int | None, typer.Option("--retrieval", help="Explain a logged retrieval instead of a typed query.")
    ] = None,
    agent: AgentOpt = None,
    k: Annotated[int | None, typer.Option("--k", help="How many memories to select.")] = None,
    threshold: Annotated[float | None, typer.Option("--threshold", help="Relevance threshold.")] = None,
    mode: Annotated[str | None, typer.Option("--mode", help="vector | fulltext | hybrid")] = None,
    json_out: JsonOpt = False,
) -> None:
    """Why (not)? Every stage one memory went through for a query, and the first one it fell out at."""
    data = service().explain_recall(
        user, memory, query, retrieval_id=retrieval, agent_id=agent, k=k, threshold=threshold, mode=mode
    )
    if json_out:
        emit(data)
        return
    say(f"{data['memory_id']}: {data['content'][:120]}")
    say(f"query: {data['query'][:200]}")
    if data.get("logged"):
        say(f"logged then: {data['logged']['said']}")
    for s in data["stages"]:
        mark = "·" if not s["gate"] else {True: "✔", False: "✘", None: "—"}[s["passed"]]
        say(f"{mark} {s['name']:<20} {s['detail']}")
    say(data["summary"])


#: `memlens eval labels` (added to the eval group in memory/cli/main.py)
eval_cli = typer.Typer()
