"""Chat: talk to the agent as the picked user; under each reply, what it remembered and how full the context was."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import streamlit as st

from memory import views
from memory.errors import MemLensError
from memory.views.composed import TITLES, Composed
from memory.vocab import Role
from pages import why
from pages.common import (
    agent,
    can,
    current_actor,
    current_session,
    model_label,
    new_session_id,
    op_badge,
    page_title,
    plain,
    require_user,
    service,
    short,
    text_block,
)

if TYPE_CHECKING:
    from agent.runtime import TurnResult

HISTORY = 40

svc = service()
user = require_user()
session = current_session(user)

page_title("Chat", user)
where = plain(short(session.external_id, 40)) if session else "new"
st.caption(
    f"Talking as **{plain(short(user.external_id, 50))}** · session **{where}** · "
    f"{plain(model_label(svc.effective_settings()))}"
)


def memory_panel(
    hits: list[dict[str, Any]],
    budget: dict[str, Any] | None,
    writes: list[dict[str, Any]],
    composed: Composed | None = None,
    params: dict[str, Any] | None = None,
    retrieval_id: int | None = None,
) -> None:
    """The expander under a reply: the knobs that turn used, recalled hits with their scores, the budget bar, what
    the prompt received (the turn's composition snapshot, section by section, never a recomputation), what was
    written and, for a logged turn, why (not) for any of its memories. Every user text in it is plain text."""
    if budget and budget.get("total_budget"):
        used, total = int(budget.get("total_used") or 0), int(budget["total_budget"])
        st.progress(min(1.0, used / total), text=f"context {used:,} / {total:,} tokens")
    injected = [h for h in hits if h.get("injected")]
    label = f"What I remembered · {len(injected)} used of {len(hits)} candidates"
    with st.expander(label, icon=":material/psychology:"):
        if params:
            st.caption(
                f"Recalled with relevance threshold **{params['threshold']:.3g}** · k **{params['k']}** · "
                f"mode **{params['mode']}**"
                + (f" ({params['fusion']})" if params.get("fusion") else "")
                + " · flagged memories excluded"
            )
        if hits:
            _hit_table(hits)
            if retrieval_id is not None:
                why.picker(svc, user, hits, retrieval_id, key=f"chat_why_{retrieval_id}")
        else:
            st.caption("No memory matched this message.")
        prompt_sections(composed)
        if writes:
            st.markdown("**What I wrote down**")
            for w in writes:
                st.markdown(
                    f"{op_badge(w['op'])} {plain(short(w.get('content') or '', 120))} · "
                    f":gray[{plain(short(w.get('reason') or '', 80))}]"
                )


def prompt_sections(composed: Composed | None) -> None:
    """The turn's composition snapshot: each section the prompt received, its lines exactly (plain text)."""
    if composed is None or not composed.sections:
        st.caption("The prompt carried no profile, bridge, summary or memory this turn.")
        return
    st.markdown("**What the prompt received** · from this turn's snapshot, personal data masked")
    for name, lines in composed.sections:
        st.caption(TITLES.get(name, name))
        text_block("\n".join(lines))


def _hit_table(hits: list[dict[str, Any]]) -> None:
    """The first dozen candidates of a turn: used or why not, and each score."""
    import pandas as pd  # only where a hit table is shown: a first load without one skips ~0.5 s

    rows = [
        {
            "used": "✔ injected" if h.get("injected") else ("dropped (budget)" if h.get("selected") else "—"),
            "memory": short(h["content"], 110),
            "relevance": h.get("relevance"),
            "similarity": h.get("similarity"),
            "BM25": h.get("fts_score"),
            "fused": h.get("fused"),
            "why not": h.get("why") or "",
        }
        for h in hits[:12]
    ]
    st.dataframe(
        pd.DataFrame(rows),
        hide_index=True,
        column_config={
            "memory": st.column_config.TextColumn(width="large"),
            "relevance": st.column_config.ProgressColumn(format="%.3f", min_value=0.0, max_value=1.0),
            "similarity": st.column_config.NumberColumn(format="%.3f"),
            "BM25": st.column_config.NumberColumn(format="%.2f"),
            "fused": st.column_config.NumberColumn(format="%.4f"),
        },
    )


def live_details(result: TurnResult) -> tuple[list[dict], dict | None, list[dict], dict | None]:
    """The same shape as views.turn_details, from a fresh TurnResult (writes may still be landing in the DB)."""
    hits = [
        {
            "content": h.content,
            "relevance": h.relevance,
            "similarity": h.similarity,
            "fts_score": h.fts_score,
            "fused": h.score,
            "selected": h.selected,
            "injected": h.injected,
            "why": h.drop_reason,
        }
        for h in (result.recall.hits if result.recall else [])
    ]
    ops = result.writes.operations if result.writes else []
    writes = [{"op": o.get("op", "?"), "content": o.get("content", ""), "reason": o.get("reason", "")} for o in ops]
    p = result.recall.params if result.recall else None
    params = {"threshold": p.threshold, "k": p.k, "mode": p.mode, "fusion": p.fusion} if p else None
    return hits, result.context or None, writes, params


if session is not None:
    details = views.turn_details(svc.storage, session.id)
    messages = svc.messages(session.id)[-HISTORY:]
    if bridge := views.bridge_into(svc.storage, session.id):
        st.info(f"**Carried over from last session:** {plain(bridge)}", icon=":material/link:")
    if not messages:
        st.info(
            "A fresh session. Say something the agent should remember — e.g. *I live in Hangzhou and I don't eat "
            "spicy food* or *我住在杭州，不吃辣*.",
            icon=":material/waving_hand:",
        )
    for msg in messages:
        if msg.role not in ("user", "assistant"):
            continue
        with st.chat_message(msg.role):
            text_block(msg.content)
            if msg.role == "assistant" and msg.id in details:
                d = details[msg.id]
                memory_panel(
                    d["hits"],
                    d["budget"],
                    d["writes"],
                    d.get("composed"),
                    d.get("params"),
                    retrieval_id=d.get("retrieval_id"),
                )
else:
    st.info("No session yet: your first message starts one.", icon=":material/waving_hand:")

if not can(Role.CURATOR):  # the agent writes memories from what is said here: chatting is a curator's right
    st.caption(":material/visibility: Read-only: chatting as this user needs the curator role.")
    st.stop()
prompt = st.chat_input("Message the agent…  (English or 中文)", key="chat_input")
if prompt:
    session_name = session.external_id if session else new_session_id()
    with st.chat_message("user"):
        text_block(prompt)
    with st.chat_message("assistant"):
        try:
            stream = agent().stream(user.external_id, session_name, prompt, actor=current_actor())
            shown, so_far = st.empty(), ""
            for piece in stream:  # streamed as plain text: a reply may quote the user's text
                so_far += piece
                shown.text(so_far)
        except MemLensError as exc:
            st.error(plain(exc))
            st.stop()
        if stream.result is not None:
            hits, budget, writes, params = live_details(stream.result)
            memory_panel(hits, budget, writes, views.turn_composed(svc.storage, stream.result.turn_id), params)
    if session is None:
        st.rerun()  # the sidebar picks the new session up as the newest one
