"""The write pipeline: a pure planner (``plan_writes``) apart from the code that applies a plan (``apply_plan``).

``batch.run`` takes one message, ``batch.write_messages`` many (one embedding call, one SQL transaction, one index
append); ``MemoryService.write_from_message`` / ``write_from_messages`` / ``remember`` call them.
"""

from memory.write.apply import apply_plan
from memory.write.batch import run, write_messages
from memory.write.pipeline import WriteReport
from memory.write.plan import OPS, Existing, Operation, plan_writes

__all__ = ["OPS", "Existing", "Operation", "WriteReport", "apply_plan", "plan_writes", "run", "write_messages"]
