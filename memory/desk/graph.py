"""People and relations: what a user's memories say about whom, as a graph a person can read.

Nodes are the user, the people they mention (a fact's subject other than the user, or a relative the text names:
"User's sister Anna"), pets, places and organisations (the objects of ``pet``, ``lives_in`` / ``hometown`` /
``works_in`` / ``plan``, ``works_at``) and, for the rest, the things facts are about (likes, diet, …). Each fact with a
subject and a predicate is one edge subject → object, carrying its memory (id, text, status, flag, agent and source
message ids), so a click on an edge leads to the memory and the message it was learnt from. Superseded and flagged
facts stay in the graph, marked as such; every edge says which agent holds it, so a multi-agent setup shows what
each agent believes.

:func:`layout` places the nodes without any physics (deterministic, instant at 1,000 facts): the user in the centre,
each kind in its own sector, the most connected nodes nearest the centre.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from sqlmodel import col, select

from memory.storage.models import Memory
from memory.vocab import MemoryStatus, MemoryType, is_flagged

if TYPE_CHECKING:
    from memory.storage.db import Database

USER = "user"
KIND_OF_PREDICATE = {
    "lives_in": "place",
    "hometown": "place",
    "works_in": "place",
    "plan": "place",
    "works_at": "organisation",
    "pet": "pet",
    "family": "person",
    "name": "name",
    "preferred_name": "name",
}
KINDS = ("person", "pet", "place", "organisation", "thing")
#: "User's sister Anna …", "用户的妹妹安娜…": the relation the text gives a person
_RELATION = re.compile(r"\buser(?:'s|’s)\s+([a-z][a-z -]{1,30}?)\s+([A-Z][\w-]+)", re.IGNORECASE)
_RELATION_ZH = re.compile(r"用户的(\w{1,4}?)([\u4e00-\u9fff]{1,4})")
DEFAULT_LIMIT = 1000


@dataclass
class Node:
    id: str
    label: str
    kind: str
    degree: int = 0
    #: how the user is related to this person, when a memory says so ("sister")
    relation: str | None = None


@dataclass
class Edge:
    source: str
    target: str
    predicate: str
    memory_id: str
    content: str
    status: str
    flagged: bool
    agent_id: str
    source_message_ids: list[Any] = field(default_factory=list)


def _norm(text: str) -> str:
    return " ".join(text.casefold().split())


def _subject(m: Memory) -> str:
    s = (m.subject or USER).strip()
    return USER if _norm(s) in ("user", "the user", "用户", "i", "me", "我") else s


def build(
    store: Database,
    user_key: str,
    *,
    agent_id: str | None = None,
    statuses: Sequence[str] = (MemoryStatus.ACTIVE, MemoryStatus.SUPERSEDED),
    limit: int = DEFAULT_LIMIT,
) -> dict[str, Any]:
    """The graph of one user's facts (newest ``limit`` ones; one agent's when ``agent_id`` is given)."""
    query = select(Memory).where(
        Memory.user_key == user_key,
        col(Memory.status).in_(list(statuses)),
        col(Memory.predicate).is_not(None),
        Memory.type != MemoryType.EPISODE,
    )
    if agent_id is not None:
        query = query.where(Memory.agent_id == agent_id)
    with store.db() as db:
        rows = list(db.exec(query.order_by(col(Memory.created_at).desc()).limit(limit)).all())
    nodes: dict[str, Node] = {USER: Node(USER, "the user", "user")}
    edges: list[Edge] = []

    def node(label: str, kind: str) -> str:
        key = f"{kind}:{_norm(label)}"
        if key not in nodes:
            nodes[key] = Node(key, label, kind)
        return key

    for m in rows:
        subj = _subject(m)
        src = USER if subj == USER else node(subj, "person")
        relation = _RELATION.search(m.content) or _RELATION_ZH.search(m.content)
        if src != USER and relation and _norm(relation.group(2)) == _norm(subj):
            nodes[src].relation = relation.group(1).strip()
        kind = KIND_OF_PREDICATE.get(m.predicate or "", "thing")
        obj = (m.object or "").strip()
        if not obj or kind == "name":
            continue
        target = node(obj[:60], kind)
        flagged = is_flagged(m.meta)
        edges.append(
            Edge(src, target, m.predicate or "", m.id, m.content, m.status, flagged, m.agent_id, m.source_message_ids)
        )
    for n in nodes.values():  # a person the user mentions hangs off the user, named by the relation
        if n.kind == "person":
            edges.append(Edge(USER, n.id, n.relation or "mentions", "", "", MemoryStatus.ACTIVE, False, "", []))
    degree = Counter([e.source for e in edges] + [e.target for e in edges])
    for n in nodes.values():
        n.degree = degree[n.id]
    return {
        "nodes": [asdict(n) for n in nodes.values()],
        "edges": [asdict(e) for e in edges],
        "facts": len(rows),
        "agents": sorted({e.agent_id for e in edges if e.agent_id}),
    }


def layout(nodes: Sequence[dict[str, Any]]) -> dict[str, tuple[float, float]]:
    """Deterministic positions: the user at the centre; one sector per kind; within it, rings outward by falling
    degree, so the busiest nodes sit nearest the user and a thousand facts still spread out."""
    pos: dict[str, tuple[float, float]] = {USER: (0.0, 0.0)}
    by_kind: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for n in nodes:
        if n["id"] != USER:
            by_kind[n["kind"]].append(n)
    present = [k for k in KINDS if by_kind.get(k)]
    for s, kind in enumerate(present):
        members = sorted(by_kind[kind], key=lambda n: (-n["degree"], n["label"]))
        start, width = 2 * math.pi * s / len(present), 2 * math.pi / len(present)
        per_ring, placed, ring = 6, 0, 1
        while placed < len(members):
            chunk = members[placed : placed + per_ring]
            for i, n in enumerate(chunk):
                angle = start + width * (i + 0.5) / len(chunk)
                pos[n["id"]] = (ring * math.cos(angle), ring * math.sin(angle))
            placed += len(chunk)
            ring += 1
            per_ring += 6
    return pos
