"""A pet's name given when asked for it, as a fact (issue 44, twentieth round; ``memory.write.extract.names_asked``).

Sentences written for these tests in the corpora's manner (not copied from them). Every extraction goes through the
function a user's chat turn runs (``pipeline.prepare``: classify → mask → extract), read after the message it answers.
"""

from __future__ import annotations

import pytest
from extract_helpers import read


@pytest.mark.parametrize(
    ("said", "asked", "memory"),
    [
        (
            "Her name is Pepper! She's full of beans.",
            "Aww, how cute! What's her name? Does she get on with your other dog?",
            "User has a pet: dog named Pepper.",
        ),
        ("His name's Rex.", "What a cute puppy! What's his name?", "User has a pet: puppy named Rex."),
        (
            "Mochi and Bean! They keep the house lively.",
            "They're adorable! What are their names? Pets are the best.",
            "User has pets named Mochi and Bean.",
        ),
        ("叫豆豆！", "你的小狗好可爱！它叫什么名字？", "用户有一只小狗，叫豆豆。"),
    ],
)
def test_a_pets_name_given_when_asked_for_is_a_fact(said, asked, memory):
    assert memory in read(said, asked)


@pytest.mark.parametrize(
    ("said", "asked"),
    [
        ("Thanks! Her name is Mia.", "What a cute baby! What's her name?"),  # no animal: not read here
        ("Yes! It was great.", "What a cute dog! What's her name?"),  # the answer gives no name
        ("Her name is Pepper!", "Your dog looks so happy at the beach!"),  # no name was asked for
    ],
)
def test_no_pet_is_named_where_none_was_asked_for_or_given(said, asked):
    assert not any("pet" in m for m in read(said, asked))
