"""Memories ("recent writes"): every write decision with its reason, paginated in SQL, and a person's corrections."""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from memory import views
from memory.errors import MemLensError
from memory.storage.models import MEMORY_TYPES, STATUSES
from memory.text.display import plural, reason_text
from memory.vocab import SEMANTIC_TYPES, EventOp, MemoryStatus, MemoryType, Role
from pages.common import (
    can,
    current_actor,
    empty,
    fmt,
    op_badge,
    page_title,
    plain,
    require_user,
    service,
    short,
    text_block,
    when,
)

PAGE_SIZE = 25
OPS = tuple(EventOp)

svc = service()
user = require_user()

page_title("Memories", user)
st.caption(
    "Every write the agent (or a person) made for this user: the decision, its reason, and where it came from. "
    "Content is shown as stored, with personal data masked."
)

all_counts = views.memory_counts(svc.storage, user.key)
counts, by_type = all_counts["status"], all_counts["type"]
episodes = by_type.get(MemoryType.EPISODE, 0)
m = st.columns(6)
m[0].metric(
    "Facts & preferences",
    sum(by_type.values()) - episodes,
    border=True,
    help="Active, read from what was said (facts, preferences, events, and summaries folded from old episodes)",
)
m[1].metric("Episodes", episodes, border=True, help="Active: every message kept as said, with its speaker and time")
m[2].metric("Superseded", counts.get("superseded", 0), border=True)
m[3].metric("Archived", counts.get("archived", 0), border=True)
m[4].metric("Deleted", counts.get("deleted", 0), border=True)
m[5].metric("All active", counts.get("active", 0), border=True)


aside = svc.set_aside_writes(user.external_id)
if aside:
    with st.expander(f"Set aside · {len(aside)} message(s) whose write failed", expanded=True):
        st.caption(
            "The write of these messages failed; they were set aside so the user's later messages still write. "
            "Retry one once the cause is fixed (curator; audited)."
        )
        st.dataframe(
            pd.DataFrame(aside)[["message_id", "said_at", "text", "error"]],
            hide_index=True,
            key="mem_aside",
            column_config={"said_at": st.column_config.DatetimeColumn("said", format="YYYY-MM-DD HH:mm")},
        )
        if can(Role.CURATOR):
            retry_id = st.selectbox("Message", [a["message_id"] for a in aside], key="mem_aside_pick")
            if st.button("Retry its write", key="mem_aside_retry", icon=":material/replay:"):
                try:
                    svc.retry_write(user.external_id, int(retry_id), actor=current_actor())
                except MemLensError as exc:
                    st.error(plain(exc))
                except Exception as exc:  # noqa: BLE001 - the write failed again: it is set aside with the new error
                    st.error(f"The write failed again and stays set aside: {type(exc).__name__}")
                else:
                    st.toast("Written.")
                    st.rerun()


def _reset_page() -> None:
    st.session_state["mem_page"] = 1


LAYERS = {"Both layers": None, "Facts & preferences": SEMANTIC_TYPES, "Episodes (what was said)": (MemoryType.EPISODE,)}
with st.container(border=True):
    layer = st.segmented_control(
        "Layer",
        list(LAYERS),
        default="Both layers",
        key="mem_layer",
        on_change=_reset_page,
        label_visibility="collapsed",
    )
    f = st.columns([2, 2, 2, 2, 3])
    ops = f[0].multiselect("Decision", OPS, key="mem_ops", on_change=_reset_page, placeholder="any")
    types = f[1].multiselect("Type", MEMORY_TYPES, key="mem_types", on_change=_reset_page, placeholder="any")
    statuses = f[2].multiselect("Status now", STATUSES, key="mem_statuses", on_change=_reset_page, placeholder="any")
    vias = f[3].multiselect(
        "Came through",
        views.event_vias(svc.storage, user.key),
        key="mem_vias",
        on_change=_reset_page,
        placeholder="any",
        help="The door a write came from: the built-in agent and back office, api:<key name>, mcp, langgraph, python.",
    )
    search = f[4].text_input(
        "Search content or reason", key="mem_search", on_change=_reset_page, placeholder="e.g. spicy / 杭州"
    )

lane = LAYERS.get(layer or "Both layers")
if lane is not None:  # the lane narrows the type filter (or is it, when no type is picked)
    types = [t for t in types if t in lane] if types else list(lane)
flt = views.WriteFilter(ops=ops, types=types, statuses=statuses, search=search, vias=vias)
page_no = int(st.session_state.get("mem_page") or 1)
rows, total = views.write_log(svc.storage, user.key, flt, limit=PAGE_SIZE, offset=(page_no - 1) * PAGE_SIZE)
pages = max(1, math.ceil(total / PAGE_SIZE))
if page_no > pages:  # filters shrank the result under the current page
    page_no = st.session_state["mem_page"] = 1
    rows, total = views.write_log(svc.storage, user.key, flt, limit=PAGE_SIZE, offset=0)

if not total:
    empty("No writes match." if (ops or types or statuses or search or vias) else "No writes yet for this user.")
    st.stop()

st.caption(f"{plural(total, 'write')} · page {page_no} of {pages:,} · newest first")
frame = pd.DataFrame(rows)
frame["content"] = frame["content"].map(lambda c: short(c, 140))
frame["reason"] = frame["reason"].map(reason_text)  # ids in a reason shortened to a reference
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
        "at": st.column_config.DatetimeColumn("when", format="D MMM, HH:mm", width="small"),
        "op": st.column_config.TextColumn("decision", width="small"),
        "via": st.column_config.TextColumn("came through", width="small"),
        "content": st.column_config.TextColumn("content (masked)", width="large"),
        "reason": st.column_config.TextColumn("reason", width="large"),
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
    """One person correction through the service, as the current actor; a delete offers its undo."""
    text = st.session_state.get("mem_new_text", "").strip()
    reason = st.session_state.get("mem_reason", "").strip() or "corrected in the back office"
    who = current_actor()
    ops = {
        "edit": lambda: svc.edit_memory(memory_id, text, actor=who, reason=reason),
        "supersede": lambda: svc.supersede_memory(memory_id, text, actor=who, reason=reason),
        "delete": lambda: svc.delete_memory(memory_id, actor=who, reason=reason),
        "flag": lambda: svc.flag_memory(memory_id, actor=who, reason=reason),
        "unflag": lambda: svc.unflag_memory(memory_id, actor=who, reason=reason),
        "restore": lambda: svc.restore_memory(memory_id, actor=who, reason=reason),
    }
    st.session_state.pop("mem_confirm", None)
    try:
        ops[action]()
    except (MemLensError, ValueError) as exc:
        st.session_state["mem_msg"] = ("error", str(exc))
        return
    st.session_state["mem_msg"] = ("ok", f"{action} done")
    st.session_state["mem_undo"] = memory_id if action == "delete" else None
    st.session_state["mem_new_text"] = ""


def _confirm(memory_id: str | None) -> None:
    st.session_state["mem_confirm"] = memory_id


def _corrections(row: dict) -> None:
    """What a person can do with this memory now: correct it (active), unflag it (flagged), restore it (deleted)."""
    mid, status = row["memory_id"], row["status"]
    if mid and status == MemoryStatus.ACTIVE:
        st.text_area("New text (for edit or supersede)", key="mem_new_text", height=80)
        st.text_input("Reason (logged)", key="mem_reason")
        b = st.columns(4)
        b[0].button("Edit", key="mem_edit", icon=":material/edit:", on_click=_act, args=("edit", mid), width="stretch")
        b[1].button(
            "Supersede", key="mem_supersede", icon=":material/swap_horiz:", on_click=_act, args=("supersede", mid)
        )
        if row["flagged"]:
            b[2].button(
                "Unflag", key="mem_unflag", icon=":material/outlined_flag:", on_click=_act, args=("unflag", mid)
            )
        else:
            b[2].button("Flag as wrong", key="mem_flag", icon=":material/flag:", on_click=_act, args=("flag", mid))
        b[3].button("Delete…", key="mem_delete", icon=":material/delete:", on_click=_confirm, args=(mid,))
        if st.session_state.get("mem_confirm") == mid:
            with st.container(border=True):
                st.warning(
                    f"Delete this memory of **{plain(short(user.external_id, 40))}**? The agent stops using it at "
                    "once; you can restore it until it is purged.",
                    icon=":material/warning:",
                )
                c = st.columns(2)
                c[0].button("Delete", key="mem_delete_yes", type="primary", on_click=_act, args=("delete", mid))
                c[1].button("Cancel", key="mem_delete_no", on_click=_confirm, args=(None,))
    elif mid and status in (MemoryStatus.DELETED, MemoryStatus.ARCHIVED):
        st.caption(f"This memory is {fmt(status)}: restore it to use it again.")
        st.text_input("Reason (logged)", key="mem_reason")
        st.button("Restore", key="mem_restore", icon=":material/restore:", on_click=_act, args=("restore", mid))
    else:
        st.caption(f"This memory is {fmt(status)}: nothing to correct.")


def _words_it_came_from(memory_id: str | None) -> None:
    """One click from a fact, preference or event: the words it came from, as said (plain text: user text is data).
    The sentence read first, then each source message whole (a reinforced memory has several)."""
    words = views.source_words(svc.storage, memory_id) if memory_id else None
    if words is None:
        return
    n = len(words["messages"])
    label = "Words it came from" + (f" · {n} messages" if n > 1 else "")
    with st.popover(label, icon=":material/format_quote:"):
        if words["evidence"]:
            st.caption("The words read")
            text_block(words["evidence"])
        if words["in_answer_to"]:
            st.caption("In answer to")
            text_block(words["in_answer_to"])
        for msg in words["messages"]:
            st.caption(f"{fmt(msg['role'])} · {when(msg['at'])} · message {msg['id']}")
            text_block(msg["content"])
        if not n:
            st.caption("Its source message is gone (erased or purged).")


by = f" ({row['by']})" if row["by"] else ""
with st.container(border=True):
    st.markdown(op_badge(row["op"]))
    text_block(row["content"])
    _words_it_came_from(row["memory_id"])
    st.caption(
        f"{when(row['at'])} · reason: {plain(reason_text(row['reason']))} · type {fmt(row['type'])} · "
        f"confidence {fmt(row['confidence'], 2)} · importance {fmt(row['importance'], 2)} · "
        f"status {fmt(row['status'])}{' · ⚑ flagged' if row['flagged'] else ''} · source {fmt(row['source'])} · "
        f"came through {plain(fmt(row['via']))}{plain(by)} · agent {plain(fmt(row['agent']))}"
    )
    for line in svc.memory_links(row["memory_id"]) if row["memory_id"] else []:  # both layers, in words
        st.caption(":material/link: " + plain(line))
    curator = can(Role.CURATOR)  # viewers read; the service refuses their corrections anyway
    tabs = st.tabs([":material/forum: Source message"] + ([":material/edit: Correct"] if curator else []))
    with tabs[0]:
        ctx = (
            views.message_with_context(svc.storage, row["message_id"], user_key=user.key) if row["message_id"] else None
        )
        if ctx is None:
            st.caption("No source message (a person's edit or a system action).")
        else:
            st.caption(f"session {plain(short(ctx['session'], 50))}")
            for msg in ctx["thread"]:
                with st.chat_message(msg["role"] if msg["role"] in ("user", "assistant") else "ai"):
                    if msg["is_source"]:
                        st.caption("▶ source")
                    text_block(msg["content"])
    if curator:
        with tabs[1]:
            _corrections(row)
    else:
        st.caption(":material/visibility: Read-only: correcting memories needs the curator role.")
    if note := st.session_state.pop("mem_msg", None):
        (st.success if note[0] == "ok" else st.error)(plain(note[1]))
    if undo := st.session_state.pop("mem_undo", None):
        st.button(
            "Undo (restore it)", key="mem_undo_btn", icon=":material/undo:", on_click=_act, args=("restore", undo)
        )
