"""A reference named from the session's messages before (memory.write.extract.recent, issue 44): a place or a person
the conversation named a few messages back; never a name the speakers call each other by, never a guess between two.

Sentences written for these tests in the shapes of conversations (not LoCoMo or LongMemEval text)."""

from __future__ import annotations

import time

import pytest
from extract_helpers import AT
from extract_helpers import read as read_after

from memory.evaluation import facts
from memory.write.extract.recent import SESSION, name_from_recent

FALLS = [
    "Thanks, Mia! I took this photo on a hike at a lovely spot called Silver Creek Falls. So quiet up there.",
    "I wish I could have been there! Your hikes always sound like a blast.",
]


def read(text: str, recent: list[str] | None, previous: str | None = None) -> list[str]:
    """What the write path makes of a user's message read with the session's messages before it (the last of them
    the one it answers, unless ``previous`` says otherwise)."""
    previous = previous if previous is not None else (recent[-1] if recent else None)
    return read_after(text, previous=previous, recent=recent)


@pytest.mark.parametrize(
    ("recent", "said", "memory"),
    [
        (
            FALLS,
            "It was, Leo. The sound of that place made me so calm and peaceful.",
            "The sound of Silver Creek Falls made User so calm and peaceful.",
        ),
        (
            [
                "I'm planning a trip to Disneyland next month with the kids.",
                "Oh fun! Have you been before?",
            ],
            "No, I haven't been there yet, but I've heard great things.",
            "User hasn't been to Disneyland yet, but they've heard great things.",
        ),
        (
            ["Have you ever been to Lisbon? I keep hearing about it."],
            "Yes! I had a blast there last spring with my sister.",
            "User had a blast in Lisbon last spring with their sister.",
        ),
        (
            [
                "At the shelter I met someone named Marcus. Hearing his story was humbling.",
                "That's powerful. Could anyone help him out?",
            ],
            "Yes! I talked to him afterwards about a housing program.",
            "User talked to Marcus afterwards about a housing program.",
        ),
        (
            ["Serena Williams is incredible. Have you ever seen her play live?"],
            "Yes, I saw her play live twice at the open.",
            "User saw Serena Williams play live twice at the open.",
        ),
        (
            ["Toni Morrison, she's the writer I keep going back to.", "Oh nice, what do you like about her?"],
            "Her novels are a huge inspiration to me!",
            "Toni Morrison's novels are a huge inspiration to User.",
        ),
    ],
)
def test_a_reference_is_named_from_the_sessions_messages_before(recent, said, memory):
    assert memory in read(said, recent)
    assert memory not in read(said, None)  # without the session before it, it is not named


def _name(content: str, recent: list[str], said: str | None = None) -> str | None:
    said = said or content.replace("User", "I")
    return name_from_recent(content, said, said, recent)


def test_a_name_the_speakers_call_each_other_by_is_never_used():
    # "Nora" is only ever addressed: she is the other speaker, not the "her" the user means
    recent = ["Thanks, Nora! My week was long.", "Hey Nora, did you see her new video?"]
    assert _name("User loved her new video.", recent, "I loved her new video.") is None
    assert _name("User loved her new video.", ["Great news, Nora!", "Did you see her new video?"]) is None


@pytest.mark.parametrize(
    "recent",
    [
        # two places: which one is "that place" is not said
        ["We drove to Lake Tahoe and then went to Reno.", "Which did you like more?"],
        # no place named at all
        ["We went hiking last weekend.", "Sounds lovely!"],
        # a month or a holiday is no place
        ["I'll be in May and at Christmas mostly home.", "Nice."],
    ],
)
def test_a_place_is_not_guessed_between_two_or_from_none(recent):
    assert _name("The sound of that place made User calm.", recent, "The sound of that place made me calm.") is None


def test_a_person_is_not_guessed_where_the_pronoun_may_stand_for_someone_else():
    # two named people each followed by "her"
    two = ["Ana called me, she is moving. Beth too, her lease ended.", "Will you visit her?"]
    assert _name("User will visit her soon.", two, "I will visit her soon.") is None
    # a woman the window speaks of without a name: the "her" may be hers
    other = ["Elena readied her bow. The figure is a woman; she has not seen you.", "What do you do?"]
    assert _name("User grabs her arm.", other, "I grab her arm.") is None
    # the pronoun's gender does not fit the one person named
    assert _name("User met him twice.", ["Serena Williams is great, she plays so well."], "I met him twice.") is None


def test_without_the_sessions_messages_nothing_is_named():
    assert _name("The sound of that place made User calm.", []) is None
    assert _name("The sound of that place made User calm.", ["", "   "]) is None


def test_a_person_the_window_introduces_as_one_names_every_pronoun_of_theirs():
    # "someone named …" says a person is meant though no pronoun follows the name; both "him" are named
    recent = ["I volunteered at the shelter on Sunday.", "How was it?", "I had a chat with someone named Omar.", "And?"]
    said = "I talked to him afterwards and linked him up with a food bank."
    assert _name("User talked to him afterwards and linked him up with a food bank.", recent, said) == (
        "User talked to Omar afterwards and linked Omar up with a food bank."
    )
    # the person's noun says the gender: "my sister Ines" is no "him"
    assert _name("User met him at the fair.", ["I went with my sister Ines.", "Fun!"], "I met him at the fair.") is None
    # a contracted pronoun is not named ("Omar'd")
    assert _name("User said he'd call.", ["I met someone named Omar.", "Cool."], "I said he'd call.") is None


def test_a_name_opening_a_message_before_a_comma_is_the_one_spoken_to():
    recent = ["Hey Ines, how are you?", "Nate, she is doing great these days."]
    assert _name("User met her at the party.", recent, "I met her at the party.") is None


@pytest.mark.parametrize(
    ("content", "said", "recent"),
    [
        # a complement after it: "make them happy" is no "make <the thing>"
        ("User tries to make them happy.", "I try to make them happy.", ["Do you make birthday cards?"]),
        # two things the verb takes, or a coordination: which one is not said
        ("User bought them yesterday.", "I bought them yesterday.", ["Did you buy new boots or new jackets?"]),
        ("User bought them yesterday.", "I bought them yesterday.", ["I bought candles.", "Who bought lamps?"]),
        # the one plural the verb takes is not named either: the echo named the wrong thing as often as the right one
        ("User had fun making them together.", "We had fun making them.", ["We love making memories.", "Pizza?"]),
        # an "it" is not named by an echo ("make it easy", "curate it")
        ("User wants to make it easy.", "I want to make it easy.", ["How do you make a good playlist?"]),
    ],
)
def test_a_them_or_an_it_is_not_named_by_the_words_its_verb_takes_before(content, said, recent):
    assert _name(content, recent, said) is None


def test_hostile_or_huge_messages_before_are_read_quickly_and_safely():
    huge = [
        "Zoë " * 50_000 + "called Ünïcode Falls \x00\u202e' OR 1=1 --",
        "\ud7ff" * 100_000,
        "🙂" * 80_000,
        "A " * 90_000,
    ]
    t0 = time.perf_counter()
    got = read("The sound of that place made me so calm and peaceful.", huge)
    assert time.perf_counter() - t0 < 5  # bounded: the write path reads the end of each (RECENT_CHARS)
    assert got and all("User" in g for g in got)
    # called directly, with no write path trimming: each message is read to its end only
    hostile = ["! " * 50_000, "Zoë " * 25_000 + " he is", "Abc Def " * 12_500, ". Ann " * 16_000 + "she"]
    for content, said in [("User met him twice.", "I met him twice."), ("User makes them.", "I make them.")]:
        t0 = time.perf_counter()
        name_from_recent(content, said, said, hostile)
        assert time.perf_counter() - t0 < 1


def test_the_write_path_reads_a_message_with_the_sessions_messages_before_it(svc):
    """Through the one write path (real SQLite, LanceDB, e5): the place named two messages back names "that place";
    the same words in another session, where nothing names it, are not named."""
    user = svc.ensure_user("mia")
    chat = svc.ensure_session(user, "chat")
    svc.add_message(chat, "user", FALLS[0])
    svc.add_message(chat, "assistant", FALLS[1])
    said = svc.add_message(chat, "user", "The sound of that place made me so calm and peaceful.")
    contents = [op["content"] for op in svc.write_from_message(user, chat, said).added]
    assert "The sound of Silver Creek Falls made User so calm and peaceful." in contents
    other = svc.ensure_session(user, "other")
    alone = svc.add_message(other, "user", "The sound of that place made me so calm and peaceful.")
    assert not any("Silver Creek" in op["content"] for op in svc.write_from_message(user, other, alone).added)


def test_a_batch_gives_each_message_the_messages_before_it_in_its_session(svc):
    user = svc.ensure_user("leo")
    chat = svc.ensure_session(user, "chat")
    said = [
        svc.add_message(chat, "user", "I had a chat with someone named Marcus. His story was humbling."),
        svc.add_message(chat, "assistant", "That's powerful. Could anyone help him out?"),
        svc.add_message(chat, "user", "Yes! I talked to him afterwards about a housing program."),
    ]
    reports = svc.write_from_messages(user, chat, said, infer=[True, False, True])
    assert "User talked to Marcus afterwards about a housing program." in [o["content"] for o in reports[2].added]


def test_the_evaluation_reads_a_turn_with_the_same_sessions_turns_before_it():
    turns = [
        facts.Turn("c", "D1:1", "Ana", "one", AT),
        facts.Turn("c", "D1:2", "Ben", "two", AT),
        facts.Turn("c", "D2:1", "Ben", "three", AT),
        *[facts.Turn("c", f"D2:{i}", "Ana" if i % 2 else "Ben", f"t{i}", AT) for i in range(2, SESSION + 8)],
    ]
    read_with = {t.dia_id: (previous, recent) for t, previous, recent in facts.read_in_session(turns)}
    assert read_with["D1:2"] == ("one", ["one"])
    assert read_with["D2:1"] == (None, [])  # a new session: nothing before it
    assert read_with["D2:2"] == (None, ["three"])  # the same speaker before: nothing it answers
    assert read_with["D2:7"] == ("t6", ["three", "t2", "t3", "t4", "t5", "t6"])
    last = f"D2:{SESSION + 7}"
    assert read_with[last] == (f"t{SESSION + 6}", [f"t{i}" for i in range(7, SESSION + 7)])  # at most SESSION


@pytest.mark.parametrize(
    ("memory", "flagged"),
    [
        ("User had a blast there (last month, 2023-12).", True),
        ("The architecture there was so captivating.", True),  # a thing of a place only the conversation names
        ("In User's town there was a great view.", False),  # "there was a …" points nowhere
        ("User saw some great options there.", True),
        ("User's friend was always there for them.", False),  # an idiom, no place
        ("User lived in Lisbon and had a blast there.", False),  # the place is named before it
    ],
)
def test_a_there_that_ends_its_clause_is_a_reference_to_a_place(memory, flagged):
    from memory.write.extract.references import unresolved

    assert any("there" in r for r in unresolved(memory)) == flagged


def test_a_his_is_a_reference_named_like_he_and_him():
    """ "I really admire his work ethic" after "LeBron is the man - love his skills" was kept as "User really admires
    his work ethic" ("his" was no reference to the detector); "him and his family" stays one reference, him."""
    from memory.write.extract.references import unresolved

    assert unresolved("User really admires his work ethic.") == ["his"]
    assert unresolved("User can catch up with him and his family.") == ["him"]
    assert unresolved("User met LeBron and admired his skills.") == []  # a name in two capitals is a name
    recent = ["The Wolves are my team, and I think LeBron is incredible - love his skills and leadership."]
    assert read("I really admire his work ethic, such an inspiration.", recent) == [
        "User really admires LeBron's work ethic, such an inspiration."
    ]
