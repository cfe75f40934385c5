"""`memlens eval locomo PATH`: LoCoMo evidence recall of MemLens's real write path and recall."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from memory.cli.common import JsonOpt, emit, service
from memory.errors import InvalidInput
from memory.vocab import SearchMode

cli = typer.Typer(help="Measure retrieval quality offline.", no_args_is_help=True)
OutOpt = Annotated[Path | None, typer.Option("--out", help="Also write the report JSON here.")]


def _ks(text: str) -> tuple[int, ...]:
    try:
        ks = tuple(sorted({int(x) for x in text.split(",") if x.strip()}))
    except ValueError as exc:
        raise InvalidInput(f"--k takes comma-separated integers, not {text!r}") from exc
    if not ks or ks[0] < 1:
        raise InvalidInput("--k needs at least one k >= 1")
    return ks


def _bar(desc: str, total: int):
    from tqdm import tqdm

    bar = tqdm(total=total, desc=desc, unit="it", file=sys.stderr, leave=False)
    return bar.update


def table(report: dict) -> list[str]:
    """Plain-text table: one row per mode and category, recall@k columns."""
    from memory.evaluation.locomo import CATEGORIES

    ks = report["settings"]["ks"]
    head = f"{'mode':<9} {'category':<14} {'n':>4} " + " ".join(f"{'R@' + str(k):>7}" for k in ks)
    head += f" {'hit@' + str(ks[-1]):>7} {'MRR':>6} {'tok@' + str(ks[1 if len(ks) > 1 else 0]):>7}"
    lines = [head]
    tok_k = ks[1 if len(ks) > 1 else 0]
    for mode, run in report["runs"].items():
        rows = [("all", run["overall"]), ("cat 1-4", run["overall_cat1_4"])]
        rows += [(f"{c} {CATEGORIES.get(int(c), '')}", v) for c, v in run["by_category"].items()]
        for name, v in rows:
            lines.append(
                f"{mode:<9} {name:<14} {v['with_evidence']:>4} "
                + " ".join(f"{v[f'recall@{k}']:>7.1f}" for k in ks)
                + f" {v[f'hit@{ks[-1]}']:>7.1f} {v['mrr']:>6.3f} {v[f'tokens@{tok_k}']:>7.0f}"
            )
        lines.append(
            f"{mode:<9} empty at relevance threshold {report['settings']['configured_threshold']:.3g}: "
            f"{run['empty_rate_at_configured']:.1f}% · latency p50 {run['latency_ms']['p50']} ms "
            f"p95 {run['latency_ms']['p95']} ms"
        )
    if "memories_alone" in report:  # the main mode's figures above count each memory with its source context
        v = report["memories_alone"]["overall"]
        lines.append(
            f"{report['settings']['mode']:<9} {'all, alone':<14} {v['with_evidence']:>4} "
            + " ".join(f"{v[f'recall@{k}']:>7.1f}" for k in ks)
            + f" {v[f'hit@{ks[-1]}']:>7.1f} {v['mrr']:>6.3f} {v[f'tokens@{tok_k}']:>7.0f}"
            + "  ← each memory without its source context"
        )
    return lines + cut_lines(report)


def _rates(p: dict) -> str:
    noise = "—" if p["foreign_noise_rate"] is None else f"{p['foreign_noise_rate']:.1f}%"
    t = p["threshold"]
    return (
        f"answerable hit {p['answerable_hit_rate']:.1f}% · foreign noise {noise} · "
        f"injected {p['mean_injected']:.2f} (threshold {t if isinstance(t, str) else f'{t:.3g}'}, k {p['k']})"
    )


def _left_out_lines(cv: dict) -> list[str]:
    """The honest figure first (threshold chosen per fold without the left-out conversation), then the threshold the
    shipped rule picks on all left-out predictions and what it scores on those same predictions (optimistic)."""
    lines = []
    if cv.get("nested"):
        lines.append("left-out, nested:         " + _rates(cv["nested"]["at_threshold"]) + " ← chosen inside each fold")
        if full := (cv["nested"].get("by_store") or {}).get("full"):
            lines.append("  full conversations:     " + _rates(full))
    if cv.get("nested_alone"):
        lines.append("  memory alone (no context): " + _rates(cv["nested_alone"]))
    lines.append("left-out, same data:      " + _rates(cv["chosen"]) + " ← the shipped threshold, chosen here")
    return lines


def cut_lines(report: dict) -> list[str]:
    """The answerable/foreign rates (in-sample, left-out, raw-similarity baseline) and the left-out calibration."""
    lines = []
    if "at_threshold" in report:
        lines.append("at threshold (relevance): " + _rates(report["at_threshold"]))
        if "at_threshold_alone" in report:
            lines.append("  memory alone (no context): " + _rates(report["at_threshold_alone"]))
        for layer, block in (report.get("at_threshold_by_layer") or {}).items():
            lines.append(f"  {layer + ' only:':24s}" + _rates(block))
        lines.append("before (raw similarity):  " + _rates(report["raw_similarity_at_0.80"]))
    cv = report.get("cross_validated")
    if cv:
        cal = cv["calibration"]
        lines += _left_out_lines(cv)
        lines.append(
            f"left-out calibration: Brier {cal['brier']:.4f} (base rate {cal['brier_base_rate']:.4f}), "
            f"top-10 Brier {cal['brier_top10']:.4f} (base rate {cal['brier_top10_base_rate']:.4f}), "
            f"ECE {cal['ece']:.4f}"
        )
        lines += recall_lines(cv)
    return lines


def recall_lines(cv: dict) -> list[str]:
    """Left-out beside in-sample recall@k and tokens@k, overall and per category (k = 10 when asked for)."""
    held, inside = cv["recall"], cv.get("in_sample")
    ks = sorted(int(key.split("@")[1]) for key in held["overall"] if key.startswith("recall@"))
    k = 10 if 10 in ks else ks[-1]
    rows = [("all", "overall")] + [(c, c) for c in held["by_category"]]
    out = [
        f"R@{k} / tokens@{k} with source context (memory alone): left-out (weights and calibration fitted "
        "without it) vs in-sample"
    ]
    for name, key in rows:
        line = f"  {name:<4} left-out {_pair(held, cv.get('recall_alone'), key, k)}"
        if inside:
            line += f"   in-sample {_pair(inside, cv.get('in_sample_alone'), key, k)}"
        out.append(line)
    if inside and "weights" in inside:
        out.append(f"  weights chosen on all conversations: {inside['weights']}")
    return out


def _pair(block: dict, alone: dict | None, key: str, k: int) -> str:
    """``recall / tokens`` of one row, with the memory-alone figures beside when the report has them."""

    def pick(b: dict) -> dict:
        return b["overall"] if key == "overall" else b["by_category"].get(key, {})

    a = pick(block)
    text = f"{a.get(f'recall@{k}', 0):5.1f} / {a.get(f'tokens@{k}', 0):5.0f}"
    if alone:
        b = pick(alone)
        text += f" ({b.get(f'recall@{k}', 0):5.1f} / {b.get(f'tokens@{k}', 0):4.0f})"
    return text


@cli.command("locomo")
def locomo(
    path: Annotated[Path, typer.Argument(help="A LoCoMo-format JSON file.")],
    k: Annotated[str, typer.Option("--k", help="Comma-separated cut-offs.")] = "5,10,25",
    threshold: Annotated[
        float | None, typer.Option("--threshold", help="Relevance cut for recall@k (default: none).")
    ] = None,
    mode: Annotated[str, typer.Option("--mode", help="vector | fulltext | hybrid")] = "hybrid",
    baselines: Annotated[
        bool, typer.Option("--baselines/--no-baselines", help="Also run BM25-only and dense-only.")
    ] = True,
    extract: Annotated[bool, typer.Option("--extract/--no-extract", help="Run the fact-extraction write path.")] = True,
    limit: Annotated[
        int | None, typer.Option("--limit", help="Ask only the first N questions per conversation.")
    ] = None,
    out: OutOpt = None,
    foreign: Annotated[
        bool, typer.Option("--foreign/--no-foreign", help="Also ask each conversation's questions of the next user.")
    ] = True,
    cache: Annotated[
        Path | None, typer.Option("--cache", help="Save asked candidates here; later runs reuse them (fast refits).")
    ] = None,
    json_out: JsonOpt = False,
) -> None:
    """Ingest each conversation through the write path into <data_dir>/eval/store (apart from the product's users;
    reused by later runs), ask every question
    through recall, and report LoCoMo evidence recall@k per category, hit@k, MRR, tokens and empty-rate."""
    if mode not in set(SearchMode):
        raise InvalidInput(f"--mode must be {', '.join(SearchMode)}, not {mode!r}")
    from memory.evaluation import EvalOptions, eval_service, reports_dir, run_locomo, save_report

    opts = EvalOptions(
        ks=_ks(k),
        mode=mode,
        threshold=threshold,
        baselines=baselines,
        extract=extract,
        limit=limit,
        foreign=foreign,
        cache=cache,
    )
    svc = service()
    report = run_locomo(eval_service(svc), path, opts, bar=_bar)
    saved = save_report(report, reports_dir(svc))
    if out is not None:
        save_report(report, out.parent if str(out.parent) else Path("."), out.name)
    _show_locomo(report, saved, json_out)


def _show_locomo(report: dict, saved: Path, json_out: bool) -> None:
    """The report as JSON, or as the plain-text table and where it was saved."""
    if json_out:
        emit(report)
        return
    for line in table(report):
        typer.echo(line)
    typer.echo(f"report: {saved}")


@cli.command("calibrate")
def calibrate_cmd(
    path: Annotated[Path, typer.Argument(help="A LoCoMo-format JSON file (two conversations or more).")],
    cache: Annotated[
        Path | None, typer.Option("--cache", help="Save asked candidates here; later runs reuse them.")
    ] = None,
    write: Annotated[
        bool, typer.Option("--write/--no-write", help="Write the fit as the shipped calibration for this embedder.")
    ] = False,
    out: Annotated[Path | None, typer.Option("--out", help="Write the calibration report JSON here.")] = None,
    json_out: JsonOpt = False,
) -> None:
    """Fit the relevance calibration on LoCoMo (leave-one-conversation-out first) and report it."""
    import json

    from memory.evaluation import EvalOptions, eval_service
    from memory.evaluation.calibrate import calibrate
    from memory.retrieval import relevance

    svc = service()
    opts = EvalOptions(ks=(5, 10, 25), baselines=False, cache=cache)
    try:
        report, cal = calibrate(eval_service(svc), path, opts, bar=_bar)
    except ValueError as exc:
        raise InvalidInput(str(exc)) from exc
    if write:
        target = relevance.shipped_path(cal.embedder)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(cal.to_dict(), indent=1) + "\n", encoding="utf-8")
        report["written"] = str(target.name)
    if out is not None:
        out.write_text(json.dumps(report, indent=1, ensure_ascii=False), encoding="utf-8")
    if json_out:
        emit(report)
        return
    for line in calibration_lines(report):
        typer.echo(line)


def calibration_lines(report: dict) -> list[str]:
    cv = report["left_out"]
    cal = cv["calibration"]
    lines = [
        f"calibration {report['version']} ({report['embedder']}), k {report['k']}",
        f"left-out Brier {cal['brier']:.4f} (base rate {cal['brier_base_rate']:.4f}), top-10 Brier "
        f"{cal['brier_top10']:.4f} (base rate {cal['brier_top10_base_rate']:.4f}), ECE {cal['ece']:.4f}",
        "reliability (left-out): "
        + " ".join(f"{r['mean_predicted']:.2f}→{r['observed']:.2f}(n{r['n']})" for r in cal["reliability"] if r["n"]),
        *_left_out_lines(cv),
        "in-sample:                " + _rates(report["in_sample"]["at_threshold"]),
        "before (raw similarity):  " + _rates(report["before_raw_similarity_0.80"]),
    ]
    for name, block in cv["recall"]["by_category"].items():
        lines.append(f"left-out R@10, category {name}: {block.get('recall@10', 0):.1f}")
    if report.get("written"):
        lines.append(f"written: {report['written']}")
    return lines


@cli.command("longmemeval")
def longmemeval_cmd(
    path: Annotated[Path, typer.Argument(help="A LongMemEval-format JSON file.")],
    k: Annotated[str, typer.Option("--k", help="Comma-separated cut-offs.")] = "5,10",
    limit: Annotated[
        int | None, typer.Option("--limit", help="Ask only the first N (non-abstention) questions.")
    ] = None,
    per_type: Annotated[
        int | None,
        typer.Option("--per-type", help="A stratified sample: the first N questions of each question type."),
    ] = None,
    types: Annotated[
        list[str] | None,
        typer.Option("--type", help="Ask only this question type (repeatable), e.g. temporal-reasoning."),
    ] = None,
    user_turns_only: Annotated[
        bool,
        typer.Option("--user-turns-only", help="Ingest only the user's turns (faster; as in the paper's ablation)."),
    ] = False,
    out: OutOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """One user per question in <data_dir>/eval/store: ingest its haystack, ask through recall (as of the question
    date), report session recall_any/recall_all@k and turn recall@k by question type; `_abs` questions skipped."""
    from memory.evaluation import eval_service
    from memory.evaluation.longmemeval import reports_folder
    from memory.evaluation.longmemeval import run as run_lme
    from memory.evaluation.runner import reports_dir, save_report

    svc = service()
    report = run_lme(
        eval_service(svc),
        path,
        ks=_ks(k),
        limit=limit,
        per_type=per_type,
        types=types or (),
        user_turns_only=user_turns_only,
        bar=_bar,
    )
    saved = save_report(report, reports_folder(reports_dir(svc)), prefix="lme")  # the Evaluation page reads it
    if out is not None:
        save_report(report, out.parent, out.name)
    if json_out:
        emit(report)
        return
    ks = report["settings"]["ks"]
    typer.echo(
        f"{report['asked']} questions asked, {report['skipped_abstention']} abstention skipped, {report['seconds']} s"
    )
    for name, block in [("all", report["overall"]), *report["by_type"].items()]:
        cells = " ".join(
            f"S-any@{kk} {_pct(block[f'session_recall_any@{kk}'])} "
            f"S-all@{kk} {_pct(block[f'session_recall_all@{kk}'])} T@{kk} {_pct(block[f'turn_recall@{kk}'])}"
            f" T+ctx@{kk} {_pct(block.get(f'turn_recall_context@{kk}'))}"
            for kk in ks
        )
        typer.echo(f"{name:<28} n {block['questions']:>4}  {cells}")
    for miss in report["not_ingested"]:
        typer.echo(f"not ingested: {miss['question_id']}: {miss['error']}")
    typer.echo(f"ingested through: {report['ingest_path']}; report: {saved}")


def _pct(value: float | None) -> str:
    return "  —  " if value is None else f"{value:5.1f}"


@cli.command("facts")
def facts_cmd(
    path: Annotated[Path, typer.Argument(help="A LoCoMo-format JSON file with `observation`s.")],
    extractor: Annotated[
        str, typer.Option("--extractor", help="offline (the rules) | llm (the configured OpenAI-compatible model)")
    ] = "offline",
    conversations: Annotated[
        str | None, typer.Option("--conversations", help="Comma-separated sample ids (default: all).")
    ] = None,
    pairs: Annotated[
        bool, typer.Option("--pairs/--no-pairs", help="Print the random memory/observation pairs.")
    ] = True,
    out: OutOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Score fact extraction against LoCoMo's observations: recall, precision, memories per turn and readability,
    on the conversations the rules were tuned on and on the left-out ones (memory.evaluation.facts)."""
    if extractor not in ("offline", "llm"):
        raise InvalidInput(f"--extractor must be offline or llm, not {extractor!r}")
    from memory.evaluation import facts
    from memory.evaluation.runner import reports_dir, save_report

    svc = service()
    model = None
    if extractor == "llm":
        from memory.write.extract.llm import configured_model

        model = configured_model(svc.settings)
    names = [c.strip() for c in conversations.split(",") if c.strip()] if conversations else None
    report = facts.run(path, embedder=svc.storage.embedder, model=model, conversations=names)
    from datetime import UTC, datetime

    report["created_at"] = datetime.now(UTC).isoformat(timespec="seconds")
    saved = save_report(report, facts.reports_folder(reports_dir(svc)), prefix=f"facts-{report['extractor']}")
    if out is not None:
        save_report(report, out.parent if str(out.parent) else Path("."), out.name)
    if json_out:
        emit(report)
        return
    for line in facts.lines(report, pairs=pairs):
        typer.echo(line)
    typer.echo(f"report: {saved}")
