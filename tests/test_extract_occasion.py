"""A memory is headed by the occasion it is about when only the conversation names it (memory.write.extract.occasion,
issue 44): said a sentence or two before in the same message, or asked about by the message it answers; never the
listener's own occasion, never one the memory names itself, never one of several.

Sentences written for these tests in the shapes of conversations (not LoCoMo or LongMemEval text)."""

from __future__ import annotations

import re

import pytest
from extract_helpers import read

from memory.write.extract.occasion import occasion_of, with_occasion

#: a memory headed by an occasion ("Bake sale: User …")
_LABELLED = re.compile(r"^[A-Z][\w' -]*: ")


@pytest.mark.parametrize(
    ("said", "previous", "memory"),
    [
        (  # said two sentences before, in the speaker's words
            "Last Saturday I ran a bake sale for the animal shelter. It went really well! I felt the power of everyone "
            "pulling together.",
            None,
            "Bake sale: User felt the power of everyone pulling together.",
        ),
        (  # a trip of the speaker's, words of the moment ("amazing") left out of its name
            "Max and I went on an amazing camping trip last summer. Have you been? We hiked, swam, and made great "
            "memories.",
            None,
            "Camping trip: User and others hiked, swam, and made great memories.",
        ),
        (  # the occasion the question asks about
            "We found a quiet garden venue and kept the guest list small.",
            "Congrats again! How did you pull off the wedding with everything going on?",
            "Wedding: User and others found a quiet garden venue and kept the guest list small.",
        ),
        (
            "It went great, I felt confident pitching my idea.",
            "How did those investor meetings go?",
            "Investor meetings: User felt confident pitching their idea.",
        ),
        (  # a pastime the question asks about
            "I love the rush of catching a good wave.",
            "Wow! How long have you been surfing?",
            "Surfing: User likes the rush of catching a good wave.",
        ),
        (
            "Yeah, I still train every day to stay sharp.",
            "Do you still play tennis often?",
            "Tennis: User still trains every day to stay sharp.",
        ),
        (  # told to the speaker, not asked: "So glad you had a blast at …"
            "I felt really proud of what we pulled off.",
            "So glad you had fun at the charity gala! It looked packed.",
            "Charity gala: User felt really proud of what they pulled off.",
        ),
        (  # a work of the speaker's own
            "I finally wrapped up my second novel. Can you believe it? Some days I feel relieved, other days just "
            "anxious about what's next.",
            None,
            "Second novel: Some days User feels relieved, other days just anxious about what's next.",
        ),
        (  # an event before a pastime: "your gaming skills" is no occasion of its own
            "Thanks! Winning was a huge confidence boost and I'm practicing every night now.",
            "Congrats on your victory in the tournament! It must feel great to see your gaming skills recognised.",
            "Tournament: Winning was a huge confidence boost and User is practicing every night now.",
        ),
        (  # a group the speaker joined, asked about
            "Last Sunday we had our first call-out, and it was intense.",
            "Wow, joining the fire brigade? How's it been so far?",
            "Fire brigade: User and others had their first call-out last Sunday, and it was intense (2024-04-28).",
        ),
        (  # a work of the speaker's the question points at
            "I've been networking with some people to get their input.",
            "How's the campaign going?",
            "Campaign: User has been networking with some people to get their input.",
        ),
        (  # the question asks about "it": what the sentence before it names
            "I loved just chilling and taking in the view.",
            "Sounds great! Being in the mountains is the best. What was your favorite part of it?",
            "Mountains: User loved just chilling and taking in the view.",
        ),
        (  # a pastime said bare, after an interjection (no list)
            "I've been doing my exercises every morning.",
            "Cool, rehab can be tough but it's key to keep it up. How's it coming along?",
            "Rehab: User has been doing their exercises every morning.",
        ),
        (  # a thing's name in the memory leaves the occasion open
            "I didn't dress up, but I wore my Gryffindor scarf.",
            "So glad you had a blast at the costume party! Did you dress up?",
            "Costume party: User didn't dress up, but they wore their Gryffindor scarf.",
        ),
        (  # an event, not the place it was held at, when a sentence names both
            "I ran a bake sale at the community center park. Guess what? I met so many kind neighbours.",
            None,
            "Bake sale: User met so many kind neighbours.",
        ),
        (  # twentieth round: a sentence may open on the occasion ("The …"), and "afterward" goes on from it even
            # when the memory names a pastime of its own
            "Been good! The charity gala was a hit! We even played some chess afterward just for laughs.",
            None,
            "Charity gala: User and others even played some chess afterward just for laughs.",
        ),
        (  # the listener's message may open on the speaker's occasion too ("Your store …")
            "Thanks! Keeping the shelves tidy and the lights warm is key for me.",
            "Your store looks lovely - people will want to stay for hours.",
            "Store: Keeping the shelves tidy and the lights warm is key for User.",
        ),
    ],
)
def test_a_memory_is_headed_by_the_occasion_only_the_conversation_names(said, previous, memory):
    assert memory in read(said, previous)


@pytest.mark.parametrize(
    ("said", "previous"),
    [
        ("I went to a pride parade last Friday.", "How was the concert?"),  # the memory names an occasion of its own
        ("I read a novel on the train. I felt so relaxed the whole ride home.", None),  # a novel read: not theirs
        ("I picked up a few new glazes.", "My pottery class was so fun today! Do you do anything creative?"),  # theirs
        ("Congrats on the fair! I started my own online store not long ago.", None),  # the listener's fair
        (  # the listener's own news, told to the speaker
            "Thanks! My teammates come from all over.",
            "Hey! Wanted to let you know I joined a travel club! Always been into different cultures.",
        ),
        ("Sounds fun. On another note, my cat got a new bed!", "Did you enjoy the festival?"),  # the speaker moves on
        ("Oh, I went to Lisbon yesterday!", "How's the bakery class going?"),  # answered with a name of its own
        ("I had a blast at a music festival and a food fair last month. I met so many great people.", None),  # two
        ("Last week I had a crazy game. I was so tired afterwards.", None),  # "a crazy game": a game of what?
        ("I had a great trip. I slept the whole way back.", None),  # "a trip" names nothing a reader can place
        ("I went to a charity gala on Sunday. I bought new running shoes today.", None),  # another time: not at it
        ("I went surfing this morning. We played chess afterward.", None),  # "afterward" goes on from events only
        (  # a pastime in a list of doings is one of several
            "On weekends I go exploring and hiking or playing board games. I enjoy curling up with a good book.",
            None,
        ),
    ],
)
def test_no_occasion_is_guessed_where_none_fits(said, previous):
    got = read(said, previous)
    assert got, said
    assert not any(_LABELLED.match(m) for m in got), got


def test_an_occasion_said_three_sentences_back_heads_nothing():
    """Two sentences back is still the occasion's story; three back, the speaker has usually moved on."""
    near = read("I went to a charity gala on Sunday. It was sunny. I felt proud of the whole team.")
    far = read("I went to a charity gala on Sunday. It was sunny. The food was great. I felt proud of the whole team.")
    assert "Charity gala: User felt proud of the whole team." in near
    assert "User felt proud of the whole team." in far


@pytest.mark.parametrize(
    ("said", "previous", "memory"),
    [
        (
            "上周我参加了一个慈善活动。我真切感受到了大家一起努力的力量。",
            None,
            "慈善活动：用户真切感受到了大家一起努力的力量。",
        ),
        ("我每天都练一个小时，进步很快。", "你最近还在弹钢琴吗？", "钢琴：用户每天都练一个小时，进步很快。"),
        (
            "谢谢！我们找到了一个很安静的花园场地。",
            "你们的婚礼是怎么办的？",
            "婚礼：用户一家找到了一个很安静的花园场地。",
        ),
    ],
)
def test_chinese_is_headed_by_its_occasion_too(said, previous, memory):
    """Cut where Chinese marks the phrase (a measure word, a verb of taking part, 的), or a pastime said bare."""
    assert memory in read(said, previous)


@pytest.mark.parametrize(
    ("said", "previous", "memory"),
    [
        ("我参加了一个活动。我认识了很多人。", None, "用户认识了很多人。"),  # a bare 活动: which?
        ("我上周去了一场篮球比赛和一个音乐会。我还认识了新朋友。", None, "用户还认识了新朋友。"),  # two
        ("我做了一个蛋糕。我很喜欢。", "我参加了一个派对，你呢？", "用户做了一个蛋糕。"),  # the listener's party
    ],
)
def test_chinese_guesses_no_occasion_where_none_fits(said, previous, memory):
    got = read(said, previous)
    assert memory in got and not any("：" in m for m in got), got


def test_a_chinese_sentence_that_moves_on_is_not_headed():
    said = "我上周参加了一个慈善活动。对了，我的猫有了新窝。"
    assert occasion_of("用户的猫有了新窝。", "对了，我的猫有了新窝。", said) is None
    assert (
        occasion_of("用户的猫有了新窝。", "我的猫有了新窝。", "我上周参加了一个慈善活动。我的猫有了新窝。")
        == "慈善活动"
    )


def test_the_label_is_the_occasion_capitalised_and_nothing_when_there_is_none():
    assert (
        with_occasion("User likes the connection to nature.", "surfing")
        == "Surfing: User likes the connection to nature."
    )
    assert with_occasion("User likes the connection to nature.", None) == "User likes the connection to nature."
