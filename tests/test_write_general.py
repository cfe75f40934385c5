"""The general path and the readable templates (issue 26): self-disclosures no rule covers are kept in the
speaker's words with the first person resolved; questions, small talk, requests and remarks to the other person
are left out; no "does <verb>" template; dedupe keeps statements that differ in a number, name or date apart.

The quickstart message is mem0's own example (docs.mem0.ai, open-source quickstart: "Hi, I'm Alex. I love
basketball and gaming.").
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from memory.config import Settings
from memory.evaluation.facts import readability
from memory.text.voice import you
from memory.write.extract.extractor import classify, extract_rules
from memory.write.plan import Existing, differ_in_specifics, objects_match, plan_writes
from memory.write.same import Said, one_fact

AT = datetime(2025, 5, 1, 9, 0, tzinfo=UTC)  # a Thursday


def _extract(text: str) -> list:
    ok, _ = classify(text, "user")
    return extract_rules(text, at=AT) if ok else []


def _contents(text: str) -> list[str]:
    return [c.content for c in _extract(text)]


def test_the_issue_examples_are_understood():
    assert [(c.predicate, c.object) for c in _extract("I'm Alice.")] == [("name", "Alice")]
    assert _contents("I'm learning Spanish.") == ["User is learning Spanish."]
    assert _contents("我最近迷上了攀岩。") == ["用户最近迷上了攀岩。"]
    mem0 = {(c.predicate, c.object) for c in _extract("Hi, I'm Alex. I love basketball and gaming.")}
    assert mem0 == {("name", "Alex"), ("likes", "basketball"), ("likes", "gaming")}


def test_no_does_template_and_the_bridge_reads_it_back():
    (violin,) = _extract("I play the violin on weekends.")
    assert violin.content == "User plays the violin on weekends." and violin.predicate == "likes"
    assert readability(violin.content) == []
    assert you(violin.content, "en") == "You play the violin on weekends."
    assert _contents("I also practise yoga.") == ["User practises yoga."]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "I went to a pottery workshop with my sister and it was so relaxing.",
            "User went to a pottery workshop with their sister",
        ),
        (
            "The support group has made me feel accepted and given me courage.",
            "The support group has made User feel accepted and given them courage.",
        ),
        ("My kids are so excited about summer break!", "User's kids are so excited about summer break."),
        ("Gonna continue my edu and check out career options.", "User is gonna continue their edu"),
        ("Yeah, I painted that lake sunrise last year! It's special to me.", "it's special to them"),
        ("Taking your advice, I'm sprucing up my business plan.", "User is sprucing up their business plan."),
        ("Since I lost my job at the bakery, things have been tough.", "User lost their job at the bakery"),
        ("I started my own clothing store last month - pretty cool, huh?", "User started their own clothing store"),
        ("我每周末都去游泳。", "用户每周末都去游泳。"),
    ],
)
def test_self_disclosures_are_kept_in_the_speakers_words(text, expected):
    got = _contents(text)
    assert len(got) == 1 and expected in got[0], got
    assert readability(got[0]) == [], got


def test_a_leading_time_phrase_moves_behind_and_resolves():
    (c,) = _extract("Last Friday, I had a milestone moment at the gym.")
    assert c.content.startswith("User had a milestone moment at the gym last Friday")
    assert c.event_time is not None and c.event_time.date().isoformat() == "2025-04-25"


@pytest.mark.parametrize(
    "text",
    [
        "I'm so happy for you!",
        "I totally agree with you.",
        "Thanks, that was really helpful!",
        "What do you do on weekends?",
        "I love it!",
        "Give me three ideas for dinner.",
        "I need a recipe for pancakes.",
        "I'm tired today.",
        "I'll keep pushing and make my dreams come true!",
        "It's special to me.",
        "Wow, that's so cool, Mel!",
        "我也是这么想的。",
        "你今天过得怎么样？",
        "我先去吃饭了。",
        "I couldn't agree more.",
        "Yeah, I'm doing OK, thanks.",
        "I feel the same way with my team.",
        "I can't believe it's already May!",
        "Since we last chatted, a lot has happened.",
    ],
)
def test_questions_small_talk_requests_and_remarks_to_the_other_are_left_out(text):
    assert _extract(text) == []


def test_first_person_left_in_a_rule_object_is_resolved():
    for text in ["I love having my dog around to keep me calm.", "I went hiking with my brother yesterday."]:
        for content in _contents(text):
            assert readability(content) == [], content


def test_numbers_names_and_dates_keep_statements_apart():
    assert differ_in_specifics("User planted apple tree number 2.", "User planted apple tree number 1.")
    assert differ_in_specifics("User moved to Lyon (2024-03).", "User moved to Lyon (2025-03).")
    assert differ_in_specifics("User met Anna at the gym.", "User met Maria at the gym.")
    assert not differ_in_specifics("User planted an apple tree.", "User planted an apple tree!")
    # the same numbers in another order are other specifics, and a word with a digit is an identifier, kept whole
    assert differ_in_specifics("User ran 5 km in 10 minutes.", "User ran 10 km in 5 minutes.")
    assert (
        one_fact(
            Said("User likes sport1x0.", "likes", "sport1x0"),
            Said("User likes sport0x1.", "likes", "sport0x1"),
            0.96,
            0.95,
        )
        is None
    )
    assert not objects_match("apple tree number 2", "apple tree number 1")
    assert objects_match("apple tree", "the apple tree")
    (c,) = extract_rules("I planted apple tree number 2 today.", at=AT)
    c.neighbours = {"m1": 0.99}  # as alike as embeddings get
    first = Existing(
        id="m1",
        content="User planted apple tree number 1 (2025-04-30).",
        predicate="fact",
        object="planted apple tree number 1",
    )
    (op,) = plan_writes([c], [first], Settings(dedupe_threshold=0.9))
    assert op.op == "ADD", op.reason
    same = Existing(id="m2", content=c.content, predicate="fact", object=c.object)
    c.neighbours = {"m2": 0.99}
    (again,) = plan_writes([c], [same], Settings(dedupe_threshold=0.9))
    assert again.op == "REINFORCE"


# -- regression guard: categories read off the tuning split (LoCoMo conv-26 / conv-30) -----------------------------
# Written after the tuning split's misses and false positives (paraphrased, not LoCoMo text); they guard the rule
# categories of the second round, not the benchmark figures (those come from `memlens eval facts`).
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # an ongoing activity is kept; a mood is not (below)
        ("I'm starting to see that sleep really matters.", "User is starting to see that sleep really matters."),
        ("I'm prepping for my bakery opening more than ever!", "User is prepping for their bakery opening"),
        # what someone has or is busy with
        ("I'm lucky to have my brother and my cousins; they keep me going.", "User is lucky to have their brother"),
        ("I'm swamped with the twins & my thesis.", "User is swamped with the twins & their thesis."),
        # a dropped subject, and the other person's recommendation as a thing
        ("Nice! Been only to Lisbon once.", "User has been only to Lisbon once."),
        ("Been reading that novel you recommended and knitting to relax.", "that novel recommended to them"),
        # whose dream it is; nothing dangles
        ("It's been a dream to foster and give a warm home to dogs who need it.", "User's dream is to foster"),
        # chat shapes left out of the memory
        ("Hi Sam! Amazing 🎉 I sold my first painting today!", "User sold their first painting"),
        ("That being said, I definitely don't underestimate the workload.", "User definitely doesn't underestimate"),
        (
            "Yesterday I took my niece to the zoo - it was so cool watching her face!",
            "User took their niece to the zoo",
        ),
    ],
)
def test_tuning_split_categories(text, expected):
    got = _contents(text)
    assert len(got) == 1 and expected in got[0], got
    assert readability(got[0]) == [], got
    assert not re.search(r"💪|🎉| - it was|That being said|Sam\b", got[0]), got


@pytest.mark.parametrize(
    ("text", "not_wanted"),
    [
        ("I went to a concert last Friday and it was great - so much energy and love everywhere.", "everywhere"),
        ("I love the friendship and love theme.", "theme"),
        ("Having my own shop and doing something I love is awesome.", "likes is"),
        ("I'm thrilled to start this new chapter.", "thrilled"),  # a mood
        ("It was tough, but I'm feeling hopeful.", "hopeful"),  # how they are doing
        ("We haven't talked in a few days.", "talked"),  # the conversation itself
        ("I 100% agree, Sam.", "agree"),
        ("I can picture waking up by the sea.", "picture"),
        ("Doing research and preparing myself makes sense.", "sense"),
        ("Yeah, I did last week!", "did"),  # an answer, not a fact on its own
        ("I'm getting there, Sam.", "Sam"),
    ],
)
def test_tuning_split_false_positives_stay_out(text, not_wanted):
    assert not any(not_wanted in c for c in _contents(text)), _contents(text)


def test_tuning_split_fixes_keep_what_the_sentence_says():
    # the clause after a pronoun subject is not given the speaker's verb, but the first fact stays
    got = _contents("I went to a concert last Friday and it was great - so much energy and love everywhere.")
    assert got == ["User went to a concert (last Friday, 2025-04-25)."], got
    assert _contents("I love my job and hate commuting.") == ["User likes their job.", "User dislikes commuting."]
    assert _contents("It was so vibrant and welcoming, I had to take a picture!") == ["User had to take a picture."]
    # Chinese is untouched by the English categories
    assert _contents("我最近迷上了攀岩。") == ["用户最近迷上了攀岩。"]


# -- third round (issue 26): categories read off the tuning split's misses and false positives again ---------------
# Sentences written for these tests (not LoCoMo text); each asserts the exact memory.
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # an event rule keeps one part of the sentence; the sentence says more, so it is kept whole, its time phrase
        # behind the clause it dates (not behind "which …" or "… and it was …")
        (
            "Last month I got hurt and had to pause climbing, which I do to unwind.",
            ["User got hurt and had to pause climbing last month, which they do to unwind (2025-04)."],
        ),
        (
            "Last Friday, I went to a baking workshop and it was really fun.",
            ["User went to a baking workshop last Friday and it was really fun (2025-04-25)."],
        ),
        # what follows a dash and goes on about the statement before it stays with it
        (
            "Yesterday I took my nephews to the aquarium - it was so cool watching their faces light up!",
            [
                "User took their nephews to the aquarium yesterday (2025-04-30); it was so cool watching their faces"
                " light up."
            ],
        ),
        (
            "Been swimming more since we last talked - a great way to relax and clear my head.",
            ["User has been swimming more since they last talked, a great way to relax and clear their head."],
        ),
        # a sentence going on about a taste or an event before it is appended, as to a general fact
        (
            "I love gardening. It keeps me calm after a long shift.",
            ["User likes gardening; it keeps them calm after a long shift."],
        ),
        (
            "I signed up for a woodworking course last week. It is teaching me patience.",
            ["User signed up for a woodworking course (last week, 2025-04-24); it is teaching them patience."],
        ),
        # "I hope to …" is an aim; "I hope you …" is still a wish to the other person
        (
            "I hope to open a small bakery with my sister one day.",
            ["User hopes to open a small bakery with their sister one day."],
        ),
        ("I hope you feel better soon.", []),
        # what only the chat shows ("this pic", "those moments") is left out; a thing named stays
        ("Seeing this pic made me miss my grandma's garden.", []),
        ("Those moments make me so thankful for my family.", []),
        (
            "This scarf from my aunt is really special to me.",
            ["This scarf from User's aunt is really special to them."],
        ),
        # "do" takes a thing, never an infinitive ("which I do to unwind" gave "User does to unwind.")
        ("I do yoga to unwind.", ["User does yoga to unwind."]),
        # an adverb before the verb of a mid-sentence "I" is not conjugated ("really" gave "reallies")
        (
            "The song that I really love is on repeat in my car.",
            ["The song that User really loves is on repeat in their car."],
        ),
        # "Going to …" as the subject is not a dropped "I'm going to …"
        ("Going to the gym after work helps me sleep.", ["Going to the gym after work helps User sleep."]),
        (
            "Going to the coast with my brother next month.",
            ["User is going to the coast with their brother next month (2025-06)."],
        ),
        # Chinese alike: the whole sentence over an event rule's part, a sentence going on about the one before
        (
            "我昨天带孩子们去了博物馆，看到他们那么开心真好。",
            ["用户昨天带孩子们去了博物馆，看到他们那么开心真好（昨天，2025-04-30）。"],
        ),
        ("我最近迷上了攀岩。它让我很放松。", ["用户最近迷上了攀岩；它让用户很放松。"]),
        ("我叫小王。这是我第一次来上海。", ["用户叫小王。"]),  # a name is stated whole: nothing is appended to it
    ],
)
def test_third_round_categories(text, expected):
    got = _contents(text)
    assert got == expected, got
    assert all(readability(c) == [] for c in got), got


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("I typically hold the pose for 30 seconds before switching sides.", "User typically holds the pose"),
        ("I occasionally paint landscapes with my grandfather.", "User occasionally paints landscapes"),
        ("I rely on my sister for advice about the kids.", "User relies on their sister"),
        ("I apply for two jobs every week.", "User applies for two jobs"),
    ],
)
def test_an_ly_adverb_is_not_conjugated_but_an_ly_verb_is(said, kept):
    """ "I typically hold …" gave "User typicallies hold …"."""
    contents = [c.content for c in extract_rules(said, at=datetime(2026, 3, 2, 9, tzinfo=UTC))]
    assert any(c.startswith(kept) for c in contents), contents


def test_a_subjectless_just_and_a_past_gets_its_subject():
    """ "Just skyped with that Harry Potter fan I met in CA …" kept no subject and gave "… fan User met in CA"; a
    state after "just" ("Just swamped with work") is still no statement."""
    at = datetime(2023, 8, 1, 9, tzinfo=UTC)
    got = [
        c.content
        for c in extract_rules("Just skyped with that Harry Potter fan I met in CA and had a great time.", at=at)
    ]
    assert got == ["User just skyped with that Harry Potter fan they met in CA and had a great time."], got
    got = [c.content for c in extract_rules("Just texted my mom about the party.", at=at)]
    assert got == ["User just texted their mom about the party."], got
    assert extract_rules("Just swamped with work lately.", at=at) == []


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        (
            "Last week I retook the aptitude test with some great results.",
            "User retook the aptitude test with some great results last week",
        ),
        ("I overslept this morning and missed the bus.", "User overslept this morning"),
        ("I mistook him for my brother.", "User mistook him"),
        ("I undertook a big project at work.", "User undertook a big project"),
        ("I rewrote my essay last week.", "User rewrote their essay"),
        ("I resent my old job.", "User resents their old job"),  # a present that only looks like re + sent
    ],
)
def test_a_prefixed_irregular_past_stays_past(said, kept):
    """ "I retook the aptitude test" gave "User retooks …": an irregular past under a prefix is a past too."""
    contents = [c.content for c in extract_rules(said, at=datetime(2023, 3, 1, 9, tzinfo=UTC))]
    assert any(c.startswith(kept) for c in contents), contents
