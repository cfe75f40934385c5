"""Back-office accounts and the audit trail of every person action (schema: migration 0007).

Kept apart from the memory tables because their lifetime differs: erasing a user removes every memory row but keeps
the audit rows (with the user's id and any free text cleared, see :func:`memory.audit.erase_user`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Column, Index, Text
from sqlmodel import Field, SQLModel

from memory.storage.models import JSONType, utcnow


class Account(SQLModel, table=True):
    """A person who may sign in to the back office; the password is stored only as an argon2 hash."""

    name: str = Field(primary_key=True, max_length=200)
    role: str = Field(max_length=16)
    password_hash: str = Field(sa_column=Column(Text, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class AuditEvent(SQLModel, table=True):
    """One person action: who (name, role, door), what, on which user (hash, and the id until erasure) and ids, why."""

    __table_args__ = (Index("ix_auditevent_action_at", "action", "at"),)
    id: int | None = Field(default=None, primary_key=True)
    at: datetime = Field(default_factory=utcnow, index=True)
    actor: str = Field(index=True, max_length=200)
    role: str = Field(default="", max_length=16)
    via: str = Field(default="", max_length=64)
    action: str = Field(max_length=32)
    #: sha256 of the user's external id (kept after erasure, so "what happened to user X" stays answerable)
    user_hash: str | None = Field(default=None, index=True, max_length=64)
    #: the user's external id, for display; cleared when the user is erased
    user_id: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    target_ids: Any = Field(default_factory=list, sa_column=Column(JSONType, nullable=False))
    reason: str = Field(default="", sa_column=Column(Text, nullable=False))
    detail: Any = Field(default_factory=dict, sa_column=Column(JSONType, nullable=False))
