"""Extraction quality on a labelled set of English and Chinese utterances (tests/data/extraction_labelled.json).

The scorer is bench/extraction_quality.py (precision = predicted candidates matching an expected one / all
predicted; recall = expected ones found / all expected). Both are held to a floor per language on the whole set; the
frozen held-out part (split="frozen") is reported by the bench, never tuned on.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bench.extraction_quality import AT, lang_of, load, score
from bench.extraction_quality import predict as _predict
from memory.write.extract.extractor import extract, extract_rules

DATA = load()
FLOOR = 0.9


def test_labelled_set_is_big_and_mixed():
    langs = {lang_of(i) for i in DATA}
    assert len(DATA) >= 400 and langs == {"en", "zh"}
    assert sum(i["split"] == "frozen" for i in DATA) >= 100
    kinds = {
        "hedged": any(e.get("hedged") for i in DATA for e in i["expected"]),
        "negated": any(e.get("negated") for i in DATA for e in i["expected"]),
        "nothing": any(not i["expected"] for i in DATA),
        "assistant": any(i["role"] == "assistant" for i in DATA),
    }
    assert all(kinds.values()), kinds


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_floors_hold_per_language(lang, capsys):
    subset = [i for i in DATA if lang_of(i) == lang]
    precision, recall, misses = score(subset)
    with capsys.disabled():
        print(
            f"\n{lang}: extraction on {len(subset)} labelled utterances: precision {precision:.3f} recall {recall:.3f}"
        )
    assert precision >= FLOOR and recall >= FLOOR, (lang, precision, recall, misses)


def test_small_talk_and_questions_yield_nothing():
    """Asserted on the parts rules are written against; the frozen part is measured, never tuned on: since the
    general path keeps self-disclosures no rule covers, one frozen 'nothing' item ("I decided 3 things at the
    retreat.") now yields a memory, and the bound below keeps that from growing unnoticed."""
    quiet = [i for i in DATA if not i["expected"]]
    tuned = [i for i in quiet if i["split"] != "frozen"]
    assert all(_predict(i) == [] for i in tuned), [i["text"] for i in tuned if _predict(i)]
    frozen_noise = [i["text"] for i in quiet if i["split"] == "frozen" and _predict(i)]
    assert len(frozen_noise) <= 1, frozen_noise


def test_assistant_text_yields_only_low_confidence_inferences():
    for item in (i for i in DATA if i["role"] == "assistant"):
        for c in _predict(item):
            assert c.source_type == "inferred" and c.confidence <= 0.3


def test_hedges_lower_confidence_and_intensity_raises_explicitness():
    plain = extract_rules("I like sushi.", at=AT)[0]
    hedged = extract_rules("Maybe I like sushi.", at=AT)[0]
    strong = extract_rules("I really like sushi.", at=AT)[0]
    assert hedged.confidence < plain.confidence and hedged.hedged and not plain.hedged
    assert strong.explicitness > plain.explicitness > hedged.explicitness


def test_dates_resolve_against_the_message_time():
    (en,) = extract_rules("I have a dentist appointment next Friday.", at=AT)  # AT is a Thursday
    (zh,) = extract_rules("我下周五有个面试。", at=AT)
    assert en.type == zh.type == "event"
    assert en.event_time.date().isoformat() == zh.event_time.date().isoformat() == "2025-05-09"


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("I'm moving to Berlin next year.", "User plans to move to Berlin (next year, 2027)."),
        ("I'm flying to Tokyo next week.", "User plans to fly to Tokyo (next week, 2026-03-09)."),
        ("I'm leaving for Paris tomorrow.", "User plans to leave for Paris (tomorrow, 2026-03-03)."),
    ],
)
def test_a_plan_told_by_its_motion_keeps_the_verb(said, kept):
    """ "I'm moving to Berlin" gave "User plans to Berlin": the motion verb is the plan."""
    at = datetime(2026, 3, 2, 9, tzinfo=UTC)
    assert kept in [c.content for c in extract_rules(said, at=at)]


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("That kind of grit is why I love tennis.", "User likes tennis."),
        ("Pho is my go-to, as you might have guessed, but I also love bibimbap.", "User likes bibimbap."),
        ("I kind of like jazz.", "Possibly, User likes jazz."),  # a hedge of the speaker's own
    ],
)
def test_a_kind_of_something_and_the_listeners_might_are_no_hedge(said, kept):
    """Eighteenth round, read blind as odd: "That kind of determination … is why I love basketball" gave "Possibly, User
    likes basketball" — "kind of" after a determiner names a kind, and "you might" is the listener's."""
    at = datetime(2026, 3, 2, 9, tzinfo=UTC)
    assert [c.content for c in extract(said, role="user", at=at)] == [kept]


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("我妹妹上周搬到了成都。", "用户的妹妹搬到了成都（上周，2026-02-23）。"),  # the sister moved, not the user
        ("除此之外，我妈妈昨天去了北京。", "用户的妈妈去了北京（昨天，2026-03-01）。"),
        ("我上周搬到了成都。", "用户搬到了成都（上周，2026-02-23）。"),  # moved, not "arrived"
    ],
)
def test_a_dated_chinese_event_of_someone_the_user_names_is_theirs(said, kept):
    """Eighteenth round: "我妹妹上周搬到了成都" gave "用户到了成都" — the event rule read past the sister to "到了". A
    time after the person now reads the clause as theirs, and 搬到了 is one verb."""
    at = datetime(2026, 3, 2, 9, tzinfo=UTC)
    got = [c.content for c in extract(said, role="user", at=at)]
    assert got == [kept]


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("We're heading to the coast on Saturday.", "(2026-03-07)"),  # ahead: the coming Saturday
        ("We went to the coast on Saturday.", "(2026-02-28)"),  # done: the last one
        ("周六我们要去海边。", "2026-03-07"),
        ("周六我们去了海边，玩得很开心。", "2026-02-28"),
    ],
)
def test_a_bare_weekday_points_the_way_the_statement_does(said, kept):
    """Said on Monday 2 March 2026: "on Saturday" in a plan is the coming one, in a story the one gone."""
    at = datetime(2026, 3, 2, 9, tzinfo=UTC)
    assert any(kept in c.content for c in extract_rules(said, at=at)), [c.content for c in extract_rules(said, at=at)]


def test_a_hedge_reads_as_a_sentence_and_is_said_back_as_one():
    """Blind readers of held-out memories read "Possibly: user likes basketball." as garbled: the hedge is a word of
    the sentence, "User" keeps its capital, and the reply voice still says it as a maybe."""
    from memory.text.voice import you

    hedged = extract_rules("Maybe I like sushi.", at=AT)[0]
    assert hedged.content == "Possibly, User likes sushi."
    assert you(hedged.content, "en") == "Possibly you like sushi."
    assert you("Possibly: user likes sushi.", "en") == "Possibly you like sushi."  # stored before this change


def test_me_time_is_a_thing_not_a_pronoun():
    """ "I'm carving out some me-time each day." was stored as "… some them-time …" (a blind reader: garbled)."""
    assert [c.content for c in extract_rules("I'm carving out some me-time each day.", at=AT)] == [
        "User is carving out some me-time each day."
    ]
    assert [c.content for c in extract_rules("My friend gave me a book.", at=AT)] == ["User's friend gave them a book."]


def test_since_we_spoke_last_leads_in_the_news_and_is_no_fact_of_its_own():
    """ "Since we spoke last, I've had quite the adventure!" was stored as "User and others spoke last; …"."""
    got = [c.content for c in extract_rules("Since we talked last, I adopted a puppy named Max.", at=AT)]
    assert got == ["User adopted a puppy named Max."]


def test_the_news_after_a_telling_is_read_and_a_session_is_led_in_by_what_it_is():
    """ "I'm so excited to tell you I started …" gave nothing (read whole, it was words to the listener), and "after
    each session" alone left the session unnamed; read through ``extract`` (standing: resolve or abstain)."""
    from memory.write.extract.extractor import extract

    said = (
        "Hey Maria, I'm so excited to tell you I started a weekend yoga class with a colleague - it's awesome! "
        "I feel great, both mentally and physically after each session."
    )
    assert [c.content for c in extract(said, at=AT)] == [
        "User started a weekend yoga class with a colleague; User feels great, both mentally and physically after "
        "each session."
    ]
    told = "I just wanted to let you know that I got a new job at Google!"
    assert [c.content for c in extract(told, at=AT)] == ["User got a new job at Google."]


def test_a_like_is_never_read_off_a_clause_whose_verb_follows():
    """ "Connecting with the things I love makes writing even more fun." gave "User likes makes writing …"."""
    got = [c.content for c in extract_rules("Connecting with the things I love makes writing even more fun.", at=AT)]
    assert all("likes makes" not in c for c in got)
    # nor off what someone else did: "User likes they got a new lease of life."
    assert extract_rules("I love they got a new lease of life.", at=AT) == []
    assert [c.content for c in extract_rules("I love hiking in the mountains.", at=AT)] == [
        "User likes hiking in the mountains."
    ]


def test_a_fact_ending_inside_a_quote_ends_once_and_the_next_sentence_keeps_no_stray_quote():
    """'… called "Finding Home." It is fun.' gave a memory ending '.".' (or, split before the closing quote, one
    opening on '" That's how …')."""
    said = 'I\'m working on a film with my group called "Finding Home." It is fun.'
    assert [c.content for c in extract_rules(said, at=AT)][:1] == [
        'User is working on a film with their group called "Finding Home."'
    ]
    quoted = 'I like this line: "Happiness hides in the dark." That\'s how I keep hope alive.'
    assert not any(c.content.startswith('"') for c in extract_rules(quoted, at=AT))
