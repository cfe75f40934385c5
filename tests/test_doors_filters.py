"""``memory.docfilters``: LangGraph's and mem0's value filters, one matcher, never an error on odd values."""

from __future__ import annotations

import math

import pytest

from memory.docfilters import matches
from memory.errors import InvalidInput

DOC = {
    "n": 5,
    "big": 10**30,
    "ok": True,
    "tags": ["a", "b"],
    "user": {"access-level": "x", "城市": "杭州"},
    "t": "Meeting",
}


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ({"n": 5}, True),
        ({"n": {"$gt": 4, "$lte": 5}}, True),
        ({"n": {"gt": 5}}, False),
        ({"n": {"$ne": 5}}, False),
        ({"missing": {"$ne": 1}}, True),  # absent is "not equal"
        ({"missing": {"$gt": 1}}, False),
        ({"n": {"$gt": "4"}}, False),  # number against text: false, not an error
        ({"n": {"$eq": math.nan}}, False),
        ({"big": {"$gt": 10**29}}, True),
        ({"ok": 1}, False),  # true is not 1
        ({"ok": True}, True),
        ({"tags": ["a", "b"]}, True),
        ({"tags": {"contains": "a"}}, True),
        ({"user.access-level": "x"}, True),
        ({"user.城市": "杭州"}, True),
        ({"user": {"城市": "杭州"}}, True),
        ({"t": {"icontains": "meet"}}, True),
        ({"t": {"in": ["Meeting", "Call"]}}, True),
        ({"t": {"nin": ["Meeting"]}}, False),
        ({"t": "*"}, True),
        ({"missing": "*"}, False),
        ({"OR": [{"n": 1}, {"ok": True}]}, True),
        ({"AND": [{"n": 5}, {"NOT": [{"ok": True}]}]}, False),
        ({"user_id' OR '1'='1": "x"}, False),  # a hostile key is just a key
    ],
)
def test_filters(filters, expected):
    assert matches(DOC, filters) is expected


@pytest.mark.parametrize("bad", [{"n": {"$regex": "x"}}, {"AND": {"n": 5}}, {"t": {"in": "Meeting"}}, ["n"]])
def test_bad_filters_are_clear_value_errors(bad):
    with pytest.raises(InvalidInput) as err:
        matches(DOC, bad)
    assert isinstance(err.value, ValueError)
