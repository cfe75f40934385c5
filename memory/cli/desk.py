"""The audit desk from a shell: `memlens recall explain`, `memlens hygiene`, `memlens eval labels`,
`memlens replay`. Each calls the same service operation the back office's Audit desk page calls."""

from __future__ import annotations

from typing import Annotated

import typer

from memory.cli.common import AgentOpt, JsonOpt, UserOpt, cli_actor, emit, say, service

#: top-level commands: `memlens hygiene`, `memlens replay`
cli = typer.Typer()
#: `memlens recall explain` (added to the recall group in memory/cli/main.py)
recall_cli = typer.Typer()


@recall_cli.command("explain")
def explain(
    user: UserOpt,
    memory: Annotated[str, typer.Option("--memory", "-m", help="The memory id to explain.")],
    query: Annotated[str | None, typer.Argument(help="The query (or give --retrieval).")] = None,
    retrieval: Annotated[
        int | None, typer.Option("--retrieval", help="Explain a logged retrieval instead of a typed query.")
    ] = None,
    agent: AgentOpt = None,
    k: Annotated[int | None, typer.Option("--k", help="How many memories to select.")] = None,
    threshold: Annotated[float | None, typer.Option("--threshold", help="Relevance threshold.")] = None,
    mode: Annotated[str | None, typer.Option("--mode", help="vector | fulltext | hybrid")] = None,
    json_out: JsonOpt = False,
) -> None:
    """Why (not)? Every stage one memory went through for a query, and the first one it fell out at."""
    data = service().desk.explain_recall(
        user, memory, query, retrieval_id=retrieval, agent_id=agent, k=k, threshold=threshold, mode=mode
    )
    if json_out:
        emit(data)
        return
    say(f"{data['memory_id']}: {data['content'][:120]}")
    say(f"query: {data['query'][:200]}")
    if data.get("logged"):
        say(f"logged then: {data['logged']['said']}")
    for s in data["stages"]:
        mark = "·" if not s["gate"] else {True: "✔", False: "✘", None: "—"}[s["passed"]]
        say(f"{mark} {s['name']:<20} {s['detail']}")
    say(data["summary"])


#: `memlens eval labels` (added to the eval group in memory/cli/main.py)
eval_cli = typer.Typer()


@cli.command("hygiene")
def hygiene(
    user: Annotated[str | None, typer.Option("--user", "-u", help="One user (default: everyone).")] = None,
    days: Annotated[
        float | None, typer.Option("--days", help="'Never recalled' = older than and not recalled in DAYS (90).")
    ] = None,
    kind: Annotated[list[str] | None, typer.Option("--kind", help="Only these checks (repeatable).")] = None,
    act: Annotated[
        str | None, typer.Option("--act", help="Apply an action to the finding --key: merge|flag|delete|clear|keep.")
    ] = None,
    key: Annotated[str | None, typer.Option("--key", help="The finding to act on (its key from --json).")] = None,
    target: Annotated[str | None, typer.Option("--target", help="Which of its memories (merge: the one kept).")] = None,
    reason: Annotated[str, typer.Option("--reason", "-r", help="Why (logged with your name).")] = "",
    json_out: JsonOpt = False,
) -> None:
    """The memory-hygiene review queue: near-duplicates, contradictions, restated prompts, unsupported facts,
    instructions, PII past masking, orphaned profile values, never-recalled memories; each with its evidence."""

    svc = service()
    if act is not None:
        if not key:
            raise typer.BadParameter("--act needs --key (a finding's key, from --json)")
        done = svc.desk.hygiene_act(
            key, act, actor=cli_actor(), user_id=user, target=target, reason=reason, never_recalled_days=days
        )
        if json_out:
            emit(done)
        else:
            say(f"{act}: {done}")
        return
    review = svc.desk.hygiene_review(user, never_recalled_days=days, kinds=kind)
    if json_out:
        emit(review.to_dict())
        return
    for u in review.to_dict()["users"]:
        rate = "—" if u["junk_rate"] is None else f"{u['junk_rate']:.1%}"
        say(f"{u['user_id'][:40]:<40} {u['active']:>6} active  {u['accused']:>5} accused  junk rate {rate}")
    for f in review.findings:
        say(f"[{f.kind}] {f.user_id[:30]} · {f.evidence[:160]}")
        for mid, content in zip(f.memory_ids, f.contents, strict=False):
            say(f"    {mid}  {content[:120]}")
        say(f"    key {f.key} · actions: {', '.join(f.actions)}")
    say(f"{len(review.findings)} findings ({review.kept} kept as they are, not shown)")


SetOpt = Annotated[
    list[str] | None, typer.Option("--set", help="A recall setting to change, KEY=VALUE (repeatable): k, mode, …")
]


@eval_cli.command("labels")
def labels(
    user: Annotated[str | None, typer.Option("--user", "-u", help="One user's labels (default: all).")] = None,
    gate: Annotated[bool, typer.Option("--gate", help="Exit 1 on losses or wrong gains beyond tolerance.")] = False,
    baseline: Annotated[
        str | None, typer.Option("--baseline", help="A previous `--json` run to gate against (default: last kept).")
    ] = None,
    tolerance: Annotated[int, typer.Option("--tolerance", help="Hits that may be lost / wrongly gained.")] = 0,
    record: Annotated[bool, typer.Option("--record", help="Keep this run in the suite's history.")] = False,
    import_file: Annotated[
        str | None, typer.Option("--import", help="Import labels first (JSON / CSV: user_id,query,memory_id,relevant).")
    ] = None,
    set_: SetOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Labelled queries as a regression suite: precision / recall of what would be injected under the current
    settings (plus --set changes); --gate fails on lost labelled-relevant or gained labelled-wrong hits."""
    import json
    from pathlib import Path

    from memory.desk import labels_gate, replay

    svc = service()
    if import_file:
        path = Path(import_file)
        fmt = "csv" if path.suffix.casefold() == ".csv" else "json" if path.suffix.casefold() == ".json" else None
        done = svc.desk.import_labels(path.read_text(encoding="utf-8"), actor=cli_actor(), fmt=fmt)
        say(f"imported {done['labels']} labels on {done['queries']} queries", err=True)
    changes = replay.parse_overrides(set_ or [])
    before = None
    if gate:
        if baseline:
            before = json.loads(Path(baseline).read_text(encoding="utf-8"))
        else:
            history = [h for h in svc.desk.labels_history(limit=20) if h.get("user_id") == user and "hits" in h]
            before = history[0] if history else None
    run = svc.desk.eval_labels(user, record=record, actor=cli_actor(), **changes)
    verdict = labels_gate.gate(run, before, tolerance) if gate else None
    if json_out:
        emit({**run, "gate": verdict})
    else:
        p, r = run["precision"], run["recall"]
        say(
            f"{run['queries']} labelled queries · {run['labels']} labels · precision "
            f"{'—' if p is None else f'{p:.1%}'} · recall {'—' if r is None else f'{r:.1%}'} "
            f"· settings {run['settings']}"
        )
        for q in run["per_query"]:
            if q["wrong_selected"] or q["relevant_missed"]:
                say(f"  {q['query'][:80]}: missed {len(q['relevant_missed'])}, wrong {len(q['wrong_selected'])}")
        if verdict is not None:
            state = "PASSED" if verdict["passed"] else "FAILED"
            say(
                f"gate {state}: lost {len(verdict['lost'])} labelled-relevant, gained {len(verdict['gained_wrong'])} "
                f"labelled-wrong (tolerance {tolerance}; baseline {'none' if before is None else before.get('at')})"
            )
    if verdict is not None and not verdict["passed"]:
        raise typer.Exit(1)


@cli.command("replay")
def replay_cmd(
    set_: SetOpt = None,
    user: Annotated[str | None, typer.Option("--user", "-u", help="One user's logged queries (default: all).")] = None,
    last: Annotated[int, typer.Option("--last", help="How many distinct logged queries.")] = 20,
    embedder: Annotated[
        str | None, typer.Option("--embedder", help="Shadow replay: B uses this embedder (e5 | openai | hash).")
    ] = None,
    extractor: Annotated[
        str | None, typer.Option("--extractor", help="Shadow replay: B extracts with rules | model.")
    ] = None,
    sample: Annotated[int, typer.Option("--sample", help="Shadow replay: the user's last N messages.")] = 200,
    json_out: JsonOpt = False,
) -> None:
    """A/B replay: logged queries under the current settings (A) and with --set KEY=VALUE (B): per query the
    memories gained or lost and the injected tokens. With --embedder / --extractor (and --user), the user's
    recorded messages are written again into two shadow stores (A live, B changed) and compared there."""
    from memory.desk import replay

    if embedder is not None or extractor is not None:
        if user is None or set_:
            raise typer.BadParameter("a shadow replay (--embedder / --extractor) takes --user and no --set")
        out = service().desk.shadow_replay(
            user, embedder=embedder, extractor=extractor, sample=sample, last=last, actor=cli_actor()
        )
        _print_replay(out, json_out)
        return
    changes = replay.parse_overrides(set_ or [])
    if not changes:
        raise typer.BadParameter("give at least one --set KEY=VALUE (e.g. --set k=8)")
    out = service().desk.replay(changes, user_id=user, last=last, actor=cli_actor())
    _print_replay(out, json_out)


def _print_replay(out: dict, json_out: bool) -> None:
    if json_out:
        emit(out)
        return
    for q in out["per_query"]:
        if q["gained"] or q["lost"]:
            moved = f"+{len(q['gained'])} / -{len(q['lost'])}, tokens {q['tokens_a']} → {q['tokens_b']}"
            say(f"{q['query'][:80]}  ({moved})")
            for h in q["gained"]:
                say(f"    + {h['content'][:100]}")
            for h in q["lost"]:
                say(f"    - {h['content'][:100]}")
    say(out["summary"])
