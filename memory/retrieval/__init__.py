"""Retrieval-quality helpers used by :mod:`memory.retrieval.recall` (pure functions over candidate scores)."""
