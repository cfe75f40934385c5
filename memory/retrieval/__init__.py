"""Retrieval-quality helpers used by :mod:`memory.recall` (pure functions over candidate scores)."""
