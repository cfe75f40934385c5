"""Export → delete → import gives back identical data (every table), and import refuses to overwrite."""

from __future__ import annotations

import json

import pytest
from actors import ADMIN
from test_lifecycle_delete import seed_user
from typer.testing import CliRunner

from memory.errors import Conflict, InvalidInput

HOSTILE_ID = "ロバート'); DROP TABLE user;-- 🐍" + "x" * 300


def _dump(data) -> str:
    return json.dumps(data, ensure_ascii=False, sort_keys=True)


def _same_rows(data) -> str:
    """The export with every id replaced by what its row holds (ids are remapped on import): rows are named by their
    content and references by the content of the row they name, so a reference that moved to another row shows."""
    from memory.lifecycle.export import user_tables
    from memory.lifecycle.import_check import insert_order, refs

    tables = {t.name: t for t, *_ in user_tables()}
    labels: dict[tuple[str, object], str] = {}
    memory_ids = {m["id"] for m in data["tables"].get("memory", [])}

    def in_json(value, self_refs):
        """A memory id inside JSON: the row it names (a row's own label leaves it out: ids order no rows)."""
        if not isinstance(value, str) or value not in memory_ids:
            return value
        return labels.get(("memory", value), "?") if self_refs else "<memory>"

    def named(table, row, self_refs):
        pk = next(iter(tables[table].primary_key.columns)).name
        out = {k: v for k, v in row.items() if k not in (pk, "user_key")}
        for column, target in refs(tables[table]).items():
            if target == table and not self_refs:
                out.pop(column, None)
                continue
            value = out.get(column)
            if isinstance(value, list):
                out[column] = [labels.get((target, v), "?") for v in value]
            elif value is not None:
                out[column] = labels.get((target, value), "?")
        if isinstance(out.get("dropped_items"), list):  # a context section's memory and message ids
            out["dropped_items"] = [
                labels.get(("message", int(x)), "?") if isinstance(x, str) and x.isdigit() else in_json(x, self_refs)
                for x in out["dropped_items"]
            ]
        for column in ("meta", "detail", "memory_ids"):
            if isinstance(out.get(column), dict):
                out[column] = dict(out[column])
                for k, v in list(out[column].items()):
                    if isinstance(v, list):
                        out[column][k] = [in_json(x, self_refs) for x in v]
                    else:
                        out[column][k] = in_json(v, self_refs)
        return out

    result = {}
    for name in insert_order(tables):
        rows = [data["user"]] if name == "user" else data["tables"].get(name, [])
        pk = next(iter(tables[name].primary_key.columns)).name
        for row in rows:
            labels[(name, row.get(pk))] = _dump(named(name, row, self_refs=False))
    for name in insert_order(tables):
        rows = [data["user"]] if name == "user" else data["tables"].get(name, [])
        result[name] = sorted(_dump(named(name, row, self_refs=True)) for row in rows)
    return _dump(result)


def as_imported_by(data, importer: str):
    """The export as an import by ``importer`` writes it: relevance labels are filed under the importer's name."""
    from memory.lifecycle.import_check import labeller

    out = json.loads(_dump(data))
    for label in out["tables"].get("hitlabel", []):
        label["labeled_by"] = labeller(label["labeled_by"], importer)
    return out


def test_export_delete_import_is_lossless(plumbing_svc):
    svc = plumbing_svc
    seed_user(svc, HOSTILE_ID, "zebraquokka")
    seed_user(svc, "bob", "platypusowl")
    first = svc.lifecycle.export_user(HOSTILE_ID, actor=ADMIN)
    tables = first["tables"]
    for name in (
        "profilefield",
        "profilechange",
        "session",
        "message",
        "summaryanchor",
        "sessionbridge",
        "memory",
        "memoryevent",
        "turn",
        "retrieval",
        "retrievalhit",
        "contextsnapshot",
        "contextsection",
        "hitlabel",
    ):
        assert tables[name], f"the seed should cover {name}"
    assert {m["status"] for m in tables["memory"]} == {"active", "superseded"}

    svc.lifecycle.delete_user(HOSTILE_ID, actor=ADMIN)
    counts = svc.lifecycle.import_user(json.loads(_dump(first)), actor=ADMIN)  # through real JSON text, as the CLI does
    assert counts["memory"] == len(tables["memory"])
    again = svc.lifecycle.export_user(HOSTILE_ID, actor=ADMIN)
    assert _same_rows(again) == _same_rows(as_imported_by(first, ADMIN.name))
    assert {lb["labeled_by"] for lb in again["tables"]["hitlabel"]} == {"test-admin (imported: team)"}
    assert again["user"]["key"] != first["user"]["key"]  # ids are remapped, never trusted
    hits = svc.recall(HOSTILE_ID, "zebraquokka hiking", threshold=0.0, log=False).selected
    assert hits and "zebraquokka" in hits[0].content  # the index was rebuilt for the imported memories


def test_import_refuses_existing_user_and_bad_files(plumbing_svc):
    svc = plumbing_svc
    seed_user(svc, "alice", "zebraquokka")
    data = svc.lifecycle.export_user("alice", actor=ADMIN)
    with pytest.raises(Conflict):
        svc.lifecycle.import_user(data, actor=ADMIN)
    with pytest.raises(InvalidInput):
        svc.lifecycle.import_user({"format": "something else"}, actor=ADMIN)
    broken = json.loads(_dump(data))
    broken["tables"]["memory"][0]["created_at"] = "last tuesday"
    svc.lifecycle.delete_user("alice", actor=ADMIN)
    with pytest.raises(InvalidInput, match="ISO-8601"):
        svc.lifecycle.import_user(broken, actor=ADMIN)
    assert svc.list_users() == []  # nothing half-imported


def test_cli_export_import_round_trip(plumbing_svc, monkeypatch, tmp_path):
    from memory.cli import app, cli_actor

    seed_user(plumbing_svc, "陈林", "熊猫竹子")
    plumbing_svc.close()
    monkeypatch.setenv("MEMLENS_EMBEDDER", "hash")
    runner, out = CliRunner(), tmp_path / "alice.json"
    assert runner.invoke(app, ["export", "--user", "陈林", "--out", str(out)]).exit_code == 0
    before = out.read_text(encoding="utf-8")
    assert "熊猫竹子" in before
    assert runner.invoke(app, ["delete-user", "--user", "陈林", "--yes"]).exit_code == 0
    res = runner.invoke(app, ["import", str(out), "--json"])
    assert res.exit_code == 0, res.output
    again = runner.invoke(app, ["export", "--user", "陈林"])
    importer = cli_actor().name  # the OS user running the CLI
    assert _same_rows(json.loads(again.output)) == _same_rows(as_imported_by(json.loads(before), importer))
