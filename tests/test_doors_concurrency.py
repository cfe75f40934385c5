"""Writes for one user are serialised across doors and processes: concurrent contradictions resolve as in sequence."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from memory import Memory
from memory.langgraph import MemLensStore

CITIES = ["Beijing", "Shanghai", "Hangzhou", "Chengdu", "Suzhou", "Xi'an"]
ROOT = Path(__file__).resolve().parent.parent


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


WRITER = """
import sys, time
from memory import Memory
m = Memory()
m.service.ensure_user("warm-up")
ready = sys.argv[1]
open(ready + sys.argv[2], "w").close()
while not all(__import__("os").path.exists(ready + n) for n in "01"):  # both processes imported: go together
    time.sleep(0.01)
for city in sys.argv[3:]:
    m.add(f"I live in {city}", user_id="noa")
"""


@pytest.mark.slow  # two writer processes (each imports the engine: a few seconds on a busy machine)
def test_contradicting_adds_from_two_processes_leave_one_home(plumbing_svc):
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "MEMLENS_DATA_DIR": str(plumbing_svc.settings.data_dir),
        "MEMLENS_EMBEDDER": "hash",
    }
    ready = str(plumbing_svc.settings.data_dir / "ready-")
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, ready, str(i), *(CITIES * 4)[i::2]], env=env, cwd=str(ROOT))
        for i in range(2)
    ]
    assert [p.wait(120) for p in procs] == [0, 0]
    assert len(homes(plumbing_svc, "noa")) == 1
