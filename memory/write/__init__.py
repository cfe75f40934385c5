"""The write pipeline: a pure planner (``plan_writes``) apart from the code that applies a plan (``apply_plan``).

``pipeline.run`` wires the stages for one message; ``MemoryService.write_from_message`` / ``remember`` call it.
"""

from memory.write.apply import apply_plan
from memory.write.pipeline import WriteReport, run
from memory.write.plan import OPS, Existing, Operation, plan_writes

__all__ = ["OPS", "Existing", "Operation", "WriteReport", "apply_plan", "plan_writes", "run"]
