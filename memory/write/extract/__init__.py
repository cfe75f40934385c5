"""Classify and extract candidate memories from one message: ``extractor`` (the entry points), the offline rule
tables per language (``rules_en``, ``rules_zh``), clause and event splitting, and ``base`` (the fact vocabulary:
predicates, candidates, object normalisation). This package imports nothing, so code that needs only the
vocabulary (profile sync) does not load the rule tables.
"""
