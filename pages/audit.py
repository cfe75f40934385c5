"""Audit: every person action — sign-ins, edits, flags, deletes, exports, erasures, settings, accounts — newest first.

Admins only (registered for them alone in ``backoffice.py``). Filters: who, what, and on which user; a user is matched
by the hash of the id typed, so actions on an erased user are still found (their id and free text are gone). Page keys
are prefixed ``au_``."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from memory import audit
from memory.vocab import AuditAction, Role
from pages.common import current_actor, service

svc = service()
if not Role(current_actor().role).allows(Role.ADMIN):
    st.error("The audit trail needs the admin role.", icon=":material/lock:")
    st.stop()

st.title("Audit", anchor=False)
st.caption("Who did what, to which user and ids, when, and why. Erased users keep their rows without their id.")

c = st.columns([2, 2, 3, 1])
who = c[0].selectbox("Actor", ["(anyone)", *svc.people.audit_actors()], key="au_actor")
what = c[1].selectbox("Action", ["(any)", *[a.value for a in AuditAction]], key="au_action")
user_id = c[2].text_input("User id", key="au_user", placeholder="exact id, also of an erased user")
limit = c[3].number_input("Rows", 10, 5000, 500, step=100, key="au_limit")

rows = svc.people.audit_events(
    actor=None if who == "(anyone)" else who,
    action=None if what == "(any)" else what,
    user_id=user_id.strip() or None,
    limit=int(limit),
)
if not rows:
    st.info("No audit events match.", icon=":material/inbox:")
    st.stop()
frame = pd.DataFrame(
    [
        {
            **(d := audit.to_dict(r)),
            "at": r.at,
            "user": d["user_id"] or (f"(erased) {d['user_hash'][:12]}" if d["user_hash"] else ""),
            "targets": ", ".join(d["target_ids"]),
        }
        for r in rows
    ]
)
st.dataframe(
    frame,
    hide_index=True,
    key="au_table",
    column_order=["at", "actor", "role", "via", "action", "user", "targets", "reason"],
    column_config={"at": st.column_config.DatetimeColumn("when", format="YYYY-MM-DD HH:mm:ss")},
)
st.caption(f"{len(rows)} events · also on the command line: `memlens audit [--actor A] [--user U] --json`")
