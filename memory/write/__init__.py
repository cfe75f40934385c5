"""The write pipeline: a pure planner (``plan.plan_writes``) apart from the code that applies a plan
(``apply.apply_plan``).

``entry.write`` is the one write entry every door, the chat turn and the CLI use: it takes the user's write lock,
reads facts from the user's own words only, and stores the messages in one transaction. Import the
submodules themselves: this package imports nothing, so a read-only command that reaches one small module of it
(the fact vocabulary in ``extract.base``) does not load the whole pipeline.
"""
