"""Evaluation: run or load LoCoMo evidence-recall reports and read them — per category, against k, against the
relevance threshold (so the threshold is chosen from data), what the agent injects for answerable questions and for
questions asked of the wrong user, left-out conversations beside in-sample, tokens against recall — and compare two
reports.

Thin: the numbers come from ``memory.evaluation`` (the same code as ``memlens eval locomo``); reports are JSON files
under ``<data_dir>/eval/``. Page keys are prefixed ``ev_``.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
import streamlit as st

from memory.errors import MemLensError
from memory.evaluation import EvalOptions, list_reports, load_report, reports_dir
from memory.evaluation.inputs import allowed_inputs, run_input
from memory.vocab import Role, SearchMode
from pages.common import THRESHOLD_COLOR, can, current_actor, service
from pages.safe import plain

svc = service()
folder = reports_dir(svc)
st.title("Evaluation", anchor=False)
if not can(Role.ADMIN):  # the navigation lists it for admins only; a page opened another way still refuses
    st.error("The Evaluation page needs the admin role.", icon=":material/lock:")
    st.stop()
st.caption(
    "LoCoMo evidence recall: do the memories MemLens retrieves come from the dialogue turns that answer the "
    "question? Reports are saved in the data folder's eval/ folder; runs read the eval/inputs folder."
)


def calibration_section() -> None:
    """The relevance calibration in use, by name, with its threshold and what it measured on conversations left out
    of its fit: the figures every report and the README name."""
    cal = svc.relevance_model()
    st.markdown(f"**Relevance calibration:** `{cal.version}` · default threshold {cal.threshold:.3g} · {cal.source}")
    if cal.notice:
        st.warning(cal.notice, icon=":material/info:")
    held = cal.meta.get("cv_nested_full") or cal.meta.get("cv_at_threshold")
    at = cal.measured_at(cal.threshold)
    if not held and not at:
        return
    parts = []
    if at:
        parts.append(
            f"left out by conversation at {at['threshold']:.3g}: gold injected {at['all']['gold_injected']:.1f}%, "
            f"foreign noise {at['all']['foreign_noise']:.1f}%"
        )
    if held:
        parts.append(
            f"threshold chosen without the scored conversation (nested): gold injected "
            f"{held['answerable_hit_rate']:.1f}%, foreign noise {held['foreign_noise_rate']:.1f}%"
        )
    st.caption(" · ".join(parts) + f" (k {cal.meta.get('k', '?')}, LoCoMo dev)")
    if rec := cal.meta.get("recall_left_out"):
        cats = " · ".join(f"{name} {value:.1f}" for name, value in rec["by_category"].items())
        st.caption(
            f"left out by conversation: evidence recall@{rec['k']} {rec['recall']:.1f} at {rec['tokens']:.0f} "
            f"tokens@{rec['k']} (memory and the source context the composer keeps); by category: {cats}"
        )


def run_form() -> None:
    """Admin only (the page is): a file of the inputs folder, never a typed server path; the service audits it."""
    inputs = allowed_inputs(svc, actor=current_actor())
    with st.expander("Run an evaluation", expanded=not list_reports(folder)):
        if not inputs:
            st.caption(
                "No evaluation data yet: put LoCoMo-format JSON files in the evaluation inputs folder "
                "(`<data folder>/eval/inputs`) on the server, or run `memlens eval locomo PATH` in a terminal."
            )
            return
        name = st.selectbox("LoCoMo-format JSON file (evaluation inputs folder)", inputs, key="ev_path")
        cols = st.columns(3)
        ks = cols[0].text_input("k values", "5,10,25", key="ev_ks")
        mode = cols[1].selectbox("mode", [SearchMode.HYBRID, SearchMode.VECTOR, SearchMode.FULLTEXT], key="ev_mode")
        extract = cols[2].checkbox("run fact extraction", True, key="ev_extract")
        if st.button("Run", key="ev_run", disabled=not name):
            bar = st.progress(0.0, text="starting")

            def make_bar(desc: str, total: int):
                done = [0]

                def step(n: int) -> None:
                    done[0] += n
                    bar.progress(min(done[0] / max(total, 1), 1.0), text=f"{desc}: {done[0]}/{total}")

                return step

            try:
                opts = EvalOptions(
                    ks=tuple(sorted({int(x) for x in ks.split(",") if x.strip()})), mode=mode, extract=extract
                )
                saved = run_input(svc, name, opts, actor=current_actor(), bar=make_bar)
                st.success(f"saved {saved.name}")
            except (MemLensError, ValueError) as exc:
                st.error(plain(exc))


def label(path: Path) -> str:
    return path.name


def category_frame(report: dict, name: str) -> pd.DataFrame:
    cats = report.get("categories", {})
    rows = []
    for mode, run in report["runs"].items():
        for cat, values in [("all", run["overall"]), ("1-4", run["overall_cat1_4"]), *run["by_category"].items()]:
            for k in report["settings"]["ks"]:
                rows.append(
                    {
                        "report": name,
                        "mode": mode,
                        "category": f"{cat} {cats.get(cat, '')}".strip(),
                        "k": k,
                        "recall": values[f"recall@{k}"],
                        "n": values["with_evidence"],
                    }
                )
    return pd.DataFrame(rows)


def category_bars(frame: pd.DataFrame, k: int) -> go.Figure:
    fig = px.bar(
        frame[frame["k"] == k],
        x="category",
        y="recall",
        color="mode",
        barmode="group",
        hover_data=["n"],
        labels={"recall": f"evidence recall@{k} (%)"},
    )
    fig.update_layout(height=360, margin={"t": 10})
    return fig


def curve_figure(report: dict) -> tuple[go.Figure, go.Figure]:
    by_k, by_tokens = go.Figure(), go.Figure()
    for mode, run in report["runs"].items():
        curve = pd.DataFrame(run["curve"])
        by_k.add_scatter(x=curve["k"], y=curve["recall"], name=mode, mode="lines")
        by_tokens.add_scatter(x=curve["tokens"], y=curve["recall"], name=mode, mode="lines", text=curve["k"])
    by_k.update_layout(xaxis_title="k", yaxis_title="evidence recall (%)", height=320, margin={"t": 10})
    by_tokens.update_layout(
        xaxis_title="mean retrieved tokens", yaxis_title="evidence recall (%)", height=320, margin={"t": 10}
    )
    return by_k, by_tokens


def sweep_figure(report: dict, mode: str) -> go.Figure:
    sweep = pd.DataFrame(report["runs"][mode]["sweep"])
    fig = go.Figure()
    for k in report["settings"]["ks"]:
        fig.add_scatter(x=sweep["threshold"], y=sweep[f"recall@{k}"], name=f"recall@{k}", mode="lines+markers")
    fig.add_scatter(
        x=sweep["threshold"],
        y=sweep["empty_rate"],
        name="no memory (%)",
        mode="lines",
        line={"dash": "dot", "color": "#757575"},
    )
    fig.add_vline(
        x=report["settings"]["configured_threshold"], line_color=THRESHOLD_COLOR, annotation_text="configured"
    )
    fig.update_layout(xaxis_title="relevance threshold", yaxis_title="%", height=360, margin={"t": 10})
    return fig


def cut_figure(report: dict) -> go.Figure:
    """Answerable hit rate and foreign noise rate against the relevance threshold (in-sample and left-out)."""
    fig = go.Figure()
    series = [("", report["threshold_curves"])]
    if report.get("cross_validated"):
        series.append((" (left-out)", report["cross_validated"]["curve"]))
    for suffix, rows in series:
        curve = pd.DataFrame(rows)
        dash = "dot" if suffix else None
        fig.add_scatter(
            x=curve["threshold"], y=curve["answerable_hit_rate"], name="answerable hit" + suffix, line={"dash": dash}
        )
        fig.add_scatter(
            x=curve["threshold"], y=curve["foreign_noise_rate"], name="foreign noise" + suffix, line={"dash": dash}
        )
    at = report["at_threshold"]
    fig.add_vline(x=at["threshold"], line_color=THRESHOLD_COLOR, annotation_text="configured")
    fig.update_layout(
        xaxis_title=f"relevance threshold (k {at['k']})", yaxis_title="% of questions", height=360, margin={"t": 10}
    )
    return fig


def cv_frame(report: dict) -> pd.DataFrame:
    """Left-out beside in-sample recall@10 and tokens@10 per category (in-sample: the weights and calibration
    fitted on every conversation, when the report tuned them; else the configured ones)."""
    cv = report["cross_validated"]
    inside = cv.get("in_sample") or {"overall": report["overall"], "by_category": report["by_category"]}
    blocks = {"left-out": cv["recall"], "in-sample": inside}
    if "recall_alone" in cv:  # reports with source context: the memory alone beside it
        blocks["left-out, alone"] = cv["recall_alone"]
    if "in_sample_alone" in cv:
        blocks["in-sample, alone"] = cv["in_sample_alone"]
    rows = []
    for cat in ["all", *cv["recall"]["by_category"]]:
        row: dict = {"category": cat if cat == "all" else f"{cat} {report['categories'].get(cat, '')}".strip()}
        for name, block in blocks.items():
            values = block["overall"] if cat == "all" else block["by_category"].get(cat, {})
            row[f"{name} R@10"], row[f"{name} tokens@10"] = values.get("recall@10"), values.get("tokens@10")
        rows.append(row)
    return pd.DataFrame(rows)


def cut_section(report: dict) -> None:
    """What the agent injects at the configured cut: for answerable questions, and for another user's questions."""
    if "at_threshold" not in report:
        return
    st.subheader("What gets injected: answerable vs. nothing-to-find", anchor=False)
    at, raw = report["at_threshold"], report.get("raw_similarity_at_0.80")
    cv = report.get("cross_validated")
    m = st.columns(4)
    m[0].metric("answerable hit", f"{at['answerable_hit_rate']:.1f}%", border=True)
    m[1].metric("foreign noise", f"{at['foreign_noise_rate']:.1f}%", border=True)
    m[2].metric("injected per question", f"{at['mean_injected']:.2f}", border=True)
    if cv:
        nested = cv.get("nested") or {}
        honest = (nested.get("by_store") or {}).get("full") or nested.get("at_threshold") or cv["chosen"]
        m[3].metric(
            "left-out: hit / noise",
            f"{honest['answerable_hit_rate']:.0f}% / {honest['foreign_noise_rate']:.0f}%",
            help="On conversations left out of the fit, with the threshold chosen inside each fold on the training "
            "conversations only (nested), when the report has it; full conversations (early stores apart).",
            border=True,
        )
    note = f"relevance ≥ {at['threshold']:.3g}, k {at['k']}"
    if raw:
        note += (
            f" · before (raw similarity ≥ 0.80): hit {raw['answerable_hit_rate']:.1f}%, "
            f"noise {raw['foreign_noise_rate']:.1f}%"
        )
    alone = report.get("at_threshold_alone")
    if alone:
        note += f" · memory alone, without its source context: hit {alone['answerable_hit_rate']:.1f}%"
    st.caption(note + " · foreign = the question asked of the next conversation's user, where nothing is relevant")
    st.plotly_chart(cut_figure(report), key="ev_cut")
    if cv:
        cal = cv["calibration"]
        st.caption(
            f"Left-out calibration: Brier {cal['brier']:.4f} (base rate {cal['brier_base_rate']:.4f}), "
            f"ECE {cal['ece']:.4f}"
        )
        st.dataframe(cv_frame(report), hide_index=True, key="ev_cv_table")


def show(report: dict, name: str) -> None:
    ks = report["settings"]["ks"]
    main = report["runs"][report["settings"]["mode"]]
    cols = st.columns(len(ks) + 2)
    for col, k in zip(cols, ks, strict=False):
        col.metric(f"recall@{k}", f"{report['overall'][f'recall@{k}']:.1f}%")
    cols[-2].metric("MRR", f"{report['overall']['mrr']:.3f}")
    tok_k = ks[min(1, len(ks) - 1)]
    cols[-1].metric(f"tokens@{tok_k}", f"{report['overall'][f'tokens@{tok_k}']:.0f}")
    alone = (report.get("memories_alone") or {}).get("overall")
    if alone:
        st.caption(
            "Each memory counted with its source context (the turns around its message, as the prompt gets them); "
            f"the memory alone: recall@{tok_k} {alone.get(f'recall@{tok_k}', 0):.1f}%, "
            f"tokens@{tok_k} {alone.get(f'tokens@{tok_k}', 0):.0f}"
        )
    st.caption(
        f"{report['overall']['questions']} questions · mode {report['settings']['mode']} · "
        f"calibration {report['settings'].get('calibration', '?')} · "
        f"no memory at the configured threshold {report['settings']['configured_threshold']:.3g}: "
        f"{main.get('empty_rate_at_configured', 0):.1f}%"
    )
    frame = category_frame(report, name)
    k = st.select_slider("k", options=ks, value=ks[min(1, len(ks) - 1)], key="ev_k")
    st.subheader("Per category", anchor=False)
    st.plotly_chart(category_bars(frame, k), key="ev_bars")
    left, right = st.columns(2)
    by_k, by_tokens = curve_figure(report)
    left.subheader("Recall against k", anchor=False)
    left.plotly_chart(by_k, key="ev_curve")
    right.subheader("Tokens against recall", anchor=False)
    right.plotly_chart(by_tokens, key="ev_tokens")
    cut_section(report)
    st.subheader("Recall and empty-rate against the threshold", anchor=False)
    mode = st.radio("mode", list(report["runs"]), horizontal=True, key="ev_sweep_mode")
    st.plotly_chart(sweep_figure(report, mode), key="ev_sweep")


def compare(a: dict, b: dict, name_a: str, name_b: str) -> None:
    st.subheader("Compare", anchor=False)
    fa, fb = category_frame(a, name_a), category_frame(b, name_b)
    both = fa.merge(fb, on=["mode", "category", "k"], suffixes=(" A", " B"))
    both["Δ recall"] = (both["recall B"] - both["recall A"]).round(2)
    st.dataframe(both[["mode", "category", "k", "recall A", "recall B", "Δ recall"]], hide_index=True, width="stretch")
    k = st.session_state.get("ev_k", a["settings"]["ks"][0])
    pair = pd.concat([fa, fb])
    pair = pair[(pair["k"] == k) & (pair["mode"] == a["settings"]["mode"])]
    fig = px.bar(
        pair, x="category", y="recall", color="report", barmode="group", labels={"recall": f"evidence recall@{k} (%)"}
    )
    st.plotly_chart(fig, key="ev_compare")


def labels_suite() -> None:
    """The labelled-query suite's recorded runs (`memlens eval labels --record`, the Audit desk): its history."""
    history = service().desk.labels_history()
    if not history:
        return
    with st.expander(f"Labelled-query suite: {len(history)} recorded runs", icon=":material/rule:"):
        frame = pd.DataFrame(
            [
                {k: h.get(k) for k in ("at", "actor", "queries", "labels", "precision", "recall", "wrong_selected")}
                for h in history
            ]
        )
        st.dataframe(frame, hide_index=True, key="ev_labels_history")
        if len(frame) > 1:
            st.plotly_chart(px.line(frame.iloc[::-1], x="at", y=["precision", "recall"], markers=True, height=240))


def facts_section() -> None:
    """Fact extraction beside retrieval: the newest `memlens eval facts` report per extractor (LoCoMo observations)."""
    from memory.evaluation.facts import latest_reports, table_rows

    rows = table_rows(latest_reports(folder))
    if not rows:
        return
    st.subheader("Fact extraction", anchor=False)
    st.caption(
        "LoCoMo observations as gold facts: recall = observations with an agreeing memory from a turn they cite; "
        "precision = memories agreeing with an observation of their turn; readable = no dangling pronoun, no "
        "'does <verb>' template, the speaker resolved. From `memlens eval facts`."
    )
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", key="ev_facts")


def longmemeval_section() -> None:
    """LongMemEval beside LoCoMo: the newest `memlens eval longmemeval` report, by question type."""
    from memory.evaluation.longmemeval import latest_report, table_rows

    report = latest_report(folder)
    if report is None:
        return
    st.subheader("LongMemEval", anchor=False)
    missed = len(report.get("not_ingested", []))
    st.caption(
        f"{report.get('asked', 0)} questions ({report.get('skipped_abstention', 0)} abstention questions skipped, "
        f"{missed} not ingested), each a user of its own with its ~50-session haystack, ingested through the product's "
        "write path; asked through recall as of the question date. Session any/all = the top k hold any/every answer "
        "session; turn = answer turns among the top k; with context = counting the turns around each hit. "
        "From `memlens eval longmemeval`."
    )
    st.dataframe(pd.DataFrame(table_rows(report)), hide_index=True, width="stretch", key="ev_lme")


calibration_section()
run_form()
labels_suite()
facts_section()
longmemeval_section()
reports = list_reports(folder)
if not reports:
    st.info("No report yet: run one above, or `memlens eval locomo PATH` in a terminal.")
    st.stop()
names = {label(p): p for p in reports}
picked = st.selectbox("Report", list(names), key="ev_report")
other = st.selectbox("Compare with", ["(none)", *[n for n in names if n != picked]], key="ev_other")
report = load_report(names[picked])
show(report, "A")
if other != "(none)":
    compare(report, load_report(names[other]), "A", "B")
