"""Cross-lingual lexical evidence: a query in one language, turned into the other language's words with a small
curated EN↔ZH lexicon of the memory vocabulary (diet, health, places, work, family, pets, hobbies, things, time).

Why: the bundled multilingual e5 places "Does the user eat spicy food?" about as close to 用户喜欢清淡的菜 as to
用户不吃辣, and the full-text index cannot bridge the languages at all. The translated words go to the full-text
index as a second query (its ICU tokenizer splits Chinese into words), so the memory that states the direct answer
in the other language gets BM25 evidence, negated or not ("spicy food" → 辣 finds 用户不吃辣); and
:func:`overlap` tells the relevance model which share of the query's concepts a candidate states in the other
language (the lexical-overlap feature is the larger of the same-language and the cross-language share).

Only the *other* language counts: an English query over English memories gets neither new words nor new overlap,
so same-language ranking is untouched.

The lexicon is ``lexicon/en_zh.txt``: one group a line, ``topic | english forms | chinese forms`` (comma-separated).
Pure, no I/O besides reading that file once.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

from memory.text.language import CJK

LEXICON = Path(__file__).with_name("lexicon") / "en_zh.txt"
_EN_WORD = re.compile(r"[a-z][a-z'’-]*|\d+")
_SUFFIXES = ("", "s", "es", "ed", "d", "ing")
#: texts whose concepts each lexicon remembers (the same memories come back as candidates query after query)
CACHED_TEXTS = 50_000


@dataclass(frozen=True)
class Lexicon:
    """Groups of equivalent words (one line of the file each): English phrase (tuple of words) → group ids, Chinese
    word → group ids, and each group's forms in both languages."""

    en_index: dict[tuple[str, ...], tuple[int, ...]]
    zh_index: dict[str, tuple[int, ...]]
    english: tuple[tuple[str, ...], ...]  # per group: its English words
    chinese: tuple[tuple[str, ...], ...]  # per group: its Chinese words

    # cached: the matchers read these at every position of every candidate's text, on recall's hot path
    @cached_property
    def longest_en(self) -> int:
        return max((len(k) for k in self.en_index), default=1)

    @cached_property
    def longest_zh(self) -> int:
        return max((len(k) for k in self.zh_index), default=1)

    # per text, remembered: matching every candidate's text at every recall was most of recall's ranking cost
    @cached_property
    def english_of(self) -> Callable[[str], frozenset[int]]:
        """:func:`english_groups` of a text, cached per lexicon."""
        return lru_cache(maxsize=CACHED_TEXTS)(lambda text: frozenset(english_groups(text, self)))

    @cached_property
    def chinese_of(self) -> Callable[[str], frozenset[int]]:
        """:func:`chinese_groups` of a text, cached per lexicon."""
        return lru_cache(maxsize=CACHED_TEXTS)(lambda text: frozenset(chinese_groups(text, self)))


def parse(text: str) -> Lexicon:
    """The lexicon from its text form; a malformed line is an error that names the line (a typo must not hide)."""
    en_index: dict[tuple[str, ...], list[int]] = {}
    zh_index: dict[str, list[int]] = {}
    english: list[tuple[str, ...]] = []
    chinese: list[tuple[str, ...]] = []
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split("|")]
        if len(parts) != 3 or not parts[1] or not parts[2]:
            raise ValueError(f"lexicon line {n}: expected 'topic | english, … | 中文, …'")
        en = [tuple(_EN_WORD.findall(e.lower())) for e in parts[1].split(",") if e.strip()]
        zh = [z.strip() for z in parts[2].split(",") if z.strip()]
        if any(CJK.search(" ".join(e)) for e in en) or not all(e for e in en) or not all(CJK.search(z) for z in zh):
            raise ValueError(f"lexicon line {n}: English forms first, then Chinese ones")
        group = len(english)
        for e in en:
            en_index.setdefault(e, []).append(group)
        for z in zh:
            zh_index.setdefault(z, []).append(group)
        english.append(tuple(dict.fromkeys(w for e in en for w in e)))
        chinese.append(tuple(dict.fromkeys(zh)))
    return Lexicon(
        {k: tuple(v) for k, v in en_index.items()},
        {k: tuple(v) for k, v in zh_index.items()},
        tuple(english),
        tuple(chinese),
    )


@lru_cache(maxsize=1)
def lexicon() -> Lexicon:
    """The shipped lexicon (static data, read once per process)."""
    return parse(LEXICON.read_text(encoding="utf-8"))


def base_forms(word: str) -> list[str]:
    """The word and what it may be inflected from ("dishes" → dish, "lives" → live, "studies" → study)."""
    out = [word]
    for suffix in _SUFFIXES[1:]:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            out.append(word[: -len(suffix)])
    if word.endswith("ies") and len(word) > 4:
        out.append(word[:-3] + "y")
    return out


def _phrase(words: list[str], lex: Lexicon) -> tuple[int, ...] | None:
    """The groups of a phrase, its last word possibly inflected ("gets up", "spicy dishes")."""
    for last in base_forms(words[-1]):
        hit = lex.en_index.get((*words[:-1], last))
        if hit is not None:
            return hit
    return None


def _longest_first(n: int, longest: int, match: Callable[[int, int], tuple[int, ...] | None]) -> set[int]:
    """Greedy longest match over positions 0…n: ``match(i, j)`` gives the groups of the slice i:j, or None."""
    found: set[int] = set()
    i = 0
    while i < n:
        for span in range(min(longest, n - i), 0, -1):
            hit = match(i, i + span)
            if hit is not None:
                found.update(hit)
                i += span
                break
        else:
            i += 1
    return found


def english_groups(text: str, lex: Lexicon) -> set[int]:
    """Groups whose English forms occur in ``text`` (longest phrase first)."""
    words = _EN_WORD.findall(text.lower().replace("’", "'"))
    return _longest_first(len(words), lex.longest_en, lambda i, j: _phrase(words[i:j], lex))


def chinese_groups(text: str, lex: Lexicon) -> set[int]:
    """Groups whose Chinese words occur in ``text``: greedy longest match (自行车 is a bicycle, not a 车)."""
    if not CJK.search(text):
        return set()
    return _longest_first(len(text), lex.longest_zh, lambda i, j: lex.zh_index.get(text[i:j]))


def expand(query: str, lex: Lexicon | None = None) -> str:
    """The second full-text query: the other language's words of the query's groups, space-separated ('' = none)."""
    lex = lex or lexicon()
    words = [w for g in sorted(english_groups(query, lex)) for w in lex.chinese[g]]
    words += [w for g in sorted(chinese_groups(query, lex)) for w in lex.english[g]]
    return " ".join(dict.fromkeys(words))


def overlap(query: str, texts: list[str], lex: Lexicon | None = None) -> list[float]:
    """Per text: the share of the query's lexicon groups it states in the *other* language (0 when the query has
    none). An English query's groups count only through a text's Chinese words, and the reverse."""
    lex = lex or lexicon()
    en_q, zh_q = english_groups(query, lex), chinese_groups(query, lex)
    total = len(en_q | zh_q)
    if not total:
        return [0.0] * len(texts)
    if not zh_q:  # the common case: one language's concepts, matched only in the other's words
        return [len(en_q & lex.chinese_of(text)) / total for text in texts]
    if not en_q:
        return [len(zh_q & lex.english_of(text)) / total for text in texts]
    return [len((en_q & lex.chinese_of(text)) | (zh_q & lex.english_of(text))) / total for text in texts]


#: a translation's best BM25 is held to this share of the best direct match's: a memory that matches the user's own
#: words is better evidence than one that matches the lexicon's translation of them (a translated query also has more
#: terms, so its raw BM25 runs higher)
TRANSLATED_SHARE = 0.9


def best_of(direct: list, translated: list | None = None) -> list:
    """Full-text hits of the query and of its translation as one list: each memory with its best BM25 (the
    translation's scaled below the best direct match, :data:`TRANSLATED_SHARE`), best first."""
    if not translated:
        return direct
    top_direct = max((row[1] for row in direct), default=0.0)
    top_translated = max(row[1] for row in translated)
    scale = min(1.0, TRANSLATED_SHARE * top_direct / top_translated) if top_direct > 0 and top_translated > 0 else 1.0
    best = {row[0]: row for row in direct}
    for mid, score, *rest in translated:
        if mid not in best or score * scale > best[mid][1]:
            best[mid] = (mid, score * scale, *rest)
    return sorted(best.values(), key=lambda r: -r[1])
