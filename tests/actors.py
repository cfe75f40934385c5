"""Actors for tests that call person actions on the service directly (not a test module)."""

from memory.vocab import Actor, Role

ADMIN = Actor(name="test-admin", role=Role.ADMIN, via="test")
CURATOR = Actor(name="test-curator", role=Role.CURATOR, via="test")
VIEWER = Actor(name="test-viewer", role=Role.VIEWER, via="test")
