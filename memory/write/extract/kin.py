"""English words for the people (and pets) a speaker talks about, by the pronoun that can stand for them.

One list for the two places that need it: naming a he / she from "my son" (``persons``), and never naming an "it"
by a person ("I ordered a photo album for my best friend's birthday. I ordered it …" is the album, not the friend:
``antecedent``).
"""

from __future__ import annotations

__all__ = ["EITHER", "FEMALE", "MALE", "is_person"]

MALE = frozenset(
    [
        "son",
        "brother",
        "dad",
        "father",
        "husband",
        "boyfriend",
        "hubby",
        "grandpa",
        "grandfather",
        "uncle",
        "nephew",
        "stepson",
        "stepdad",
        "stepfather",
        "fiance",
        "bf",
    ]
)
FEMALE = frozenset(
    [
        "daughter",
        "sister",
        "mom",
        "mum",
        "mother",
        "wife",
        "girlfriend",
        "grandma",
        "grandmother",
        "granny",
        "aunt",
        "niece",
        "stepdaughter",
        "stepmom",
        "stepmother",
        "fiancee",
        "gf",
    ]
)
#: people and pets a he or a she may stand for alike
EITHER = frozenset(
    [
        "friend",
        "bestie",
        "buddy",
        "partner",
        "boss",
        "colleague",
        "coworker",
        "co-worker",
        "roommate",
        "neighbor",
        "neighbour",
        "teacher",
        "coach",
        "mentor",
        "mentee",
        "therapist",
        "doctor",
        "kid",
        "child",
        "baby",
        "toddler",
        "cousin",
        "dog",
        "cat",
        "puppy",
        "kitten",
        "pet",
    ]
)


def is_person(noun_phrase: str) -> bool:
    """Whether a noun phrase's head is a word for a person or a pet ("best friend", "little brother")."""
    words = noun_phrase.lower().split()
    return bool(words) and words[-1] in MALE | FEMALE | EITHER
