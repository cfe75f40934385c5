"""A line that names nothing of the speaker's life (issue 44, eighteenth and nineteenth rounds).

"User faced all kinds of hurdles." tells a kind of news and nothing of which; the line is dropped
(``extractor.standing``), beside another memory or alone, dated or not ("User has been working on a project lately":
blind readers called every such line trivial). A statement joined to it that tells what the speaker did ("…; User
and others won it by a tight score") names something, and keeps it. Sentences written for these tests in the corpora's
manner (not copied from them)."""

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


def test_alone_a_kind_only_line_is_dropped_dated_or_not():
    """Nineteenth round: the timeline exception is gone; what a reader learns from the line is a kind."""
    assert extract("I've been working on a project lately.", role="user", at=AT) == []
    assert extract("Last week I had a crazy game!", role="user", at=AT) == []
    assert extract("We got to see some epic spots!", role="user", at=AT) == []
    assert extract("I'm currently reading a book that I really enjoy.", role="user", at=AT) == []


def test_what_the_speaker_did_joined_to_a_kind_names_something():
    """The sentence after the kind tells what happened; an exclamation between them ("- crazy intense!") adds
    nothing the joined memory loses."""
    said = "Last week I had a crazy game - crazy intense! We won it by a tight score."
    got = [c.content for c in extract(said, role="user", at=AT)]
    assert got == ["User had a crazy game (Last week, 2024-04-24); User and others won it by a tight score."], got
    assert not names_nothing(got[0])
    # a remark joined to the kind is no news of the speaker's
    assert names_nothing("User and others got to see some epic spots; it's hard to describe how beautiful they were.")


@pytest.mark.parametrize(
    "content",
    [
        "User and others get their creative on and have a blast together.",
        "User and others raised a ton.",
        "User and their team gave it their all during last week's scrimmage (2024-04-24).",
        "User needs to find a better way to focus their passion and enthusiasm.",
    ],
)
def test_the_chats_light_words_name_nothing(content):
    assert names_nothing(content)


@pytest.mark.parametrize(
    "content",
    [
        "User and others raised a ton of canned food for the shelter.",
        "User's team won the state championship.",
        "User needs to find a better way to focus on their thesis.",
    ],
)
def test_one_word_of_its_own_names_something(content):
    assert not names_nothing(content)
