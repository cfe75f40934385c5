"""Imports every module that adds `memlens` commands to ``memory.cli.app`` (one line per module)."""
