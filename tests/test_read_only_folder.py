"""A data folder this process cannot write (issue #30): MemLens opens it read-only — every read works, every write is
one clear refusal (CLI: one line, exit 2; REST: 409 with the reason), nothing is lost or half-written — and a folder
it cannot create is a clear error. Never a traceback, never "index damaged".

The processes under test really cannot write: as an ordinary user the folder is chmod'ed read-only; as root (where
mode bits do not stop writes) the child also drops the capabilities that override them (CAP_DAC_OVERRIDE,
CAP_DAC_READ_SEARCH, CAP_FOWNER) from its bounding set before it starts, so the kernel refuses its writes as it
would an ordinary user's."""

from __future__ import annotations

import ctypes
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from actors import ADMIN

from memory import apikeys
from memory.config import Settings
from memory.service import MemoryService

ROOT = Path(__file__).resolve().parents[1]
PR_CAPBSET_DROP = 24
CAPS = (1, 2, 3)  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER


def _drop_override_caps() -> None:  # runs in the child between fork and exec
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in CAPS:
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def _can_restrict() -> str | None:
    if not sys.platform.startswith("linux"):
        return "the capability drop is Linux's" if os.geteuid() == 0 else None
    return None


def run_restricted(args: list[str], data: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """``python ARGS`` with the data folder at ``data``, unable to write it."""
    full = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "MEMLENS_DATA_DIR": str(data),
        "MEMLENS_EMBEDDER": "hash",
        **env,
    }
    full.pop("MEMLENS_DEBUG", None)
    pre = _drop_override_caps if os.geteuid() == 0 else None
    return subprocess.run(
        [sys.executable, *args], env=full, cwd=str(ROOT), capture_output=True, text=True, timeout=300, preexec_fn=pre
    )


def _read_only(path: Path) -> None:
    for p in [path, *path.rglob("*")]:
        mode = stat.S_IMODE(p.stat().st_mode)
        p.chmod(mode & ~0o222)


def _writable(path: Path) -> None:
    for p in [path, *path.rglob("*")]:
        p.chmod(stat.S_IMODE(p.stat().st_mode) | 0o200)


@pytest.fixture
def frozen(tmp_path, hash_embedder):
    """A data folder with one user's memories (and an API key), then made read-only."""
    reason = _can_restrict()
    if reason:
        pytest.skip(reason)
    data = tmp_path / "data"
    svc = MemoryService(Settings(data_dir=data), embedder=hash_embedder)
    svc.remember("lin", "I live in Hangzhou")
    svc.remember("lin", "我不吃辣")
    key = apikeys.create(svc.storage, "reader", actor=ADMIN)[0]
    svc.close()
    before = {p: p.read_bytes() for p in data.rglob("*") if p.is_file()}
    _read_only(data)
    yield data, key, before
    _writable(data)


def test_the_child_really_cannot_write(frozen):
    data, _, _ = frozen
    probe = run_restricted(["-c", f"open({str(data / 'x')!r}, 'w')"], data)
    assert probe.returncode != 0 and "Permission denied" in probe.stderr  # else the test below proves nothing


CLI_SCRIPT = """
import contextlib, io, json, sys
from agent.cli import main
done = []
for args in json.loads(sys.argv[1]):
    out, err, code = io.StringIO(), io.StringIO(), 0
    sys.argv = ["memlens", *args]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
    done.append([code, out.getvalue(), err.getvalue()])
print(json.dumps(done))
"""


def test_cli_reads_work_and_writes_are_one_clear_refusal(frozen):
    """The first write is its own `memlens` process (its exit code and stderr as a shell sees them); the reads and
    the other writes run the same entry point one after another in one restricted child (each a fresh service),
    which spares four process starts."""
    data, _, before = frozen
    res = run_restricted(["-m", "agent.cli", "remember", "--user", "lin", "I moved to Ningbo"], data)
    writes = [(res.returncode, res.stdout, res.stderr)]
    reads = [["memories", "--user", "lin"], ["recall", "--user", "lin", "where does Lin live?"], ["users", "--json"]]
    more = [["chat", "--user", "lin", "--session", "s", "I moved to Ningbo"], ["delete-user", "--user", "lin", "--yes"]]
    child = run_restricted(["-c", CLI_SCRIPT, json.dumps(reads + more)], data)
    assert child.returncode == 0, child.stderr[-2000:]
    ran = json.loads(child.stdout.strip().splitlines()[-1])
    (listed, found, users), rest = ran[:3], ran[3:]
    assert listed[0] == 0 and "Hangzhou" in listed[1], listed[2]
    assert found[0] == 0 and "Hangzhou" in found[1], found[2]
    assert users[0] == 0 and "lin" in users[1], users[2]
    for write, (code, stdout, stderr) in zip(["remember", *(m[0] for m in more)], writes + rest, strict=True):
        assert code == 2, (write, stdout, stderr)
        assert "read-only" in stderr and str(data) in stderr, stderr
        assert "Traceback" not in stderr + stdout and "damaged" not in stderr
    after = {p: p.read_bytes() for p in data.rglob("*") if p.is_file()}
    assert after == before  # nothing written, nothing lost


REST_SCRIPT = """
import json, sys
from starlette.testclient import TestClient
from agent.serve.api import create_app
key = sys.argv[1]
with TestClient(create_app()) as c:
    h = {"Authorization": "Bearer " + key}
    out = {
        "list": c.get("/v1/memories", params={"user_id": "lin"}, headers=h),
        "search": c.post("/v1/memories/search", json={"query": "where does Lin live?", "user_id": "lin"}, headers=h),
        "add": c.post("/v1/memories", json={"messages": "I moved to Ningbo", "user_id": "lin"}, headers=h),
        "delete": c.delete("/v1/users/lin", headers=h),
    }
print(json.dumps({k: [r.status_code, r.text] for k, r in out.items()}))
"""


def test_rest_reads_work_and_writes_are_a_409_saying_why(frozen):
    data, key, before = frozen
    res = run_restricted(["-c", REST_SCRIPT, key], data)
    assert res.returncode == 0, res.stderr[-2000:]
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["list"][0] == 200 and "Hangzhou" in out["list"][1]
    assert out["search"][0] == 200 and "Hangzhou" in out["search"][1]
    for write in ("add", "delete"):
        status, body = out[write]
        assert status == 409 and "read-only" in json.loads(body)["error"], (write, body)
    assert {p: p.read_bytes() for p in data.rglob("*") if p.is_file()} == before


def test_a_data_folder_that_cannot_be_created_is_a_clear_error(frozen):
    data, _, _ = frozen
    res = run_restricted(["-m", "agent.cli", "users"], data / "fresh")
    assert res.returncode == 2 and "cannot create the data folder" in res.stderr and "Traceback" not in res.stderr
    empty = data.parent / "empty"
    empty.mkdir()
    _read_only(empty)
    try:
        res = run_restricted(["-m", "agent.cli", "users"], empty)
        assert res.returncode == 2 and "holds no database yet" in res.stderr, res.stderr
    finally:
        _writable(empty)
