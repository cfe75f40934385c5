"""A memory that opens on a bare "the X" points back, and keeps the speaker's own clause when only the clause before it
(or a clause about others after it) points back (memory.write.extract.own_clause, references' _THE_OPENER, issue 44).

Sentences written for these tests in the shapes of conversations (not LoCoMo or LongMemEval text)."""

from __future__ import annotations

import re

import pytest
from extract_helpers import read

from memory.write.extract.own_clause import own_clause
from memory.write.extract.references import unresolved


@pytest.mark.parametrize(
    ("memory", "flagged"),
    [
        ("The training was intense and taxing, but it changed User's view on helping others.", "training"),
        ("The gym is awesome, but User had to adapt their routine.", "gym"),
        ("The meetings went really well; User felt confident.", "meetings"),
        ("The rainbow flag mural is important to User.", "rainbow flag mural"),
        ("The turtles might be small, but both sure have big personalities.", "turtles"),
    ],
)
def test_a_bare_the_x_opening_a_memory_points_back(memory, flagged):
    assert flagged in unresolved(memory)


@pytest.mark.parametrize(
    "memory",
    [
        "The people at a homeless shelter have become like family to User.",  # a qualifier says which
        "The screenplay User sent in to the film festival has been on their mind.",  # a clause says which
        "The Hobbit is one of User's favorites.",  # a title
        "The Nike and Gatorade deals have User stoked.",  # a name
        "The game was called Counter-Strike, and User had a blast.",  # named right there
        "The sound of Whispering Falls made User calm.",
    ],
)
def test_a_the_x_told_right_there_is_no_reference(memory):
    assert unresolved(memory) == []


@pytest.mark.parametrize(
    ("memory", "said", "own"),
    [
        (
            "The colors were amazing, and User had a feeling of gratitude sitting on the porch with their family.",
            "The colors were amazing, and I had a feeling of gratitude sitting on the porch with my family.",
            "User had a feeling of gratitude sitting on the porch with their family.",
        ),
        (
            "The meetings went really well; User felt confident pitching their script and they seemed interested.",
            "The meetings went really well. I felt confident pitching my script and they seemed interested.",
            "User felt confident pitching their script.",
        ),
        (  # the day the statement resolved stays with it
            "User retook the aptitude test with great results last week, and they feel drawn to serving in this way "
            "(2023-03-20).",
            "Last week I retook the aptitude test with great results, and I feel drawn to serving in this way.",
            "User retook the aptitude test with great results last week (2023-03-20).",
        ),
    ],
)
def test_the_speakers_own_clause_is_kept_when_only_another_clause_points_back(memory, said, own):
    assert own_clause(memory, said) == own


@pytest.mark.parametrize(
    "memory",
    [
        "User adopted a greyhound last Monday.",  # nothing points back: nothing to cut
        "The training was intense, but it changed User's view on helping others.",  # the rest opens on "it"
        "The atmosphere was electric, and User's teammates and they were thrilled.",  # not User as its subject
        "The tank is big enough now for three, so User figured why not.",  # says too little
        "The party was a hit; User and others even played chess afterward.",  # "afterward" points at the party
        "The view was stunning, and User felt so happy.",  # a mood of the moment
    ],
)
def test_nothing_is_cut_where_the_rest_would_not_stand(memory):
    assert own_clause(memory, "") is None


def test_the_write_path_keeps_the_own_clause_and_names_what_it_points_at_from_the_message():
    """ "there" in the speaker's clause is named by the sentence before ("a vacation in Lisbon"), once the clause about
    the photo's colors is cut."""
    said = (
        "I have a picture from a vacation in Lisbon. The colors were amazing, and I had a feeling of gratitude just "
        "sitting there with my family."
    )
    got = read(said, previous="Do you have any travel photos?", recent=["Do you have any travel photos?"])
    # headed by the occasion the sentence before names (memory.write.extract.occasion)
    assert "Vacation: User had a feeling of gratitude just sitting in Lisbon with their family." in got
    assert not any(m.startswith("The colors") for m in got)


def test_a_bare_the_x_is_named_by_the_kind_the_window_introduced_before_it_is_cut():
    """ "The support group …" after the session's "a LGBTQ support group" is that group: named, not abstained on."""
    recent = ["I went to a LGBTQ support group yesterday and it was so powerful.", "That's great! How was it?"]
    got = read("The support group has made me feel accepted and given me courage.", recent[-1], recent)
    assert any(m.startswith("A LGBTQ support group has made User feel accepted") for m in got), got


@pytest.mark.parametrize(
    ("said", "memory"),
    [
        (
            "I had a picnic with my friends from church. We chilled under the trees and played board games.",
            "User and their friends chilled under the trees and played board games.",  # told with the picnic
        ),
        (
            "My basketball teammates are the best. We pulled off a tough win against the league leaders.",
            "User and their basketball teammates pulled off a tough win against the league leaders.",
        ),
    ],
)
def test_a_we_is_named_by_the_speakers_group_said_before_it(said, memory):
    got = read(said)
    assert any(m.endswith(memory) for m in got), got  # told alone, or after the statement it goes on from


@pytest.mark.parametrize(
    "said",
    [
        "My son crashed his bike on the trail. We were so lucky our son was okay.",  # the memory speaks of the son
        "My wife loves the coast. We drove up to Big Sur for the weekend.",  # one person names no "we"
        "We drove up to Big Sur for the weekend with the dogs.",  # nobody named before
    ],
)
def test_a_we_stays_user_and_others_where_no_group_of_the_speakers_fits(said):
    got = read(said)
    assert any(re.search(r"(?:^|: |; )User and others", m) for m in got), got  # the "we" is kept, as said


@pytest.mark.parametrize(
    ("said", "kept", "not_kept"),
    [
        (  # a place said after a thing of it, named two messages back: not joined on (and since the eighteenth
            # round the sentence before names nothing, so it is not kept either: worth.names_nothing)
            "I got to see some lovely scenery and historic buildings. I checked out the library there, it had a cool "
            "old book collection.",
            "",
            "library there",
        ),
        (  # a statement that opens by pointing: not joined onto the memory before
            "With support at home and my own grit, I powered through the season. This promotion is a reward for all "
            "the hustle I put in.",
            "",
            "his promotion",
        ),
    ],
)
def test_a_statement_pointing_elsewhere_goes_on_from_nothing(said, kept, not_kept):
    got = read(said)
    assert not any(not_kept in m for m in got), got
    assert not kept or kept in got, got


def test_a_place_the_sentence_before_names_still_leads_in_a_there():
    got = read("Lisbon is such a bright and friendly city. I have always wanted to try the pastries there.")
    assert "Lisbon is such a bright and friendly city; User has always wanted to try the pastries there." in got


def test_a_we_after_another_group_than_the_speakers_own_is_not_named_by_it():
    """Read blind as false: "My fam's small, but I love spending time with the friends I have. We usually watch movies
    …" had given "User and their fam usually watch movies …" (the "we" are the friends)."""
    got = read(
        "My fam's small, but I love spending time with the friends I have. We usually watch movies and hike together."
    )
    assert not any("their fam" in m for m in got), got
    assert any("User and others usually watch movies" in m for m in got), got


def test_the_best_part_for_user_opening_a_memory_points_back():
    """Read blind as unresolved by all four readers of the fifteenth round: "The best part for User was the camaraderie
    …" (the best part of what?). "for User" says whose, not which."""
    assert "best part" in unresolved("The best part for User was the camaraderie they built on the court.", "")
    assert unresolved("The idea for the mural came from a trip to Peru.", "") == []
