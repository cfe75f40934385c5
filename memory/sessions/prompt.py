"""The token-budgeted context composer: what goes into the prompt, in which order, and what was left out.

Budget = ``context_window − context_reply_reserve``. The input is placed first and is never dropped (an input larger
than the budget is truncated, and that is recorded). The system instructions come next; every other section then
receives ``min(cap, what is left)`` in ``context_priority`` order, and what a section leaves unused flows on.
Inside a section the lowest-ranked memories and the oldest history go first. Counts are exact o200k tokens of the
final messages (content + ``MESSAGE_OVERHEAD`` per message); if joining blocks ever counts higher than the sum of
the parts, the composition is redone with a smaller budget, so the prompt never exceeds its budget.

The prompt order is fixed: system → profile → bridge → summary → memories → recent history → input.

One value per single-valued fact: a retrieved memory stating another value of a single-valued profile field than
the profile's (or than a better-ranked memory's) is left out (``Composition.contradicted``). What a person wrote is
marked as a correction, never presented as the user's words.

Memory text is data, never instructions: profile values, bridges, summaries and memories go into their own message,
between ``DATA_OPEN`` and ``DATA_CLOSE``, after the instructions (which tell the model to treat that block as data).
The words (instructions, headers, fences) are in :mod:`memory.prompts`. Each item is escaped (:func:`fence_line`):
line breaks become ``⏎`` and the fence markers are defanged, so no text can close the block or start a section;
multi-line bridges and summaries are indented, so none of their lines is a header.
Every line says who it comes from: the user (``user-stated``) or the system (``inferred``, written summaries).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from sqlmodel import col, select

from memory.config import Settings
from memory.errors import ConfigError
from memory.prompts import (
    CONTEXT_MARKS,
    DATA_CLOSE,
    DATA_OPEN,
    HEADERS,
    SYSTEM,
    fence_block,
    fence_line,
    neutralise,
)
from memory.retrieval.context import ContextRow
from memory.storage.models import ContextSection, ContextSnapshot, RetrievalHit, stored_id
from memory.text.lines import prompt_line
from memory.text.tokens import count_tokens, truncate_to_tokens
from memory.vocab import MemoryType, SourceType
from memory.write.consistency import consistent_text, one_value_each

if TYPE_CHECKING:
    from memory.retrieval.recall import Hit
    from memory.storage.db import Database

PERSON_EDIT = SourceType.PERSON_EDIT.value
CONTRADICTS = "contradicts profile"  # drop reason of a memory stating a second value of a single-valued fact
MESSAGE_OVERHEAD = 4  # role + separators per chat message (OpenAI's chat format costs 3-4)
MIN_PARTIAL = 24  # an item is truncated into the space left only when at least this many tokens remain
SECTIONS = ("system", "profile", "bridge", "summary", "memories", "history")
PROMPT_ORDER = (*SECTIONS, "input")


@dataclass
class HistoryItem:
    role: str  # user | assistant
    content: str
    id: int | None = None


@dataclass
class MemoryItem:
    memory_id: str
    content: str
    created_at: datetime | None = None
    source_type: str = "user-stated"
    type: str = "fact"
    predicate: str | None = None
    object: str | None = None
    #: source context (conversation order): the turns around the message this memory was learnt from
    context: list[ContextRow] = field(default_factory=list)
    source_message_ids: list = field(default_factory=list)
    #: who said it, for an episode (what was said): the line reads "speaker: words"
    speaker: str | None = None
    #: ``earlier``: a newer memory replaced what this one states (on ``replaced_on``): history, not the current value
    update: str | None = None
    replaced_on: datetime | None = None

    @classmethod
    def from_hit(cls, h: Hit) -> MemoryItem:
        """A selected recall hit as the composer reads it (the agent's turn and the desk's budget stage alike)."""
        return cls(
            h.memory_id,
            h.content,
            h.created_at,
            h.source_type,
            h.type,
            h.predicate,
            h.object,
            context=h.context,
            source_message_ids=h.source_message_ids,
            speaker=h.subject if h.type == MemoryType.EPISODE else None,
            update=h.update,
            replaced_on=h.replaced_on,
        )


@dataclass
class ContextRequest:
    """Everything the composer may use; memories in rank order, history and summaries oldest first."""

    input: str
    system: str = SYSTEM
    profile: dict[str, Any] = field(default_factory=dict)
    #: field → source of its value (``person-edit`` values are labelled as corrections)
    profile_sources: dict[str, str] = field(default_factory=dict)
    bridge: str | None = None
    summaries: list[str] = field(default_factory=list)
    memories: list[MemoryItem] = field(default_factory=list)
    history: list[HistoryItem] = field(default_factory=list)
    #: (predicate, object) statements that no longer hold (flagged, deleted, superseded): older text stating them
    #: (bridge, summaries) is left out
    retracted: set[tuple[str, str]] = field(default_factory=set)


@dataclass
class Composition:
    messages: list[BaseMessage]
    allocation: dict[str, Any]
    injected: list[str]  # memory ids that made it into the prompt
    dropped: list[str]  # memory ids left out for budget
    contradicted: list[str] = field(default_factory=list)  # left out: another value of a single-valued field
    #: memory id → the context message ids that reached the prompt under it
    context_shown: dict[str, list[int]] = field(default_factory=dict)

    @property
    def prompt_text(self) -> str:
        return "\n\n".join(f"[{m.type}] {m.content}" for m in self.messages)


@dataclass
class _Section:
    name: str
    budget: int = 0
    lines: list[str] = field(default_factory=list)
    kept: list[Any] = field(default_factory=list)
    dropped: list[Any] = field(default_factory=list)
    truncated: bool = False
    used: int = 0
    context_used: int = 0  # of ``used``: the memories' source-context lines
    context_cut: int = 0  # source-context lines left out for budget
    context_shown: dict[str, list[int]] = field(default_factory=dict)


def prompt_budget(settings: Settings) -> int:
    """Tokens the prompt may use; never below 64 so even a tiny window can carry an input."""
    return max(64, settings.context_window - settings.context_reply_reserve)


def message_tokens(messages: list[BaseMessage]) -> int:
    """Exact cost of a prompt as the composer accounts it."""
    return sum(count_tokens(str(m.content)) + MESSAGE_OVERHEAD for m in messages)


def compose(request: ContextRequest, settings: Settings) -> Composition:
    """Fit the request into the budget; retries with a smaller budget in the rare case joining costs extra tokens."""
    budget = prompt_budget(settings)
    target = budget
    kept, contradicted = one_value_each(request.profile, request.memories)
    request = replace(
        request,
        memories=kept,
        bridge=consistent_text(request.bridge, request.profile, request.retracted) if request.bridge else None,
        summaries=[consistent_text(t, request.profile, request.retracted) for t in request.summaries],
    )
    for _ in range(8):
        comp = _compose_once(request, settings, budget, target)
        comp.contradicted = contradicted
        over = comp.allocation["total_used"] - budget
        if over <= 0:
            return comp
        target -= over
    raise ConfigError("could not fit the context into its budget")  # unreachable in practice: target shrinks


def _priority(settings: Settings) -> list[str]:
    names = [n.strip() for n in settings.context_priority.split(",") if n.strip()]
    unknown = set(names) - set(SECTIONS)
    if unknown:
        raise ConfigError(f"MEMLENS_CONTEXT_PRIORITY has unknown sections: {', '.join(sorted(unknown))}")
    return [*dict.fromkeys(["system", *names, *SECTIONS])]


def _cap(settings: Settings, name: str, left: int) -> int:
    cap = getattr(settings, f"context_{name}_cap")
    if name == "history" and cap == 0:
        return left
    return min(cap, left)


def _compose_once(request: ContextRequest, settings: Settings, budget: int, target: int) -> Composition:
    system_cost = min(count_tokens(request.system) + MESSAGE_OVERHEAD, settings.context_system_cap, target // 2)
    input_text, input_sec = _fit_input(request.input, target - system_cost)
    left = target - input_sec.used
    sections: dict[str, _Section] = {"input": input_sec}
    for name in _priority(settings):
        sec = _Section(name, budget=_cap(settings, name, left))
        _FILL[name](sec, request)
        sections[name] = sec
        left -= sec.used
    messages = _render(sections, input_text)
    used = message_tokens(messages)
    allocation = {
        "window": settings.context_window,
        "reserved_reply": settings.context_reply_reserve,
        "total_budget": budget,
        "total_used": used,
        "input_truncated": input_sec.truncated,
        "sections": [_record(sections[n], pos) for pos, n in enumerate(PROMPT_ORDER)],
    }
    mem = sections["memories"]
    return Composition(messages, allocation, list(mem.kept), list(mem.dropped), context_shown=mem.context_shown)


def _fit_input(text: str, room: int) -> tuple[str, _Section]:
    sec = _Section("input", budget=max(room, 1))
    cost = count_tokens(text) + MESSAGE_OVERHEAD
    if cost > room:
        text = truncate_to_tokens(text, max(room - MESSAGE_OVERHEAD, 1))
        sec.truncated = True
    sec.used = count_tokens(text) + MESSAGE_OVERHEAD
    sec.kept = ["input"]
    return text, sec


def _add_lines(sec: _Section, header: str, items: list[tuple[Any, str]], *, partial: bool = True) -> None:
    """Keep items in the given order while they fit; the first that does not is truncated (if room) and the rest go."""
    lines = [f"\n\n{header}"] if header else []
    base = count_tokens("".join(lines))
    if not items or base >= sec.budget:
        sec.dropped = [key for key, _ in items]
        return
    used = base
    for n, (key, line) in enumerate(items):
        cost = count_tokens(line)
        if used + cost <= sec.budget:
            lines.append(line)
            sec.kept.append(key)
            used += cost
            continue
        room = sec.budget - used
        if partial and room >= MIN_PARTIAL:
            cut = truncate_to_tokens(line, room - 1).rstrip() + "…"
            while count_tokens(cut) > room:
                cut = truncate_to_tokens(cut, count_tokens(cut) - 2) + "…"
            lines.append(cut)
            sec.kept.append(key)
            sec.truncated = True
            used += count_tokens(cut)
            n += 1
        sec.dropped = [k for k, _ in items[n:]]
        break
    if sec.kept:
        sec.lines, sec.used = lines, used


def _fill_system(sec: _Section, req: ContextRequest) -> None:
    room = sec.budget - MESSAGE_OVERHEAD
    if room <= 0:
        sec.dropped = ["system"]
        return
    text = req.system if count_tokens(req.system) <= room else truncate_to_tokens(req.system, room)
    sec.truncated = text != req.system
    sec.lines, sec.kept, sec.used = [text], ["system"], count_tokens(text) + MESSAGE_OVERHEAD


def _fill_profile(sec: _Section, req: ContextRequest) -> None:
    items = []
    for key, value in req.profile.items():
        if value in (None, "", [], {}):
            continue
        shown = ", ".join(map(str, value)) if isinstance(value, list | tuple) else str(value)
        mark = " (corrected by a person)" if req.profile_sources.get(key) == PERSON_EDIT else ""
        items.append((key, f"\n- {fence_line(key)}: {fence_line(shown)}{mark}"))
    _add_lines(sec, HEADERS["profile"], items, partial=False)


def _fill_bridge(sec: _Section, req: ContextRequest) -> None:
    _add_lines(sec, HEADERS["bridge"], [("bridge", fence_block(req.bridge))] if req.bridge else [])


def _fill_summary(sec: _Section, req: ContextRequest) -> None:
    newest_first = [(n, fence_block(text)) for n, text in reversed(list(enumerate(req.summaries)))]
    _add_lines(sec, HEADERS["summary"], newest_first)
    sec.lines = sec.lines[:1] + sec.lines[:0:-1]  # back to oldest → newest


def context_line(row: ContextRow, before: bool, memory_day: str | None = None) -> str:
    """One source-context line: before ↑ / after ↓ the memory's message, the speaker, and the date when it is not
    the memory's own day (the memory line above carries that one)."""
    day = row.created_at.date().isoformat() if row.created_at else "undated"
    mark = CONTEXT_MARKS[0] if before else CONTEXT_MARKS[1]
    dated = "" if day == memory_day else f"[{day}] "
    return f"\n    {mark} {dated}{fence_line(row.speaker)}: {fence_line(row.text)}"


def _context_lines(m: MemoryItem, req: ContextRequest) -> list[tuple[int, int, str, int]]:
    """(distance from the source, message id, line, tokens) of a memory's source context, in conversation order;
    a sentence stating what the profile contradicts or a person retracted is left out (as in bridges)."""
    sources = [int(i) for i in m.source_message_ids if isinstance(i, int) or str(i).isdigit()]
    out = []
    for row in m.context:
        text = consistent_text(row.text, req.profile, req.retracted)
        if not text.strip():
            continue
        day = m.created_at.date().isoformat() if m.created_at else "undated"
        line = context_line(replace(row, text=text), bool(sources) and row.message_id < min(sources), day)
        distance = min((abs(row.message_id - s) for s in sources), default=0)
        out.append((distance, row.message_id, line, count_tokens(line)))
    return out


def _fill_memories(sec: _Section, req: ContextRequest) -> None:
    """A memory and its source context are one item, but context never pushes a memory out: the memory lines are
    fitted first (as any item: the lowest-ranked go, one may be truncated), then the kept memories' context lines
    share what is left **in rank order** — the best memory's window (nearest to its source first), then the
    second's — and the fill stops at the first line that does not fit. Filled nearest first across all memories
    instead, the best hit lost its outer lines to the tenth hit's inner ones: on left-out LoCoMo conversations, under
    the same cap, rank order kept open-domain recall@10 at 49.8 where nearest-first fell to 46.4 (docs/retrieval.md)."""
    items = [(m.memory_id, prompt_line(m, m.speaker), _context_lines(m, req)) for m in req.memories]
    _add_lines(sec, HEADERS["memories"], [(key, line) for key, line, _ in items])
    if not sec.kept:
        return
    kept = items[: len(sec.kept)]
    if sec.truncated:  # the last memory was cut to fit: no room for its context
        kept[-1] = (*kept[-1][:2], [])
    pool = sorted((n, c[0], c[1], c) for n, (_, _, ctx) in enumerate(kept) for c in ctx)
    left, shown = sec.budget - sec.used, set()
    for n, _, mid, c in pool:
        if c[3] > left:
            break
        shown.add((n, mid))
        left -= c[3]
    lines = sec.lines[:1]
    for n, ((key, _, ctx), line) in enumerate(zip(kept, sec.lines[1:], strict=True)):
        mine = [c for c in ctx if (n, c[1]) in shown]
        lines += [line, *(c[2] for c in mine)]
        sec.context_used += sum(c[3] for c in mine)
        sec.context_cut += len(ctx) - len(mine)
        sec.context_shown[key] = [c[1] for c in mine]
    sec.lines = lines
    sec.used += sec.context_used


def _fill_history(sec: _Section, req: ContextRequest) -> None:
    """Newest first while they fit (each message pays its overhead); rendered back in time order."""
    left = sec.budget
    newest_first = [(i.id if i.id is not None else n, i) for n, i in reversed(list(enumerate(req.history)))]
    for n, (key, item) in enumerate(newest_first):
        cost = count_tokens(item.content) + MESSAGE_OVERHEAD
        if cost <= left:
            sec.lines.insert(0, f"{item.role}\x00{item.content}")
            sec.kept.insert(0, key)
            left -= cost
            continue
        if left - MESSAGE_OVERHEAD >= MIN_PARTIAL:  # keep the newest part of an over-long message
            text = truncate_to_tokens(item.content, left - MESSAGE_OVERHEAD)
            sec.lines.insert(0, f"{item.role}\x00{text}")
            sec.kept.insert(0, key)
            sec.truncated = True
            left -= count_tokens(text) + MESSAGE_OVERHEAD
            n += 1
        sec.dropped = [k for k, _ in newest_first[n:]]
        break
    sec.used = sec.budget - left


_FILL = {
    "system": _fill_system,
    "profile": _fill_profile,
    "bridge": _fill_bridge,
    "summary": _fill_summary,
    "memories": _fill_memories,
    "history": _fill_history,
}


def _render(sections: dict[str, _Section], input_text: str) -> list[BaseMessage]:
    system = "".join(sections["system"].lines)
    data = "".join(line for name in SECTIONS[1:5] for line in sections[name].lines)
    messages: list[BaseMessage] = [SystemMessage(system)] if system else []
    if data:  # its own message: the instructions never share a message with memory text
        messages.append(SystemMessage(f"{DATA_OPEN}{data}\n{DATA_CLOSE}"))
    for line in sections["history"].lines:
        role, text = line.split("\x00", 1)
        text = neutralise(text)  # the user's words reach the model as text, never as a chat-template token
        messages.append(HumanMessage(text) if role == "user" else AIMessage(text))
    messages.append(HumanMessage(neutralise(input_text)))
    return messages


def _record(sec: _Section, position: int) -> dict[str, Any]:
    return {
        "name": sec.name,
        "position": position,
        "budget": sec.budget,
        "used": sec.used,
        "kept": len(sec.kept),
        "dropped": len(sec.dropped),
        "dropped_items": [str(k) for k in sec.dropped],
        "truncated": sec.truncated,
        "context_used": sec.context_used,
        "context_cut": sec.context_cut,
    }


# -- persistence --------------------------------------------------------------------------------------------------
def save_snapshot(
    store: Database, comp: Composition, *, user_key: str, session_key: str | None, turn_id: int | None
) -> int:
    """One ContextSnapshot + a ContextSection per section: the allocation the back office shows for this turn."""
    alloc = comp.allocation
    with store.db() as db:
        snap = ContextSnapshot(
            turn_id=turn_id,
            session_id=session_key,
            user_key=user_key,
            total_budget=alloc["total_budget"],
            total_used=alloc["total_used"],
            prompt=comp.prompt_text,
        )  # the input is raw here: the engine masks it on the way in (memory.storage.scrub)
        db.add(snap)
        db.flush()
        db.add_all(
            ContextSection(
                snapshot_id=stored_id(snap.id, "context snapshot"),
                name=s["name"],
                position=s["position"],
                budget=s["budget"],
                used=s["used"],
                kept=s["kept"],
                dropped=s["dropped"],
                dropped_items=s["dropped_items"],
                context_used=s.get("context_used", 0),
            )
            for s in alloc["sections"]
        )
        db.commit()
        return stored_id(snap.id, "context snapshot")


def mark_injected(
    store: Database,
    retrieval_id: int | None,
    injected: Sequence[str],
    dropped: Sequence[str],
    contradicted: Sequence[str] = (),
) -> None:
    """Record on the logged hits which selected memories reached the prompt, which the budget cut and which were
    left out for stating a second value of a single-valued fact."""
    ids = [*injected, *dropped, *contradicted]
    if retrieval_id is None or not ids:
        return
    with store.db() as db:
        rows = db.exec(
            select(RetrievalHit).where(RetrievalHit.retrieval_id == retrieval_id, col(RetrievalHit.memory_id).in_(ids))
        ).all()
        for row in rows:
            row.injected = row.memory_id in injected
            if not row.injected:
                row.drop_reason = "budget" if row.memory_id in dropped else CONTRADICTS
            db.add(row)
        db.commit()
