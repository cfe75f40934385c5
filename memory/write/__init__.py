"""The write pipeline: a pure planner (``plan.plan_writes``) apart from the code that applies a plan
(``apply.apply_plan``).

``batch.run`` takes one message, ``batch.write_messages`` many (one embedding call, one SQL transaction, one index
append); ``MemoryService.write_from_message`` / ``write_from_messages`` / ``remember`` call them. Import the
submodules themselves: this package imports nothing, so a read-only command that reaches one small module of it
(the fact vocabulary in ``extract.base``) does not load the whole pipeline.
"""
