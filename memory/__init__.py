"""MemLens's memory engine. ``from memory import Memory`` (or ``AsyncMemory``) is the mem0-shaped Python API.

The names are exported lazily (PEP 562), so ``import memory`` and ``import memory.cli`` stay cheap: nothing heavy
(LanceDB, the embedder, LangGraph) loads until a ``Memory`` is asked for.
"""

from __future__ import annotations

from typing import Any

__all__ = ["AsyncMemory", "Memory"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from memory import client

        return getattr(client, name)
    raise AttributeError(f"module 'memory' has no attribute {name!r}")
