"""Overhead of each door over the service call it wraps: Python API, LangGraph store, REST API, MCP server.

One command: ``python bench/doors.py [--runs 200] [--memories 500] [--embedder hash|e5]``. Fills one user with
``--memories`` memories THROUGH THE mem0 DOOR (conversations, so every memory has a source message and source
context to show) in a throwaway folder, then times, pair by pair on the same input and in alternating
order, the service call (``recall`` for search, ``remember`` / ``remember_verbatim`` for writes) and the same
operation through each door: ``Memory``, ``MemLensStore``, httpx → a real uvicorn server on 127.0.0.1 (keep-alive,
API key checked), and the MCP SDK's client → the MCP server over its in-memory transport (the protocol and tool
layer; stdio adds a pipe). Overhead = door − service per pair. The hash embedder (default) keeps the embedder's
time out of both sides, so the difference is the door's own. Prints p50 / p95 and the ratio door p50 / service p50
(the target for search: within 1.5) and writes bench/results/doors.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

QUERIES = ["where does she live", "favourite food", "travel plans", "我住在哪里", "allergies", "job", "pets", "budget"]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 3)


def pairs(direct: Callable[[int], object], door: Callable[[int], object], runs: int) -> dict[str, float]:
    """Time direct(i) and door(i) alternately; p50/p95 of each and of the per-pair difference (ms)."""
    d_ms, s_ms = [], []
    for i in range(runs):
        order = [(direct, d_ms), (door, s_ms)] if i % 2 else [(door, s_ms), (direct, d_ms)]
        for fn, out in order:
            t0 = time.perf_counter()
            fn(i)
            out.append((time.perf_counter() - t0) * 1000)
    diff = [s - d for s, d in zip(s_ms, d_ms, strict=True)]
    return {
        "service_p50_ms": pct(d_ms, 0.5),
        "service_p95_ms": pct(d_ms, 0.95),
        "door_p50_ms": pct(s_ms, 0.5),
        "door_p95_ms": pct(s_ms, 0.95),
        "overhead_p50_ms": pct(diff, 0.5),
        "overhead_p95_ms": pct(diff, 0.95),
        "overhead_mean_ms": round(statistics.fmean(diff), 3),
        "ratio_p50": round(pct(s_ms, 0.5) / max(pct(d_ms, 0.5), 1e-9), 2),
    }


CITIES = ["Hangzhou", "Lisbon", "Kyoto", "Oslo", "Lima", "Austin", "Porto", "Seoul", "Quito", "Dakar", "Perth"]
LIKES = ["jasmine tea", "hiking", "jazz", "sushi", "chess", "cycling", "opera", "dumplings", "pottery", "sailing"]


def seed(svc, n: int) -> None:
    """Fill the user THROUGH A DOOR, as an adopter's app does: ``Memory.add`` of conversations (ten user turns and
    ten replies each, one run per conversation), so every memory has its source message in a conversation — an
    episode per message and the facts read from them. Data without source messages hides the cost of source
    context, which the doors used to build for every candidate."""
    from memory.client import Memory

    mem = Memory(svc, via="bench", name="bench-seed")
    conv = 0
    while not svc.list_users() or svc.lifecycle.user_stats("bench")["memories"]["active"] < n:
        msgs = []
        for j in range(10):
            k = conv * 10 + j
            said = [
                f"I moved to {CITIES[k % len(CITIES)]} in {2000 + k % 25}",
                f"I love {LIKES[k % len(LIKES)]}",
                f"My friend Sam {k} likes {LIKES[(k + 3) % len(LIKES)]}",
            ][k % 3]
            msgs += [{"role": "user", "content": said}, {"role": "assistant", "content": f"Noted, {said.lower()}."}]
        mem.add(msgs, user_id="bench", run_id=f"conversation-{conv}")
        conv += 1


def rest_client(svc):
    """A real uvicorn server in a thread serving the REST app; returns (httpx client, stop)."""
    import socket

    import httpx
    import uvicorn

    from agent.serve.api import create_app
    from memory import apikeys
    from memory.cli.common import cli_actor

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(svc), host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    key = apikeys.create(svc.storage, f"bench-{port}", actor=cli_actor())[0]
    client = httpx.Client(base_url=f"http://127.0.0.1:{port}", headers={"Authorization": f"Bearer {key}"}, timeout=60)

    def stop() -> None:
        client.close()
        server.should_exit = True

    return client, stop


def mcp_caller(svc):
    """An MCP client session on the in-memory transport, driven from a private event loop; returns (call, close)."""
    from mcp.shared.memory import create_connected_server_and_client_session

    from agent.serve.mcp import create_server

    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()
    ready: dict = {}
    opened = threading.Event()

    async def hold() -> None:  # the session is entered and left in this one task (anyio's cancel scopes need it)
        ready["closing"] = asyncio.Event()
        async with create_connected_server_and_client_session(create_server(svc, default_user="bench")) as session:
            ready["session"] = session
            opened.set()
            await ready["closing"].wait()

    held = asyncio.run_coroutine_threadsafe(hold(), loop)
    opened.wait(60)

    def close() -> None:
        loop.call_soon_threadsafe(ready["closing"].set)
        held.result(30)

    def call(tool: str, args: dict) -> object:
        result = asyncio.run_coroutine_threadsafe(ready["session"].call_tool(tool, args), loop).result(60)
        if result.isError:
            raise RuntimeError(result.content[0].text)
        return result

    return call, close


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--memories", type=int, default=500)
    ap.add_argument("--embedder", choices=["hash", "e5"], default="hash")
    ap.add_argument("--out", default="", help="where to write the JSON (default bench/results/doors.json)")
    args = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from memory.client import Memory
    from memory.config import Settings
    from memory.langgraph import MemLensStore
    from memory.service import MemoryService

    tmp = tempfile.mkdtemp(prefix="memlens-doors-")
    svc = MemoryService(Settings(data_dir=Path(tmp), embedder=args.embedder, summary_background=False))
    seed(svc, args.memories)
    svc.warm()  # as `memlens serve api|mcp` do before their first request
    mem, store = Memory(svc), MemLensStore(Memory(svc, via="langgraph"))
    client, stop = rest_client(svc)
    mcp, close_mcp = mcp_caller(svc)
    q = QUERIES
    runs, w = args.runs, max(20, args.runs // 4)  # writes are slower: fewer pairs

    def recall(i: int) -> object:
        return svc.recall("bench", q[i % len(q)])

    def text(kind: str, i: int) -> str:
        return f"I visited museum number {i} in {kind} town"

    # the recall the mem0 door makes (its limit as k, mem0's cut: similarity >= 0.1, every agent of the user): the
    # door's own cost is what it adds to this; the default recall above selects what passes the live cut only
    mem0_policy = svc.recall_policy(k=20, threshold=-1.0).replace(similarity_floor=0.1, relative_cut=None)

    def same_recall(i: int) -> object:
        return svc.recall("bench", q[i % len(q)], any_agent=True, policy=mem0_policy)

    results = {
        "search (vs the recall the door makes)": {
            "python": pairs(same_recall, lambda i: mem.search(q[i % len(q)], user_id="bench"), runs),
            "rest": pairs(
                same_recall,
                lambda i: client.post(
                    "/v1/memories/search", json={"query": q[i % len(q)], "user_id": "bench"}
                ).raise_for_status(),
                runs,
            ),
        },
        "search": {
            "python": pairs(recall, lambda i: mem.search(q[i % len(q)], user_id="bench"), runs),
            "langgraph": pairs(recall, lambda i: store.search(("bench",), query=q[i % len(q)]), runs),
            "rest": pairs(
                recall,
                lambda i: client.post(
                    "/v1/memories/search", json={"query": q[i % len(q)], "user_id": "bench"}
                ).raise_for_status(),
                runs,
            ),
            "mcp": pairs(recall, lambda i: mcp("search_memories", {"query": q[i % len(q)]}), runs),
        },
        "add": {
            "python": pairs(
                lambda i: svc.remember("bench", text("a", i)), lambda i: mem.add(text("b", i), user_id="bench"), w
            ),
            "langgraph (verbatim put)": pairs(
                lambda i: svc.remember_verbatim("bench", text("c", i), session_id="langgraph"),
                lambda i: store.put(("bench",), f"k{i}", {"content": text("d", i)}),
                w,
            ),
            "rest": pairs(
                lambda i: svc.remember("bench", text("e", i)),
                lambda i: client.post(
                    "/v1/memories", json={"messages": text("f", i), "user_id": "bench"}
                ).raise_for_status(),
                w,
            ),
            "mcp": pairs(
                lambda i: svc.remember("bench", text("g", i)), lambda i: mcp("add_memory", {"text": text("h", i)}), w
            ),
        },
    }
    stop()
    close_mcp()
    svc.close()
    load = os.getloadavg()
    out = {
        "runs": {"search": runs, "add": w},
        "memories": args.memories,
        "filled": "through the mem0 door (conversations: episodes with source messages, and their facts)",
        "embedder": args.embedder,
        "load_average": [round(x, 2) for x in load],
        "cpus": os.cpu_count(),
        "results": results,
    }
    for op, doors in results.items():
        print(op)
        for door, r in doors.items():
            print(
                f"  {door:<25} service p50 {r['service_p50_ms']:8.2f} ms · door p50 {r['door_p50_ms']:8.2f} ms"
                f" · overhead p50 {r['overhead_p50_ms']:7.2f} / p95 {r['overhead_p95_ms']:7.2f} ms · ×{r['ratio_p50']}"
            )
    print(f"load average {load[0]:.2f} on {os.cpu_count()} cores")
    path = Path(args.out) if args.out else ROOT / "bench" / "results" / "doors.json"
    path.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
