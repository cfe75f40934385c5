"""Context budget: per turn, each prompt section's budget against its use, what was dropped, and the trend."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from memory import views
from pages.common import SECTION_COLORS, current_session, empty, page_title, plain, require_user, service, short, when

svc = service()
user = require_user()

page_title("Context budget", user)
st.caption(
    "Every turn the composer fills the prompt inside window − reserved reply: system → profile → bridge → "
    "summary → memories → history → input. Here is what each section was given, what it used, and what "
    "did not fit."
)

sessions = views.sessions_overview(svc.storage, user.key)
if not sessions:
    empty("No sessions yet.")
    st.stop()
picked = current_session(user)
names = {s["id"]: s["session"] for s in sessions}
default = picked.id if picked and picked.id in names else sessions[0]["id"]
if st.session_state.get("cb_session") not in names:
    st.session_state["cb_session"] = default
sid = st.selectbox("Session", list(names), key="cb_session", format_func=lambda i: short(names[i], 60))
snaps = views.context_snapshots(svc.storage, sid)
if not snaps:
    empty("No turns recorded in this session yet.", "Chat in it first (or run `memlens seed-demo`).")
    st.stop()

turns = [s["turn"] for s in snaps]
turn = st.select_slider("Turn", turns, value=turns[-1], key=f"cb_turn_{sid}") if len(turns) > 1 else turns[0]
snap = snaps[turns.index(turn)]
secs = snap["sections"]
dropped = sum(s["dropped"] for s in secs)

m = st.columns(4)
m[0].metric("Budget", f"{snap['total_budget']:,} tok", border=True)
m[1].metric("Used", f"{snap['total_used']:,} tok", border=True)
m[2].metric("Fill", f"{snap['total_used'] / max(snap['total_budget'], 1):.0%}", border=True)
m[3].metric("Items dropped", dropped, border=True)

left, right = st.columns([3, 2], gap="large")
with left:
    st.subheader(f"Turn {turn} · {when(snap['at'])}", anchor=False)
    if secs:
        names_ = [s["name"] for s in secs]
        fig = go.Figure()
        fig.add_bar(
            y=names_,
            x=[s["budget"] for s in secs],
            name="budget",
            orientation="h",
            marker_color="#e3e7f1",
            hovertemplate="%{y}: budget %{x} tokens<extra></extra>",
        )
        fig.add_bar(
            y=names_,
            x=[s["used"] for s in secs],
            name="used",
            orientation="h",
            marker_color=[SECTION_COLORS.get(n, "#78909c") for n in names_],
            hovertemplate="%{y}: used %{x} tokens<extra></extra>",
        )
        fig.update_layout(
            barmode="overlay",
            height=300,
            margin={"l": 10, "r": 10, "t": 10, "b": 10},
            yaxis={"autorange": "reversed"},
            xaxis_title="tokens",
            legend_orientation="h",
        )
        st.plotly_chart(fig, key="cb_sections")
    else:
        st.caption("This snapshot has no per-section rows.")
with right:
    st.subheader("Sections", anchor=False)
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "section": s["name"],
                    "budget": s["budget"],
                    "used": s["used"],
                    "kept": s["kept"],
                    "dropped": s["dropped"],
                }
                for s in secs
            ]
        ),
        hide_index=True,
        key="cb_table",
    )
    items = [(s["name"], i) for s in secs for i in (s["dropped_items"] or [])]
    st.markdown("**Dropped for budget**")
    if items:
        for name, item in items[:30]:
            st.markdown(f":gray-badge[{name}] {plain(short(str(item), 120))}")
    else:
        st.caption("Nothing was dropped in this turn.")

st.subheader("Over the session", anchor=False)
rows = [{"turn": s["turn"], "section": c["name"], "used": c["used"]} for s in snaps for c in s["sections"]]
if rows:
    trend = go.Figure()
    frame = pd.DataFrame(rows)
    for name in dict.fromkeys(frame["section"]):
        part = frame[frame["section"] == name]
        trend.add_scatter(
            x=part["turn"],
            y=part["used"],
            name=name,
            stackgroup="used",
            mode="lines",
            line={"color": SECTION_COLORS.get(name, "#78909c"), "width": 0.5},
        )
    # the scale is the prompt's use, not the budget: a budget ten times the use would squash every line flat
    totals = frame.groupby("turn")["used"].sum()
    top = float(totals.max()) if len(totals) else 0.0
    budget = max((s["total_budget"] or 0) for s in snaps)
    title = "Tokens each prompt section used, turn by turn"
    fits = bool(budget) and budget <= top * 2
    if fits:
        trend.add_scatter(
            x=turns,
            y=[s["total_budget"] for s in snaps],
            name="budget",
            mode="lines",
            line={"color": "#c62828", "dash": "dash"},
        )
    elif budget:
        title += f" (budget {budget:,} tokens: {budget / max(top, 1):.0f}× the most a turn used)"
    trend.update_layout(
        title=title,
        height=320,
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
        xaxis_title="turn",
        yaxis_title="tokens",
        yaxis_range=[0, budget * 1.1 if fits else max(top * 1.15, 1.0)],
        legend_orientation="h",
        xaxis={"dtick": 1},
    )
    st.plotly_chart(trend, key="cb_trend")
