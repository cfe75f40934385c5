"""Profile: the user's core profile (editable, every edit logged), its change log as a timeline, and statistics."""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.express as px
import streamlit as st

from memory import views
from memory.errors import MemLensError
from memory.profile import FIELDS, LIST_FIELDS
from memory.text.display import plural
from memory.vocab import Role
from pages.common import (
    ago,
    can,
    current_actor,
    empty,
    fmt,
    label,
    page_title,
    plain,
    require_user,
    service,
    short,
    when,
)

SOURCE_COLORS = {"user-stated": "#2e7d32", "person-edit": "#6a1b9a", "inferred": "#ef6c00", "system": "#607d8b"}

svc = service()
user = require_user()

page_title("Profile", user)
st.caption(
    f"Core profile of **{plain(short(user.external_id, 60))}** — explicit fields the agent loads on every turn; each "
    "value is linked to the memory that states it, so correcting one corrects the other."
)

fields = views.profile_fields(svc.storage, user.key)
changes = views.profile_changes(svc.storage, user.key)


def _save() -> None:
    field = st.session_state["pf_field"]
    raw = st.session_state.get("pf_value", "").strip()
    value: Any = [v.strip() for v in raw.replace("，", ",").split(",") if v.strip()] if field in LIST_FIELDS else raw
    reason = st.session_state.get("pf_reason", "").strip() or "edited in the back office"
    try:
        svc.update_profile(user.external_id, field, value or None, actor=current_actor(), reason=reason)
    except (MemLensError, ValueError) as exc:
        st.session_state["pf_error"] = str(exc)
        return
    st.session_state["pf_saved"] = f"{label(field)} saved"
    st.session_state["pf_value"] = ""
    st.session_state["pf_reason"] = ""


left, right = st.columns([5, 2], gap="large")
with left:
    st.subheader("Core profile", anchor=False)
    if fields:
        table = pd.DataFrame(
            [
                {
                    "Field": label(f["field"]),
                    "Value": fmt(f["value"]),
                    "Confidence": f["confidence"],
                    "Source": label(f["source"]),
                    "Said": f["said"] or "—",
                    "Updated": ago(f["updated_at"]),
                }
                for f in fields
            ]
        )
        st.dataframe(
            table,
            hide_index=True,
            key="pf_table",
            column_config={  # wide enough for a value and a source said in words, never cut mid-word
                "Field": st.column_config.TextColumn("Field", width=110),
                "Value": st.column_config.TextColumn("Value", width=230),
                "Source": st.column_config.TextColumn("Source", width=170),
                "Said": st.column_config.TextColumn("What was said", width=230),
                "Updated": st.column_config.TextColumn("Updated", width=100),
                "Confidence": st.column_config.ProgressColumn(
                    "Confidence", min_value=0.0, max_value=1.0, format="%.2f", width=110
                ),
            },
        )
    else:
        empty("No profile fields yet.", "Tell the agent your name or city in the chat, or set a field here.")


def _edit_form() -> None:
    with st.form("pf_form", border=True):
        field = st.selectbox("Field", FIELDS, key="pf_field", format_func=label)
        current = next((f["value"] for f in fields if f["field"] == field), None)
        st.text_input(
            "New value",
            key="pf_value",
            placeholder=fmt(current) if current else "e.g. Hangzhou / 杭州",
            help="Lists (interests, dietary): separate items with commas.",
        )
        st.text_input("Reason (logged)", key="pf_reason", placeholder="e.g. user corrected this on the phone")
        st.form_submit_button("Save", icon=":material/save:", type="primary", on_click=_save)
    if msg := st.session_state.pop("pf_saved", None):
        st.success(msg, icon=":material/check:")
    if err := st.session_state.pop("pf_error", None):
        st.error(plain(err))


with right:
    st.subheader("Edit a field", anchor=False)
    if can(Role.CURATOR):  # viewers get no form; the service checks the role again
        _edit_form()
    else:
        st.caption(":material/visibility: Read-only: editing the profile needs the curator role.")

st.subheader("Change log", anchor=False)
if changes:
    frame = pd.DataFrame(
        [
            {**c, "old": fmt(c["old"]), "new": fmt(c["new"]), "field": label(c["field"]), "source": label(c["source"])}
            for c in changes
        ]
    )
    frame["at"] = pd.to_datetime(frame["at"], utc=True)
    fig = px.scatter(
        frame,
        x="at",
        y="field",
        color="source",
        title="When each profile field changed, and who changed it",
        color_discrete_map={label(k): v for k, v in SOURCE_COLORS.items()},
        hover_data={"old": True, "new": True, "reason": True, "by": True},
        height=260,
    )
    fig.update_traces(marker={"size": 12, "line": {"width": 1, "color": "white"}})
    span = frame["at"].max() - frame["at"].min()
    pad = max(span * 0.08, pd.Timedelta(hours=6))  # real time, never a two-second axis
    fig.update_layout(
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
        legend_title_text="",
        xaxis_title=None,
        yaxis_title=None,
        xaxis_range=[frame["at"].min() - pad, frame["at"].max() + pad],
    )
    st.plotly_chart(fig, key="pf_timeline")
    for c in changes[:30]:
        by = f" · by {plain(short(c['by'], 60))}" if c.get("by") else ""
        st.markdown(
            f"{when(c['at'])} · **{label(c['field'])}**: ~~{plain(short(fmt(c['old']), 60))}~~ → "
            f"**{plain(short(fmt(c['new']), 80))}** · :gray-badge[{label(c['source'])}]{by} · "
            f"{plain(short(c['reason'], 120))}"
        )
else:
    empty("No profile changes logged yet.")

st.subheader("Statistics", anchor=False)
counts = views.memory_counts(svc.storage, user.key)
stats: dict[str, Any] = svc.lifecycle.user_stats(user.external_id)
cols = st.columns(5)
cols[0].metric("Active memories", counts["status"].get("active", 0), border=True)
cols[1].metric("Superseded", counts["status"].get("superseded", 0), border=True)
cols[2].metric("Profile fields", len(fields), border=True)
cols[3].metric("Profile changes", len(changes), border=True)
junk = svc.desk.hygiene_review(user.external_id)  # the Audit desk's review queue (memory.desk.hygiene)
rate = junk.junk_rate(user.external_id)
cols[4].metric(
    "Junk rate",
    "—" if rate is None else f"{rate:.1%}",
    border=True,
    help=f"Share of active memories the hygiene review queue accuses ({len(junk.findings)} findings): see Audit desk.",
)
if counts["type"]:
    by_type = pd.DataFrame({"kind": [label(t) for t in counts["type"]], "memories": list(counts["type"].values())})
    bars = px.bar(  # plotly: the app's one chart library
        by_type, x="memories", y="kind", orientation="h", height=240, title="Memories by kind"
    )
    bars.update_layout(margin={"l": 0, "r": 0, "t": 40, "b": 0}, yaxis_title=None)
    st.plotly_chart(bars, key="pf_by_type")
scalars = {k: v for k, v in stats.items() if isinstance(v, int | float | str) and not isinstance(v, bool)}
if scalars:
    grid = st.columns(min(4, len(scalars)))
    for n, (name, value) in enumerate(scalars.items()):
        grid[n % len(grid)].metric(label(name), fmt(value, 2) if isinstance(value, float) else value)
for name, value in stats.items():
    if isinstance(value, dict) and value:
        st.markdown(f"**{label(name)}** · {plural(len(value), 'entry', 'entries')}")
        st.dataframe(
            pd.DataFrame({"What": [label(k) for k in value], "Count": [fmt(v) for v in value.values()]}),
            hide_index=True,
        )
    elif isinstance(value, list) and value and isinstance(value[0], dict):
        st.markdown(f"**{label(name)}**")
        st.dataframe(pd.DataFrame([{label(k): fmt(v) for k, v in row.items()} for row in value]), hide_index=True)
