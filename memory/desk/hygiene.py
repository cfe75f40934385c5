"""The memory-hygiene review queue: what in a user's store (or everyone's) looks like junk, each finding with its
evidence and the actions that fix it.

Kinds (:data:`KINDS`), each a pure check over the active memories and what they came from:

- ``near_duplicate`` — memories of one user and type that state one fact (:func:`one_fact`, the write path's rule
  and threshold, :mod:`memory.write.same`): the same statement twice, or at least ``dedupe_threshold`` similar and
  sharing most of their words (e5 puts "went hiking" and
  "visited the beach" above 0.95) — never two that differ in a number, a date or a name, two values of a
  single-valued fact (a contradiction), nor two likes of different things; its merge keeps one memory with every
  member's source messages and repeats;
- ``contradiction`` — two values of a single-valued fact (lives in Porto / lives in Lisbon), or likes and dislikes
  of one thing, both still active;
- ``restates_prompt`` — text that is the system prompt's or the agent's own words kept as the user's: learnt from a
  message that is not the user's, or matching a sentence of the system prompt or an assistant reply;
- ``unsupported`` — a fact its source message does not say (the object, or most of the memory's words, are not in
  the message it was learnt from), or whose source message is gone;
- ``instruction`` — text that reads like an instruction to the model ("ignore previous instructions", "你必须…");
- ``pii`` — personal data the masking rules (:func:`memory.text.privacy.find_pii`) still find in the stored text;
  the evidence shows only the masked form;
- ``orphan_profile`` — a profile value whose memory is gone (no active memory states it any more);
- ``never_recalled`` — older than N days and not recalled in the last N days.

A finding has a stable ``key`` (kind + ids): keeping it as is records a ``keep`` row in the audit trail with that
key, and the queue leaves kept findings out. Every action goes through the curation operations
(:mod:`memory.lifecycle.curation`: role checked, event logged, audited) — merge supersedes the other members by the
one kept, flag and delete are the person's flag and delete.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from sqlmodel import col, select

from memory import audit
from memory.access import check, guarded
from memory.errors import InvalidInput, NotFound
from memory.lifecycle import curation
from memory.lifecycle.retention import MemInfo, load
from memory.prompts import SYSTEM
from memory.storage import records
from memory.storage.models import Memory, Message, ProfileField, User, utcnow
from memory.storage.people import AuditEvent
from memory.text.privacy import find_pii
from memory.text.sentences import sentences
from memory.vocab import Actor, AuditAction, MemoryStatus, MemoryType, Role, SourceType, is_flagged
from memory.write import profile_sync, status
from memory.write.extract.base import OPPOSITES, SINGLE_VALUED
from memory.write.same import Said, share_in, words
from memory.write.same import one_fact as _one_fact

if TYPE_CHECKING:
    from memory.storage.db import Database
    from memory.storage.store import Storage

KINDS = (
    "near_duplicate",
    "contradiction",
    "restates_prompt",
    "unsupported",
    "instruction",
    "pii",
    "orphan_profile",
    "never_recalled",
)
KIND_TITLES = {
    "near_duplicate": "Near-duplicates",
    "contradiction": "Contradictions, both active",
    "restates_prompt": "System prompt or agent's words kept as the user's",
    "unsupported": "Not supported by its source message",
    "instruction": "Reads like an instruction to the model",
    "pii": "Personal data past masking",
    "orphan_profile": "Profile value whose memory is gone",
    "never_recalled": "Never recalled",
}
#: the actions a finding of each kind offers (``keep`` = as is; recorded, the finding leaves the queue)
ACTIONS = {
    "near_duplicate": ("merge", "delete", "keep"),
    "contradiction": ("merge", "flag", "delete", "keep"),
    "orphan_profile": ("clear", "keep"),
}
DEFAULT_ACTIONS = ("flag", "delete", "keep")
NEVER_RECALLED_DAYS = 90.0
#: memory types that are evidence, not knowledge: only the PII and instruction checks apply to them
EVIDENCE_TYPES = frozenset({MemoryType.EPISODE.value, MemoryType.SUMMARY.value})
#: share of a memory's words its source message must hold
SUPPORT_SHARE = 0.34
_BRACKETS = re.compile(r"[(（][^)）]*[)）]")
#: share of a memory's words that one sentence of the system prompt or an agent reply holding them must cover
RESTATE_SHARE = 0.8

_HARD = [
    r"\b(ignore|disregard|forget|override)\b.{0,20}\b(previous|prior|above|earlier|all|your|the)\b.{0,20}"
    r"\b(instructions?|rules|prompts?|guidelines|directions)\b",
    r"\b(system prompt|system message|developer mode|jailbreak|DAN mode)\b",
    r"\b(reveal|print|show|output|repeat|leak)\b.{0,20}\b(system prompt|your (instructions|prompt|rules))\b",
    r"^\s*(system|assistant|developer)\s*:",
    r"\bnew instructions?\b",
    r"忽略.{0,6}(之前|以上|先前|所有|前面).{0,6}(指令|指示|规则|提示)",
    r"(系统提示|系统指令|开发者模式|越狱)",
    r"(泄露|输出|显示|告诉我).{0,6}(系统提示|你的指令)",
]
_SOFT = [
    r"\byou (must|shall|will|should) (now |always |never |only )",
    r"\b(from now on|henceforth)\b",
    r"\b(pretend|act) (to be|as if|as)\b",
    r"\b(always|never) (respond|reply|answer|say|tell|mention|refuse|obey)\b",
    r"\bdo not (tell|mention|reveal) (the user|anyone)\b",
    r"你(必须|应该|要)(总是|永远|始终|一直|只)",
    r"从(现在|今以后|此以后)(开始|起)",
    r"(扮演|假装你是)",
]
HARD = [re.compile(p, re.IGNORECASE) for p in _HARD]
SOFT = [re.compile(p, re.IGNORECASE) for p in _SOFT]
#: predicates that legitimately tell the agent how to answer: only the hard patterns apply to them
STYLE_PREDICATES = frozenset({"communication_style", "language", "prefers"})


@dataclass
class Finding:
    kind: str
    key: str
    user_id: str
    memory_ids: list[str]
    contents: list[str]
    evidence: str
    actions: tuple[str, ...]
    detail: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["actions"] = list(self.actions)
        out["title"] = KIND_TITLES[self.kind]
        return out


@dataclass
class Review:
    """The queue for one user (or everyone): findings, and per user the share of active memories accused."""

    findings: list[Finding]
    active: dict[str, int]  # user id → active memories
    accused: dict[str, int]  # user id → active memories with at least one finding
    kept: int = 0  # findings left out because a person kept them as they are

    def junk_rate(self, user_id: str) -> float | None:
        n = self.active.get(user_id, 0)
        return round(self.accused.get(user_id, 0) / n, 4) if n else None

    def counts(self) -> dict[str, int]:
        return {k: sum(f.kind == k for f in self.findings) for k in KINDS}

    def to_dict(self) -> dict[str, Any]:
        return {
            "findings": [f.to_dict() for f in self.findings],
            "counts": self.counts(),
            "users": [
                {"user_id": u, "active": n, "accused": self.accused.get(u, 0), "junk_rate": self.junk_rate(u)}
                for u, n in sorted(self.active.items())
            ],
            "kept": self.kept,
        }


def finding_key(kind: str, ids: Sequence[str]) -> str:
    """Stable across runs: the kind and the sorted ids it is about."""
    return kind + ":" + hashlib.sha256("|".join(sorted(ids)).encode()).hexdigest()[:20]


# -- text helpers --------------------------------------------------------------------------------------------------
def _sentences(text: str) -> list[str]:
    return [s for s in sentences(text, semicolons=False) if len(s.split()) >= 3 or len(s) >= 8]


# -- the checks (pure) -------------------------------------------------------------------------------------------
def instruction_evidence(m: MemInfo) -> str | None:
    for rx in HARD:
        if hit := rx.search(m.content):
            return f"reads like an instruction to the model: “{hit.group(0)[:60]}”"
    if m.predicate in STYLE_PREDICATES or m.source_type == SourceType.PERSON_EDIT:
        return None
    for rx in SOFT:
        if hit := rx.search(m.content):
            return f"reads like an instruction to the model: “{hit.group(0)[:60]}”"
    return None


def pii_evidence(m: MemInfo) -> str | None:
    found = find_pii(m.content)
    if not found:
        return None
    return "the masking rules still find: " + ", ".join(f"{p.kind} {p.masked}" for p in found[:5])


def unsupported_evidence(m: MemInfo, sources: dict[int, Message]) -> str | None:
    """The source message(s) do not say it (user-stated facts learnt from messages only)."""
    if m.type in EVIDENCE_TYPES or m.source_type != SourceType.USER_STATED or not m.source_message_ids:
        return None
    msgs = [sources.get(int(i)) for i in m.source_message_ids if str(i).isdigit()]
    present = [x for x in msgs if x is not None]
    if not present:
        return "its source message is gone"
    text = " ".join(x.content for x in present)
    said = words(text)
    got = share_in(words(m.content), said)
    obj = _norm(m.object)
    if obj:  # the value is what a fact asserts: said in the message (as is, or word for word), it is supported
        if obj in _norm(text) or words(obj) & said or any(c.isdigit() for c in obj):
            return None
        # a value the extractor normalised (short → concise) is fine when the rest of the words are there
        return None if got >= 0.5 else f"the value “{(m.object or '')[:60]}” is not in its source message"
    if len(words(m.content)) >= 2 and got < SUPPORT_SHARE:
        return f"only {got:.0%} of its words are in its source message"
    return None


def restate_evidence(
    m: MemInfo, sources: dict[int, Message], system: list[set[str]], replies: list[tuple[set[str], str, datetime]]
) -> str | None:
    if m.source_type == SourceType.PERSON_EDIT or m.type == MemoryType.SUMMARY:
        return None
    roles = {sources[int(i)].role for i in m.source_message_ids if str(i).isdigit() and int(i) in sources}
    if m.source_type == SourceType.USER_STATED and roles and "user" not in roles:
        return f"kept as the user's words but learnt from a {'/'.join(sorted(roles))} message"
    mine = words(m.content)
    if len(mine) < 3 or m.type == MemoryType.EPISODE:  # an episode is what was said, by whoever said it
        return None
    for sentence in system:
        if share_in(mine, sentence) >= RESTATE_SHARE:
            return "restates the system prompt"
    made = _aware(m.created_at)
    for reply, text, said_at in replies:  # the agent said it first; an agent echoing a memory back is no evidence
        if _aware(said_at) <= made and share_in(mine, reply) >= RESTATE_SHARE:
            return f"restates the agent's reply “{text[:80]}”"
    return None


def _norm(text: str | None) -> str:
    return " ".join((text or "").casefold().split()).strip(" .。")


def contradictions(rows: Sequence[MemInfo]) -> list[tuple[list[MemInfo], str]]:
    """Groups of active memories stating different values of one single-valued fact, or liking and disliking one
    thing (per user, agent and subject)."""
    single: dict[tuple[str, str, str, str], list[MemInfo]] = defaultdict(list)
    polar: dict[tuple[str, str, str, str], dict[str, list[MemInfo]]] = defaultdict(lambda: defaultdict(list))
    for m in rows:
        if m.type in EVIDENCE_TYPES or not m.predicate or is_flagged(m.meta):
            continue
        base = (m.user_key, m.agent_id, _norm(m.subject))
        if m.predicate in SINGLE_VALUED and m.object:
            single[(*base, m.predicate)].append(m)
        elif m.predicate in OPPOSITES and m.object:
            polar[(*base, _norm(m.object))][m.predicate].append(m)
    out = []
    for (_, _, _, pred), group in single.items():
        values = {_norm(m.object) for m in group}
        if len(values) > 1:
            group = sorted(group, key=lambda m: m.created_at)
            out.append((group, f"{pred}: " + " / ".join(dict.fromkeys(m.object or "" for m in group))))
    for (_, _, _, obj), sides in polar.items():
        if len(sides) == 2:
            group = sorted([m for ms in sides.values() for m in ms], key=lambda m: m.created_at)
            out.append((group, f"both likes and dislikes “{obj}”"))
    return out


def near_duplicates(
    rows: Sequence[MemInfo], vectors: dict[str, Any], threshold: float
) -> list[tuple[list[MemInfo], str]]:
    """Memories of one user (agent, type) that state one fact: each memory, highest value first, joins the first
    group whose leader states the same fact (:func:`one_fact`), or leads a group of its own.

    Every memory is compared with every group's leader, not only with the one leader compaction's greedy clustering
    picked for it: "User likes to help." lands under "User likes action." (0.955 similar) there, and its real
    duplicate "User likes helping people." (0.985) was never compared with it."""
    by: dict[tuple[str, str, str], list[MemInfo]] = defaultdict(list)
    for m in rows:
        if m.type not in EVIDENCE_TYPES:
            by[(m.user_key, m.agent_id, m.type)].append(m)
    out: list[tuple[list[MemInfo], str]] = []
    for members in by.values():
        if len(members) < 2:
            continue
        order = sorted(members, key=lambda m: (-(m.confidence + 0.001 * m.reinforce_count), m.created_at, m.id))
        groups: list[tuple[MemInfo, list[MemInfo], list[str]]] = []  # leader, members, why each joined
        for m in order:
            for lead, group, why in groups:
                reason = one_fact(lead, m, _similarity(vectors, lead.id, m.id), threshold)
                if reason:
                    group.append(m)
                    why.append(reason)
                    break
            else:
                groups.append((m, [m], []))
        out += [(group, "; ".join(dict.fromkeys(why))) for _, group, why in groups if len(group) > 1]
    return out


def _similarity(vectors: dict[str, Any], a: str, b: str) -> float | None:
    if a not in vectors or b not in vectors:
        return None  # not indexed yet: only the same statement can tell
    return float(vectors[a] @ vectors[b])


def one_fact(a: MemInfo, b: MemInfo, similarity: float | None, threshold: float) -> str | None:
    """Why two memories of one user state one fact (``None``: they do not): the write path's rule
    (:func:`memory.write.same.one_fact`), so the queue proposes what the write path would have reinforced."""
    return _one_fact(_said(a), _said(b), similarity, threshold)


def _said(m: MemInfo) -> Said:
    return Said(
        m.content,
        m.predicate,
        m.object,
        m.subject,
        bool((m.meta or {}).get("negated")),
        m.event_time.date() if m.event_time else None,
    )


# -- the review ----------------------------------------------------------------------------------------------------
def kept_keys(store: Database) -> set[str]:
    """Keys of the findings a person kept as they are (the audit trail's ``keep`` rows)."""
    with store.db() as db:
        rows = db.exec(select(AuditEvent.target_ids).where(AuditEvent.action == str(AuditAction.KEEP))).all()
    return {str(t) for ids in rows for t in ids or []}


def review(
    store: Storage,
    *,
    user_key: str | None = None,
    now: datetime | None = None,
    never_recalled_days: float = NEVER_RECALLED_DAYS,
    kinds: Sequence[str] = KINDS,
) -> Review:
    """The queue for one user (``user_key``) or every user, newest evidence first within each kind."""
    unknown = set(kinds) - set(KINDS)
    if unknown:
        raise InvalidInput(f"unknown hygiene check {sorted(unknown)[0]!r}; one of: {', '.join(KINDS)}")
    now = now or utcnow()
    rows = load(store, user_key=user_key, statuses=(MemoryStatus.ACTIVE,))
    with store.db() as db:
        users = {u.key: u.external_id for u in db.exec(select(User)).all()}
    findings: list[Finding] = []

    def add(kind: str, group: Sequence[MemInfo], evidence: str, **detail: Any) -> None:
        ids = [m.id for m in group]
        findings.append(
            Finding(
                kind=kind,
                key=finding_key(kind, ids),
                user_id=users.get(group[0].user_key, "?"),
                memory_ids=ids,
                contents=[m.content for m in group],
                evidence=evidence,
                actions=ACTIONS.get(kind, DEFAULT_ACTIONS),
                detail=detail,
            )
        )

    sources = _source_messages(store, rows) if {"unsupported", "restates_prompt"} & set(kinds) else {}
    if "near_duplicate" in kinds:
        vectors = _vectors(store, user_key, rows)
        for group, why in near_duplicates(rows, vectors, store.settings.dedupe_threshold):
            add("near_duplicate", group, why)
    if "contradiction" in kinds:
        for group, why in contradictions(rows):
            add("contradiction", group, why)
    system = [words(s) for s in _sentences(SYSTEM)]
    replies = _replies(store, {m.user_key for m in rows}) if "restates_prompt" in kinds else {}
    stale = now - timedelta(days=never_recalled_days)
    for m in rows:
        checks: list[tuple[str, str | None]] = []
        if "instruction" in kinds:
            checks.append(("instruction", instruction_evidence(m)))
        if "pii" in kinds:
            checks.append(("pii", pii_evidence(m)))
        if "restates_prompt" in kinds:
            checks.append(("restates_prompt", restate_evidence(m, sources, system, replies.get(m.user_key, []))))
        if "unsupported" in kinds:
            checks.append(("unsupported", unsupported_evidence(m, sources)))
        if "never_recalled" in kinds and m.type not in EVIDENCE_TYPES and _aware(m.created_at) < stale:
            last = m.last_accessed_at
            if last is None or _aware(last) < stale:
                when = "never" if last is None else f"last on {_aware(last).date().isoformat()}"
                checks.append(("never_recalled", f"created {_aware(m.created_at).date().isoformat()}, recalled {when}"))
        for kind, evidence in checks:
            if evidence:
                add(kind, [m], evidence)
    if "orphan_profile" in kinds:
        findings += _orphans(store, user_key, users)
    kept = kept_keys(store)
    shown = [f for f in findings if f.key not in kept]
    # the junk rate is over the semantic layer: an episode is what was said (its findings are still listed)
    semantic = {m.id for m in rows if m.type != MemoryType.EPISODE}
    active: dict[str, int] = defaultdict(int)
    for m in rows:
        if m.id in semantic:
            active[users.get(m.user_key, "?")] += 1
    accused_ids: dict[str, set[str]] = defaultdict(set)
    for f in shown:
        if f.kind != "orphan_profile":
            accused_ids[f.user_id].update(i for i in f.memory_ids if i in semantic)
    return Review(
        findings=shown,
        active=dict(active),
        accused={u: len(ids) for u, ids in accused_ids.items()},
        kept=len(findings) - len(shown),
    )


def _aware(t: datetime) -> datetime:
    return t.replace(tzinfo=UTC) if t.tzinfo is None else t


def _source_messages(store: Database, rows: Sequence[MemInfo]) -> dict[int, Message]:
    ids = sorted({int(i) for m in rows for i in m.source_message_ids or [] if str(i).isdigit()})
    out: dict[int, Message] = {}
    with store.db() as db:
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            for msg in db.exec(select(Message).where(col(Message.id).in_(chunk))).all():
                out[int(msg.id or 0)] = msg
    return out


def _replies(
    store: Database, user_keys: set[str], limit: int = 2000
) -> dict[str, list[tuple[set[str], str, datetime]]]:
    """Each user's latest agent replies, sentence by sentence as word sets, with when they were said."""
    out: dict[str, list[tuple[set[str], str, datetime]]] = defaultdict(list)
    with store.db() as db:
        for key in user_keys:
            msgs = db.exec(
                select(Message.content, Message.created_at)
                .where(Message.user_key == key, Message.role == "assistant")
                .order_by(col(Message.id).desc())
                .limit(limit)
            ).all()
            for text, at in msgs:
                for sentence in _sentences(text):
                    if len(ws := words(sentence)) >= 3:
                        out[key].append((ws, sentence, at))
    return out


def _vectors(store: Storage, user_key: str | None, rows: Sequence[MemInfo]) -> dict[str, Any]:
    if len(rows) < 2:
        return {}
    from memory.lifecycle.compact import _vectors as stored_vectors

    return stored_vectors(store, user_key)


def _orphans(store: Database, user_key: str | None, users: dict[str, str]) -> list[Finding]:
    """Profile values linked to a memory that is no longer active, with no active memory stating them."""
    query = select(ProfileField)
    if user_key is not None:
        query = query.where(ProfileField.user_key == user_key)
    out = []
    with store.db() as db:
        fields = [f for f in db.exec(query).all() if f.value not in (None, "", [], {})]
        linked = {i for f in fields for i in (f.memory_ids or {}).values()}
        status = dict(db.exec(select(Memory.id, Memory.status).where(col(Memory.id).in_(list(linked)))).all())
    for f in fields:
        ids = [i for i in (f.memory_ids or {}).values() if i]
        if not ids or any(status.get(i) == MemoryStatus.ACTIVE for i in ids):
            continue
        if profile_sync.stating(store, f.user_key, f.field):
            continue
        gone = ", ".join(f"{i[:8]} ({status.get(i, 'removed')})" for i in ids)
        out.append(
            Finding(
                kind="orphan_profile",
                key=finding_key("orphan_profile", [f.user_key, f.field, *ids]),
                user_id=users.get(f.user_key, "?"),
                memory_ids=ids,
                contents=[f"{f.field}: {f.value}"],
                evidence=f"profile value “{str(f.value)[:60]}” of {f.field}: its memory is gone ({gone})",
                actions=ACTIONS["orphan_profile"],
                detail={"field": f.field, "value": f.value},
            )
        )
    return out


# -- actions (one path: the curation operations, audited) ---------------------------------------------------------
@guarded(Role.CURATOR, AuditAction.MERGE, "merge memories")
def merge_into(
    store: Storage, memory_id: str, *, others: Sequence[str], actor: Actor, reason: str = "merged by a person"
) -> Memory:
    """Keep ``memory_id``; every other memory of the group is superseded by it (restorable history, the profile
    values they set follow the one kept) and its source messages and repeats become the kept one's."""
    keep = records.get_memory(store, memory_id)
    if keep.status != MemoryStatus.ACTIVE:
        raise InvalidInput(f"memory {memory_id} is {keep.status}; keep an active one")
    merged = []
    for other in dict.fromkeys(others):
        if other == memory_id:
            continue
        m = records.get_memory(store, other)
        if m.user_key != keep.user_key:
            raise NotFound(f"no memory {other!r} for this user")
        if m.status == MemoryStatus.ACTIVE:
            merged.append(m)
    if merged:  # one fact, several sources: the memory kept takes the others' messages and repeats
        keep = curation.reinforce_from(store, keep.id, merged, actor=actor, reason=reason)
    for m in merged:
        status.supersede(store, m.id, keep.id, reason=f"merged into {keep.id}: {reason}", actor=actor)
    profile_sync.put(store, keep, actor=actor, why="kept in a merge", note=reason, only_if_empty=True)
    return keep


def act(
    store: Storage,
    finding: Finding,
    action: str,
    *,
    actor: Actor,
    target: str | None = None,
    reason: str = "",
) -> dict[str, Any]:
    """Apply one action to one finding: ``merge`` (keep ``target``, default the first), ``flag`` / ``delete``
    (``target``, default the last: the newer of a pair), ``clear`` (an orphan profile value) or ``keep``."""
    if action not in finding.actions:
        raise InvalidInput(f"{action!r} is not an action for {finding.kind}; one of: {', '.join(finding.actions)}")
    why = reason or f"hygiene: {KIND_TITLES[finding.kind].lower()} — {finding.evidence}"[:500]
    if target is not None and target not in finding.memory_ids:
        raise InvalidInput(f"memory {target!r} is not part of this finding")
    if action == "keep":
        check(store, actor, Role.CURATOR, "keep a hygiene finding")
        audit.record(
            store,
            actor,
            AuditAction.KEEP,
            user_id=finding.user_id,
            target_ids=[finding.key, *finding.memory_ids],
            reason=reason or f"kept as is: {finding.kind}",
        )
        return {"action": "keep", "key": finding.key}
    if action == "merge":
        keep = target or finding.memory_ids[0]
        merge_into(store, keep, others=finding.memory_ids, actor=actor, reason=why)
        return {"action": "merge", "kept": keep, "superseded": [i for i in finding.memory_ids if i != keep]}
    if action == "clear":
        return {"action": "clear", "field": finding.detail["field"]}  # the caller clears it (profile edit)
    one = target or finding.memory_ids[-1]
    if action == "flag":
        curation.flag_memory(store, one, actor=actor, reason=why)
    elif action == "delete":
        curation.delete_memory(store, one, actor=actor, reason=why)
    return {"action": action, "memory_id": one}
