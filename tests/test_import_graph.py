"""The layers, checked from the source: arrows point down (pages → agent → memory), ``memory/`` has no cycles
between modules nor between subpackages, the storage floor imports nothing above it, and agent/ reaches past the
facade only where the list below says why.

The graph itself (``ast`` over every import statement: function-local ones and ``TYPE_CHECKING`` ones included) is
computed in bench/import_graph.py, which bench/structure.py reports from as well.
"""

from __future__ import annotations

import ast

import pytest

from bench.import_graph import (
    cycles,
    edges_between,
    forbidden_imports,
    graph,
    imports_of,
    modules,
    package_graph,
    unit_of,
)

FORBIDDEN_IN_MEMORY = ("agent", "pages", "streamlit", "app")


def test_memory_has_no_import_cycles_between_modules():
    assert cycles(graph("memory")) == []


def test_memory_subpackages_form_a_dag():
    """Folded onto subpackages (``memory.write``, ``memory.storage``, …) and top-level modules (``memory.profile``),
    the graph still has no circle: each layer can be read, tested and replaced with only what is below it."""
    g = graph("memory")
    found = cycles(package_graph(g))
    assert found == [], {c: [edges_between(g, a, b) for a in c for b in c if a != b] for c in map(tuple, found)}


#: what the storage floor may import: the leaves every layer shares (no domain concept, no recall policy)
STORAGE_FLOOR_IMPORTS = {"memory.config", "memory.errors", "memory.text", "memory.validate", "memory.vocab"}


def test_the_storage_floor_imports_nothing_above_it():
    """``memory.storage`` (SQL, the index, the embedder, the settings) knows nothing of recall, the retrieval log,
    lifecycle or the service: recall policy is ``memory.retrieval.setup``'s, the log keeps its own writer."""
    g = graph("memory")
    above = package_graph(g)["memory.storage"] - STORAGE_FLOOR_IMPORTS
    assert above == set(), [edges_between(g, "memory.storage", b) for b in above]


def test_the_checker_folds_modules_onto_their_subpackage():
    assert unit_of("memory.write.extract.base") == "memory.write"
    assert unit_of("memory.profile") == "memory.profile" and unit_of("memory") == "memory"
    g = {"memory.write.apply": {"memory.profile"}, "memory.profile": {"memory.write.extract.base"}}
    g["memory.write.extract.base"] = set()
    assert cycles(g) == []  # no circle between modules...
    assert cycles(package_graph(g)) == [["memory.profile", "memory.write"]]  # ...but one between layers


@pytest.mark.parametrize("package", ["memory", "agent"])
def test_arrows_point_down(package):
    """memory/ imports neither agent/, pages/, app nor streamlit; agent/ imports neither pages/, app nor streamlit."""
    banned = FORBIDDEN_IN_MEMORY if package == "memory" else ("pages", "streamlit", "app")
    assert forbidden_imports(package, banned) == []


def test_the_checker_sees_a_cycle_and_a_hidden_one(tmp_path):
    """The test itself can fail: a two-module cycle closed by a function-local import is found."""
    g = {"a": {"b"}, "b": set(), "c": set()}
    assert cycles(g) == []
    g["b"].add("a")
    assert cycles(g) == [["a", "b"]]
    src = "def f():\n    from memory.write import batch\n"
    path = tmp_path / "apply.py"
    path.write_text(src, encoding="utf-8")
    assert imports_of("memory.write.apply", path, {"memory.write.batch"}) == {"memory.write.batch"}
    typed = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from memory.write import batch\n"
    path.write_text(typed, encoding="utf-8")
    assert imports_of("memory.write.apply", path, {"memory.write.batch"}) == {"memory.write.batch", "typing"}
    assert "memory.write.batch" not in imports_of("memory.write.apply", path, {"memory.write.batch"}, runtime_only=True)


#: the facade's own clients inside memory/: the doors (Python API, LangGraph store), the CLI, the evaluation harness
FACADE_CLIENTS = ("memory.client", "memory.langgraph", "memory.cli", "memory.evaluation")


def _imports_the_facade(tree: ast.AST) -> bool:
    for node in ast.walk(tree):  # TYPE_CHECKING imports included: a domain function may not even be typed with it
        if isinstance(node, ast.Import) and any(a.name == "memory.service" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (
            node.module == "memory.service"
            or (node.module == "memory" and any(a.name == "service" for a in node.names))
        ):
            return True
    return False


def test_domain_modules_never_see_the_service():
    """Composition, one way: the service holds the storage and calls the domain modules; no domain module imports
    ``memory.service`` (not even for a type), so none can receive the whole service or call back into it."""
    seen = {
        name
        for name, path in modules("memory").items()
        if name != "memory.service" and _imports_the_facade(ast.parse(path.read_text(encoding="utf-8")))
    }
    assert {n for n in seen if not n.startswith(FACADE_CLIENTS)} == set()
    assert "memory.client" in seen  # the check sees an import where there is one


def test_the_service_holds_its_parts_rather_than_inheriting_them():
    from memory.service import MemoryService
    from memory.storage.store import Storage

    assert MemoryService.__bases__ == (object,) and Storage.__bases__ == (object,)
    svc = MemoryService()  # connects to nothing until used
    assert isinstance(svc.storage, Storage) and svc.people.storage is svc.storage


#: memory/ modules agent/ may import directly: the facade (``memory.service``, the doors ``memory.client`` and the CLI
#: ``memory.cli`` it extends) and the leaves every layer shares (settings, errors, vocabulary, wording, text helpers,
#: table rows)
AGENT_FACADE = (
    "memory.service",
    "memory.client",
    "memory.cli",
    "memory.config",
    "memory.errors",
    "memory.vocab",
    "memory.prompts",
    "memory.text",
    "memory.storage.models",
)

#: agent/ → memory/ imports past the facade, each with why (a new one fails until it is routed through the facade or
#: listed here with its reason; an entry no longer used fails too, so the list stays true)
AGENT_BEYOND_FACADE = {
    # the turn graph composes the prompt itself (a pure function of what the service returned) and reads bridges
    # and summaries through the one retraction filter
    ("agent.graph", "memory.sessions.prompt"): "the prompt composer (pure) and its item types",
    ("agent.graph", "memory.sessions.summary"): "goal and retrieval query from the summaries (pure helpers)",
    ("agent.graph", "memory.sessions.extractive"): "the Summariser protocol (a type)",
    ("agent.graph", "memory.write.consistency"): "consistent_text: the one retraction filter for bridge text",
    ("agent.graph", "memory.retrieval.filters"): "RecallFilters, the value passed to svc.recall",
    ("agent.tour", "memory.retrieval.filters"): "RecallFilters: the tour asks in its session, as the agent does",
    ("agent.runtime", "memory.write.consistency"): "consistent_text for the bridge shown with a turn's result",
    ("agent.runtime", "memory.retrieval.recall"): "RecallResult (the type svc.recall returns)",
    ("agent.runtime", "memory.write.pipeline"): "WriteReport (the type a turn's write returns)",
    ("agent.tour", "memory.retrieval.recall"): "RecallResult (the type the tour's steps read)",
    ("agent.state", "memory.retrieval.recall"): "RecallResult (a type in the graph state)",
    ("agent.state", "memory.sessions.extractive"): "the Summariser protocol (a type)",
    ("agent.state", "memory.sessions.prompt"): "Composition, MemoryItem (types in the graph state)",
    ("agent.state", "memory.write.pipeline"): "WriteReport (a type in the graph state)",
    ("agent.llm", "memory.sessions.summary"): "ExtractiveSummariser, the fallback the LLM summariser wraps",
    (
        "agent.offline",
        "memory.retrieval.crosslingual",
    ): "the cross-lingual lexicon: a reply keeps to the question's topic",
    ("agent.offline", "memory.write.extract.base"): "the fact vocabulary (PREDICATES, is_question) for offline replies",
    ("agent.offline", "memory.retrieval.updates"): "asks_past: a reply to a question about the past puts history first",
    ("agent.demo", "memory.evaluation"): "the demo runs the evaluation's bundled inputs",
    ("agent.demo", "memory.views"): "the demo prints read models",
    ("agent.serve.api", "memory.apikeys"): "KeyInfo (the type the key check returns)",
    ("agent.serve.api", "memory.provenance"): "provenance vocabulary for the REST responses",
    ("agent.serve.desk_api", "memory.apikeys"): "KeyInfo (the type the key check returns)",
    ("agent.serve.desk_api", "memory.desk.labels_gate"): "the labels gate the desk route reports",
    ("agent.serve.desk_api", "memory.desk.replay"): "parse_overrides for the replay route",
}


def _agent_imports_of_memory() -> set[tuple[str, str]]:
    known = set(modules("memory"))
    return {
        (m, t)
        for m, p in modules("agent").items()
        for t in imports_of(m, p, known)
        if t.split(".")[0] == "memory" and t != "memory"
    }


def test_agent_goes_through_the_facade_or_says_why():
    beyond = {(m, t) for m, t in _agent_imports_of_memory() if not t.startswith(AGENT_FACADE)}
    assert beyond - set(AGENT_BEYOND_FACADE) == set(), "route it through memory.service, or list it with its reason"
    assert set(AGENT_BEYOND_FACADE) - beyond == set(), "no longer imported: take it off the list"
