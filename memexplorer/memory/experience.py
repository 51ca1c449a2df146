"""The Experience record: one thing an agent did, saw or learned, validated on creation.

Ids are derived exactly as the reference library derives them
(``exp_<date>_<time>_<first 6 hex of sha256(context + outcome + iso timestamp)>``),
so an experience rebuilt from a reference store keeps the id it was written with.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from numbers import Real
from typing import Any

from memexplorer.storage.exceptions import InvalidExperienceError

__all__ = [
    "CONTEXT_MAX_LENGTH",
    "OUTCOME_MAX_LENGTH",
    "Experience",
    "ExperienceType",
    "check_text",
]

CONTEXT_MAX_LENGTH = 500
OUTCOME_MAX_LENGTH = 1000


class ExperienceType(Enum):
    """The four kinds of experience; the values are what stores persist."""

    SUCCESS = "success"
    FAILURE = "failure"
    PATTERN = "pattern"
    INSIGHT = "insight"


def check_text(name: str, value: object, max_length: int) -> None:
    """Reject text that is not a string, is blank, or is longer than the store allows."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string")
    if not value.strip():
        raise InvalidExperienceError(f"{name} cannot be empty")
    if len(value) > max_length:
        raise InvalidExperienceError(f"{name} exceeds {max_length} characters")


def _check_confidence(value: object) -> None:
    """Confidence is a real number in [0, 1]; NaN is outside every range."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError("confidence must be a number")
    if not 0.0 <= value <= 1.0:
        raise InvalidExperienceError("confidence must be between 0.0 and 1.0")


def _derive_id(context: str, outcome: str, timestamp: datetime) -> str:
    """The reference library's id, so the same content at the same instant gets the same id."""
    digest = hashlib.sha256(f"{context}{outcome}{timestamp.isoformat()}".encode()).hexdigest()
    date = f"{timestamp.year:04d}{timestamp.month:02d}{timestamp.day:02d}"
    return f"exp_{date}_{timestamp:%H%M%S}_{digest[:6]}"


@dataclass(eq=False)
class Experience:
    """A validated experience; two experiences are the same when their ids are.

    ``timestamp``, ``experience_id``, ``metadata`` and ``tags`` may be passed as
    None to get their defaults (now, a derived id, ``{}`` and ``[]``).
    """

    experience_type: ExperienceType
    context: str
    outcome: str
    confidence: float
    timestamp: datetime = field(default_factory=datetime.now)
    experience_id: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    tags: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not isinstance(self.experience_type, ExperienceType):
            raise TypeError("experience_type must be ExperienceType enum")
        check_text("context", self.context, CONTEXT_MAX_LENGTH)
        check_text("outcome", self.outcome, OUTCOME_MAX_LENGTH)
        _check_confidence(self.confidence)
        if self.timestamp is None:
            self.timestamp = datetime.now()
        if not isinstance(self.timestamp, datetime):
            raise TypeError("timestamp must be datetime object")
        if not self.experience_id:
            self.experience_id = _derive_id(self.context, self.outcome, self.timestamp)
        if self.metadata is None:
            self.metadata = {}
        if self.tags is None:
            self.tags = []

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Experience):
            return NotImplemented
        return self.experience_id == other.experience_id

    def __hash__(self) -> int:
        return hash(self.experience_id)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: the type as its value string, the timestamp in ISO format."""
        return {
            "experience_id": self.experience_id,
            "experience_type": self.experience_type.value,
            "context": self.context,
            "outcome": self.outcome,
            "confidence": self.confidence,
            "timestamp": self.timestamp.isoformat(),
            "metadata": copy.deepcopy(self.metadata),
            "tags": list(self.tags),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Experience:
        """Rebuild an experience from :meth:`to_dict` output (type and timestamp may be strings)."""
        missing = [key for key in ("experience_type", "context", "outcome", "confidence")
                   if key not in data]  # fmt: skip
        if missing:
            raise InvalidExperienceError(f"experience data lacks {', '.join(missing)}")
        return cls(
            experience_type=_parse_type(data["experience_type"]),
            context=data["context"],
            outcome=data["outcome"],
            confidence=data["confidence"],
            timestamp=_parse_timestamp(data.get("timestamp")),
            experience_id=data.get("experience_id") or "",
            metadata=copy.deepcopy(data.get("metadata")) or {},
            tags=list(data.get("tags") or []),
        )


def _parse_type(value: Any) -> Any:
    """Accept the enum or its value string; anything else is left for validation to reject."""
    if isinstance(value, str):
        try:
            return ExperienceType(value)
        except ValueError:
            raise InvalidExperienceError(f"unknown experience_type {value!r}") from None
    return value


def _parse_timestamp(value: Any) -> Any:
    """Accept a datetime or an ISO 8601 string; None means now."""
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value)
        except ValueError:
            raise InvalidExperienceError(f"timestamp {value!r} is not ISO 8601") from None
    return value
