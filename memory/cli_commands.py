"""Imports every module that adds `memlens` commands to ``memory.cli.app`` (one line per module)."""
from memory import (
    cli_eval,  # noqa: F401  (memlens eval …)
    cli_lifecycle,  # noqa: F401  (memlens forget | compact | export | import | delete-user | stats …)
    cli_storage,  # noqa: F401  (memlens repair)
    cli_write,  # noqa: F401  (memlens memories | profile)
)
