"""Audit desk: why (not) retrieved, the memory-hygiene review queue, the labelled-query suite, A/B replay of any
setting, the people-and-relations graph and erasure receipts — for the user picked in the sidebar (the queue can
also cover everyone). Thin: every figure comes from ``memory.desk`` through the service, every action goes through
the service's audited operations. User text is shown as plain text. Page keys are prefixed ``dk_``.
"""

from __future__ import annotations

import json

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from memory import views
from memory.desk.graph import layout
from memory.desk.hygiene import KIND_TITLES, KINDS
from memory.desk.replay import parse_overrides
from memory.errors import MemLensError
from memory.vocab import MemoryStatus, Role
from pages import why
from pages.common import can, current_actor, empty, page_title, plain, require_user, service, short

svc = service()
user = require_user()
page_title("Audit desk", user)
st.caption(
    "Why a memory was (not) recalled, what in the store looks like junk, whether labelled queries still get their "
    "memories, what a setting would change, and who the memories are about."
)
ACTION_LABELS = {
    "merge": "Merge (keep this)",
    "flag": "Flag",
    "delete": "Delete",
    "clear": "Clear value",
    "keep": "Keep",
}


# -- why (not)? --------------------------------------------------------------------------------------------------
def why_tab() -> None:
    memories = svc.list_memories(user, limit=500)
    if not memories:
        empty("No memories to explain yet.")
        return
    c = st.columns([3, 3])
    query = c[0].text_input("Query", key="dk_why_query", placeholder="e.g. where does the user live?")
    by_id = {m.id: m for m in memories}
    pick = c[1].selectbox("Memory", list(by_id), key="dk_why_memory", format_func=lambda i: short(by_id[i].content, 90))
    if not (query or "").strip() or pick is None:
        st.info("Type a query and pick a memory: every stage of recall is shown.", icon=":material/help:")
        return
    explain_one(pick, query)


def explain_one(memory_id: str, query: str) -> None:
    why.show(svc, user, memory_id, query, key="dk_why_stages")


# -- hygiene -------------------------------------------------------------------------------------------------------
def _act(key: str, action: str, target: str | None, owner: str) -> None:
    try:
        svc.desk.hygiene_act(key, action, actor=current_actor(), user_id=owner, target=target)
    except MemLensError as exc:
        st.toast(plain(exc), icon=":material/error:")
        return
    st.toast(f"{action}: done (audited)", icon=":material/check_circle:")


def hygiene_tab() -> None:
    c = st.columns([2, 2, 4])
    everyone = c[0].toggle("All users", key="dk_hy_all")
    days = c[1].number_input("Never recalled in (days)", 1, 3650, 90, key="dk_hy_days")
    kinds = c[2].multiselect(
        "Checks", KINDS, default=list(KINDS), key="dk_hy_kinds", format_func=lambda kind: KIND_TITLES.get(kind, kind)
    )
    review = svc.desk.hygiene_review(
        None if everyone else user.external_id, never_recalled_days=float(days), kinds=kinds
    )
    counts = review.counts()
    rate = review.junk_rate(user.external_id)
    m = st.columns(4)
    m[0].metric("Findings", len(review.findings), border=True)
    m[1].metric("Junk rate (this user)", "—" if rate is None else f"{rate:.1%}", border=True)
    m[2].metric("Active memories", sum(review.active.values()), border=True)
    m[3].metric("Kept as they are", review.kept, border=True)
    st.dataframe(
        pd.DataFrame([{"check": KIND_TITLES[k], "findings": counts[k]} for k in KINDS if k in kinds]),
        hide_index=True,
        key="dk_hy_counts",
    )
    if not review.findings:
        st.success("Nothing to review.", icon=":material/verified:")
        return
    curator = can(Role.CURATOR)
    for n, f in enumerate(review.findings[:60]):
        with st.container(border=True, key=f"dk_hy_f{n}"):
            st.markdown(f"**{KIND_TITLES[f.kind]}** · {plain(short(f.user_id, 40))}")
            st.text(f.evidence)
            for mid, content in zip(f.memory_ids, f.contents, strict=False):
                row = st.columns([7, 3], vertical_alignment="center")
                row[0].text(f"{mid[:8]}  {short(content, 140)}")
                buttons = row[1].columns(max(1, len([a for a in f.actions if a != "keep"])))
                for b, action in enumerate(a for a in f.actions if a not in ("keep", "clear")):
                    buttons[b].button(
                        ACTION_LABELS[action],
                        key=f"dk_hy_{action}_{f.key}_{mid}",
                        on_click=_act,
                        args=(f.key, action, mid, f.user_id),
                        disabled=not curator,
                    )
            extra = [a for a in f.actions if a in ("keep", "clear")]
            cols = st.columns(len(extra) + 4)
            for b, action in enumerate(extra):
                cols[b].button(
                    ACTION_LABELS[action],
                    key=f"dk_hy_{action}_{f.key}",
                    on_click=_act,
                    args=(f.key, action, None, f.user_id),
                    disabled=not curator,
                )
    if len(review.findings) > 60:
        st.caption(f"The first 60 of {len(review.findings)} findings; `memlens hygiene --json` lists them all.")


# -- labels --------------------------------------------------------------------------------------------------------
def labels_tab() -> None:
    st.caption(
        "The lab's labels (and imported ones) as a regression suite: precision / recall of what would be injected "
        "under the current settings. `memlens eval labels --gate` fails a CI run on lost or wrongly gained hits."
    )
    c = st.columns([1, 1, 3])
    curator = can(Role.CURATOR)  # the service checks it too: every labelled query is searched again
    if c[0].button("Run the suite", key="dk_lb_run", icon=":material/play_arrow:", disabled=not curator):
        try:
            st.session_state["dk_lb_result"] = svc.desk.eval_labels(record=True, actor=current_actor())
        except MemLensError as exc:
            st.error(plain(exc))
    upload = c[1].file_uploader("Import labels", type=["json", "csv"], key="dk_lb_file", label_visibility="collapsed")
    if upload is not None and c[2].button("Import these labels", key="dk_lb_import", disabled=not can(Role.CURATOR)):
        try:
            fmt = "csv" if upload.name.lower().endswith(".csv") else "json"
            done = svc.desk.import_labels(upload.getvalue().decode("utf-8"), actor=current_actor(), fmt=fmt)
            st.success(f"Imported {done['labels']} labels on {done['queries']} queries.")
        except (MemLensError, UnicodeDecodeError) as exc:
            st.error(plain(exc))
    run = st.session_state.get("dk_lb_result")
    if run:
        m = st.columns(4)
        m[0].metric("Labelled queries", run["queries"], border=True)
        m[1].metric("Precision", "—" if run["precision"] is None else f"{run['precision']:.1%}", border=True)
        m[2].metric("Recall", "—" if run["recall"] is None else f"{run['recall']:.1%}", border=True)
        m[3].metric("Wrong selected", run["wrong_selected"], border=True)
    history = svc.desk.labels_history()
    if history:
        st.markdown("**History**")
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "at": h.get("at"),
                        "by": h.get("actor"),
                        "queries": h.get("queries"),
                        "precision": h.get("precision"),
                        "recall": h.get("recall"),
                        "settings": json.dumps(h.get("settings"), ensure_ascii=False),
                    }
                    for h in history
                ]
            ),
            hide_index=True,
            key="dk_lb_history",
        )


# -- A/B replay ----------------------------------------------------------------------------------------------------
def _replay(run) -> None:
    """A replay button's click (a callback: it runs with the click, so the service's role check decides even when
    the role changed since the page was drawn); the result or the refusal is kept for the run that follows."""
    try:
        st.session_state["dk_rp_out"] = run()
    except MemLensError as exc:
        st.session_state["dk_rp_error"] = str(exc)


def _replay_button(where, label: str, key: str, run, curator: bool) -> None:
    """Both replays are one kind of button: a curator's bulk action (greyed for others; the service checks the role
    too) whose click runs ``run`` through :func:`_replay`."""
    where.button(label, key=key, icon=":material/compare_arrows:", disabled=not curator, on_click=_replay, args=(run,))


def _ab() -> dict:
    """Read from the widgets' state at the click (a callback's args would hold the previous run's values)."""
    state = st.session_state
    changes = parse_overrides([p for p in str(state["dk_rp_set"]).split(",") if p.strip()])
    return svc.desk.replay(changes, user_id=user.external_id, last=int(state["dk_rp_last"]), actor=current_actor())


def _shadows() -> dict:
    state = st.session_state
    embedder, extractor = str(state["dk_sh_embedder"]), str(state["dk_sh_extractor"])
    return svc.desk.shadow_replay(
        user.external_id,
        embedder=None if embedder.startswith("(") else embedder,
        extractor=None if extractor.startswith("(") else extractor,
        sample=int(state["dk_sh_sample"]),
        last=int(state["dk_rp_last"]),
        actor=current_actor(),
    )


def replay_tab() -> None:
    c = st.columns([3, 1, 1], vertical_alignment="bottom")
    c[0].text_input("Setting B (KEY=VALUE, comma-separated)", "k=3", key="dk_rp_set")
    c[1].number_input("Logged queries", 1, 200, 20, key="dk_rp_last")
    curator = can(Role.CURATOR)  # the service checks it too (and audits a refusal): both replays work in bulk
    _replay_button(c[2], "Replay A vs B", "dk_rp_go", _ab, curator)
    with st.expander("Another embedder or extractor (shadow stores)", icon=":material/content_copy:"):
        st.caption(
            "This user's recorded messages are written again into two throw-away stores — A with the live "
            "configuration, B with yours — and the logged queries are compared there. The live store is only read. "
            "It embeds every message twice: a curator's action, in the audit trail."
        )
        s = st.columns([1, 1, 1, 1], vertical_alignment="bottom")
        s[0].selectbox("Embedder B", ["(as live)", "e5", "hash", "openai"], key="dk_sh_embedder")
        s[1].selectbox("Extractor B", ["(as live)", "rules", "model"], key="dk_sh_extractor")
        s[2].number_input("Messages", 1, 2000, 200, key="dk_sh_sample")
        _replay_button(s[3], "Replay in shadows", "dk_sh_go", _shadows, curator)
    if err := st.session_state.pop("dk_rp_error", None):
        st.error(plain(err))
    out = st.session_state.get("dk_rp_out")
    if not out:
        st.info("Logged queries are searched again under the live settings (A) and with your change (B).")
        return
    st.text(out["summary"])
    if "stored" in out:  # a shadow replay: what each store kept from the same messages
        kept = out["stored"]
        cols = st.columns(2)
        for col, side in zip(cols, ("a", "b"), strict=True):
            lines = [short(t, 100) for t in kept[f"only_{side}"][:20]] or ["—"]
            col.text(f"Only {side.upper()} kept ({len(kept[f'only_{side}'])}):\n" + "\n".join(lines))
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "query": short(q["query"], 80),
                    "gained": len(q["gained"]),
                    "lost": len(q["lost"]),
                    "tokens A": q["tokens_a"],
                    "tokens B": q["tokens_b"],
                    "gained memories": " | ".join(short(h["content"], 60) for h in q["gained"]),
                    "lost memories": " | ".join(short(h["content"], 60) for h in q["lost"]),
                }
                for q in out["per_query"]
            ]
        ),
        hide_index=True,
        key="dk_rp_table",
    )


# -- people and relations ------------------------------------------------------------------------------------------
KIND_COLORS = {
    "user": "#1565c0",
    "person": "#6a1b9a",
    "pet": "#ef6c00",
    "place": "#2e7d32",
    "organisation": "#00838f",
    "thing": "#757575",
}


def graph_figure(g: dict) -> go.Figure:
    pos = layout(g["nodes"])
    fig = go.Figure()
    styles = {
        MemoryStatus.ACTIVE.value: ("#90a4ae", "solid"),
        MemoryStatus.SUPERSEDED.value: ("#bdbdbd", "dot"),
        "flagged": ("#c62828", "dash"),
    }
    mids: dict[str, list] = {"x": [], "y": [], "text": [], "id": []}
    for state, (color, dash) in styles.items():
        xs: list = []
        ys: list = []
        for e in g["edges"]:
            s = "flagged" if e["flagged"] else e["status"]
            if s != state or e["source"] not in pos or e["target"] not in pos:
                continue
            (x0, y0), (x1, y1) = pos[e["source"]], pos[e["target"]]
            xs += [x0, x1, None]
            ys += [y0, y1, None]
            if e["memory_id"]:
                mids["x"].append((x0 + x1) / 2)
                mids["y"].append((y0 + y1) / 2)
                agent = f" · agent {e['agent_id']}" if len(g["agents"]) > 1 else ""
                mids["text"].append(f"{e['predicate']} ({s}{agent}): {short(e['content'], 80)}")
                mids["id"].append(e["memory_id"])
        fig.add_scatter(x=xs, y=ys, mode="lines", line={"color": color, "dash": dash, "width": 1}, name=state)
    fig.add_scatter(
        x=mids["x"],
        y=mids["y"],
        mode="markers",
        marker={"size": 6, "color": "rgba(0,0,0,0.15)"},
        hovertext=mids["text"],
        hoverinfo="text",
        customdata=mids["id"],
        name="facts",
    )
    nodes = g["nodes"]
    labelled = {n["id"] for n in sorted(nodes, key=lambda n: -n["degree"])[:80]}  # readable at 1,000 facts
    fig.add_scatter(
        x=[pos[n["id"]][0] for n in nodes],
        y=[pos[n["id"]][1] for n in nodes],
        mode="markers+text",
        marker={
            "size": [10 + min(20, 2 * n["degree"]) for n in nodes],
            "color": [KIND_COLORS.get(n["kind"], "#757575") for n in nodes],
        },
        text=[short(n["label"], 24) if n["id"] in labelled else "" for n in nodes],
        textposition="top center",
        hovertext=[
            f"{n['kind']}: {short(n['label'], 60)}" + (f" ({n['relation']})" if n["relation"] else "") for n in nodes
        ],
        hoverinfo="text",
        name="who and what",
    )
    fig.update_layout(
        height=620,
        margin={"l": 10, "r": 10, "t": 10, "b": 10},
        xaxis={"visible": False},
        yaxis={"visible": False, "scaleanchor": "x"},
        legend_orientation="h",
    )
    return fig


def graph_tab() -> None:
    g0 = svc.desk.relations_graph(user.external_id)
    agents = ["all agents", *g0["agents"]]
    pick = st.selectbox("Agent", agents, key="dk_gr_agent") if len(agents) > 2 else "all agents"
    g = g0 if pick == "all agents" else svc.desk.relations_graph(user.external_id, agent_id=pick)
    if g["facts"] == 0:
        empty("No facts with a subject and a predicate yet.")
        return
    st.caption(
        f"{g['facts']} facts · {len(g['nodes'])} nodes · grey dotted = superseded, red dashed = flagged · "
        "click a fact's dot for its memory and source message"
    )
    event = st.plotly_chart(graph_figure(g), key="dk_gr_chart", on_select="rerun", selection_mode="points")
    selection = event.get("selection") if isinstance(event, dict) else None
    points = selection.get("points", []) if selection else []
    chosen = [p.get("customdata") for p in points if p.get("customdata")]
    if chosen:
        data = svc.show_memory(chosen[0])
        st.text(f"{data['memory_id']} [{data['status']}] {data['content']}")
        for line in data["links_text"]:  # the episodes it was read from, in words
            st.text(line)
        ids = data["provenance"]["source_message_ids"]
        first = int(ids[0]) if ids and str(ids[0]).isdigit() else None
        source = views.message_with_context(svc.storage, first, 0, user_key=user.key) if first is not None else None
        if source is not None:
            st.text(
                f"source message ({source['message']['role']}, {source['session']}): {source['message']['content']}"
            )


# -- erasure receipts ------------------------------------------------------------------------------------------------
def receipts_tab() -> None:
    receipts = svc.lifecycle.erasure_receipts()
    if not receipts:
        empty("No user has been erased yet.", "Deleting a user (Lifecycle page or `memlens delete-user`) writes one.")
        return
    for n, r in enumerate(receipts[:50]):
        row = st.columns([4, 2, 2, 2], vertical_alignment="center")
        row[0].text(f"{r['at'][:19]} · by {r['actor']['name']} · user #{r['user_hash'][:12]}")
        row[1].text(f"{r['totals']['sql_rows']} rows")
        row[2].text(f"{r['totals']['vectors']} vectors")
        row[3].download_button(
            "Receipt (JSON)",
            json.dumps(r, ensure_ascii=False, indent=1),
            file_name=f"erasure-receipt-{r['receipt_id'][:12]}.json",
            mime="application/json",
            key=f"dk_rc_{n}",
        )


names = ["Why (not)?", "Hygiene queue", "Labels gate", "A/B replay", "People & relations"]
if can(Role.ADMIN):
    names.append("Erasure receipts")
tabs = st.tabs(names)
for tab, draw in zip(tabs, [why_tab, hygiene_tab, labels_tab, replay_tab, graph_tab, receipts_tab], strict=False):
    with tab:
        draw()
