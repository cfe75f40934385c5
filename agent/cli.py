"""The `memlens` console script: the engine's commands plus the agent's (chat, end-session, seed-demo)."""

from __future__ import annotations

from memory.cli import app, run


def main() -> None:
    run(app)
