"""A seed-004 experience record, with that seed's validation rules, and how it
reads as the reference API's :class:`.experience.Experience`.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memexplorer.memory.experience import (
    CONTEXT_MAX_LENGTH,
    OUTCOME_MAX_LENGTH,
    Experience,
    ExperienceType,
)
from memexplorer.storage.exceptions import InvalidExperienceError

__all__ = ["Seed004Experience"]


def _is_uuid(value: object) -> bool:
    if not isinstance(value, str):
        return False
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def _json_or_none(name: str, value: Any, kind: type) -> Any:
    """Seed 004: tags is a JSON array or null, metadata a JSON object or null.
    A value may come as text (as stored) or already parsed."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise InvalidExperienceError(f"{name} is not valid JSON") from None
    if not isinstance(value, kind):
        expected = "array" if kind is list else "object"
        raise InvalidExperienceError(f"{name} must be a JSON {expected} or null")
    return value


@dataclass
class Seed004Experience:
    """One experience in seed 004's layout, validated on creation.

    Required (seed 004 "Schema Validation"): ``id`` a UUID; ``agent_id``,
    ``context``, ``action`` and ``outcome`` non-empty strings; ``timestamp`` a
    datetime; ``importance`` an integer 1-10. Optional: ``tags`` a JSON array
    and ``metadata`` a JSON object, or None (either may be given as JSON text).
    """

    agent_id: str
    context: str
    action: str
    outcome: str
    importance: int
    timestamp: datetime = field(default_factory=datetime.now)
    id: str = field(default_factory=lambda: str(uuid.uuid4()))
    tags: list[Any] | None = None
    metadata: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if not _is_uuid(self.id):
            raise InvalidExperienceError(f"id must be a valid UUID, got {self.id!r}")
        for name in ("agent_id", "context", "action", "outcome"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip():
                raise InvalidExperienceError(f"{name} must be a non-empty string")
        if not isinstance(self.timestamp, datetime):
            raise InvalidExperienceError("timestamp must be a valid timestamp (datetime)")
        importance = self.importance
        if isinstance(importance, bool) or not isinstance(importance, int):
            raise InvalidExperienceError(f"importance must be an integer, got {importance!r}")
        if not 1 <= importance <= 10:
            raise InvalidExperienceError(f"importance must be between 1 and 10, got {importance}")
        self.tags = _json_or_none("tags", self.tags, list)
        self.metadata = _json_or_none("metadata", self.metadata, dict)

    def to_experience(self) -> Experience:
        """This record as the reference API's Experience (lossless where it can be).

        context is kept; outcome reads ``"<action> -> <outcome>"``; confidence
        is importance / 10; the type comes from ``metadata["experience_type"]``
        when it names one, else INSIGHT. The seed-004 id, action and importance
        go into metadata (``seed004_id``, ``action``, ``importance``). Text longer
        than the Experience limits is kept whole (as stored), not cut.
        """
        metadata = dict(self.metadata or {})
        try:
            kind = ExperienceType(metadata.get("experience_type", "insight"))
        except ValueError:
            kind = ExperienceType.INSIGHT
        metadata.update(seed004_id=self.id, action=self.action, importance=self.importance)
        fields = {
            "experience_type": kind,
            "context": self.context,
            "outcome": f"{self.action} -> {self.outcome}",
            "confidence": self.importance / 10,
            "timestamp": self.timestamp,
            "experience_id": self.id,
            "metadata": metadata,
            "tags": [str(t) for t in self.tags or []],
        }
        if len(self.context) <= CONTEXT_MAX_LENGTH and len(fields["outcome"]) <= OUTCOME_MAX_LENGTH:
            return Experience(**fields)
        restored = Experience.__new__(Experience)
        restored.__dict__.update(fields)
        return restored
