"""Imports every module that adds `memlens` commands to ``memory.cli.app`` (one line per module)."""

from memory.cli import (
    apikeys,  # noqa: F401  (memlens apikey create | list | revoke)
    curate,  # noqa: F401  (memlens memory show | edit | flag | unflag | delete | restore)
    evaluate,  # noqa: F401  (memlens eval …)
    lifecycle,  # noqa: F401  (memlens forget | compact | export | import | delete-user | stats …)
    storage,  # noqa: F401  (memlens repair)
    write,  # noqa: F401  (memlens memories | profile)
)
