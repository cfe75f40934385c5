"""English auxiliary verbs, named once: the rule extractors' word lists (words that are never the noun a pointing
word names, function words, words too light to make a fact) all hold them, and one list keeps them in step."""

from __future__ import annotations

#: the forms of "be" and "have" a clause is built on
BE_HAVE = frozenset(["is", "was", "are", "were", "be", "been", "has", "had", "have"])
#: the modal verbs
MODALS = frozenset(["can", "could", "will", "would", "should", "might", "may", "must"])
