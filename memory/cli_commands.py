"""Imports every module that adds `memlens` commands to ``memory.cli.app`` (one line per module)."""
from memory import cli_eval  # noqa: F401  (memlens eval …)
from memory import cli_lifecycle  # noqa: F401  (memlens forget | compact | export | import | delete-user | stats …)
from memory import cli_storage  # noqa: F401  (memlens repair)
from memory import cli_write  # noqa: F401  (memlens memories | profile)
