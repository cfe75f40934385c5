"""The retrieval lab's "Labels & threshold" tab: precision / recall against the relevance threshold from the team's
labels, and "fit from my labels" — a calibration refitted on this deployment's labels, shown against the shipped
one before it is applied (a helper of pages/retrieval_lab.py, not a page of its own)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from memory import views
from memory.errors import MemLensError
from memory.retrieval import tuning
from memory.vocab import Role
from pages.common import THRESHOLD_COLOR, can, current_actor, empty, fmt
from pages.safe import plain


def _use_suggested(value: float) -> None:
    st.session_state["lab_threshold"] = round(value, 3)  # the slider's own step: 0.019 stays 0.019


def _curve_figure(curve, threshold: float, best) -> go.Figure:
    fig = go.Figure()
    xs = [p.threshold for p in curve]
    for name, color in (("precision", "#3949ab"), ("recall", "#26a69a"), ("f1", "#ec407a")):
        fig.add_scatter(
            x=xs,
            y=[getattr(p, name) for p in curve],
            name=name,
            line_shape="hv",
            line={"color": color, "width": 3 if name == "f1" else 2},
        )
    fig.add_vline(x=threshold, line_color=THRESHOLD_COLOR, line_dash="dash", annotation_text="current")
    if best:
        fig.add_vline(
            x=best.threshold,
            line_color="#2e7d32",
            line_dash="dot",
            annotation_text="max F1",
            annotation_position="bottom right",
        )
    fig.update_layout(
        height=320,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        xaxis_title="relevance threshold",
        xaxis_range=[0, 1],
        yaxis_range=[0, 1.05],
        legend_orientation="h",
    )
    return fig


def measured_frame(measured: dict) -> pd.DataFrame:
    """One row per layer: the share of answerable questions with a gold memory injected, and of questions asked of
    another user's store that inject anything (foreign noise), as the calibration measured them."""
    names = {"all": "every layer", "episodes": "episodes (what was said)", "facts": "facts (what it means)"}
    return pd.DataFrame(
        [
            {
                "layer": names[layer],
                "gold injected %": measured[layer]["gold_injected"],
                "foreign noise %": measured[layer]["foreign_noise"],
            }
            for layer in names
            if layer in measured
        ]
    )


def measured_section(threshold: float, calibration) -> None:
    """Gold injected and foreign noise at the threshold under the slider, per layer (the calibration's own held-out
    measurement), so moving the slider shows what it costs on both sides."""
    measured = calibration.measured_at(threshold)
    if measured is None:
        st.caption(
            f"Gold injected / foreign noise: not measured for calibration `{calibration.version}` "
            "(`memlens eval calibrate` measures them)."
        )
        return
    st.dataframe(measured_frame(measured), hide_index=True, key="lab_measured", width="content")
    st.caption(
        f"Measured at threshold {measured['threshold']:.3g} (k {measured['k']}) by calibration "
        f"`{calibration.version}` on {plain(measured['source'])}: gold injected = answerable questions with an "
        "evidence memory of that layer injected; foreign noise = questions asked of another conversation's user that "
        "inject anything of that layer."
    )


def tuning_tab(svc, user, threshold: float, calibration) -> None:
    scope = st.radio(
        "Labels from",
        ["this user", "all users"],
        key="lab_scope",
        horizontal=True,
        help="A calibration belongs to the embedder, so every user's labels can inform it.",
    )
    user_key = user.key if scope == "this user" else None
    labelled = views.labelled_relevance(svc.storage, user_key)
    if not labelled:
        empty("No labels yet.", "Label hits as relevant / not relevant in the Search tab to draw the curve.")
        return
    curve = tuning.pr_curve(labelled)
    best, here = tuning.suggest_threshold(curve), tuning.point_at(labelled, threshold)
    m = st.columns(5)
    m[0].metric("Labels", f"{sum(r for _, r in labelled)} ✔ / {sum(not r for _, r in labelled)} ✘", border=True)
    m[1].metric("Precision here", fmt(here.precision, 2), border=True)
    m[2].metric("Recall here", fmt(here.recall, 2), border=True)
    m[3].metric("F1 here", fmt(here.f1, 2), border=True)
    m[4].metric(
        "Suggested threshold",
        fmt(best.threshold if best else None, 3),
        help="Highest F1 over the labelled hits (relevance as logged); ties go to the higher threshold.",
        border=True,
    )
    st.plotly_chart(_curve_figure(curve, threshold, best), key="lab_pr")
    if best:
        st.button(
            f"Use suggested threshold {best.threshold:.3g}",
            icon=":material/auto_fix_high:",
            on_click=_use_suggested,
            args=(best.threshold,),
            key="lab_use_best",
        )
        st.caption("Then press **Apply to agent** above.")
    fit_section(svc, user_key, calibration)


def _apply_fit(svc, data: dict) -> None:
    try:
        values = {"relevance_calibration": data, "relevance_threshold": data["threshold"]}
        svc.set_live_settings(values, actor=current_actor())
    except MemLensError as exc:
        st.toast(plain(exc), icon=":material/error:")
        return
    st.session_state["lab_threshold"] = round(data["threshold"], 3)
    st.session_state.pop("lab_search", None)
    st.toast("Own calibration applied: the agent uses it from its next turn.", icon=":material/check_circle:")


def _revert(svc) -> None:
    try:
        svc.set_live_settings({"relevance_calibration": None, "relevance_threshold": None}, actor=current_actor())
    except MemLensError as exc:
        st.toast(plain(exc), icon=":material/error:")
        return
    st.session_state.pop("lab_search", None)
    st.session_state.pop("lab_threshold", None)
    st.toast("Back to the shipped calibration.", icon=":material/restart_alt:")


def fit_section(svc, user_key: str | None, calibration) -> None:
    """Fit from my labels → compare with the shipped fit → apply (or revert)."""
    st.markdown(f"**Calibration in use:** `{calibration.version}` ({calibration.source})")
    c = st.columns([1, 1, 3])
    curator = can(Role.CURATOR)  # the service checks it too: every labelled query is searched again
    if c[0].button("Fit from my labels", icon=":material/model_training:", key="lab_fit", disabled=not curator):
        try:
            with st.spinner("Searching the labelled queries again and fitting…"):
                st.session_state["lab_fit_result"] = svc.refit_relevance(user_key, actor=current_actor())
        except MemLensError as exc:
            st.error(plain(exc))
    if svc.effective_settings().relevance_calibration and can(Role.ADMIN):  # live settings are an admin's
        c[1].button("Revert to shipped", icon=":material/restart_alt:", on_click=_revert, args=(svc,), key="lab_rev")
    result = st.session_state.get("lab_fit_result")
    if not result:
        c[2].caption("Refits the relevance model on the labels above; you see it beside the shipped one first.")
        return
    if result["calibration"] is None:
        st.info(result["reason"], icon=":material/info:")
        return
    rows = [
        {"fit": "shipped", **result["shipped"]},
        {"fit": "from my labels (each query left out)", **result["own"]},
    ]
    st.dataframe(pd.DataFrame(rows), hide_index=True, key="lab_fit_table")
    st.caption(
        f"{result['examples']} labelled hits ({result['positives']} relevant). Brier: lower is better; precision / "
        "recall / F1 at each fit's own threshold."
    )
    st.button(
        "Apply my fit to the agent",
        type="primary",
        icon=":material/rocket_launch:",
        on_click=_apply_fit,
        args=(svc, result["calibration"]),
        key="lab_fit_apply",
        disabled=not can(Role.ADMIN),
        help=None if can(Role.ADMIN) else "Changing the agent's live settings needs the admin role.",
    )
