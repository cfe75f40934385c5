"""Sessions & bridges: a user's sessions on a timeline, each one's summary anchors, and the bridges linking them."""

from __future__ import annotations

from datetime import timedelta

import pandas as pd
import plotly.express as px
import streamlit as st

from memory import views
from memory.text.display import plural
from memory.vocab import SessionStatus
from pages.common import empty, page_title, plain, require_user, service, short, when

STATUS_COLORS = {SessionStatus.ACTIVE: "#3949ab", SessionStatus.ENDED: "#90a4ae"}

svc = service()
user = require_user()

page_title("Sessions & bridges", user)
st.caption(
    "Long sessions fold older messages into summary anchors; when a session ends, a bridge carries its gist "
    "into the next one, so the agent can say *last time we…*."
)

sessions = views.sessions_overview(svc.storage, user.key)
if not sessions:
    empty("No sessions yet.")
    st.stop()

links = [b for s in sessions for b in s["bridge_out"]]
m = st.columns(4)
m[0].metric("Sessions", len(sessions), border=True)
m[1].metric("Messages", sum(s["messages"] for s in sessions), border=True)
m[2].metric("Summary anchors", sum(len(s["anchors"]) for s in sessions), border=True)
m[3].metric("Bridges", len(links), border=True)

#: a session lasts minutes, the axis spans days: each bar is at least 1/80 of the span wide so it reads as a bar
first, last = min(s["started_at"] for s in sessions), max(s["last_activity_at"] for s in sessions)
least = max((last - first) / 80, timedelta(minutes=20))
frame = pd.DataFrame(
    [
        {
            "session": short(s["session"], 40),
            "start": s["started_at"],
            "end": max(s["ended_at"] or s["last_activity_at"], s["started_at"] + least),
            "status": s["status"],
            "messages": s["messages"],
        }
        for s in sessions
    ]
)
fig = px.timeline(
    frame,
    x_start="start",
    x_end="end",
    y="session",
    color="status",
    color_discrete_map=STATUS_COLORS,
    hover_data={"messages": True},
    title="When each session happened (hover a bar for its times and messages)",
)
fig.update_layout(
    height=min(120 + 36 * len(sessions), 460),
    margin={"l": 10, "r": 10, "t": 40, "b": 10},
    yaxis_title=None,
    legend_title_text="",
)
st.plotly_chart(fig, key="ss_timeline")

if links:
    st.subheader("Links", anchor=False)
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "from": short(b["from"], 40),
                    "to": short(b["to"] or "(next session)", 40),
                    "bridge": b["text"],
                    "tokens": b["tokens"],
                    "used": "yes" if b["injected_at"] else "not yet",
                }
                for b in links
            ]
        ),
        hide_index=True,
        key="ss_links",
        column_config={"bridge": st.column_config.TextColumn(width="large")},
    )

st.subheader("Sessions, newest first", anchor=False)
for n, s in enumerate(sessions):
    state = "open" if s["status"] == SessionStatus.ACTIVE else "ended"
    with st.expander(
        f"{plain(short(s['session'], 60))} · {state} · {when(s['started_at'])} · {plural(s['messages'], 'message')}",
        icon=":material/radio_button_checked:" if state == "open" else ":material/radio_button_unchecked:",
        expanded=n == 0,
    ):
        for b in s["bridge_in"]:
            st.info(
                f"**Opened with the bridge from {plain(short(b['from'], 40))}:** "
                f"{plain(b['text']) if b['text'].strip() else '— (nothing left after later corrections)'}",
                icon=":material/login:",
            )
        if s["anchors"]:
            st.markdown("**Summary anchors**")
            for a in s["anchors"]:
                st.markdown(
                    f":violet-badge[messages #{a['from']}–#{a['to']}] {plain(a['text'])} :gray[({a['tokens']} tok)]"
                )
        else:
            st.caption("No summary anchor: the session fit in the window.")
        said = views.conversation(svc.storage, s["id"]) if n < 5 else []
        if said:
            st.markdown("**What was said, and what was kept of it**")
            st.dataframe(
                [
                    {
                        "when": when(r["at"]),
                        "speaker": r["speaker"],
                        "said": short(r["text"], 160),
                        "episode": short(r["episodes"][0], 12) if r["episodes"] else "—",
                        "facts read": r["facts"],
                        "kept as": r["kept as"],
                    }
                    for r in said
                ],
                hide_index=True,
                column_config={"said": st.column_config.TextColumn(width="large")},
            )
        for b in s["bridge_out"]:
            st.success(
                f"**Bridge to {plain(short(b['to'] or 'the next session', 40))}:** {plain(b['text'])}",
                icon=":material/logout:",
            )
