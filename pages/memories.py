"""Memories ("recent writes"): every write decision with its reason, paginated in SQL, and a person's corrections."""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from memory import views
from memory.errors import MemLensError
from memory.lifecycle import curation
from memory.storage.models import MEMORY_TYPES, STATUSES
from memory.vocab import EventOp, MemoryStatus
from pages.common import current_actor, empty, fmt, op_badge, require_user, service, short, when

PAGE_SIZE = 25
OPS = tuple(EventOp)

svc = service()
user = require_user()
if user is None:
    st.stop()

st.title("Memories", anchor=False)
st.caption(
    "Every write the agent (or a person) made for this user: the decision, its reason, and where it came from. "
    "Content is shown as stored, with personal data masked."
)

counts = views.memory_counts(svc, user.key)["status"]
m = st.columns(4)
m[0].metric("Active", counts.get("active", 0), border=True)
m[1].metric("Superseded", counts.get("superseded", 0), border=True)
m[2].metric("Archived", counts.get("archived", 0), border=True)
m[3].metric("Deleted", counts.get("deleted", 0), border=True)


def _reset_page() -> None:
    st.session_state["mem_page"] = 1


with st.container(border=True):
    f = st.columns([2, 2, 2, 2, 3])
    ops = f[0].multiselect("Decision", OPS, key="mem_ops", on_change=_reset_page, placeholder="any")
    types = f[1].multiselect("Type", MEMORY_TYPES, key="mem_types", on_change=_reset_page, placeholder="any")
    statuses = f[2].multiselect("Status now", STATUSES, key="mem_statuses", on_change=_reset_page, placeholder="any")
    vias = f[3].multiselect(
        "Came through",
        views.event_vias(svc, user.key),
        key="mem_vias",
        on_change=_reset_page,
        placeholder="any",
        help="The door a write came from: the built-in agent and back office, api:<key name>, mcp, langgraph, python.",
    )
    search = f[4].text_input(
        "Search content or reason", key="mem_search", on_change=_reset_page, placeholder="e.g. spicy / 杭州"
    )

flt = views.WriteFilter(ops=ops, types=types, statuses=statuses, search=search, vias=vias)
page_no = int(st.session_state.get("mem_page") or 1)
rows, total = views.write_log(svc, user.key, flt, limit=PAGE_SIZE, offset=(page_no - 1) * PAGE_SIZE)
pages = max(1, math.ceil(total / PAGE_SIZE))
if page_no > pages:  # filters shrank the result under the current page
    page_no = st.session_state["mem_page"] = 1
    rows, total = views.write_log(svc, user.key, flt, limit=PAGE_SIZE, offset=0)

if not total:
    empty("No writes match." if (ops or types or statuses or search or vias) else "No writes yet for this user.")
    st.stop()

st.caption(f"{total:,} writes · page {page_no} of {pages:,} · newest first")
frame = pd.DataFrame(rows)
frame["content"] = frame["content"].map(lambda c: short(c, 140))
by_id = {r["event_id"]: r for r in rows}


def _picked_from_table() -> None:
    sel = st.session_state.get("mem_table", {}).get("selection", {}).get("rows", [])
    if sel:
        st.session_state["mem_pick"] = rows[sel[0]]["event_id"]


st.dataframe(
    frame,
    hide_index=True,
    key="mem_table",
    on_select=_picked_from_table,
    selection_mode="single-row",
    column_order=["at", "op", "content", "reason", "type", "confidence", "importance", "status", "source", "via"],
    column_config={
        "at": st.column_config.DatetimeColumn("when", format="MM-DD HH:mm", width="small"),
        "op": st.column_config.TextColumn("decision", width="small"),
        "via": st.column_config.TextColumn("came through", width="small"),
        "content": st.column_config.TextColumn("content (masked)", width="large"),
        "reason": st.column_config.TextColumn("reason", width="medium"),
        "confidence": st.column_config.ProgressColumn("confidence", min_value=0.0, max_value=1.0, format="%.2f"),
        "importance": st.column_config.ProgressColumn("importance", min_value=0.0, max_value=1.0, format="%.2f"),
    },
)
if pages > 1:
    st.pagination(pages, key="mem_page")

if st.session_state.get("mem_pick") not in by_id:
    st.session_state["mem_pick"] = rows[0]["event_id"]
pick = st.selectbox(
    "Open a write",
    list(by_id),
    key="mem_pick",
    format_func=lambda i: f"#{i} · {by_id[i]['op']} · {short(by_id[i]['content'], 90)}",
)
row = by_id[pick]


def _act(action: str, memory_id: str) -> None:
    text = st.session_state.get("mem_new_text", "").strip()
    reason = st.session_state.get("mem_reason", "").strip() or "corrected in the back office"
    who = current_actor()
    try:
        if action == "edit":
            curation.edit_memory(svc, memory_id, text, actor=who, reason=reason)
        elif action == "supersede":
            curation.supersede_memory(svc, memory_id, text, actor=who, reason=reason)
        elif action == "delete":
            curation.delete_memory(svc, memory_id, actor=who, reason=reason)
        else:
            curation.flag_memory(svc, memory_id, actor=who, reason=reason)
    except (MemLensError, ValueError) as exc:
        st.session_state["mem_msg"] = ("error", str(exc))
        return
    st.session_state["mem_msg"] = ("ok", f"{action} done")
    st.session_state["mem_new_text"] = ""


by = f" ({row['by']})" if row["by"] else ""
with st.container(border=True):
    st.markdown(f"{op_badge(row['op'])} **{row['content']}**")
    st.caption(
        f"{when(row['at'])} · reason: {row['reason'] or '—'} · type {fmt(row['type'])} · "
        f"confidence {fmt(row['confidence'], 2)} · importance {fmt(row['importance'], 2)} · "
        f"status {fmt(row['status'])}{' · ⚑ flagged' if row['flagged'] else ''} · source {fmt(row['source'])} · "
        f"came through {fmt(row['via'])}{by} · agent {fmt(row['agent'])}"
    )
    src, act = st.tabs([":material/forum: Source message", ":material/edit: Correct"])
    with src:
        ctx = views.message_with_context(svc, row["message_id"]) if row["message_id"] else None
        if ctx is None:
            st.caption("No source message (a person's edit or a system action).")
        else:
            st.caption(f"session {short(ctx['session'], 50)}")
            for msg in ctx["thread"]:
                with st.chat_message(msg["role"] if msg["role"] in ("user", "assistant") else "ai"):
                    st.markdown(("**▶ source** · " if msg["is_source"] else "") + msg["content"])
    with act:
        if row["memory_id"] and row["status"] == MemoryStatus.ACTIVE:
            st.text_area("New text (for edit or supersede)", key="mem_new_text", height=80)
            st.text_input("Reason (logged)", key="mem_reason")
            b = st.columns(4)
            for n, (label, action, icon) in enumerate(
                [
                    ("Edit", "edit", ":material/edit:"),
                    ("Supersede", "supersede", ":material/swap_horiz:"),
                    ("Delete", "delete", ":material/delete:"),
                    ("Flag as wrong", "flag", ":material/flag:"),
                ]
            ):
                b[n].button(
                    label,
                    key=f"mem_{action}",
                    icon=icon,
                    on_click=_act,
                    args=(action, row["memory_id"]),
                    width="stretch",
                )
        else:
            st.caption(f"This memory is {fmt(row['status'])}: nothing to correct.")
    if note := st.session_state.pop("mem_msg", None):
        (st.success if note[0] == "ok" else st.error)(note[1])
