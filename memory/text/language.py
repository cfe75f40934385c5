"""Is this Chinese? — answered here only, as two named questions (``tests/test_small_concepts.py`` fails on a CJK
character test written anywhere else):

- :func:`has_cjk`: does the text hold a Chinese character at all? (Which rule table reads a sentence, whether a
  value is written with Chinese words, whether a query gets the other language's words: one ideograph decides.)
- :func:`is_chinese`: is the text *mostly* Chinese? (Which language to answer, label or summarise in: a mostly
  English sentence naming "北京" is still English.)

Both read CJK ideographs (U+3400–U+9FFF: the unified block and extension A); ``CJK`` / ``CJK_RUN`` are the patterns
for code that needs the characters themselves (tokenisers, word overlap).
"""

from __future__ import annotations

import re
from typing import Literal

#: one CJK ideograph
CJK = re.compile(r"[\u3400-\u9fff]")
#: a run of CJK ideographs
CJK_RUN = re.compile(r"[\u3400-\u9fff]+")
#: share of a text's letters that must be ideographs for it to count as Chinese
MOSTLY = 0.3


def is_cjk_char(ch: str) -> bool:
    return bool(CJK.match(ch))


def has_cjk(text: str) -> bool:
    """Whether the text holds any CJK ideograph."""
    return bool(CJK.search(text))


def is_chinese(text: str) -> bool:
    """Mostly-CJK text: over ``MOSTLY`` of its letters are ideographs (gets Chinese labels, sentences, replies)."""
    letters = [c for c in text if c.isalpha()]
    return bool(letters) and sum(bool(CJK.match(c)) for c in letters) / len(letters) > MOSTLY


def is_east_asian(ch: str) -> bool:
    """A character of an East Asian script (kana, CJK ideographs, Hangul, compatibility ideographs): where an e-mail
    address written after Chinese, Japanese or Korean text starts (the masker)."""
    return "\u3040" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af" or "\uf900" <= ch <= "\ufaff"


def language(text: str) -> Literal["zh", "en"]:
    """The language to answer ``text`` in: ``"zh"`` when it is mostly Chinese, else ``"en"``."""
    return "zh" if is_chinese(text) else "en"
