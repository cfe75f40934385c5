"""Small named exceptions: callers (CLI, pages) turn them into one clear line."""


class MemLensError(Exception):
    """Base of every error MemLens raises on purpose."""


class InvalidInput(MemLensError, ValueError):
    """Input was refused (empty, too long, malformed or hostile)."""


class NotFound(MemLensError, LookupError):
    """A user, session or memory does not exist."""


class Conflict(MemLensError):
    """A concurrent change won, or the operation is not allowed in the current state."""


class ReadOnlyData(Conflict):
    """The data folder cannot be written by this process: MemLens opened it read-only, and this needs a write."""


class ConfigError(MemLensError):
    """Settings are inconsistent (e.g. embedder dimension changed under an existing index)."""


class Forbidden(MemLensError, PermissionError):
    """The actor's role does not allow this action (or no actor was given)."""


class SignInFailed(MemLensError):
    """A sign-in was refused: unknown name, wrong password or too many attempts (one message for all of them)."""


class MemoryNotFound(NotFound, ValueError):
    """The mem0-shaped door's "no such memory": a ``NotFound`` that is also the ``ValueError`` mem0 raises."""
