"""The speaker's advice, asked for, as one memory (issue 44, nineteenth round; ``memory.write.extract.advice``).

Sentences written for these tests in the corpora's manner (not copied from them). Every extraction goes through the
function a user's chat turn runs (``pipeline.prepare``: classify → mask → extract), read after the message it answers.
"""

from __future__ import annotations

import pytest
from extract_helpers import read

from memory.write.extract.context import advice_asked


def test_advice_asked_for_is_what_the_speaker_advises_not_a_fact_with_a_dropped_i():
    asked = "You've read so much. Any advice for someone like me who wants to start painting?"
    said = "Sure! Paint every day, even for ten minutes. Take a class at the community center. You'll love it."
    assert read(said, asked) == [
        "User's advice for someone who wants to start painting: paint every day, even for ten minutes; take a class "
        "at the community center."
    ]


def test_an_answer_without_any_i_is_read_when_it_gives_the_advice():
    """The cheap gate lets a message with no "I" in it through when it answers a request for advice."""
    got = read("Yep! Book the flights early and pack light.", "Got any tips for getting started on it?")
    assert got == ["User's advice: book the flights early and pack light."]  # "on it": what it is, is not said


def test_announced_advice_is_read_without_a_request():
    said = "I had a rough first year. My advice? Don't be scared to ask other bakers for help."
    assert "User's advice: don't be scared to ask other bakers for help." in read(said)


@pytest.mark.parametrize(
    "said",
    [
        "Keep going and don't give up!",  # a pep talk, whoever it is said to
        "Do you need advice on anything in particular?",  # a question
        "Talk to you soon!",  # leaving
        "Have fun!",
    ],
)
def test_what_is_not_advice_is_not_kept(said):
    assert read(said, "Any advice for me?") == []


def test_what_the_speaker_says_of_themself_stays_their_own_fact():
    got = read("I always read before bed. Try it!", "Any tips for sleeping better?")
    assert got == ["User always reads before bed."]


def test_advice_asked_reads_requests_not_questions():
    assert advice_asked("Do you have any advice for a beginner?")
    assert advice_asked("How do I get started?")
    assert not advice_asked("How was your trip?")
    assert not advice_asked(None)


def test_chinese_advice_asked_for_is_one_memory():
    got = read("当然！多读书，多尝试不同的类型。别怕写得不好。", "你读了好多书。对想学写作的人有什么建议吗？")
    assert got == ["用户的建议：多读书，多尝试不同的类型；别怕写得不好。"]


def test_chinese_statement_of_the_speakers_own_stays_a_fact():
    assert read("我每天都读书。", "有什么建议吗？") == ["用户每天都读书。"]


def test_what_the_speaker_says_the_advice_is_for_heads_it_and_names_its_they():
    """Twentieth round: an opener of the speaker's own ("When choosing sponsors, …") says what the advice is for, and
    the plural it ends on is what a "they" of the advice is."""
    said = "When choosing sponsors, make sure they share your values. Talk to their past partners first."
    assert read(said, "I want to find the right ones - any tips?") == [
        "User's advice on choosing sponsors: make sure the sponsors share your values; talk to their past partners "
        "first."
    ]


def test_advice_said_as_what_the_listener_should_do_is_advice():
    said = "Sure! For one, you should get a sturdy desk. Also invest in a chair with good back support."
    assert read(said, "Any pointers for a home office?") == [
        "User's advice for a home office: get a sturdy desk; invest in a chair with good back support."
    ]


@pytest.mark.parametrize(
    "said",
    ["Stay open to learning and improving!", "Be patient with yourself and stay curious.", "Stay resilient."],
)
def test_a_motto_given_as_advice_is_a_pep_talk_not_kept(said):
    assert read(said, "Got any advice for someone just starting out?") == []
