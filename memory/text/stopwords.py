"""The words the full-text index leaves out: English and Chinese function words, and nothing else.

Why a list of our own: with stop-word removal on and no list given, LanceDB's ICU tokenizer drops the function words
of many languages at once, and among them are ordinary English words — "dog" and "man" (Scandinavian), "door" (Dutch),
"hat" and "war" (German), "sale", "sea", "city", "son", "cat", "care", "want", "come", "end", "face", "minutes"… — 265
of the 12,000 commonest words of LoCoMo and LongMemEval, so "my dog" could not be found by its one telling word
(``tests/test_fulltext_words.py``).

LanceDB removes stop words *after* stemming, so a word here also removes every word that stems to it: "own" would
take "owned", "won" the verb, "mine" "mining", "may" the month. Such words are left indexed (BM25 gives a word that is
everywhere little weight anyway).
"""

from __future__ import annotations

_ENGLISH_WORDS = (
    "a an the this that these those some any each every either neither such "
    "i me my myself we us our ours ourselves you your yours yourself yourselves he him his himself she her hers "
    "herself it its itself they them their theirs themselves "
    "what which who whom whose when where why how "
    "am is are was were be been being have has had having do did doing "
    "will would shall should can could might must "
    "and but or nor if then else because as while until than so though although "
    "of at by for with about against between into through to from in on off out up down again further once "
    "here there all both few more most other only same too very just not no "
    "s t d ll m o re ve y ain aren couldn didn doesn hadn hasn haven isn mightn mustn needn shan shouldn wasn weren "
    "wouldn"
)
ENGLISH = _ENGLISH_WORDS.split()

#: ICU splits Chinese into words; these are function words (particles, pronouns, auxiliaries, prepositions,
#: conjunctions, degree and aspect adverbs). ICU's default list also held content words (打, 今天, 今年, 最近, 开始…)
_CHINESE_WORDS = (
    "的 了 着 过 是 在 和 与 及 或 而 也 就 都 还 又 把 被 之 吗 呢 吧 啊 呀 嘛 "
    "我 你 您 他 她 它 们 我们 你们 他们 她们 咱们 这 那 这个 那个 什么 怎么 哪 哪里 一个 "
    "我的 你的 您的 他的 她的 它的 我们的 你们的 他们的 她们的 自己 这些 那些 这样 那样 哪个 哪儿 谁 多少 几 "
    "一 个 有 要 会 能 可以 可能 应该 已经 曾经 正在 将 从 对 给 向 往 于 跟 比 让 等 得 地 很 非常 比较 "
    "还是 或者 但是 可是 而且 因为 所以 如果 虽然 然后 就是 不过 嗯 哦 哈哈"
)
CHINESE = _CHINESE_WORDS.split()

#: what the full-text index is built with (``memory.storage.vectors``); changing it rebuilds the index when a process
#: first opens it (and at optimize), and changes BM25: the calibration's LoCoMo figures are measured with it
STOP_WORDS = sorted(set(ENGLISH) | set(CHINESE))
