"""Facts that stand on their own (issue 44): resolve or abstain, worth keeping, one fact once, readable.

Sentences written for these tests (not LoCoMo text), English and Chinese. Every extraction goes through the function a
user's chat turn runs (``pipeline.prepare``: classify → mask → extract), read after the message it answers.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memory.storage.models import Message
from memory.write.extract.references import resolve, unresolved
from memory.write.extract.worth import trivial
from memory.write.pipeline import Item, prepare

AT = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)


def facts(text: str, previous: str | None = None) -> list[str]:
    message = Message(session_id="s", user_key="u", role="user", content=text, created_at=AT)
    return [c.content for c in prepare(Item(message, previous=previous)).cands]


# -- 1. resolve or abstain -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "I want to try it and see if it helps me sleep.",
        "I also use it to speak up for my community.",
        "Their support has really helped me grow.",
        "We were so lucky he was okay.",
        "I'm planning a few.",
        "I rely on them for strength.",  # them: people the message never names
        "我很喜欢它。",
        "我在学做这个。",
        "她送给我一条围巾。",
        "这是我去年买的。",
        # a date or a number once bought these a place through the learned decision; a reader still cannot place them
        "I started volunteering here a year ago.",
        "I finally finished it after three weeks of work.",
        "I'm gonna give it a shot and see how it goes.",  # it: what the message answered suggested
    ],
)
def test_a_reference_the_memory_cannot_name_is_not_stored_as_a_fact(svc, text):
    """Through the write path with real e5, in every language: what the detector cannot name is dropped before the
    learned worth-keeping decision (resolve or abstain); the episode keeps what was said."""
    from memory.write.entry import Said

    user = svc.ensure_user("ref")
    svc.write(user, svc.ensure_session(user, "s"), [Said("user", text, created_at=AT)])
    assert _stored(svc, "ref") == []


@pytest.mark.parametrize(
    ("text", "previous", "expected"),
    [
        ("I made this bowl in my pottery class.", None, "User made a bowl in their pottery class."),
        (
            "We found these lovely wild flowers by the river.",
            None,
            "User and others found lovely wild flowers by the river.",
        ),
        ("我上周画了这幅画。", None, "用户上周画了一幅画（上周，2024-04-24）。"),
        # the message it answers names the thing
        (
            "Not yet, but I want to try it and see if it helps me sleep.",
            "Have you ever tried yoga?",
            "Not yet, but User wants to try yoga and see if it helps them sleep.",
        ),
    ],
)
def test_a_reference_is_named_where_the_words_name_it(text, previous, expected):
    assert facts(text, previous) == [expected]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I adopted a rescue greyhound last Monday.", "User adopted a rescue greyhound (last Monday, 2024-04-22)."),
        ("My sister moved to Lyon and she loves it there.", "User's sister moved to Lyon and lives there now."),
        ("I started pottery in March and it keeps me calm.", None),
        ("我最近迷上了攀岩。", "用户最近迷上了攀岩。"),
        ("我搬到上海了。", "用户搬到了上海，现在住在那里。"),  # 那里 = 上海, named before it
        ("I'm vegetarian.", "User is vegetarian."),  # a template states it whole: never 'too little said'
        ("I work as a nurse at the city hospital.", None),  # 'the city hospital' names its place
        ("This scarf from my aunt is really special to me.", "The scarf from User's aunt is really special to them."),
        ("我妹妹小美搬到了杭州，她很喜欢新工作。", None),
    ],
)
def test_a_self_contained_fact_is_kept(text, expected):
    got = facts(text)
    assert len(got) == 1, got
    assert expected is None or got == [expected]
    assert not unresolved(got[0])


def test_the_detector_tells_the_speakers_own_they_and_a_named_person_from_a_reference():
    assert unresolved("User likes it.") == ["it"]
    assert unresolved("User painted this after they visited the center.") == ["this"]
    assert unresolved("User has been drawing since they were twelve.") == []  # they = the speaker
    assert unresolved("User's sister Anna moved to Lyon; she loves it.") == []  # she = Anna; the rest is appended
    assert unresolved("Clay is incredible, it brings User so much joy.") == []  # it = clay
    assert unresolved("User went to a concert this week.") == []  # a date the extractor resolves
    assert unresolved("User thinks that running is good for them.") == []  # 'that' joins a clause
    assert unresolved("User likes brands that align with their values.") == []  # 'that' after a noun: relative
    said = "I met some young folks and supported them."
    assert unresolved("User met some young folks and supported them.", said) == []  # them = the folks
    assert unresolved("用户很喜欢它。") == ["它"]
    assert unresolved("用户的妈妈说她很忙。") == []  # 她 = 妈妈
    assert resolve("User gave him a call.") is None
    # "moments like these": like which, only the conversation says; never "Moments like remind …"
    assert resolve("Moments like these remind User what matters.") is None
    assert resolve("User trained hard for that last match.") is None  # never "a last match"


@pytest.mark.parametrize(
    ("content", "said"),
    [
        # a their / them whose plural is named before it in the memory
        (
            "User has always been passionate about veterans and their rights.",
            "I've always been passionate about veterans and their rights.",
        ),
        (
            "User has been collaborating with organizations to create more opportunities for young athletes and help "
            "them succeed; it's amazing to see the difference sports make in people's lives.",
            "I've been collaborating with organizations to create more opportunities for young athletes and help them"
            " succeed.",
        ),
        # an "it" of an idiom
        (
            "User and others gave it their all during last week's scrimmage (2023-12-12).",
            "We gave it our all during last week's scrimmage.",
        ),
        (
            "Allergies make it so User doesn't really want to get a cat, and they're too lazy to research alternative "
            "pets for their allergies.",  # ("… want to get any" is a reference: any what, the conversation said)
            "Unfortunately, allergies make it so I don't really want to get a cat, and I'm too lazy to research "
            "alternative pets for my allergies.",
        ),
        # the place "there" stands for, named after it
        (
            "Haven't been there yet, but User has heard great things about Universal Studios; it's definitely on "
            "their bucket list.",
            "Haven't been there yet, but I've heard great things about Universal Studios.",
        ),
    ],
)
def test_what_the_memory_itself_names_or_an_idiom_is_no_unresolved_reference(content, said):
    """False flags of held-out LoCoMo memories (issue 44): each reads fine alone."""
    assert unresolved(content, said) == []


def test_a_pointing_subject_or_a_kind_that_names_nothing_is_still_a_reference():
    """ "These critters …" opened by a pointer at something never named was let through (These read as They); a
    "things like that" says nothing a reader can place; "like this" after a verb of seeming is no kind."""
    said = "These critters also make me appreciate life's little joys."
    assert unresolved("These critters also make User appreciate life's little joys.", said) == ["These"]
    assert unresolved("These little guys sure bring joy to User's life.", "These little guys sure bring joy!") == [
        "These"
    ]
    assert unresolved("These critters make User appreciate life's little joys.") == ["These"]  # a verb, not a noun
    assert unresolved("That should help User stay focused.") == ["That"]  # a modal after it: a pronoun
    assert unresolved("These cookies from User's grandma are the best.") == []  # named where it is pointed at
    assert unresolved("These figurines User bought yesterday remind them of family love.") == []
    # named where it is pointed at, it is "the" thing: nothing a reader lacks
    assert resolve("These figurines User bought yesterday remind them of family love.") == (
        "The figurines User bought yesterday remind them of family love."
    )
    # a verb before "User" makes it the main clause: the quote is only in the conversation
    assert unresolved("This quote kept User positive through tough times.") == ["This"]
    assert unresolved("This design reminds User of the grit it takes to stand out.") == ["This"]
    # a past verb of doing before "that" + a noun phrase: a pointer ("realized that …" joins a clause)
    assert unresolved("User painted that lake sunrise last year (2022).") == ["that lake"]
    assert (
        resolve("User painted that lake sunrise last year (2022).") == "User painted a lake sunrise last year (2022)."
    )
    assert unresolved("User realized that people are kind.") == []
    assert unresolved("User learned that patience matters.") == []
    # "made it to" arrives somewhere; "made it to show …" made a thing
    assert unresolved("User made it to show their own journey.") == ["it"]
    assert unresolved("User made it to the finals.") == unresolved("User made it to Paris last year.") == []
    # a bare "one" after sharing or being: one of what?
    assert unresolved("User shared one they did last week.") == ["one"]
    assert unresolved("User has been one 'cause they lost their job.") == ["one"]
    assert unresolved("User has been one of the lucky ones.") == []
    # started what?
    assert unresolved("User started when they were young.") == ["started"]
    assert unresolved("User started painting when they were young.") == []
    # a session of what? (said before, in the message: the memory is led in by it, see the write-path test below)
    assert unresolved("User feels great, both mentally and physically after each session.") == ["each session"]
    assert unresolved("User started a yoga class and feels great after each class.") == []
    # "of it" completes the noun before it; that noun does not name what "it" is
    assert unresolved("User is a huge fan of it, that's why they go.") == ["it"]
    assert unresolved("User bought a new bike and loves it.") == []
    # blind readers of held-out memories asked "like what?": the kind is named, the instance is not
    for kind in [
        "Moments like these make User so grateful for their basketball career.",
        "Moments like that make User love sports and admire the players' determination and heart.",
        "User and others are lucky to have places like that near their homes.",
        "Having physical reminders like this really helps User stay motivated.",
    ]:
        assert unresolved(kind), kind
    assert unresolved("User loves things like that.") == ["things like that"]
    assert unresolved("User feels like this is their true calling.") == ["this"]
    assert "Their" in unresolved("Their love gives User strength.", "Their love gives me strength.")  # still


def test_a_pointing_determiner_before_a_vague_head_is_not_renamed_into_an_article():
    """ "this charity thing" → "a charity thing" looks named while a reader still cannot tell which event was meant:
    left unresolved (named from the conversation, else judged as unresolved), while a noun that says what the thing
    is still becomes an article."""
    assert resolve("User and a friend went to this book club thing last night.") is None
    assert resolve("User loves escaping into that world for hours.") is None
    assert resolve("Visiting those places is on User's list.") is None
    assert resolve("User joined this adoption group.") == "User joined an adoption group."
    assert resolve("User planted these lovely tulips.") == "User planted lovely tulips."
    # a kind said bare says which one only in the conversation ("User is a huge fan of a genre" says nothing), while
    # a word of its own names it enough ("an amazing fantasy series")
    assert resolve("User is a huge fan of this genre.") is None
    assert resolve("User stumbled across this spot while hiking.") is None
    assert resolve("User just finished this amazing fantasy series.") == "User just finished an amazing fantasy series."


# -- 2. worth keeping ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "We are a great team!",
        "I'm so excited and thankful!",
        "I feel calm again.",
        "I had a great time.",
        "I had a busy week.",
        "This week's been really busy.",
        "Knowing I'm helping people is amazing.",
        "I'm looking forward to more cool memories.",
        "我今天很开心！",
        "我们是一个很棒的团队！",
    ],
)
def test_a_reaction_or_a_verdict_of_the_moment_is_not_a_fact(text):
    assert facts(text) == []


@pytest.mark.parametrize(
    "content",
    [
        "User is gonna keep chasing after dreams.",
        "User wants to keep making a difference.",
        "User won't give up.",
        "User keeps facing new challenges, but they're sure it'll be worth it in the end.",
        "Now User is stepping into the unknown and hoping for the best.",
        "The colors make User feel calm.",
        "Being around people who embrace and back User up is beyond words.",
        "User is so lucky to have such a great support system around them.",
        "Hearing the thanks of the volunteers filled User with so much joy.",
        "User shared some good news; they've got something to share.",
        "用户今天心情很好。",
        "用户会继续加油的。",
        "用户相信一切都会好起来的。",
    ],
)
def test_a_pep_talk_a_caused_mood_or_announced_news_is_not_a_fact(content):
    """Kinds read off the tuning conversations (conv-26, conv-30) after the first round of rules."""
    assert trivial(content) is not None


@pytest.mark.parametrize(
    "content",
    [
        "User wants to make a difference in the lives of foster kids.",
        "User is chasing their dream of opening a bakery in Paris.",
        "User has some news: they got engaged.",
        "User is lucky to have their husband and kids.",
        "Volunteering at the animal shelter fills User with joy.",  # what fills them is named
        "用户今天心情很好，去公园跑了步。",
    ],
)
def test_a_resolve_or_news_that_names_something_is_kept(content):
    assert trivial(content) is None


def test_a_memory_made_trivial_by_naming_its_reference_is_dropped():
    """ "those dreams" named "dreams" makes the memory a pep talk: it is judged again after naming (it was kept)."""
    assert facts("I'm gonna keep following those dreams!") == []
    assert facts("We're gonna keep chasing after those goals.") == []
    assert facts("I'm gonna keep following those dreams of opening a bakery.") != []


@pytest.mark.parametrize(
    "content",
    [
        "User opened an online clothing store and it's been great.",  # a fact with a verdict after it
        "User is happy with their new job in Berlin.",
        "User adopted a dog (2024-05-01).",
        "用户最近迷上了攀岩。",
    ],
)
def test_a_fact_with_a_feeling_is_kept(content):
    assert trivial(content) is None


# -- 4. readable ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I do remember the dance classes at school.", ["User remembers the dance classes at school."]),
        ("I did enjoy the concert in Lisbon.", ["User enjoyed the concert in Lisbon."]),
        ("I do see them.", []),
        ("I do yoga on Sundays.", ["User does yoga on Sundays."]),  # 'do' with an object stays
    ],
)
def test_an_emphatic_do_is_never_written_as_does(text, expected):
    assert facts(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Look what I made!", []),  # never "Look what User made."
        ("Wow, look what I painted!", []),
        ("Take a look at what I made last week.", []),
        (  # never "User read reminds them …": the event verb sat in the subject's clause
            "This book I read last year reminds me to always pursue my dreams.",
            ["The book User read last year reminds them to always pursue their dreams (2023)."],
        ),
        ("Yesterday I bought new shoes.", ["User bought new shoes (Yesterday, 2024-04-30)."]),
    ],
)
def test_the_offline_grammar_never_writes_words_to_the_listener_or_a_clause_as_an_event(text, expected):
    assert facts(text) == expected


# -- 3. one fact once ----------------------------------------------------------------------------------------------
def test_the_near_duplicate_check_never_joins_facts_that_differ_in_a_number_a_date_or_a_name():
    from memory.write.same import same_fact

    assert same_fact("User ran a half marathon in Porto.", "User ran a half marathon in Porto!", 0.99, 0.95)
    assert not same_fact("User ran 5 km on Sunday.", "User ran 10 km on Sunday.", 0.99, 0.95)
    assert not same_fact("User moved to Lyon (2024-03).", "User moved to Lyon (2025-03).", 0.99, 0.95)
    assert not same_fact("User's sister Anna lives in Berlin.", "User's sister Maria lives in Berlin.", 0.99, 0.95)
    assert not same_fact("用户跑了5公里。", "用户跑了10公里。", 0.99, 0.95)
    assert same_fact("用户最近迷上了攀岩。", "用户最近迷上了攀岩！", 0.99, 0.95)


def test_the_hygiene_queue_keeps_two_dated_facts_apart_and_a_merge_keeps_every_source(svc):
    """Two trips to Lyon a year apart are two facts (the queue used to join them: dates in brackets were left out of
    the wording it compared); a merge of one fact said twice keeps one memory with both source messages."""
    from memory.storage import records
    from memory.vocab import Actor, MemoryStatus, Role

    svc.remember("dee", "Hello there!")  # the user exists
    user = svc.get_user("dee")
    first = records.add_memory(svc.storage, user, "User moved to Lyon (2024-03).", source_message_ids=[101])
    second = records.add_memory(svc.storage, user, "User moved to Lyon (2025-03).", source_message_ids=[102])
    near = [f for f in svc.desk.hygiene_review("dee").findings if f.kind == "near_duplicate"]
    assert not any({first.id, second.id} <= set(f.memory_ids) for f in near), near

    a = records.add_memory(svc.storage, user, "User plays the cello in an orchestra.", source_message_ids=[201])
    b = records.add_memory(svc.storage, user, "User plays the cello in an orchestra!", source_message_ids=[202])
    finding = next(
        f
        for f in svc.desk.hygiene_review("dee").findings
        if f.kind == "near_duplicate" and {a.id, b.id} <= set(f.memory_ids)
    )
    curator = Actor(name="cora", role=Role.CURATOR, via="test")
    svc.desk.hygiene_act(finding.key, "merge", actor=curator, user_id="dee", target=a.id)
    kept, gone = svc.get_memory(a.id), svc.get_memory(b.id)
    assert gone.status == MemoryStatus.SUPERSEDED and gone.superseded_by == a.id
    assert set(kept.source_message_ids) == {201, 202} and kept.reinforce_count == 1


def test_the_hygiene_queue_finds_a_duplicate_the_greedy_grouping_hid_and_keeps_two_likes_apart(svc):
    """Near-identical facts the write path kept (held-out LoCoMo, conv-42): "User likes to help." sits 0.955 from
    "User likes action.", which compaction's greedy grouping made its leader, so the queue never compared it with
    "User likes helping people." (0.985) — now every memory is compared with every group's leader. And two likes of
    different things ("helping the community" / "infrastructure in their community", conv-41) were proposed for a
    merge on their shared words; now their objects must share most of their words too. The merge keeps every
    source."""
    from memory.storage import records
    from memory.vocab import Actor, MemoryStatus, MemoryType, Role

    svc.remember("nate", "Hello there!")  # the user exists
    user = svc.get_user("nate")

    def like(obj: str, source: int):
        return records.add_memory(
            svc.storage,
            user,
            f"User likes {obj}.",
            type=MemoryType.PREFERENCE,
            subject="user",
            predicate="likes",
            object=obj,
            source_message_ids=[source],
        )

    action, helping, to_help = like("action", 1), like("helping people", 2), like("to help", 3)
    community, infrastructure = like("helping the community", 4), like("infrastructure in their community", 5)
    near = [f for f in svc.desk.hygiene_review("nate").findings if f.kind == "near_duplicate"]
    assert [sorted(f.memory_ids) for f in near] == [sorted([helping.id, to_help.id])], [f.contents for f in near]
    assert not any({community.id, infrastructure.id} & set(f.memory_ids) for f in near)
    assert action.id not in near[0].memory_ids
    curator = Actor(name="cora", role=Role.CURATOR, via="test")
    svc.desk.hygiene_act(near[0].key, "merge", actor=curator, user_id="nate", target=helping.id)
    kept = svc.get_memory(helping.id)
    assert svc.get_memory(to_help.id).superseded_by == helping.id and kept.status == MemoryStatus.ACTIVE
    assert set(kept.source_message_ids) == {2, 3}


def _stored(svc, uid: str) -> list:
    from memory.vocab import SEMANTIC_TYPES

    return sorted(svc.list_memories(svc.get_user(uid), types=SEMANTIC_TYPES), key=lambda m: m.created_at)


@pytest.mark.parametrize(
    ("first", "again", "kept"),
    [
        # "I like to help." alone is a like with nothing named (eighteenth round): said with its object
        ("I like helping people.", "I like to help people.", "User likes helping people."),
        (
            "I shared a photo of my family at Lake Tahoe.",
            "I shared a pic of my fam at Lake Tahoe.",
            "User shared a photo of their family at Lake Tahoe.",
        ),
    ],
)
def test_a_near_identical_fact_said_again_is_one_memory_with_both_sources(svc, first, again, kept):
    """Pairs like those the write path used to store twice (held-out LoCoMo, conv-41 / conv-42: "likes helping
    people" / "likes to help", e5 0.985; "shared a pic of their family" / "… of their fam at the beach", 0.950 — the
    learned worth-keeping decision now drops the first of that pair, so the test says it with a named place) and the
    hygiene queue then proposed to merge: at write time the second statement now reinforces the first
    (the queue's rule, :mod:`memory.write.same`), so the queue has nothing left to propose."""
    from memory.views.writes import source_words

    svc.remember("wes", first)
    svc.remember("wes", again)
    (memory,) = _stored(svc, "wes")
    assert memory.content == kept and memory.reinforce_count == 1
    assert [m["content"] for m in source_words(svc.storage, memory.id)["messages"]] == [first, again]
    assert not [f for f in svc.desk.hygiene_review("wes").findings if f.kind == "near_duplicate"]


def test_facts_that_differ_in_a_number_a_date_or_a_name_stay_two_memories(svc):
    from memory.write.entry import Said

    for first, again in [
        ("I have 2 dogs.", "I have 3 dogs."),
        ("I met Anna at the gym.", "I met Maria at the gym."),
        ("我今天跑了5公里。", "我今天跑了10公里。"),
    ]:
        uid = f"u{abs(hash(first))}"
        svc.remember(uid, first)
        svc.remember(uid, again)
        assert len(_stored(svc, uid)) == 2, [m.content for m in _stored(svc, uid)]
    user = svc.ensure_user("dan")
    session = svc.ensure_session(user, "s")
    for day in (5, 12):
        said = Said("user", "I ran a half marathon last Sunday.", created_at=datetime(2024, 5, day, 9, tzinfo=UTC))
        svc.write(user, session, [said])
    assert [m.content for m in _stored(svc, "dan")] == [
        "User ran a half marathon (last Sunday, 2024-04-28).",
        "User ran a half marathon (last Sunday, 2024-05-05).",
    ]


# -- 5. the LLM extractor follows the same contract ----------------------------------------------------------------
def test_what_a_model_proposes_meets_the_same_contract():
    """A configured model's candidates go through the same step as the rules' (extractor.standing): a reference it
    left unnamed is named or dropped, a mood of the moment dropped. The fake is the model boundary only."""
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage

    from memory.write.extract.extractor import extract

    class ToolCallingFake(GenericFakeChatModel):
        def bind_tools(self, tools, **kwargs):
            return self

    payload = {
        "facts": [
            {"predicate": "fact", "object": "it", "content": "User wants to try it to sleep better."},
            {"predicate": "fact", "object": "bowl", "content": "User made this bowl in their pottery class."},
            {"predicate": "fact", "object": "mood", "content": "User is so excited and thankful."},
            {"predicate": "lives_in", "object": "Porto", "content": "User lives in Porto."},
        ]
    }
    msg = AIMessage(content="", tool_calls=[{"name": "Extraction", "args": payload, "id": "call_1"}])
    model = ToolCallingFake(messages=iter([msg]))
    text = "I live in Porto. I made this bowl in my pottery class! So excited and thankful. I want to try it."
    got = extract(text, role="user", at=AT, model=model)
    # "it" nobody can name is dropped (resolve or abstain), "this bowl" is named, the mood is no fact
    assert [c.content for c in got] == ["User made a bowl in their pottery class.", "User lives in Porto."]


# -- fifth round: a reference named from the message itself, and moods of the moment the rules now read ------------
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "I've got some other stuff with sentimental value, like my hand-painted bowl. A friend made it for my "
            "18th birthday ten years ago.",
            "A friend made User's hand-painted bowl for User's 18th birthday ten years ago (2014).",
        ),
        (
            "Yay! My online clothes store is open! I've been dreaming of this for a while now.",
            "User has been dreaming of their online clothes store for a while now.",
        ),
    ],
)
def test_a_reference_is_named_from_the_sentence_before_it(text, expected):
    assert expected in facts(text)


@pytest.mark.parametrize(
    ("text", "guess"),
    [
        ("My sister and my brother came over. I love them so much.", "loves"),  # nothing plural named: not guessed
        ("I got my bike and my helmet back. I finally fixed it after three weeks.", "fixed"),  # two things: which?
        ("It was a long day. I finally finished it after three weeks.", "finished"),  # nothing named before
        ("I want to try it someday. [shares a photo of a yoga mat]", "try"),  # "it" is not the photo's: only "this"
        ("I'm getting people together to chat about this. [shares a photo of a party invitation]", "chat"),
        ("I wore my wool scarf. Everyone had cool costumes. I even got this as a treat.", "treat"),  # two back
        ("I'm working on a script with my writing group. I find it really rewarding.", "rewarding"),  # a judgement
    ],
)
def test_a_reference_the_message_does_not_name_once_is_not_guessed(text, guess):
    """No fact of the sentence with the reference names a thing in its place (the learned decision judges the
    unnamed one as before). A guard for the naming above: it passes before this change too, when nothing was named
    from another sentence. The last three (and "this is Max", now its own test) failed on a first version, which
    named a bare "this" by the shared photo's caption ("a dog is Max"), looked two sentences back, and named what a
    judgement is about."""
    said = [f for f in facts(text) if guess in f]
    assert all(" it " in f or " them " in f or "this" in f for f in said), said


def test_a_name_introduced_with_a_photo_is_not_named_by_the_caption():
    """ "…, this is Max!" with a photo of a dog: the name stays the name ("…, Max"), never "a dog is Max"."""
    got = facts("I just got a new addition to the family, this is Max! [shares a photo of a dog on a couch]")
    assert any(f.startswith("User just got a new addition to the family, Max") for f in got), got
    assert not any("dog" in f for f in got), got


# -- sixth round: a reference named by what the message answered points at --------------------------------------------
@pytest.mark.parametrize(
    ("text", "previous", "expected"),
    [
        (
            "Thanks, Nora! I carved this after I visited the coast.",
            "Wow, that sculpture is lovely! Those lines are so smooth. What gave you the idea?",
            "User carved a sculpture after they visited the coast.",
        ),
        (
            "Thanks! I've watched most of them and they're inspiring.",
            "That is a great shelf! Have you seen those films?",
            "User has watched most of the films and they're inspiring.",
        ),
    ],
)
def test_a_reference_is_named_by_what_the_message_answered_points_at(text, previous, expected):
    assert expected in facts(text, previous)


@pytest.mark.parametrize(
    ("text", "previous", "guess"),
    [
        # the speaker named the thing first: "it" is the city, not the other speaker's "travel list"
        (
            "Lisbon sounds great! Definitely adding it to my list.",
            "Lisbon is a must! Add that city to your list!",
            "list",
        ),
        # "your X" is the thanks or the advice, not what "it" is
        (
            "Yes! I can't imagine my days without it.",
            "I appreciate your encouragement. Still playing chess?",
            "imagine",
        ),
        # "how does that sound" is a verb, not a thing
        (
            "Awesome! I'm going to cook it for my parents.",
            "I can send it to you tomorrow, how does that sound?",
            "cook",
        ),
        # two things of that number pointed at: which?
        ("Thanks! I built this last spring.", "That shed and that fence look solid! When?", "built"),
        # a clause, not a reference to name
        ("Oh! I heard it's a great read.", "That novel is on my shelf. Have you read it?", "heard"),
    ],
)
def test_a_reference_the_answered_message_does_not_point_at_once_is_not_guessed(text, previous, guess):
    """Guards for the naming above (they pass before it too, when nothing was named from the message answered): a
    first version named five of ten wrongly on LoCoMo dev ("make a sound", "without their encouragement",
    "Adding User's travel list to User's list", "gave their team their all", "heard a yet's …"). ("We gave it
    our all" after "That team of yours …?" is not in this list: an older rule writes "gave the team their all".)"""
    said = [f for f in facts(text, previous) if guess in f]
    named = ("travel", "encouragement", "sound", "shed", "fence", "novel")
    assert all(w not in f for f in said for w in named), said


def test_a_chinese_reference_is_named_by_what_the_message_answered_points_at():
    """那辆自行车 in the message answered names the 它 of the answer; before this, the fact was dropped."""
    assert facts("谢谢！我每天都骑它上班。", "那辆自行车真酷！你常骑吗？") == ["用户每天都骑一辆自行车上班。"]
    assert facts("我很喜欢它。", "那家咖啡店怎么样？") == ["用户很喜欢一家咖啡店。"]


@pytest.mark.parametrize(
    ("text", "previous"),
    [
        ("我很喜欢它。", "那家咖啡店和那本书怎么样？"),  # two things pointed at: which?
        ("我去过上海，我很喜欢它。", "那家咖啡店怎么样？"),  # a clause before it may name the thing itself
        ("我很喜欢它。", "你周末做了什么？"),  # nothing pointed at
        ("哈哈，我在那里住了三年。", "那座城市好玩吗？"),  # a place: not named this way
    ],
)
def test_a_chinese_reference_the_answered_message_does_not_point_at_once_is_not_guessed(text, previous):
    """A guard (passes before the change too: the unnamed reference was dropped then as now)."""
    assert not [f for f in facts(text, previous) if "咖啡店" in f or "书" in f or "城市" in f or "它" in f]


def test_a_chinese_thank_you_is_not_taken_for_the_answer_to_a_where_question():
    """ "你是在哪里画的？" — "谢谢！……": the thank-you was read as the place ("用户是在谢谢画。")."""
    got = facts("谢谢！我去年在海边画了它。", "这幅画真漂亮！你是在哪里画的？")
    assert not [f for f in got if "谢谢" in f], got
    # and 去年 (last year) is a time, not a trip planned ("用户计划在海边画了它")
    assert not [f for f in got if "计划" in f], got


def test_captions_reach_the_facts_benchmark_as_the_product_path_sends_them(tmp_path):
    """``memlens eval facts`` reads each turn as the chat client sends it: a shared photo named by its caption."""
    from memory.evaluation import facts as bench

    raw = json.loads((Path(__file__).parent / "data" / "tiny_locomo_observations.json").read_text(encoding="utf-8"))
    raw[0]["conversation"]["session_1"][2]["blip_caption"] = "a photo of a violin on a stand"
    path = tmp_path / "captioned.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    turn = next(t for t in bench.load(path)[0].turns if t.dia_id == "D1:3")
    assert turn.text == "I play the violin on weekends. [shares a photo of a violin on a stand]"


# -- seventh round: a person named from the sentence before, a count from the question, a bare noun ------------
@pytest.mark.parametrize(
    ("text", "previous", "expected"),
    [
        (
            "It was a long drive when my son twisted his ankle. We were so relieved he was okay.",
            None,
            "User and others were so relieved their son was okay.",
        ),
        (
            "My sister moved to Berlin last year. I visit her every summer.",
            None,
            "User visits their sister every summer.",
        ),
        (
            "My mom is an amazing cook. I miss her cooking every day.",
            None,
            "User misses their mom's cooking every day.",
        ),
        ("I met my coach. I told him about the race.", None, "User told their coach about the race."),
        # or by the message it answers, when the speaker said nothing before it but interjections
        (
            "Yes! I visit her every Sunday.",
            "Do you still see your grandma often?",
            "User visits their grandma every Sunday.",
        ),
        ("我妈妈做饭很好吃。我每周都去看她。", None, "用户每周都去看用户的妈妈。"),
        ("我女儿今年上小学了。我每天送她上学。", None, "用户每天送用户的女儿上学。"),
        # a count of the one kind of things the question asks about
        (
            "I'm feeling inspired by spring so I'm planning a few.",
            "Wow! Any more sculptures coming up?",
            "User is planning a few sculptures.",
        ),
        # a bare noun the sentence before opens on, a bare plural it names
        ("Chess is mostly my thing. Playing it helps me relax.", None, "Playing chess helps User relax."),
        # "he'd" is "would", not "David'd"
        (
            "I've been meaning to call my friend Tom. We haven't hung out in a while, and I'm sure he'd be happy to "
            "teach me some recipes.",
            None,
            "User and others haven't hung out in a while, and they're sure their friend Tom would be happy to teach "
            "them some recipes.",
        ),
    ],
)
def test_a_reference_is_named_by_the_person_or_the_thing_the_words_before_it_name(text, previous, expected):
    """Before this, each of these was kept with its he / her / him / a few / it unnamed (English: left to the learned
    decision) or dropped (Chinese abstains). The person naming, run on 60 LongMemEval questions' user turns (not
    LoCoMo), named 10 people, all 10 right."""
    assert expected in facts(text, previous)


@pytest.mark.parametrize(
    ("text", "previous", "guess", "wrong"),
    [
        ("My dad and my brother came over. I cooked him dinner.", None, "cooked", ("dad", "brother")),  # two: which?
        ("My sister called. I told him the news.", None, "told", ("sister",)),  # not a he
        ("Yes! I visit her every Sunday.", "Do your grandma and your aunt visit?", "visit", ("grandma", "aunt")),
        ("I met Anna at the park. I like her a lot.", None, "like", ("Anna",)),  # a name alone: not used
        ("我爸爸和我哥哥来了。我给他做了饭。", None, "做了饭", ("爸爸", "哥哥")),
        ("I'm planning a few.", "Any more paintings or drawings coming up?", "planning", ("paintings", "drawings")),
        # the sentence before points on itself ("them" = the pets, not the snacks; LoCoMo dev, a first version)
        (
            "Yeah, it's adorable! Watching them enjoy their favorite snacks is so fun. I also like holding them. "
            "[shares a photo of a person holding a small turtle in their hand]",
            "Wow, that's so cute! They look like they really enjoy fruit.",
            "holding",
            ("snacks",),
        ),
        # a name before the reference may be the thing ("them" = Reebok, not the deals; LoCoMo dev, a first version)
        (
            "The Adidas and Puma deals have me thrilled! I've always liked Reebok, signing with them would be amazing.",
            None,
            "signing",
            ("deals", "Adidas", "Puma"),
        ),
        ("Everything is fine. I love it.", None, "love", ("everything",)),
        # a bare plural of the sentence before is not named for "them" (read on LongMemEval: wrong or broken as often)
        ("Oh wow, all of those dishes sound amazing! I can't wait to try them all.", None, "try", ("dishes",)),
        ("I can already see roots forming. I'm planning to plant them in soil soon.", None, "plant", ("roots",)),
        # "Pepper's Lonely Hearts …" opens on a name, not on a bare noun
        ("Sgt. Pepper's Lonely Hearts is rare. I sold it to a collector.", None, "sold", ("pepper",)),
    ],
)
def test_a_person_or_a_thing_the_words_before_do_not_name_once_is_not_guessed(text, previous, guess, wrong):
    """Guards for the naming above (they pass before it too, when nothing was named this way): no fact of the
    sentence with the reference names one of ``wrong`` in its place. The two LoCoMo-shaped ones were wrong namings of
    a first version, read on all five dev conversations ("User likes holding snacks.", "… working with deals would
    be really cool")."""
    # the statement with the reference: a memory may be led in by the sentence before it, "…; User cooked him …"
    said = [part for f in facts(text, previous) for part in re.split("[;；]", f) if guess in part]
    assert not [f for f in said for w in wrong if w.lower() in f.lower()], said


def test_that_after_thinking_joins_a_clause_and_is_not_rewritten_as_an_article():
    """ "I'm still thinking that teaching …" was written "User is still thinking a teaching …" (garbled: "that" after a
    gerund of saying read as a pointing determiner and rewritten, LoCoMo dev conv-26)."""
    assert facts("I'm still thinking that teaching and research is the way to go.") == [
        "User is still thinking that teaching and research is the way to go."
    ]


def test_a_chinese_person_named_from_the_sentence_before_is_stored(svc):
    """Through the write path with real e5: before, "我每周都去看她" was not stored (Chinese abstains on an unnamed 她);
    now she is named from the sentence before and the fact is a memory of its own beside the first."""
    from memory.write.entry import Said

    user = svc.ensure_user("mom")
    text = "我妈妈做饭很好吃。我每周都去看她。"
    svc.write(user, svc.ensure_session(user, "s"), [Said("user", text, created_at=AT)])
    stored = [m.content for m in _stored(svc, "mom")]
    assert "用户每周都去看用户的妈妈。" in stored, stored
    assert not [m for m in stored if "她" in m], stored


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("我很喜欢吉他。", ["用户喜欢吉他。"]),  # 吉他 is a guitar, not a 他
        ("我和其他人一起去爬山了。", ["用户和其他人一起去爬山了。"]),  # 其他 is "other"
        (
            "我朋友昨天来了。我和其他人一起去爬山了。",
            ["用户朋友昨天来了（昨天，2024-04-30）。", "用户和其他人一起去爬山了。"],
        ),
    ],
)
def test_a_he_inside_a_chinese_word_is_no_reference(text, expected):
    """The detector read the 他 of 吉他 (guitar) and 其他 (other) as an unnamed "he", and the fact was dropped; the
    person naming would have written "用户和其用户的朋友人…" (seen while writing it)."""
    assert facts(text) == expected


@pytest.mark.parametrize(
    ("text", "previous", "expected"),
    [
        (
            "Yeah, I finished it last weekend. I gave it to my mom.",
            "How's the quilt coming along?",
            "User finished the quilt (last weekend, 2024-04-27); User gave the quilt to their mom.",
        ),
        (
            "Since I was twelve. I find it so calming.",
            "How long have you been drawing?",
            "User has been drawing since they were twelve; User finds drawing so calming.",
        ),
    ],
)
def test_an_it_right_after_a_completed_answer_stands_for_what_the_question_asked_about(text, previous, expected):
    """The message answered named the thing for the answer's first "it" (or asked how long the speaker has been
    doing something); the sentence right after goes on about the same thing. Before, its "it" was left unnamed."""
    assert expected in facts(text, previous)


def test_an_it_after_the_speaker_names_something_else_is_not_carried_over():
    """A guard (passes before too): after "My dad taught me …" the "it" may be anything the speaker has."""
    got = facts("Since I was twelve. My dad taught me and I still have it.", "How long have you been drawing?")
    assert not [f for f in got if "have drawing" in f or "has drawing" in f], got


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a modifier before the noun does not end the phrase ("my old kayak" was read as nothing)
        (
            "I'm thinking of selling my old kayak, a 2015 Perception Pescador. I haven't paddled it in two years.",
            "User hasn't paddled their old kayak in two years",
        ),
        # a thing named by its name as what the speaker tries, sticks with, buys …
        (
            "I think I'll try out Babbel first. I've heard great things about it, and the lessons are short.",
            "User has heard great things about Babbel, and the lessons are short.",
        ),
        (
            "I think I'll stick with the classic Lodge Cast Iron Skillet. I've heard good things about it and it seems "
            "to last forever.",
            "User has heard good things about Lodge Cast Iron Skillet and it seems to last forever.",
        ),
        (
            "I think I'll try the Manchego cheese. I've never had it before, but it sounds tasty.",
            "User has never had Manchego cheese before, but it sounds tasty.",
        ),
    ],
)
def test_an_it_is_named_by_the_one_thing_the_sentence_before_names(text, expected):
    """Read on LongMemEval's user turns (not LoCoMo): before, each of these kept its "it" unnamed."""
    assert [f for f in facts(text) if f.startswith(expected)], facts(text)


@pytest.mark.parametrize(
    ("text", "previous", "garbled"),
    [
        # "that" is a determiner of a named article here, not a thing to name from "my favorite band"
        (
            "I'll check out some news on my favorite band's tour. I've also been meaning to read up on that "
            "Smithsonian article I saw at my aunt's place.",
            None,
            "favorite band Smithsonian",
        ),
        # "never saw it coming" is what happened, not the film
        (
            'I remember when I first watched "Shutter Island," the ending surprised me. I never saw it coming!',
            None,
            "saw Shutter",
        ),
        # a relative "that" + verb in the message answered is no thing ("an include the soundbar")
        (
            "I'm hoping to get it for around $900.",
            "Some of the bundles that include the soundbar are on sale right now.",
            "an include",
        ),
        # "no idea that so many …" is a clause ("a cover a range so many …")
        (
            "Wow, I had no idea that so many free courses were available online!",
            "Many universities publish free courses that cover a range of topics. That matters for learners.",
            "a cover",
        ),
    ],
)
def test_a_determiner_an_idiom_or_a_relative_that_is_not_named_as_a_thing(text, previous, garbled):
    """The last two were written garbled before (the message answered's "that include …" / "that cover …" read as
    a pointed thing); the first two are guards for the naming above (pass before too). Seen on LongMemEval."""
    got = facts(text, previous)
    assert not [f for f in got if garbled in f], got


@pytest.mark.parametrize(
    ("text", "guess", "person"),
    [
        # "it" is the album, not the friend (a first version of the leading-modifier phrase wrote "ordered their best
        # friend on the 15th"; seen on a LongMemEval slice held out of the rules' reading)
        (
            "I recently ordered a custom calendar for my best friend's birthday. I ordered it on the 3rd of May.",
            "3rd",
            "friend",
        ),
        # an older wrong naming of the same kind ("bring their sister up")
        ("I need to talk to my sister about the trip. I want to bring it up at the right time.", "bring", "sister"),
    ],
)
def test_an_it_is_never_named_by_a_person(text, guess, person):
    """The second failed before (the sentence before's one "my X" was a person); the first is a guard."""
    said = [part for f in facts(text) for part in re.split("[;；]", f) if guess in part]  # as above
    assert not [f for f in said if person in f], said


def test_worth_it_is_no_thing_to_carry_over():
    """A guard (passes before too: nothing was carried over then). "it's worth it" after an answer the message
    answered named a thing in: the idiom, not the thing (a first version wrote "it's worth their list", seen on a
    LongMemEval slice held out of the rules' reading)."""
    got = facts(
        "I've been finding it hard to keep tidy at night. But I keep telling myself that it's worth it in the long "
        "run.",
        "How do you keep going? And what's the next task on your list?",
    )
    assert not [f for f in got if "worth their" in f or "worth my" in f], got


def test_a_pointing_determiner_after_a_quantifier_becomes_the():
    """ "some of that charm" was named "some of a charm", "all these games" "all games": after a partitive "of" or
    "all" / "both", the pointer becomes "the"."""
    assert resolve("User wanted to bring some of that warmth into their home.") == (
        "User wanted to bring some of the warmth into their home."
    )
    assert resolve("User kept all these letters.") == "User kept all the letters."
    assert resolve("User framed one of those photos.") == "User framed one of the photos."
    assert resolve("User joined this adoption group.") == "User joined an adoption group."


@pytest.mark.parametrize(
    ("previous", "said", "memory"),
    [
        (
            "Your help really helps. Hey, have you thought about being an entrepreneur?",
            "Ha, yeah. I've been one 'cause I lost my job.",
            "User has been an entrepreneur 'cause they lost their job.",
        ),
        (
            "Cool that you have creative outlets. Got any paintings to show? I'd love to check them out.",
            "Yeah, here's one I did last week. It's inspired by the sunsets.",
            "a painting they did last week",
        ),
    ],
)
def test_a_bare_one_is_the_one_kind_the_question_it_answers_asks_about(previous, said, memory):
    assert any(memory in c for c in facts(said, previous))


def test_a_bare_one_is_not_named_from_a_question_about_no_thing_or_two_kinds():
    for previous in ("Any ideas for the weekend?", "Got any paintings or drawings to show?"):
        assert not any("one" in c.split() for c in facts("Yeah, I've got one I'm excited about.", previous))


def test_an_it_is_the_doing_the_sentence_before_opens_on():
    said = "Dancing makes me so happy, I get to share that. Seeing my students get better at it brings me joy."
    assert "Seeing User's students get better at dancing brings them joy." in facts(said)


@pytest.mark.parametrize(
    ("said", "memory"),
    [
        (
            "Also picked up new skills. Recently started learning an instrument.",
            "User picked up new skills; User recently started learning an instrument.",
        ),
        (
            "Last Friday, I had a milestone moment at the gym. I was able to jog a bit with no pain!",
            "User had a milestone moment at the gym last Friday (2024-04-26); User was able to jog a bit with no pain.",
        ),
        (
            "I had a bit of a setback recently - another rejection from a production company.",
            "User had a bit of a setback recently, another rejection from a production company.",
        ),
    ],
)
def test_news_told_by_its_kind_only_is_told_by_what_the_message_says_next(said, memory):
    assert facts(said) == [memory]


def test_news_told_by_its_kind_alone_is_dropped_and_a_told_one_is_never_joined():
    assert facts("I recently went to an event and it was fantastic.") == []  # nineteenth round: a kind names nothing
    got = facts("I went to an event for veterans. I also adopted a puppy last week.")
    assert "User went to an event for veterans." in got and len(got) == 2


@pytest.mark.parametrize(
    ("said", "memory"),
    [
        ("Here's a pic of a cake I made recently.", "User made a cake recently."),
        ("Here's a snap of the ice cream I made.", "User made ice cream."),
        ("Here's a photo of my horse painting I did last week.", "User did a horse painting last week"),
        ("Here's a pic of my cookies I baked for the party.", "User baked cookies for the party."),
    ],
)
def test_a_photo_of_what_the_speaker_made_tells_what_they_made_not_that_they_showed_it(said, memory):
    assert any(c.startswith(memory) for c in facts(said))


def test_a_photo_of_what_the_speaker_did_not_make_stays_as_it_was():
    assert not any(c.startswith("User made") for c in facts("Here's a pic of my family at the beach."))


# -- nineteenth round ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("said", "previous", "memory"),
    [
        ("I have a guinea pig named Oscar.", None, "User has a pet: guinea pig named Oscar."),
        ("I have two cats named Luna and Oliver.", None, "User has a pet: cats named Luna and Oliver."),
        ("And yup, I do- Oscar, my guinea pig. He's been great.", "Do you have any pets?", None),
        ("Yes, Biscuit, my tortoise!", "Any pets at home?", "User has a pet: tortoise named Biscuit."),
    ],
)
def test_a_pet_is_named_whichever_way_round_it_is_said(said, previous, memory):
    """ "Oscar, my guinea pig." — the name before the kind, as an answer: one clause, one pet."""
    got = facts(said, previous)
    assert (memory or "User has a pet: guinea pig named Oscar.") in got, got


def test_a_person_named_before_their_relation_is_no_pet():
    assert facts("I went hiking with Sam, my brother.") == ["User went hiking with Sam, their brother."]


def test_a_verdict_on_a_longer_doing_is_what_was_enjoyed_and_stays():
    """ "- it was so cool spending time with them and seeing their eyes light up" tells what the speaker enjoys; a
    short "it was great getting to know them better" is still the verdict of the moment, cut."""
    doing = "spending time with them and seeing their eyes light up"
    got = facts(f"I took the kids to the museum - it was so cool {doing}!")
    assert got == [f"User took the kids to the museum; it was so cool {doing}."]
    assert facts("I went to a cooking class with my neighbours - it was great getting to know them better!") == [
        "User went to a cooking class with their neighbours."
    ]


@pytest.mark.parametrize(
    ("said", "memory"),
    [
        (
            "This necklace is super special to me - a gift from my grandma in Sweden.",
            "A necklace is super special to User, a gift from their grandma in Sweden.",
        ),
        (
            "This design reminds me of the grit it takes to stand out.",
            "A design reminds User of the grit it takes to stand out.",
        ),
    ],
)
def test_a_thing_said_to_be_special_to_the_speaker_is_named_by_its_noun(said, memory):
    """What the thing is, the noun says; what it is to the speaker is the fact."""
    assert facts(said) == [memory]


@pytest.mark.parametrize(
    "said",
    ["This one is super special to me.", "That is one of my faves.", "This trilogy is one of my faves."],
)
def test_a_pointed_thing_with_nothing_said_of_what_it_is_to_the_speaker_is_not_named(said):
    assert facts(said) == []


def test_a_verbless_something_to_do_is_no_fact():
    assert facts("Just something nice to take my mind off things.") == []


@pytest.mark.parametrize(
    ("asked", "said", "memory"),
    [
        (
            "What else brings you joy?",
            "Writing and hanging with friends!",
            "Writing and hanging with friends bring User joy.",
        ),
        (
            "Anything else that keeps you inspired?",
            "My family, exercise, and spending time with friends, for sure.",
            "User's family, exercise, and spending time with friends keep them inspired.",
        ),
        ("What relaxes you?", "Painting.", "Painting relaxes User."),
    ],
)
def test_an_answer_to_what_does_something_for_the_speaker_is_its_subject(asked, said, memory):
    """ "What else brings you joy?" — "Writing and hanging with friends!": not "User is writing and hanging …"."""
    assert facts(said, asked) == [memory]


@pytest.mark.parametrize("said", ["Thanks Jon!", "Definitely!", "Seeing my students succeed motivates me."])
def test_no_short_answer_is_no_subject(said):
    assert not any(f.endswith("helps User stay motivated.") for f in facts(said, "What helps you stay motivated?"))


def test_a_next_sentence_goes_on_about_what_was_said_last():
    """ "It" after "…, but my favorite one is a movie theme" is the theme, not the playing the memory keeps."""
    said = "I love playing songs on the piano, but my favorite one is a theme from a movie. It brings back memories."
    assert facts(said) == ["User likes playing songs on the piano."]
    assert facts("I took up pottery last month. It keeps me grounded.") == [
        "User took up pottery (last month, 2024-04); it keeps them grounded."
    ]


def test_an_aside_and_an_exclamation_are_not_the_statement():
    assert facts("Joined a book club and, like I said, it's been great.") == ["User joined a book club."]
    assert facts("And after college, I was drafted by a team – my dream come true!") == [
        "User was drafted by a team after college."
    ]


@pytest.mark.parametrize(
    "said",
    [
        "We're still deciding on the destination.",
        "I even made some friends at the convention.",
        "I even have the whole collection.",
        "I tried to stay calm, which helped me handle the situation.",
    ],
)
def test_an_occasion_the_conversation_named_is_no_fact_alone(said):
    """ "the destination", "the convention": which one, only the conversation says (resolve or abstain)."""
    assert facts(said) == []


@pytest.mark.parametrize(
    ("said", "memory"),
    [
        ("I went to a convention in May and made some friends at the convention.", "User went to a convention"),
        ("I made some friends at the convention in Boston.", "User made some friends at the convention in Boston."),
        ("I baked cookies for the party.", "User baked cookies for the party."),
    ],
)
def test_an_occasion_introduced_or_told_is_kept(said, memory):
    assert any(f.startswith(memory) for f in facts(said)), facts(said)


def test_this_city_answering_what_the_speaker_loves_about_a_place_is_that_place():
    message = Message(
        session_id="s",
        user_key="u",
        role="user",
        content="I love the energy, diversity, and awesome food of this city.",
        created_at=AT,
    )
    asked = "Cool! What do you love about Lisbon?"
    got = [c.content for c in prepare(Item(message, previous=asked, recent=[asked])).cands]
    assert got == ["User likes the energy, diversity, and awesome food of Lisbon."]


def test_a_place_named_is_enough_said():
    assert facts("I was in Chicago, it was awesome!") == ["User was in Chicago."]


def test_our_schools_are_everyones_not_the_speakers_own():
    """ "the state of our education" is the community's; "their education" was read false."""
    assert facts("I'm really upset seeing the state of our education.") == [
        "User is really upset seeing the state of education."
    ]
    assert facts("We volunteer at our local shelter.") == ["User and others volunteer at their local shelter."]


@pytest.mark.parametrize(
    "said",
    [
        "I've been working hard and it's paying off.",  # effort, nothing named
        "Winning was a huge confidence boost and shows my hard work paid off.",
        "I like pushing myself.",  # a like with nothing named
        "Certain authors are like goldmines of inspiration for me.",  # which authors, the chat says
    ],
)
def test_effort_a_bare_like_and_certain_unnamed_things_are_no_facts(said):
    assert facts(said) == []


def test_effort_on_a_named_thing_is_kept():
    assert facts("I've been working hard on my thesis and it's paying off.") == [
        "User has been working hard on their thesis and it's paying off."
    ]


# -- twentieth round: the statement said right after another is told with it ----------------------------------------
def test_a_statement_said_right_after_another_is_told_with_it():
    """Read alone, "User and others got canned food, blankets and clothes to help out" leaves out what for; told
    with the statement before it, the memory says so (blind readers of the nineteenth round flagged such second
    sentences as unplaceable)."""
    said = "We raised a ton at the spring drive! We got canned food, blankets and clothes to help out."
    assert facts(said) == [
        "User and others raised a ton at the spring drive; User and others got canned food, blankets and clothes to "
        "help out."
    ]


def test_another_thing_of_the_speakers_is_told_apart():
    assert facts("I love hiking. I also have two cats.") == ["User likes hiking.", "User has a pet: cats."]


def test_at_most_two_statements_and_one_lines_words_are_told_together():
    three = facts(
        "I ran my first half marathon in May. I finished in under two hours. I raised money for the food bank."
    )
    assert three == [
        "User ran their first half marathon (in May, 2024-05); User finished in under two hours.",
        "Half marathon: User raised money for the food bank.",  # the third is told apart, headed by its occasion
    ]
    long = facts(
        "I spent the whole summer volunteering at the animal shelter near my grandmother's old farmhouse in rural "
        "Vermont. I learned how to care for injured wild birds, foxes, hedgehogs and rabbits with the two kind vets "
        "who worked at the shelter every single morning."
    )
    assert len(long) == 2 and not any(";" in m for m in long), long


def test_a_models_facts_are_not_told_together():
    """A model writes its facts whole; only the offline rules' statements are joined."""
    from memory.write.extract.base import make
    from memory.write.extract.extractor import standing

    message = "I moved to Porto in March. I found a flat near the river."

    def two(extractor: str) -> list[str]:
        first = make("fact", "Porto", "User moved to Porto in March.", lang="en", evidence="I moved to Porto in March.")
        then = make(
            "fact", "flat", "User found a flat near the river.", lang="en", evidence="I found a flat near the river."
        )
        first.extractor = then.extractor = extractor
        return [c.content for c in standing([first, then], message)]

    assert two("llm") == ["User moved to Porto in March.", "User found a flat near the river."]
    assert two("rules:general") == ["User moved to Porto in March; User found a flat near the river."]


def test_likes_are_told_apart_one_profile_item_each():
    """A like is one item of the profile's list, edited and flagged on its own: never told together."""
    assert facts("I like hiking. I like chess.") == ["User likes hiking.", "User likes chess."]
