"""A view the speaker states in general terms is kept as what they believe (issue 44, fourteenth round).

Sentences written for these tests in the manner of LoCoMo's chats (not copied from them)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.storage.models import Message
from memory.write.extract.belief import believed
from memory.write.pipeline import Item, prepare

AT = datetime(2024, 5, 1, 9, tzinfo=UTC)


def facts(text: str, previous: str | None = None) -> list[str]:
    message = Message(session_id="s", user_key="u", role="user", content=text, created_at=AT)
    return [c.content for c in prepare(Item(message, previous=previous)).cands]


@pytest.mark.parametrize(
    ("said", "view"),
    [
        ("Cats bring so much joy too, though.", "User believes cats bring so much joy."),
        ("Totally! Good floors help avoid injuries.", "User believes good floors help avoid injuries."),
        (
            "Talking about mental health is crucial, and you're so brave to speak up.",
            "User believes talking about mental health is crucial.",  # the remark to the listener is left out
        ),
        ("Music has the power to bring us together.", "User believes music has the power to bring people together."),
        (
            "Gardening is a great way to unwind after work.",
            "User believes gardening is a great way to unwind after work.",
        ),
        (
            "Art's awesome for showing us who we really are.",
            "User believes art is awesome for showing people who people really are.",
        ),
    ],
)
def test_a_view_of_a_thing_in_general_is_what_the_speaker_believes(said, view):
    assert believed(said) == view
    assert view in facts(said)


@pytest.mark.parametrize(
    "said",
    [
        "Let's keep going and make a difference together!",  # a suggestion, not a view
        "Staying positive is key.",  # a motto: nothing named
        "Taking care of ourselves is so important.",
        "Kindness is key and a little compassion can really turn someone's day around.",
        "This has been great for my mental health.",  # a pointer: what "this" is, only the chat says
        "Hearing that can really make an impact.",
        "Jon is great for the team.",  # a person, not a thing in general
        "The pic is amazing.",  # the photo of the moment
        "Handling changes has been hard.",  # "changes" is the subject's noun, and the past is no view
        "Mentors can really help.",  # help with what
        "Our kids are key to everything we do.",  # whose: said in the first person
        "Your drive to help is crucial!",  # about the listener
        "Does music help you relax?",
        "Pets were so important to us growing up.",  # the past: a memory, not a view
    ],
)
def test_a_remark_a_motto_a_pointer_or_a_person_is_no_view(said):
    assert believed(said) is None


def test_a_view_is_an_own_words_fact_with_the_sentence_as_its_evidence():
    message = Message(session_id="s", user_key="u", role="user", content="Pets bring so much joy.", created_at=AT)
    (c,) = prepare(Item(message)).cands
    assert (c.predicate, c.extractor, c.evidence) == ("fact", "rules:belief", "Pets bring so much joy.")


def test_a_first_person_statement_is_still_read_as_one():
    assert facts("I think yoga helps me relax after work.") != ["User believes yoga helps me relax after work."]
