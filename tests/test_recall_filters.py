"""Recall filters (type, source type, agent, since/until on event time) and the as_of reference time: validated
values only, applied in the index or on the SQL rows, and the period a query's date words name lifted in the ranking."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from typer.testing import CliRunner

from memory.errors import InvalidInput
from memory.retrieval.filters import RecallFilters, period

AS_OF = datetime(2026, 12, 1, 12, tzinfo=UTC)


@pytest.fixture
def filled(plumbing_svc):
    user = plumbing_svc.ensure_user("f")
    rows = [
        ("went hiking in the hills", "event", "user-stated", datetime(2026, 11, 25, tzinfo=UTC)),
        ("went hiking in the hills", "event", "inferred", datetime(2026, 10, 3, tzinfo=UTC)),
        ("prefers hiking to running", "preference", "person-edit", datetime(2026, 11, 26, tzinfo=UTC)),
        ("hiking boots are size 42", "fact", "user-stated", None),
    ]
    ids = [plumbing_svc.add_memory(user, text, type=t, source_type=src, event_time=at).id for text, t, src, at in rows]
    return plumbing_svc, ids


def _ids(result) -> set[str]:
    return {h.memory_id for h in result.hits}


def test_each_filter_narrows_the_candidates(filled):
    svc, (nov, octo, pref, boots) = filled
    ask = lambda **f: svc.recall("f", "hiking", threshold=-1.0, log=False, filters=RecallFilters.build(**f))  # noqa: E731
    assert _ids(ask()) == {nov, octo, pref, boots}
    assert _ids(ask(types=["event"])) == {nov, octo}
    assert _ids(ask(types="Preference")) == {pref}  # canonical constant, case-insensitive
    assert _ids(ask(source_types=["person-edit", "inferred"])) == {octo, pref}
    assert _ids(ask(since="2026-11-01")) == {nov, pref}  # no event time: outside any window
    assert _ids(ask(since="2026-11-01", until="2026-11-25T23:00:00+00:00")) == {nov}
    assert _ids(ask(types=["event"], until="2026-11-01")) == {octo}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"types": ["fact' OR 1=1 --"]}, "unknown memory type"),
        ({"source_types": ["user"]}, "unknown source type"),
        ({"since": "last tuesday"}, "ISO-8601"),
        ({"since": "2026-12-02", "until": "2026-12-01"}, "since must not be after until"),
    ],
)
def test_bad_filter_values_are_refused_before_any_search(kwargs, message):
    with pytest.raises(InvalidInput, match=message):
        RecallFilters.build(**kwargs)


def test_the_index_clause_is_built_from_canonical_constants_only():
    assert RecallFilters.build(types=["FACT", "event"]).index_clause() == "type IN ('fact', 'event')"
    assert RecallFilters.build().index_clause() is None


def test_as_of_resolves_the_query_date_words_and_lifts_that_period(filled):
    svc, (nov, octo, _pref, _boots) = filled
    _, start, end = period("what hiking did I do last week", AS_OF)
    assert (start, end) == (datetime(2026, 11, 23, tzinfo=UTC), datetime(2026, 11, 30, tzinfo=UTC))
    assert period("我上周去了哪里", AS_OF)[1:] == (start, end)
    plain = svc.recall("f", "went hiking last week", threshold=-1.0, log=False)
    first = {h.memory_id: h.rank for h in plain.hits}
    assert abs(first[nov] - first[octo]) == 1  # same text: only the tie-break separates them
    dated = svc.recall(
        "f", "went hiking last week", threshold=-1.0, log=False, filters=RecallFilters.build(as_of=AS_OF)
    )
    ranks = {h.memory_id: h.rank for h in dated.hits}
    assert ranks[nov] < ranks[octo] and dated.filters["as_of"] == AS_OF.isoformat()
    later = RecallFilters.build(as_of="2026-10-08T00:00:00Z")  # a week after October 3rd: the older one now
    ranks = {h.memory_id: h.rank for h in svc.recall("f", "went hiking last week", threshold=-1.0, filters=later).hits}
    assert ranks[octo] < ranks[nov]


def test_cli_recall_takes_filters_and_shows_relevance(filled, monkeypatch):
    from memory import cli
    from memory.cli import core

    svc, (nov, octo, _pref, _boots) = filled
    monkeypatch.setattr(core, "service", lambda: svc)
    res = CliRunner().invoke(
        cli.app, ["recall", "hiking", "--user", "f", "--type", "event", "--since", "2026-11-01", "--json"]
    )
    assert res.exit_code == 0, res.output
    import json

    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert [h["memory_id"] for h in out["hits"]] == [nov]
    assert 0.0 <= out["hits"][0]["relevance"] <= 1.0 and "similarity" in out["hits"][0]
    bad = CliRunner().invoke(cli.app, ["recall", "hiking", "--user", "f", "--type", "gossip"])
    assert isinstance(bad.exception, InvalidInput) and "unknown memory type" in str(bad.exception)
