"""A memory led in by the sentence said just before it (memory.write.extract.lead_in, issue 44): when no rule can
name what the memory's "it" / "them" / "there" / "the X" stands for, and the sentence before names it in words of
its own, that sentence opens the memory, quoted as said; a greeting, a thank-you, words to the listener, a question,
a fragment or a sentence pointing at something itself never leads in.

Sentences written for these tests in the shapes of conversations (not LoCoMo or LongMemEval text)."""

from __future__ import annotations

import pytest
from extract_helpers import read

from memory.write.extract.lead_in import lead_in
from memory.write.extract.references import unresolved


@pytest.mark.parametrize(
    ("said", "memory"),
    [
        (
            "Got the keys on Monday! Renovating the farmhouse went smoothly in the end. We painted it a soft green.",
            "Renovating the farmhouse went smoothly in the end; User and others painted it a soft green.",
        ),
        (
            "Lisbon is such a bright and friendly city. I have always wanted to try the pastries there.",
            "Lisbon is such a bright and friendly city; User has always wanted to try the pastries there.",
        ),
        (
            "There were food stalls and live bands along the river. I figured I'd try them with my cousins.",
            "There were food stalls and live bands along the river; User figured they'd try them with their cousins.",
        ),
        (
            "Learning the cello has been slow but rewarding. These lessons really make me love music.",
            "Learning the cello has been slow but rewarding; these lessons really make User love music.",
        ),
    ],
)
def test_what_the_memory_goes_on_about_is_led_in_by_the_sentence_before(said, memory):
    assert memory in read(said)
    assert unresolved(memory) == []  # the head names what the rest goes on about


@pytest.mark.parametrize(
    ("said", "memory"),
    [
        (
            "Getting the permits was slow. I had to call the council office twice, but it paid off.",
            "Getting the permits was slow; User had to call the council office twice, but it paid off.",
        ),
        (
            "Running the bake sale was a great success. We even played some charades afterward just for fun.",
            "Running the bake sale was a great success; User and others even played some charades afterward just "
            "for fun.",
        ),
    ],
)
def test_a_memory_that_goes_on_about_what_the_sentence_before_tells_of_is_led_in(said, memory):
    """No word of these memories is flagged, but "it paid off" / "afterward" go on about the one thing that happened,
    which the sentence before tells of."""
    assert memory in read(said)


@pytest.mark.parametrize(
    "said",
    [
        # a maxim in the present is said of anyone's, not of the thing the memory goes on about
        "Staying positive makes a big difference. I took up the garden work with friends from church.",
        # nothing in the memory points back
        "The bake sale was a great success. I baked forty muffins.",
        # a hedge is no statement to lead in
        "The bake sale was a great success. I think I might run the stall again next year.",
    ],
)
def test_a_memory_is_not_led_in_by_a_maxim_or_where_nothing_points_back(said):
    assert not any(";" in m for m in read(said))


@pytest.mark.parametrize(
    ("said", "memory"),
    [
        ("这次装修很顺利。我们把它刷成了浅绿色。", "这次装修很顺利；用户一家把它刷成了浅绿色。"),
        ("杭州的西湖特别美。我去年在那里住了一个月。", "杭州的西湖特别美；用户去年在那里住了一个月（去年，2023）。"),
    ],
)
def test_the_same_in_chinese(said, memory):
    assert read(said) == [memory]


@pytest.mark.parametrize(
    "said",
    [
        "谢谢你！我去年在那里住了一个月。",  # a thank-you names nothing
        "它真好看。我上周又买了它。",  # the sentence before points at something itself
        "你去过杭州吗？我去年在那里住了一个月。",  # a question (named by the message answered, not led in)
        "我朋友推荐的。我上周又买了它。",  # in the speaker's voice: a memory of its own
        "好累。我上周又买了它。",  # names nothing
    ],
)
def test_a_chinese_sentence_that_cannot_stand_alone_never_leads_in(said):
    assert not any("；" in m for m in read(said))
    assert not any("它" in m or "那里" in m for m in read(said))  # the reference left unnamed is not kept


@pytest.mark.parametrize(
    ("said", "memory"),
    [
        (
            "We made dumplings! We had so much fun folding them together.",
            "User and others made dumplings; User and others had so much fun folding them together.",
        ),
        (
            "I've been meaning to get my new boots resoled. I got them last spring from a market stall.",
            "User has been meaning to get their new boots resoled; User got them last spring from a market stall.",
        ),
    ],
)
def test_a_memory_going_on_about_the_one_said_just_before_is_one_memory_with_it(said, memory):
    """Both sentences give a memory; the second's reference points into the first: one memory, the first leading."""
    assert read(said) == [memory]


def test_a_person_a_reference_stands_for_is_not_joined_to_what_stands_near_it():
    """ "My sister called. I told him the news.": who "him" is, the sentence before does not say."""
    assert not any("sister" in m and "him" in m for m in read("My sister called me. I told him the news."))


def test_the_provenance_quotes_both_sentences_as_said():
    said = "Thanks! Renovating the old farmhouse went smoothly in the end.  We painted it a soft green."
    content, evidence = lead_in("User and others painted it a soft green.", "We painted it a soft green.", said) or (
        "",
        "",
    )
    assert content == "Renovating the old farmhouse went smoothly in the end; User and others painted it a soft green."
    assert evidence == "Renovating the old farmhouse went smoothly in the end.  We painted it a soft green."
    assert evidence in said


@pytest.mark.parametrize(
    "before",
    [
        "Thanks for the tip.",  # a thank-you
        "Wow, sounds delicious.",  # a reaction
        "Hey Nora, long time no see.",  # a greeting
        "That takes guts, Nora.",  # words to the listener, by name
        "Believe in yourself and things will work out.",  # an order to the listener
        "My sister helped a lot.",  # first person: a memory of its own
        "Is the renovation going well?",  # a question
        "Hoping for the best.",  # a fragment: no verb says anything
        "It went smoothly in the end.",  # itself pointing at something unnamed
        "Cool news!",  # names nothing
    ],
)
def test_a_sentence_that_cannot_stand_alone_never_leads_in(before):
    said = f"{before} We painted it a soft green."
    assert lead_in("User and others painted it a soft green.", "We painted it a soft green.", said) is None


def test_a_clause_is_not_led_in_by_the_start_of_its_own_sentence():
    """The quote opens mid-sentence ("…, and I want to wear it …"): what stands before it is no sentence."""
    said = "The clasp is broken, and I want to wear it to the gala next month."
    assert (
        lead_in("User wants to wear it to the gala next month.", "I want to wear it to the gala next month.", said)
        is None
    )


def test_a_this_pointing_at_what_is_shown_is_not_led_in():
    """ "I even got this as a treat" points at a thing shown (a photo), which the sentence before does not name."""
    said = "Everyone had cool costumes at the party. I even got this as a treat."
    assert lead_in("User even got this as a treat.", "I even got this as a treat.", said) is None


def test_a_memory_that_stands_alone_is_left_as_it_is():
    said = "The renovation went smoothly in the end. We painted our kitchen a soft green."
    memory, quoted = "User and others painted their kitchen a soft green.", "We painted our kitchen a soft green."
    assert lead_in(memory, quoted, said, own_words=True) is None
    assert memory in read(said)


def test_the_write_path_stores_the_led_in_memory_with_both_sentences_as_its_source(svc):
    """Through the one write path (real SQLite, LanceDB, e5): the memory stored is the led-in one, and its
    provenance quotes the two sentences as said."""
    user = svc.ensure_user("ria")
    chat = svc.ensure_session(user, "chat")
    said = svc.add_message(
        chat, "user", "Renovating the farmhouse went smoothly in the end. We painted it a soft green, right on budget."
    )
    added = svc.write_from_message(user, chat, said).added
    led = [op for op in added if op["content"].startswith("Renovating the farmhouse went smoothly")]
    assert led, [op["content"] for op in added]
    assert "painted it a soft green" in led[0]["content"]
    evidence = svc.get_memory(led[0]["memory_id"]).meta["evidence"]
    assert evidence.startswith("Renovating the farmhouse went smoothly in the end.") and evidence in said.content


def test_nothing_leads_in_or_joins_a_one_or_a_there_it_cannot_name():
    """ "We've made great progress. I'm working on one with my group." — the sentence before names no kind for "one",
    so the second is no memory, alone or joined."""
    got = read("We've made some great progress. I'm working on one with my group called Finding Home.")
    assert not any("working on one" in m for m in got), got
    got = read("Everything from the food to the old streets was amazing. I got a cookbook while I was there.")
    assert not any("while they were there" in m for m in got), got


def test_something_similar_is_not_led_in_by_a_motto():
    """ "Making memories together is so valuable. I loved doing something similar with my siblings." — similar to
    what the other speaker told; the motto before names nothing it is similar to."""
    got = read("Making memories together is so valuable. I loved doing something similar with my siblings as a kid.")
    assert not any("something similar" in m for m in got), got
