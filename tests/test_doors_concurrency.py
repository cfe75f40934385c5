"""Writes for one user are serialised across doors and processes: concurrent contradictions resolve as in sequence."""

from __future__ import annotations

import os
import threading

import pytest
from conftest import worker_context

from memory import Memory
from memory.langgraph import MemLensStore

CITIES = ["Beijing", "Shanghai", "Hangzhou", "Chengdu", "Suzhou", "Xi'an"]


def homes(svc, user_id: str) -> list[str]:
    return [m.content for m in svc.list_memories(svc.get_user(user_id)) if "lives in" in m.content.lower()]


def test_six_concurrent_contradicting_adds_through_three_doors_leave_one_home(backend_plumbing_svc):
    svc = backend_plumbing_svc
    doors = [
        lambda text: Memory(svc, via="python").add(text, user_id="mia"),
        lambda text: Memory(svc, via="api:crm", name="crm").add(text, user_id="mia"),
        lambda text: MemLensStore(Memory(svc, via="langgraph"), infer=True).put(("mia",), "k", {"content": text}),
    ]
    start = threading.Barrier(len(CITIES))
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            start.wait()
            doors[i % len(doors)](f"I live in {CITIES[i]}")
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(CITIES))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors
    [home] = homes(svc, "mia")
    assert any(c in home for c in CITIES)
    assert svc.get_profile("mia")["city"] in home


def _writer(data_dir: str, ready: str, n: str, cities: list[str]) -> None:
    """A writer process (forked from the tests' forkserver, which has the engine imported): its own ``Memory()``
    from the environment, as a separate program would build it."""
    import time

    os.environ.update(MEMLENS_DATA_DIR=data_dir, MEMLENS_EMBEDDER="hash")
    m = Memory()
    m.service.ensure_user("warm-up")
    open(ready + n, "w").close()
    while not all(os.path.exists(ready + k) for k in "01"):  # both processes ready: go together
        time.sleep(0.01)
    for city in cities:
        m.add(f"I live in {city}", user_id="noa")


@pytest.mark.slow  # two writer processes
def test_contradicting_adds_from_two_processes_leave_one_home(plumbing_svc):
    ctx = worker_context()
    data_dir = str(plumbing_svc.settings.data_dir)
    ready = str(plumbing_svc.settings.data_dir / "ready-")
    procs = [ctx.Process(target=_writer, args=(data_dir, ready, str(i), (CITIES * 4)[i::2])) for i in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0]
    assert len(homes(plumbing_svc, "noa")) == 1
