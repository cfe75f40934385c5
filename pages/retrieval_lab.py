"""Retrieval lab: search with live knobs, see every signal's score and the near-misses, replay past queries under the
new settings, label hits, read precision/recall against the threshold, and apply the settings to the agent.

The search runs once per (query, mode, fusion, weights); threshold, k and relative cut are re-applied in memory with
the same pure ``rank_and_cut`` the agent uses, so moving the slider is instant and shows exactly what the agent would
keep. Each search is logged like an agent's, so its hits can be labelled and replayed later.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from memory import views
from memory.errors import MemLensError
from memory.retrieval import tuning
from memory.retrieval.policy import PolicyChanges
from memory.retrieval.recall import Hit, is_near_miss, near_miss_floor, rank_and_cut
from memory.vocab import Role, SearchMode
from pages import lab_tuning, why
from pages.common import (
    DROP_COLOR,
    FAIL_COLOR,
    NEAR_COLOR,
    PASS_COLOR,
    THRESHOLD_COLOR,
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
    source_context,
    when,
)

MODES, FUSIONS = [SearchMode.HYBRID, SearchMode.VECTOR, SearchMode.FULLTEXT], ["rrf", "linear"]
KNOBS = {
    "lab_threshold": "relevance_threshold",
    "lab_floor": "similarity_floor",
    "lab_k": "top_k",
    "lab_mode": "search_mode",
    "lab_fusion": "fusion",
    "lab_w": "vector_weight",
    "lab_rrf_k": "rrf_k",
}
LABELS = {"relevant": True, "not relevant": False}

svc = service()
user = require_user()
eff = svc.effective_settings()
calibration = svc.relevance_model(eff)


def live_value(settings, name: str):
    """A knob's value as the agent uses it (an unset relevance threshold is the calibration's own)."""
    value = getattr(settings, name)
    return calibration.threshold if name == "relevance_threshold" and value is None else value


for key, name in KNOBS.items():  # start from what the agent uses now; keep the person's moves afterwards
    st.session_state.setdefault(key, live_value(eff, name))

page_title("Retrieval lab", user)
st.caption(
    "relevance = calibrated probability that the hit is relevant (from similarity, its standing among the "
    "candidates, BM25, neighbours, rank, type) · a hit passes when relevance ≥ threshold (and similarity ≥ the "
    "optional floor) · the first k that pass are injected · similarity = 1 − cosine distance · "
    "hybrid **rrf**: Σ 1/(RRF constant + rank) · **linear**: w·z(similarity) + (1 − w)·3·BM25/max BM25, "
    "z = standardised over the candidates · conversation turns also borrow from their neighbours"
)


def _apply() -> None:
    values = {name: st.session_state[key] for key, name in KNOBS.items()}
    try:
        svc.set_live_settings(values, actor=current_actor())
    except MemLensError as exc:
        st.toast(plain(exc), icon=":material/error:")
        return
    st.toast("Applied: the agent uses these from its next turn.", icon=":material/check_circle:")


def _reset() -> None:
    for key, name in KNOBS.items():
        st.session_state[key] = live_value(svc.effective_settings(), name)


with st.container(border=True):
    st.text_input("Query", key="lab_query", placeholder="e.g. where does the user live? / 用户住在哪里？")
    c = st.columns([3, 2, 1, 2, 2, 2, 1])
    threshold = c[0].slider("Relevance threshold", 0.0, 1.0, step=0.001, format="%.3f", key="lab_threshold")
    floor = c[1].number_input(
        "Similarity floor", -1.0, 1.0, step=0.01, key="lab_floor", help="Optional: also cut on raw similarity."
    )
    k = c[2].number_input("k", 1, 50, step=1, key="lab_k")
    mode = c[3].selectbox("Mode", MODES, key="lab_mode")
    fusion = c[4].selectbox("Fusion", FUSIONS, key="lab_fusion", disabled=mode != "hybrid")
    weight = c[5].slider(
        "Vector weight (linear)", 0.0, 1.0, step=0.05, key="lab_w", disabled=mode != "hybrid" or fusion != "linear"
    )
    rrf_k = c[6].number_input("RRF constant", 1, 500, key="lab_rrf_k", disabled=mode != "hybrid" or fusion != "rrf")
    b = st.columns([1, 1, 4])
    b[0].button(
        "Apply to agent",
        type="primary",
        icon=":material/rocket_launch:",
        on_click=_apply,
        key="lab_apply",
        disabled=not can(Role.ADMIN),
        help=None if can(Role.ADMIN) else "Changing the agent's live settings needs the admin role.",
    )
    b[1].button("Reset to live", icon=":material/restart_alt:", on_click=_reset, key="lab_reset")
    live = " · ".join(f"{label(name).lower()} {fmt(live_value(eff, name))}" for name in KNOBS.values())
    b[2].caption(f"Agent now: {live} · calibration {calibration.version}")
    if calibration.notice:
        b[2].warning(calibration.notice, icon=":material/info:")
    lab_tuning.measured_section(float(threshold), calibration)

knobs: PolicyChanges = {
    "mode": mode,
    "fusion": fusion,
    "vector_weight": float(weight),
    "rrf_k": int(rrf_k),
    "k": int(k),
    "threshold": float(threshold),
}
searched = svc.recall_policy(**knobs)  # the agent's own mapping from settings, with the lab's knobs on top
params = searched.replace(similarity_floor=None if floor is None else float(floor))  # "no floor" is a choice too


def search(query: str) -> tuple[list[Hit], int | None, float]:
    """Candidates for the query under the signal settings (cached per signal settings; logged once)."""
    sig = (user.key, query, mode, fusion, round(weight, 4), int(rrf_k))
    cached = st.session_state.get("lab_search")
    if cached and cached[0] == sig:
        return cached[1], cached[2], cached[3]
    res = svc.recall(user.external_id, query, policy=searched)
    retrieval_id = res.retrieval_id  # logged after recall returns: this waits for that entry (labels need its id)
    st.session_state["lab_search"] = (sig, res.hits, retrieval_id, res.latency_ms)
    return res.hits, retrieval_id, res.latency_ms


def cut(hits: list[Hit]) -> list[Hit]:
    fresh = copy.deepcopy(hits)
    for h in fresh:
        h.passed, h.selected, h.drop_reason = False, False, None
    return rank_and_cut(fresh, params)


#: the histogram's groups, from the cut's own verdicts (never from relevance alone): a flagged hit, or one cut by the
#: similarity floor or the relative cut, is drawn as dropped whatever its relevance
GROUPS = (
    ("passed", PASS_COLOR),
    ("dropped (flagged, floor, cut)", DROP_COLOR),
    ("near miss", NEAR_COLOR),
    ("below", FAIL_COLOR),
)


def group_of(h: Hit) -> str:
    if h.passed:
        return "passed"
    if is_near_miss(h, threshold):
        return "near miss"
    if h.drop_reason == "below threshold":
        return "below"
    return "dropped (flagged, floor, cut)"


def histogram(hits: list[Hit]) -> go.Figure:
    groups: dict[str, list[float]] = {name: [] for name, _ in GROUPS}
    for h in hits:
        if h.relevance is not None:
            groups[group_of(h)].append(h.relevance)
    lo, hi = 0.0, 1.0
    fig = go.Figure()
    for name, color in GROUPS:
        fig.add_histogram(
            x=groups[name], name=name, marker_color=color, xbins={"start": lo, "end": hi, "size": (hi - lo) / 30}
        )
    fig.add_vrect(x0=near_miss_floor(threshold), x1=threshold, fillcolor=NEAR_COLOR, opacity=0.12, line_width=0)
    fig.add_vline(
        x=threshold, line_color=THRESHOLD_COLOR, line_dash="dash", annotation_text=f"threshold {threshold:.3g}"
    )
    fig.update_layout(
        barmode="stack",
        height=260,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        xaxis_title="relevance",
        yaxis_title="candidates",
        legend_orientation="h",
    )
    return fig


#: a hit's label in the lab (None: not labelled)
LABEL_TEXT: dict[bool | None, str] = {True: "✔ relevant", False: "✘ not relevant", None: ""}


def hit_table(hits: list[Hit], labels: Mapping[str, bool]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "rank": h.rank,
                "content": short(h.content, 120),
                "relevance": h.relevance,
                "similarity": h.similarity,
                "fts_score": h.fts_score,
                "fused": h.score,
                "passed": h.passed,
                "selected": h.selected,
                "why not": h.drop_reason or "",
                "label": LABEL_TEXT[labels.get(h.memory_id)],
            }
            for h in hits
        ]
    )


SCORE_COLS = {
    "relevance": st.column_config.ProgressColumn("relevance", format="%.3f", min_value=0.0, max_value=1.0),
    "similarity": st.column_config.NumberColumn("similarity", format="%.3f"),
    "fts_score": st.column_config.NumberColumn("BM25", format="%.2f"),
    "fused": st.column_config.NumberColumn("fused", format="%.4f"),
    "content": st.column_config.TextColumn("memory", width="large"),
}


def _label(retrieval_id: int, memory_id: str, key: str) -> None:
    """One label per (query, memory, labeller): labelling the same query again updates it."""
    choice = st.session_state.get(key)
    try:
        svc.label_hit(retrieval_id, memory_id, LABELS.get(choice) if choice else None, actor=current_actor())
    except MemLensError as exc:
        st.toast(plain(exc), icon=":material/error:")


def label_controls(hits: list[Hit], retrieval_id: int | None, query: str = "") -> None:
    if retrieval_id is None or not can(Role.CURATOR):  # labelling is a curator's; the service checks again
        return
    saved = views.labels_for_query(svc.storage, user.key, query, current_actor().name) if query else {}
    with st.expander("Label these hits (feeds precision / recall)", icon=":material/thumbs_up_down:"):
        for h in hits[:15]:
            key = f"lab_lbl_{retrieval_id}_{h.memory_id}"
            if key not in st.session_state and saved.get(h.memory_id) is not None:
                st.session_state[key] = "relevant" if saved[h.memory_id] else "not relevant"
            row = st.columns([6, 1, 3], vertical_alignment="center")
            row[0].markdown(f"**#{h.rank}** {plain(short(h.content, 110))}")
            row[1].caption(f"rel {fmt(h.relevance, 2)} · sim {fmt(h.similarity)}")
            row[2].segmented_control(
                "label",
                list(LABELS),
                key=key,
                label_visibility="collapsed",
                on_change=_label,
                args=(retrieval_id, h.memory_id, key),
            )


def search_tab() -> None:
    query = (st.session_state.get("lab_query") or "").strip()
    if not query:
        st.info("Type a query above to see every candidate with its scores.", icon=":material/search:")
        return
    try:
        raw, retrieval_id, latency = search(query)
    except MemLensError as exc:
        st.error(plain(exc))
        return
    if not raw:
        empty("No candidates: this user has no searchable memories.")
        return
    hits = cut(raw)
    svc.fill_context(user, hits)  # the slider's selection, with the conversation around each selected memory
    near = [h for h in hits if is_near_miss(h, threshold)]
    m = st.columns(5)
    m[0].metric("Candidates", len(hits), border=True)
    m[1].metric("Passed", sum(h.passed for h in hits), border=True)
    m[2].metric("Selected", sum(h.selected for h in hits), border=True)
    m[3].metric("Near misses", len(near), border=True)
    m[4].metric("Search", f"{latency:.0f} ms", border=True)
    st.plotly_chart(histogram(hits), key="lab_hist")
    labels = views.labels_for_query(svc.storage, user.key, query, current_actor().name)
    st.markdown("**Passed**")
    passed = [h for h in hits if h.passed]
    if passed:
        st.dataframe(hit_table(passed, labels), hide_index=True, column_config=SCORE_COLS, key="lab_passed")
    else:
        st.caption("Nothing passes this threshold.")
    source_context([{"content": h.content, "context": [r.to_dict() for r in h.context]} for h in hits if h.selected])
    st.markdown(
        f":orange[**Near misses**] — cut by the threshold alone, relevance from {near_miss_floor(threshold):.3g} "
        f"(half the threshold) up to {threshold:.3g}"
    )
    if near:
        st.dataframe(hit_table(near, labels), hide_index=True, column_config=SCORE_COLS, key="lab_near")
    else:
        st.caption("None.")
    with st.expander(f"All {len(hits)} candidates"):
        st.dataframe(hit_table(hits, labels), hide_index=True, column_config=SCORE_COLS, key="lab_all")
    label_controls(hits, retrieval_id, query)
    with st.expander("Why (not)? — one candidate, stage by stage", icon=":material/route:"):
        by_id = {h.memory_id: h for h in hits}
        pick = st.selectbox(
            "Candidate",
            list(by_id),
            key="lab_why",
            format_func=lambda i: f"#{by_id[i].rank} {short(by_id[i].content, 90)}",
        )
        if pick:
            why.show(svc, user, pick, query, key="lab_why_stages", policy=params)


def _replay_one(r: dict) -> dict:
    sig = (r["id"], mode, fusion, round(weight, 4), int(rrf_k))
    cache = st.session_state.setdefault("lab_replay_cache", {})
    if sig not in cache:
        res = svc.recall(
            user.external_id,
            r["query"],
            retrieval_query=r["retrieval_query"],
            log=False,
            policy=svc.recall_policy(mode=mode, fusion=fusion, vector_weight=weight, rrf_k=int(rrf_k)),
        )
        then = views.retrieval_hits(svc.storage, r["id"])
        cache[sig] = (res.hits, then)
    raw, then = cache[sig]
    now = cut(raw)
    diff = tuning.replay_diff([h["memory_id"] for h in then if h["selected"]], [h.memory_id for h in now if h.selected])
    text = {h["memory_id"]: h["content"] for h in then} | {h.memory_id: h.content for h in now}
    sim = {h.memory_id: (h.relevance, h.similarity) for h in now}
    return {"retrieval": r, "diff": diff, "text": text, "sim": sim}


def replay_tab() -> None:
    logged = views.recent_retrievals(svc.storage, user.key, limit=50)
    if not logged:
        empty(
            "No logged queries yet.", "Chat with the agent (or search above) to log some, or run `memlens seed-demo`."
        )
        return
    c = st.columns([2, 1, 3], vertical_alignment="bottom")
    n = c[0].number_input("Replay the last N logged queries", 1, len(logged), min(10, len(logged)), key="lab_replay_n")
    if c[1].button("Replay", icon=":material/replay:", key="lab_replay_btn"):
        st.session_state["lab_replay_ids"] = [r["id"] for r in logged[: int(n)]]
    c[2].caption(
        "Each query is searched again under the settings above (not logged) and compared with what the "
        "agent selected at the time. Moving the threshold updates the diff at once."
    )
    ids = set(st.session_state.get("lab_replay_ids", []))
    chosen = [r for r in logged if r["id"] in ids]
    if not chosen:
        return
    results = [_replay_one(r) for r in chosen]
    _replay_summary(results)
    _replay_detail(results)


def _replay_summary(results: list[dict]) -> None:
    """Gained and lost hits over every replayed query, then one row per query."""
    gained, lost = sum(len(x["diff"].gained) for x in results), sum(len(x["diff"].lost) for x in results)
    m = st.columns(3)
    m[0].metric("Queries replayed", len(results), border=True)
    m[1].metric("Hits gained", gained, border=True)
    m[2].metric("Hits lost", lost, border=True)
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "when": when(x["retrieval"]["at"]),
                    "query": short(x["retrieval"]["query"], 80),
                    "then": f"k {x['retrieval']['k']} · t {x['retrieval']['threshold']:.3g}",
                    "kept": len(x["diff"].kept),
                    "gained": len(x["diff"].gained),
                    "lost": len(x["diff"].lost),
                }
                for x in results
            ]
        ),
        hide_index=True,
        key="lab_replay_table",
    )


def _replay_detail(results: list[dict]) -> None:
    """One chosen query's gained, lost and kept memories, with their relevance now."""
    by_id = {x["retrieval"]["id"]: x for x in results}
    pick = st.selectbox(
        "Look at one query",
        list(by_id),
        key="lab_replay_pick",
        format_func=lambda i: f"#{i} · {short(by_id[i]['retrieval']['query'], 90)}",
    )
    x = by_id[pick]
    for title, ids_, color in (
        ("Gained", x["diff"].gained, "green"),
        ("Lost", x["diff"].lost, "red"),
        ("Kept", x["diff"].kept, "gray"),
    ):
        st.markdown(f":{color}[**{title}**] ({len(ids_)})")
        for mid in ids_:
            rel, sim = x["sim"].get(mid, (None, None))
            st.markdown(
                f"- {plain(short(x['text'].get(mid, mid), 140))} · now relevance {fmt(rel, 2)} · sim {fmt(sim)}"
            )


search_t, replay_t, tune_t = st.tabs(
    [":material/search: Search", ":material/replay: Replay", ":material/insights: Labels & threshold"]
)
with search_t:
    search_tab()
with replay_t:
    replay_tab()
with tune_t:
    lab_tuning.tuning_tab(svc, user, threshold, calibration)
