"""What the message a user answers names for the answer (issue 44, sixteenth round): the group a "we" is, the things
"a few more" counts, and a question's own words ("anymore", "anytime soon") turned round into a statement. Cases are
written for these tests in the shapes the left-out LoCoMo readers flagged, not copied from the data."""

from __future__ import annotations

import pytest
from extract_helpers import read

from memory.write.extract.references import unresolved


@pytest.mark.parametrize(
    ("said", "previous", "memory"),
    [
        (
            "Oh, we bake bread and tell stories by the fire.",
            "That cabin looks cozy! What do you love most about weekends with your family?",
            "User and their family bake bread and tell stories by the fire.",
        ),
        (
            "We ran drills for two hours before the final.",
            "What have you and your team been up to lately?",
            "User and their team ran drills for two hours before the final.",
        ),
    ],
)
def test_a_we_is_named_by_the_one_group_the_question_asks_about(said, previous, memory):
    assert memory in read(said, previous=previous)


@pytest.mark.parametrize(
    ("said", "previous"),
    [
        # two groups asked about: which one the "we" is, the answer does not say
        ("We went hiking on Sunday.", "Do you spend more time with your family or your friends?"),
        # the speaker names people of their own before the "we": the question's group may not be them
        (
            "Some people from work came over. We grilled burgers and played cards until midnight.",
            "What did you and your family do on Sunday?",
        ),
        # one person asked about is no "we"
        ("We went to the park on Sunday.", "How is your son doing?"),
    ],
)
def test_a_we_stays_user_and_others_when_the_question_does_not_name_one_group(said, previous):
    got = read(said, previous=previous)
    assert any(m.startswith("User and others") for m in got), got


@pytest.mark.parametrize(
    ("said", "previous", "memory"),
    [
        (
            "Yep! I actually just sent off a few more last week!",
            "Are you planning on sending out anymore poems anytime soon?",
            "User actually just sent off a few more poems last week (2024-04-24).",
        ),
        (
            "I bought a couple more yesterday.",
            "Do you have any more houseplants?",
            "User bought a couple more houseplants (yesterday, 2024-04-30).",
        ),
    ],
)
def test_a_few_more_is_counted_in_the_things_the_question_asks_about(said, previous, memory):
    assert memory in read(said, previous=previous)


@pytest.mark.parametrize(
    "memory",
    [
        "User actually just submitted a few more last week (2022-10-31).",
        "User got some more today.",
        "User picked up a couple more.",
    ],
)
def test_a_count_of_things_never_named_is_a_reference(memory):
    assert unresolved(memory, memory), memory


def test_a_few_more_of_what_the_memory_names_is_no_reference():
    assert unresolved("User baked a few more loaves last week.", "I baked a few more loaves last week.") == []


def test_a_yes_to_a_question_says_it_in_a_statements_words():
    """ "Are you planning on sending out anymore poems anytime soon?" — "Yep!" had given "User is planning on sending
    out anymore poems anytime soon." (a question's words in a statement)."""
    got = read("Yep! I'm drafting two now.", previous="Are you planning on sending out anymore poems anytime soon?")
    assert any(m.startswith("User is planning on sending out more poems soon") for m in got), got


def test_an_interjection_answering_a_what_question_is_no_name():
    """ "Definitely!" to "What do you love most about …?" had been read as the answer's name ("User likes Definitely
    most about camping with their fam.")."""
    got = read("Definitely! We bond over stories, campfires and nature.", "What do you love most about camping?")
    assert not any("Definitely" in m for m in got), got
    assert "User and others bond over stories, campfires and nature." in got, got


# -- facts the general path had missed: a lasting memory, a "one" the sentence names, a child as a person ---------
@pytest.mark.parametrize(
    ("said", "memory"),
    [
        (  # "will never forget" is no wish
            "I'll never forget the day my oldest rode her bike without training wheels.",
            "User will never forget the day their oldest rode her bike without training wheels.",
        ),
        (  # the "one" is the painting the sentence names
            "My sister and I just finished another quilt like our last one.",
            "User and their sister just finished another quilt like their last one.",
        ),
    ],
)
def test_a_statement_that_names_what_its_words_point_at_is_kept(said, memory):
    assert memory in read(said)


@pytest.mark.parametrize(
    "said",
    [
        "I'll never forget it.",  # what "it" is, another sentence said
        "I will always remember that.",  # what, another message said
        "I will keep going no matter what.",  # a resolution, not a memory
    ],
)
def test_a_will_that_points_elsewhere_or_only_resolves_is_not_kept(said):
    assert read(said) == []


@pytest.mark.parametrize(
    ("memory", "flagged"),
    [
        ("User will always remember that trip.", ["that trip"]),
        ("User remembers that day in May.", ["that day"]),
        ("User realized that people are kind.", []),  # a clause: "that" joins, it points at nothing
        ("User hopes that works out.", []),
        ("User is still thinking that counseling and mental health is the way to go.", []),
    ],
)
def test_that_after_a_verb_of_saying_points_only_at_a_noun_that_ends_there(memory, flagged):
    assert unresolved(memory, memory) == flagged


def test_a_plan_asked_about_is_not_stored_when_the_answer_tells_it_done():
    """Read blind as false by all four readers of the sixteenth round: "Are you planning on submitting anymore scripts
    anytime soon?" — "Yep! I actually just submitted a few more last week!" had also given "User is planning on
    submitting more scripts soon." (the yes answers with what was done)."""
    got = read(
        "Yep! I actually just submitted a few more last week! Hoping to hear back soon.",
        previous="Are you planning on submitting anymore scripts anytime soon?",
    )
    assert got == ["User actually just submitted a few more scripts last week (2024-04-24)."], got
    # a yes that goes on about something else keeps the plan the question named
    got = read("Yes! I'm so excited about it.", previous="Are you planning on adopting a dog this year?")
    assert got == ["User is planning on adopting a dog (this year, 2024)."], got


# -- read blind as false in the sixteenth round's second sample, fixed after it -----------------------------------
def test_a_gerund_that_is_the_subject_is_not_read_as_a_doing():
    """ "Learning about different cultures and seeing historical architecture fascinates me." had given "User is
    learning about different cultures and seeing historical architecture fascinates them." (all four readers: false;
    the sentence says what fascinates, not what User is doing)."""
    got = read("Learning about other cultures and seeing old cathedrals fascinates me.")
    assert got == ["Learning about other cultures and seeing old cathedrals fascinates User."], got
    assert read("Learning Italian on the train every morning.") == [
        "User is learning Italian on the train every morning."
    ]


def test_a_hope_is_not_stored_as_a_fact():
    """ "Hopefully, I can raise enough to cover basic needs for the homeless." had given "User can raise enough to
    cover basic needs for the homeless." (all four readers: false; it is a hope). A hedged aside stays in its
    episode."""
    got = read("I'm busy at the food bank getting ready for a fundraiser. Hopefully, I can raise enough to cover rent.")
    assert not any("can raise enough" in m for m in got), got
    assert any(m.startswith("User is busy at the food bank") for m in got), got


@pytest.mark.parametrize(
    "said",
    [
        "Great idea! I'm already really invested in those little guys!",  # had given "… invested in little guys."
        "Thanks! It's a blast. Giving it my all every time I'm on the court.",  # had given "Giving it User's all …"
    ],
)
def test_garbled_in_the_second_sample_is_not_stored(said):
    """Read blind as garbled by all four readers of their half (the round's second sample): a pet name the
    determiner rewrite left bare, and a motto kept as a fragment. Both stay in their episodes."""
    assert read(said) == []
