"""Import LanceDB without building the REST catalog client that MemLens never calls.

``import lancedb`` imports ``lance_namespace``, whose generated REST client (``lance_namespace_urllib3_client``)
wraps ~370 API methods in pydantic's ``validate_call`` at import time: about 3.5 s of CPU on a 2-core machine, more
than half of what importing LanceDB costs. Every process that opens the index pays it (the chat CLI, the back
office, the REST and MCP doors). MemLens connects to a folder or an object store, never to a REST namespace, so
before LanceDB is imported the client's ``api`` modules are registered as placeholders. Each name taken from one
is a stand-in class; instantiating it imports the real module and returns the real object, so a caller that does
use the REST client still gets it, only later.

Anything unexpected (the client already imported, its layout changed, LanceDB failing to import beside the
placeholders) falls back to a plain import.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
import types
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from types import ModuleType

CLIENT = "lance_namespace_urllib3_client"
_lock = threading.RLock()  # re-entrant: a stand-in used while LanceDB imports must not deadlock


def import_lancedb() -> ModuleType:
    """``lancedb``, imported (once per process) with the REST client's API modules deferred."""
    with _lock:
        if "lancedb" in sys.modules:
            return sys.modules["lancedb"]
        placed = _place_placeholders()
        try:
            return importlib.import_module("lancedb")
        except ImportError:
            if not placed:
                raise
            _drop_placeholders(placed)
            for name in [m for m in sys.modules if m == "lancedb" or m.startswith(("lancedb.", CLIENT))]:
                del sys.modules[name]
            return importlib.import_module("lancedb")


def deferred_modules() -> list[str]:
    """The client's API modules still standing in as placeholders (none have been used)."""
    return sorted(name for name, mod in sys.modules.items() if getattr(mod, "__memlens_placeholder__", False))


def _api_module_names() -> list[str]:
    if CLIENT in sys.modules:
        return []
    spec = importlib.util.find_spec(CLIENT)  # a top-level package: found, not executed
    if spec is None or not spec.submodule_search_locations:
        return []
    api = Path(next(iter(spec.submodule_search_locations))) / "api"
    return sorted(f"{CLIENT}.api.{f.stem}" for f in api.glob("*_api.py"))


def _place_placeholders() -> list[str]:
    names = [n for n in _api_module_names() if n not in sys.modules]
    for name in names:
        sys.modules[name] = _placeholder_module(name)
    return names


def _drop_placeholders(names: list[str]) -> None:
    for name in names:
        if getattr(sys.modules.get(name), "__memlens_placeholder__", False):
            del sys.modules[name]


def _placeholder_module(name: str) -> types.ModuleType:
    mod = types.ModuleType(name, "Placeholder: the real module is imported when one of its classes is used.")
    mod.__memlens_placeholder__ = True  # type: ignore[attr-defined]

    def __getattr__(attr: str) -> type:  # PEP 562: `from <module> import TableApi` lands here
        if attr.startswith("__"):
            raise AttributeError(attr)
        stand_in = _stand_in(name, attr)
        setattr(mod, attr, stand_in)
        return stand_in

    mod.__getattr__ = __getattr__  # type: ignore[method-assign]
    return mod


def _stand_in(module: str, attr: str) -> type:
    def __new__(cls: type, *args: Any, **kwargs: Any) -> Any:
        return getattr(_real(module), attr)(*args, **kwargs)

    return type(attr, (), {"__new__": __new__, "__module__": module, "__doc__": f"Stand-in for {module}.{attr}."})


def _real(module: str) -> ModuleType:
    """Swap the placeholder for the real module (imported now) and re-point the package's names at it."""
    with _lock:
        current = sys.modules.get(module)
        if current is not None and not getattr(current, "__memlens_placeholder__", False):
            return current
        sys.modules.pop(module, None)
        real = importlib.import_module(module)
        for pkg_name in (CLIENT, f"{CLIENT}.api"):
            pkg = sys.modules.get(pkg_name)
            if pkg is None:
                continue
            for attr, value in vars(real).items():
                if isinstance(value, type) and getattr(getattr(pkg, attr, None), "__module__", None) == module:
                    setattr(pkg, attr, value)
        return real
