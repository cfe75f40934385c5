"""Small named exceptions: callers (CLI, pages) turn them into one clear line."""


class MemLensError(Exception):
    """Base of every error MemLens raises on purpose."""


class InvalidInput(MemLensError, ValueError):
    """Input was refused (empty, too long, malformed or hostile)."""


class NotFound(MemLensError, LookupError):
    """A user, session or memory does not exist."""


class Conflict(MemLensError):
    """A concurrent change won, or the operation is not allowed in the current state."""


class ConfigError(MemLensError):
    """Settings are inconsistent (e.g. embedder dimension changed under an existing index)."""
