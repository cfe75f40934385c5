"""A "the X" the conversation pointed at (memory.write.extract.definite, issue 44): named as the kind it is, or not
stored when it is only liked; a "the X" of the world, of the memory's own words or of an idiom is left as it is.

Sentences written for these tests in the shapes of conversations (not LoCoMo or LongMemEval text)."""

from __future__ import annotations

import pytest
from extract_helpers import read as read_after

from memory.write.extract.definite import indefinite
from memory.write.extract.references import unresolved


def read(text: str, recent: list[str]) -> list[str]:
    """What the write path makes of a user's message read with the session's messages before it (the last of them
    the one it answers)."""
    return read_after(text, previous=recent[-1], recent=recent)


@pytest.mark.parametrize(
    ("recent", "said", "memory"),
    [
        # pointed at by the other speaker ("that pie" in the photo): a pie, of its kind
        (
            ["That pie looks delicious, Sam! How did you make it?"],
            "I make the pie with oat flour, butter and fresh cherries.",
            "User makes a pie with oat flour, butter and fresh cherries.",
        ),
        # introduced as one of a kind a few messages back, with its own words
        (
            ["I heard you were in a bike accident last month?", "Oh no, that sounds awful."],
            "Yeah, I was so shaken when I got into the accident.",
            "User was so shaken when they got into a bike accident.",
        ),
        (
            ["Did you end up joining a pottery studio?", "I remember you talking about it."],
            "I spend every Sunday in the studio now.",
            "User spends every Sunday in a pottery studio now.",
        ),
    ],
)
def test_a_the_x_the_session_pointed_at_is_named_as_its_kind(recent, said, memory):
    assert read(said, recent) == [memory]
    assert not unresolved(memory)


def test_a_subject_opening_the_memory_is_named_only_from_a_kind_introduced_with_words_of_its_own():
    intro = ["I went to a queer support group yesterday.", "How was it?"]
    assert indefinite("The support group has made User feel accepted.", "", "", intro) == (
        "A queer support group has made User feel accepted."
    )
    # after a pointer only, and the photo itself, it is left as it is
    assert indefinite("The team has been really nice.", "", "", ["That team looks fun!"]) == (
        "The team has been really nice."
    )
    caption = ["Look! [shares a photo of a forest trail]"]
    assert indefinite("The photo is from a forest near User's hometown.", "", "", caption) == (
        "The photo is from a forest near User's hometown."
    )
    # an article ends the noun phrase: "the tattoo a few years ago" is "the tattoo"
    assert indefinite("User got the tattoo a few years ago.", "", "", ["That tattoo is so cool!"]) == (
        "User got a tattoo a few years ago."
    )


def test_a_the_x_named_fuller_exchanges_back_in_the_session_takes_its_words():
    """ "the homeless shelter" eight messages back names "the shelter" (the write path reads a message with the
    session's ``SESSION`` messages before it; the place and person references of memory.write.extract.recent still
    read only the last few)."""
    recent = ["I started volunteering at the homeless shelter downtown.", *[f"Filler message {i}." for i in range(7)]]
    assert read("The people at the shelter have become like family to me.", recent) == [
        "The people at a homeless shelter have become like family to User."
    ]
    # said with no more words than the memory's own, "the" points at nothing a reader lacks
    assert read("The people at the shelter have become like family to me.", ["How is the shelter going?"]) == [
        "The people at the shelter have become like family to User."
    ]


def test_a_liked_the_x_only_the_photo_shows_is_not_stored():
    recent = ["That vase is gorgeous! Did you make it?"]
    assert indefinite("User loves the vase.", "I love the vase.", "I love the vase.", recent) is None
    # any "the …" liked in the photo the message answers; a setting there is one of is a taste, kept
    shown = ["Here's where we hiked! [shares a photo of a waterfall under a dark sky]"]
    assert indefinite("User loves the dark sky and green scenery.", "", "", shown) is None
    assert indefinite("User likes the tech.", "", "", ["Iron Man! [shares a photo of a figure]"]) is None
    assert indefinite("User likes all the yellow leaves.", "", "", ["Fall! [shares a photo of a park]"]) is None
    assert indefinite("User loves the ocean.", "", "", ["Sunset! [shares a photo of the ocean]"]) == (
        "User loves the ocean."
    )
    assert (
        indefinite("User likes the way the frosting turned out.", "", "", ["Yum! [shares a photo of a cake]"]) is None
    )
    # no photo: the like is the user's own ("the ocean" needs no pointing)
    assert indefinite("User likes the dark sky.", "", "", ["Nice evening, right?"]) == "User likes the dark sky."


@pytest.mark.parametrize(
    ("recent", "memory"),
    [
        # a setting the world has one of, mentioned or not
        (["Was the beach crowded?"], "User took the kids to the beach on Sunday."),
        # the memory introduced it itself
        (["Tell me about a bowl you made."], "User made a bowl and gave the bowl to their sister."),
        # told right there: "the X of …", "the X they …", "the X for …"
        (["That's an idea!"], "User got the idea for a novel from a dream."),
        (["What an impact!"], "User saw the impact they can make on the kids."),
        # an idiom
        (["That game was wild."], "Strength training changed the game for User."),
        # a plural and a subject that opens the memory are left as they are
        (["Those turtles are cute."], "User feeds the turtles every morning."),
        # the window speaks of it only with "the": no pointing, nothing introduced
        (["How was the tournament?"], "User met new friends at the tournament."),
        # the memory's own words are not the window's ("the hard work" is no "a work")
        (["That's a lot of work."], "User knows the hard work is worth it."),
    ],
)
def test_a_the_x_that_needs_no_pointing_or_is_told_right_there_is_left_as_it_is(recent, memory):
    assert indefinite(memory, memory, memory, recent) == memory


def test_chinese_and_no_session_are_left_as_they_are():
    assert indefinite("用户做了那个蛋糕。", "", "", ["那个蛋糕好漂亮！"]) == "用户做了那个蛋糕。"
    assert indefinite("User makes the pie with oat flour.", "", "", []) == "User makes the pie with oat flour."


@pytest.mark.parametrize(
    ("recent", "said", "memory"),
    [
        # a word in -ing after "a" modifies the noun: "a scenic cycling route" names the route's kind
        (
            ["Guess what, I found a scenic cycling route near my place last weekend!"],
            "I'm not really into cycling but I'm curious to see what the route looks like!",
            "User is not really into cycling but they're curious to see what a scenic cycling route looks like.",
        ),
        # "for 30 seconds" tells how long, not which: the pose pointed at is still named
        (
            ["That one looks hard! How long do you hold that stretch?"],
            "I usually hold the stretch for 30 seconds.",
            "User usually holds a stretch for 30 seconds.",
        ),
    ],
)
def test_a_the_x_named_in_the_window_is_named_through_a_gerund_or_a_duration(recent, said, memory):
    """Read blind as unresolved in the fifteenth round: "what the trail looks like" after "an awesome hiking trail"
    (the -ing word had ended the window's noun phrase, and "looks" had been read as the noun), and "the pose for 30-60
    seconds" after "that pose" ("for" had been read as telling which pose)."""
    assert memory in read(said, recent)


def test_for_what_the_x_is_still_tells_which():
    assert indefinite("User got the idea for a novel from a dream.", "", "", ["That's an idea!"]) == (
        "User got the idea for a novel from a dream."
    )
