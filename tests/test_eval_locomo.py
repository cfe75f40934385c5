"""`memlens eval locomo` end to end on a tiny LoCoMo-format fixture: real write path, real e5, real recall."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memory.cli import app
from memory.cli import evaluate as cli_eval
from memory.evaluation import eval_service, list_reports, load
from memory.evaluation.ingest import dia_ids_by_message

TINY = Path(__file__).parent / "data" / "tiny_locomo_format.json"


@pytest.mark.slow
def test_cli_report_shape_provenance_reuse_and_no_question_text(svc, monkeypatch, tmp_path):
    monkeypatch.setattr(cli_eval, "service", lambda: svc)
    out = tmp_path / "report.json"
    res = CliRunner().invoke(app, ["eval", "locomo", str(TINY), "--k", "1,3", "--json", "--out", str(out)])
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout.strip().splitlines()[-1])
    assert report == json.loads(out.read_text())
    assert list_reports(Path(svc.settings.data_dir) / "eval")  # also saved under <data_dir>/eval/
    assert set(report["runs"]) == {"hybrid", "fulltext", "vector"}
    for block in (report["overall"], *report["by_category"].values()):
        assert {"recall@1", "recall@3", "hit@3", "mrr", "tokens@3"} <= set(block)
        assert all(0.0 <= block[f"recall@{k}"] <= 100.0 for k in (1, 3))
    assert set(report["by_category"]) == {"1", "2", "3", "4", "5"}
    assert report["by_category"]["3"]["with_evidence"] == 0  # its only question has no evidence
    assert report["overall"]["questions"] == 8 and report["overall"]["with_evidence"] == 7
    # recall@k never falls as k grows; the sweep runs over relevance 0..1
    assert report["overall"]["recall@3"] >= report["overall"]["recall@1"]
    assert [r["threshold"] for r in report["runs"]["hybrid"]["sweep"]][::10] == [0.0, 0.5, 1.0]
    # each conversation's questions were also asked of the other's user: the cut's two rates, curves, left-out
    at = report["at_threshold"]
    assert set(at) >= {"threshold", "k", "answerable_hit_rate", "foreign_noise_rate", "mean_injected"}
    assert at["answerable"] == 7 and at["foreign"] == 8
    assert report["threshold_curves"][0]["foreign_noise_rate"] == 100.0  # at relevance 0 everything passes
    assert report["threshold_curves"][-1]["foreign_noise_rate"] <= at["foreign_noise_rate"]
    cv = report["cross_validated"]
    assert set(cv["folds"]) == {s.sample_id for s in load(TINY)}
    # the fusion weights were tuned per fold on the other conversation (nested), beside the in-sample figures
    assert all(set(f["weights"]) == set(cv["grid"]) for f in cv["folds"].values())
    assert set(cv["in_sample"]["weights"]) == set(cv["grid"]) and "recall@3" in cv["in_sample"]["overall"]
    assert {"recall@3", "tokens@3"} <= set(cv["recall"]["overall"])
    # what the prompt gets (each memory with its source context) beside the memory alone: never less, never cheaper
    alone = report["memories_alone"]["overall"]
    assert report["overall"]["recall@3"] >= alone["recall@3"] and report["overall"]["tokens@3"] >= alone["tokens@3"]
    assert report["at_threshold"]["answerable_hit_rate"] >= report["at_threshold_alone"]["answerable_hit_rate"]
    assert cv["recall"]["overall"]["recall@3"] >= cv["recall_alone"]["overall"]["recall@3"]
    assert {"overall", "by_category"} <= set(cv["in_sample_alone"]) and "answerable_hit_rate" in cv["nested_alone"]
    # a sensible retriever over seven turns finds the named puppy / the job at k=3 (single-hop)
    assert report["by_category"]["4"]["hit@3"] >= 75.0
    text = json.dumps(report, ensure_ascii=False)
    for sample in load(TINY):
        assert all(q.question not in text for q in sample.questions)
        assert all(t.text not in text for s in sample.sessions for t in s.turns)
    # every turn became a message with its dia_id and a turn memory pointing back at it
    assert [u["user_id"] for u in svc.list_users()] == []  # benchmark speakers stay out of the product's users
    store = eval_service(svc)
    user = store.get_user("locomo:tiny-1")
    dia_of = dia_ids_by_message(store.storage, user.key)
    turns = [m for m in store.list_memories(user) if m.type == "episode"]
    assert sorted(dia_of[m.source_message_ids[0]] for m in turns) == sorted(
        t.dia_id for s in load(TINY)[0].sessions for t in s.turns
    )
    assert report["ingest"]["episodes"] == 10 and report["ingest"]["messages"] == 10
    # a second run reuses the ingested sessions instead of writing them again
    again = CliRunner().invoke(app, ["eval", "locomo", str(TINY), "--k", "1", "--json", "--no-baselines"])
    assert again.exit_code == 0, again.output
    second = json.loads(again.stdout.strip().splitlines()[-1])
    assert second["ingest"]["reused_sessions"] == 3 and second["ingest"]["messages"] == 0
    assert set(second["runs"]) == {"hybrid"}


def test_cli_refuses_bad_options(plumbing_svc, monkeypatch, tmp_path):
    monkeypatch.setattr(cli_eval, "service", lambda: plumbing_svc)
    res = CliRunner().invoke(app, ["eval", "locomo", str(TINY), "--k", "a,b"])
    assert res.exit_code != 0
    res = CliRunner().invoke(app, ["eval", "locomo", str(TINY), "--mode", "magic"])
    assert res.exit_code != 0
    res = CliRunner().invoke(app, ["eval", "locomo", str(tmp_path / "missing.json")])
    assert res.exit_code != 0
