"""Lifecycle: what is archived and why, what will expire and when, history statistics; export and delete a user.

Thin: every figure comes from MemoryService (forget/compact dry runs, lifecycle_overview, user_stats, export_user,
delete_user); the user is the one picked in the sidebar. Page keys are prefixed ``lc_``.
"""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from memory.errors import MemLensError
from memory.vocab import Role
from pages.common import USER_KEY, can, current_actor, page_title, require_user, service
from pages.safe import plain


def _table(rows: list[dict], columns: list[str]) -> None:
    if rows:
        st.dataframe(pd.DataFrame(rows)[columns], hide_index=True, width="stretch")
    else:
        st.caption("Nothing here.")


svc = service()
picked = require_user()
page_title("Lifecycle", picked)
user = picked.external_id
st.caption("What is remembered, what will be forgotten and why; take everything out, or delete it for good.")

stats = svc.lifecycle.user_stats(user)
cols = st.columns(4)
cols[0].metric("Sessions", stats["sessions"]["total"])
cols[1].metric("Active memories", stats["memories"].get("active", 0))
cols[2].metric("Archived", stats["memories"].get("archived", 0))
cols[3].metric("Typical budget (median)", stats["typical_budget"] if stats["typical_budget"] is not None else "—")
left, right = st.columns(2)
with left:
    st.subheader("Most frequent interests")
    _table(stats["interests"], ["value", "count", "last_seen"])
with right:
    st.subheader("Topics")
    _table(stats["topics"], ["value", "count", "last_seen"])
if stats["problems"]:
    with st.expander(f"⚠ {stats['skipped_rows']} stored rows could not be read and were skipped"):
        _table(stats["problems"], ["table", "id", "problem"])

st.header("Forgetting")
overview = svc.lifecycle.lifecycle_overview(user)
plan = svc.lifecycle.forget(user, dry_run=True).to_dict()
st.caption(
    f"{overview['active']} active facts, preferences, events and summaries · cap {overview['cap']} per user · "
    f"{overview['active_episodes']} active episodes · cap {overview['episode_cap']} · "
    f"{plan['archived']} would be archived and {plan['deleted']} deleted now"
)
tab_plan, tab_expiring, tab_archived, tab_episodes, tab_compact = st.tabs(
    ["Next forgetting run", "Will expire", "Archived", "Episodes", "Compaction"]
)
with tab_plan:
    _table(plan["actions"], ["action", "rule", "reason", "type", "content", "value"])
    if plan["actions"] and can(Role.CURATOR):
        with st.popover("Apply forgetting now…", icon=":material/auto_delete:"):
            st.caption("Archived memories can be restored on the Memories page until they are purged.")
            if st.button("Yes, apply it", key="lc_forget", type="primary"):
                done = svc.lifecycle.forget(user, actor=current_actor()).to_dict()
                st.success(f"archived {done['archived']}, deleted {done['deleted']}")
with tab_expiring:
    _table(overview["expiring"], ["expires_at", "type", "content", "why", "value"])
with tab_archived:
    _table(overview["archived"], ["archived_at", "purge_at", "type", "content", "why"])
with tab_episodes:
    st.caption(
        "Every message is kept as an episode. Episodes never fade; above their cap the least recently recalled are "
        "archived, and each session's archived episodes are folded into one summary in the speakers' own words, "
        "which recall finds like any memory."
    )
    _table(overview["folded"], ["said_on", "folded_at", "episodes", "content"])
with tab_compact:
    merges = svc.lifecycle.compact(user, dry_run=True).to_dict()
    _table(merges["merges"], ["content", "reason", "source_ids"])
    if merges["merges"] and can(Role.CURATOR):
        with st.popover("Merge these…", icon=":material/merge:"):
            st.caption("Every source is kept on the merged memory; the merged ones stay in the history.")
            if st.button("Yes, merge", key="lc_compact", type="primary"):
                st.success(
                    f"merged {svc.lifecycle.compact(user, actor=current_actor()).to_dict()['superseded']} memories"
                )

st.header("Export and delete")
if not can(Role.ADMIN):  # the service checks the role again
    st.caption(":material/lock: Exporting or deleting a user needs the admin role.")
    st.stop()
who = current_actor()
st.download_button(
    "Download everything about this user (JSON)",
    key="lc_export",
    mime="application/json",
    file_name="memlens-export.json",
    data=lambda: json.dumps(svc.lifecycle.export_user(user, actor=who), ensure_ascii=False, indent=1, sort_keys=True),
)
with st.form("lc_delete"):
    st.warning(
        "Deleting removes the user's profile, sessions, messages, memories, vectors and agent checkpoints for good."
    )
    typed = st.text_input("Type the user id to confirm", key="lc_confirm")
    if st.form_submit_button("Delete this user"):
        if typed != user:
            st.error("The id typed does not match: nothing was deleted.")
        else:
            try:
                receipt = svc.lifecycle.erase_user(user, actor=who)
            except MemLensError as exc:
                st.error(plain(exc))
            else:
                st.session_state.pop(USER_KEY, None)
                st.success(
                    f"Deleted: {receipt['totals']['sql_rows']} rows, {receipt['totals']['vectors']} vectors. Receipt "
                    f"{receipt['receipt_id'][:12]} is kept in the audit trail (Audit desk → Erasure receipts)."
                )
