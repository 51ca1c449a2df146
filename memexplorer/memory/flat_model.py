"""Flat session memory as both backends return it: records, stored JSON, time.

Seed 002 ("Flat memory schema") defines the SQLite tables; the graph-db backend
keeps the same facts in Session, Agent and per-type memory nodes. Both stores
return these records, so the tree, clean and the app never care which one is
open. Expired rows (``expires_at`` in the past) never appear in any result or
count, in either backend. The store interface is :mod:`.flat_store_base`'s;
what a new memory may hold is :mod:`.flat_checks`'.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

__all__ = [
    "DEFAULT_LEARNING_TYPE",
    "DeletedSessions",
    "FlatMemory",
    "FlatSession",
    "is_live",
    "iso",
    "json_list",
    "json_object",
    "parse_time",
    "utc_now",
]

#: The memory_type store_session_learning writes in SQLite (seed 002 / amplihack-rs).
DEFAULT_LEARNING_TYPE = "learning"


@dataclass(frozen=True)
class FlatMemory:
    """One live memory of a session."""

    memory_id: str
    session_id: str
    agent_id: str
    memory_type: str
    title: str
    content: str
    importance: int | None = None
    confidence: float | None = None
    usage_count: int | None = None
    created_at: str = ""
    accessed_at: str = ""
    expires_at: str | None = None
    tags: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class FlatSession:
    """A session with its live memory count and the agents that wrote them."""

    session_id: str
    created_at: str
    last_accessed: str
    memory_count: int
    agents: dict[str, int] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class DeletedSessions:
    """What delete_sessions removed: the sessions that existed, and their memories."""

    sessions: list[str]
    memories: int


def utc_now() -> datetime:
    return datetime.now(UTC)


def parse_time(value: object) -> datetime | None:
    """A stored timestamp as an aware UTC datetime, or None when unreadable.

    Stores hold RFC 3339 strings (amplihack-rs), naive ISO strings (the Python
    library), SQLite ``datetime()`` text, epoch numbers, or Kuzu TIMESTAMPs.
    Naive values are taken as UTC.
    """
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, int | float) and math.isfinite(value):
        return datetime.fromtimestamp(float(value), UTC)
    elif isinstance(value, str):
        text = value.strip()
        try:
            return datetime.fromtimestamp(float(text), UTC)
        except (ValueError, OverflowError):
            pass
        try:
            moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            return None
    else:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def is_live(expires_at: object, now: datetime) -> bool:
    """False only for a readable expiry at or before ``now`` (unreadable ones are kept)."""
    moment = parse_time(expires_at)
    return moment is None or moment > now


def iso(value: object) -> str:
    """A timestamp for display and JSON: ISO 8601 (naive values are UTC), else as stored."""
    if value is None:
        return ""
    if isinstance(value, datetime):
        return (value.replace(tzinfo=UTC) if value.tzinfo is None else value).isoformat()
    return str(value)


def json_object(text: object) -> dict[str, Any]:
    """A stored JSON object; anything else (damaged, absent) reads as ``{}``."""
    if isinstance(text, dict):
        return text
    try:
        value = json.loads(text) if isinstance(text, str) and text else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def json_list(text: object) -> list[str]:
    """A stored JSON array of tags; anything else reads as ``[]``."""
    try:
        value = json.loads(text) if isinstance(text, str) and text else []
    except ValueError:
        return []
    return [str(item) for item in value] if isinstance(value, list) else []
