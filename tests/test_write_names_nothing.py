"""A line that names nothing of the speaker's life (issue 44, eighteenth round).

"User faced all kinds of hurdles." tells a kind of news and nothing of which; when the same message keeps another
memory, that one tells the news and the kind-only line is dropped (``extractor.standing``). Alone it stays when it
is on the speaker's timeline (dated, recent, going on): LoCoMo's annotators note such news too, and the left-out recall
has no room to lose it. Sentences written for these tests in the corpora's manner (not copied from them)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.write.extract.extractor import extract
from memory.write.extract.worth import names_nothing

AT = datetime(2024, 5, 1, 9, tzinfo=UTC)


@pytest.mark.parametrize(
    "content",
    [
        "User faced all kinds of hurdles.",
        "User has had some thrilling games in their career.",
        "User is working on a project.",
        "User had a crazy game (last week, 2024-04-24).",
        "User and others had a great time last weekend (2024-04-27).",
        "User also went on a tour.",
        "User has watched a bunch of movies and they're inspiring.",
    ],
)
def test_a_kind_of_news_with_nothing_named_names_nothing(content):
    assert names_nothing(content)


@pytest.mark.parametrize(
    "content",
    [
        "User faced all kinds of hurdles at the bar exam.",
        "User is working on a project about tide pools.",
        "User had a crazy game against the Hawks.",
        "User had 3 games last week.",
        "User watched a classic movie the other day.",  # a kind with a word of its own
        "User adopted a greyhound.",
        "Park: User and others had a great time.",  # the occasion's label names where
        "用户做了一个项目。",  # Chinese is not read by this English word list
    ],
)
def test_a_thing_a_number_or_a_name_is_something_named(content):
    assert not names_nothing(content)


def test_beside_the_memory_that_tells_the_news_the_kind_only_line_is_dropped():
    said = "Honestly I faced all kinds of hurdles. But I finally passed the bar exam in March!"
    got = [c.content for c in extract(said, role="user", at=AT)]
    assert not any("hurdles" in g for g in got), got
    assert any("passed the bar exam" in g for g in got), got


def test_alone_a_kind_only_line_on_the_speakers_timeline_is_kept():
    """Dated, recent or going on: LoCoMo's annotators note such news, and left-out recall has no room to lose it."""
    got = [c.content for c in extract("I've been working on a project lately.", role="user", at=AT)]
    assert got == ["User has been working on a project lately."]
    assert names_nothing("User had a crazy game (last week, 2024-04-24).")
    assert not names_nothing("User had a crazy game (last week, 2024-04-24).", alone=True)


def test_alone_a_kind_only_line_off_the_timeline_is_dropped():
    assert extract("We got to see some epic spots!", role="user", at=AT) == []
    assert names_nothing("User got to see some epic spots.", alone=True)
