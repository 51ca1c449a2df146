"""What an experience backend does, and the rules every backend shares.

:class:`MemoryConnector` talks to one of two backends (SQLite, Kuzu) through
the small :class:`MemoryBackend` base class. The helpers here keep the two
consistent: how an experience is checked before it is written, how a stored
row becomes an :class:`Experience`, how a search query is split into words,
how big a store is on disk, and the retention constants.
"""

from __future__ import annotations

import json
import re
import threading
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from memexplorer.memory.experience import (
    CONTEXT_MAX_LENGTH,
    OUTCOME_MAX_LENGTH,
    Experience,
    ExperienceType,
    check_text,
)
from memexplorer.storage.closes_once import ClosesOnce
from memexplorer.storage.exceptions import InvalidExperienceError, InvalidInputError

__all__ = [
    "COMPRESS_AFTER_DAYS",
    "KEEP_PATTERN_CONFIDENCE",
    "ExperienceFilter",
    "MemoryBackend",
    "Retention",
    "StoredRow",
    "check_experience",
    "checked_filter",
    "cutoff_seconds",
    "experience_from_row",
    "experiences_from_rows",
    "query_words",
    "storage_bytes",
]

#: Experiences older than this many days are marked compressed on cleanup.
COMPRESS_AFTER_DAYS = 30
#: PATTERN experiences at or above this confidence survive the count limit.
KEEP_PATTERN_CONFIDENCE = 0.8


@dataclass(frozen=True)
class Retention:
    """The cleanup an ExperienceStore asks for after each add."""

    auto_compress: bool = True
    max_age_days: int | None = None
    max_experiences: int | None = None


@dataclass(frozen=True)
class ExperienceFilter:
    """Which of the agent's experiences a read is about (made by :func:`checked_filter`)."""

    experience_type: ExperienceType | None = None
    min_confidence: float = 0.0


class MemoryBackend(ClosesOnce, ABC):
    """One agent's experiences in one store file.

    Reads take an :class:`ExperienceFilter` (the connector checks the caller's
    values into one with :func:`checked_filter`); a blank search is a retrieval;
    ``close()`` is :class:`.ClosesOnce`'s, over the backend's ``_release``.
    """

    def __init__(self, db_path: str | Path, agent_name: str) -> None:
        self.db_path = Path(db_path)
        self.agent_name = agent_name
        self._lock = threading.RLock()
        self._closed = False

    @property
    @abstractmethod
    def read_only(self) -> bool: ...

    def store_experience(self, experience: Experience) -> str:
        return self.store_experiences([experience])[0]

    @abstractmethod
    def store_experiences(self, experiences: list[Experience]) -> list[str]:
        """Write several experiences in one transaction (all or none)."""

    def search(self, query: str, wanted: ExperienceFilter, limit: int | None) -> list[Experience]:
        """Experiences holding every query word, newest first; a blank query
        returns the newest ones, as :meth:`retrieve` does."""
        words = query_words(query)  # raises unless query is a string
        if not query.strip():
            return self.retrieve(wanted, limit or None)
        return self._search(words, wanted, limit)

    @abstractmethod
    def get_statistics(self) -> dict[str, Any]: ...

    @abstractmethod
    def cleanup(self, retention: Retention) -> None: ...

    # -- what each backend supplies ---------------------------------------------------
    @abstractmethod
    def retrieve(self, wanted: ExperienceFilter, limit: int | None) -> list[Experience]:
        """Newest first; ``limit`` None (or 0, as the reference) means all."""

    @abstractmethod
    def _search(
        self, words: list[str], wanted: ExperienceFilter, limit: int | None
    ) -> list[Experience]: ...


def check_experience(experience: object) -> Experience:
    """Validate an experience again just before writing it.

    Experience validates itself when built, but its fields stay mutable, so
    the rules of API §3 are checked once more here.
    """
    if not isinstance(experience, Experience):
        raise TypeError(f"expected an Experience, got {type(experience).__name__}")
    if not isinstance(experience.experience_type, ExperienceType):
        raise TypeError("experience_type must be ExperienceType enum")
    check_text("context", experience.context, CONTEXT_MAX_LENGTH)
    check_text("outcome", experience.outcome, OUTCOME_MAX_LENGTH)
    confidence = experience.confidence
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        raise TypeError("confidence must be a number")
    if not 0.0 <= confidence <= 1.0:
        raise InvalidExperienceError("confidence must be between 0.0 and 1.0")
    if not isinstance(experience.timestamp, datetime):
        raise TypeError("timestamp must be datetime object")
    if not isinstance(experience.experience_id, str) or not experience.experience_id.strip():
        raise InvalidExperienceError("experience_id cannot be empty")
    if not isinstance(experience.metadata, dict):
        raise InvalidExperienceError("metadata must be a dict")
    if not isinstance(experience.tags, list):
        raise InvalidExperienceError("tags must be a list")
    try:
        json.dumps(experience.metadata)
        json.dumps(experience.tags)
    except (TypeError, ValueError) as exc:
        raise InvalidExperienceError(
            f"metadata and tags must be JSON-serialisable ({exc})"
        ) from None
    return experience


def checked_filter(
    limit: int | None, experience_type: ExperienceType | None, min_confidence: float
) -> ExperienceFilter:
    """The filter a read asks for; values a query could not honour are refused."""
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        raise InvalidInputError(f"limit must be a non-negative integer or None, got {limit!r}")
    if experience_type is not None and not isinstance(experience_type, ExperienceType):
        raise InvalidInputError("experience_type must be an ExperienceType or None")
    if isinstance(min_confidence, bool) or not isinstance(min_confidence, int | float):
        raise InvalidInputError(f"min_confidence must be a number, got {min_confidence!r}")
    return ExperienceFilter(experience_type, min_confidence)


@dataclass(frozen=True)
class StoredRow:
    """An experience row as either backend reads it (JSON still as text)."""

    experience_id: str
    experience_type: str
    context: str
    outcome: str
    confidence: float
    timestamp: int | float | datetime | None
    metadata: str | None
    tags: str | None


def _loads(text: str | None, default: Any) -> Any:
    if not text:
        return default
    try:
        value = json.loads(text)
    except ValueError:
        return default
    return value if isinstance(value, type(default)) else default


def _as_datetime(value: int | float | datetime | None) -> datetime:
    if isinstance(value, datetime):
        return value
    if value is None:
        return datetime.fromtimestamp(0)
    # The reference writes int(ts.timestamp()) and reads it back in local time.
    return datetime.fromtimestamp(value)


def experience_from_row(row: StoredRow) -> Experience | None:
    """The Experience a stored row holds, or None when its type is unknown.

    Rows written by other programs may break the rules new experiences obey
    (text too long, say); they are shown as stored rather than hidden, so
    only a row whose type no ExperienceType names is left out.
    """
    try:
        kind = ExperienceType(row.experience_type)
    except ValueError:
        return None
    fields = {
        "experience_type": kind,
        "context": row.context or "",
        "outcome": row.outcome or "",
        "confidence": float(row.confidence if row.confidence is not None else 0.0),
        "timestamp": _as_datetime(row.timestamp),
        "experience_id": row.experience_id,
        "metadata": _loads(row.metadata, {}),
        "tags": _loads(row.tags, []),
    }
    try:
        return Experience(**fields)
    except (InvalidExperienceError, TypeError):
        restored = Experience.__new__(Experience)
        restored.__dict__.update(fields)
        return restored


def experiences_from_rows(rows: Iterable[Sequence[Any]]) -> list[Experience]:
    """The experiences stored rows (in :class:`StoredRow`'s column order) hold,
    leaving out those of unknown type."""
    found = (experience_from_row(StoredRow(*row)) for row in rows)
    return [experience for experience in found if experience is not None]


_WORD = re.compile(r"\w", re.UNICODE)


def query_words(query: str) -> list[str]:
    """The searchable words of a query: whitespace-separated chunks holding a
    letter or digit (a chunk of punctuation alone cannot match anything)."""
    if not isinstance(query, str):
        raise InvalidInputError(f"query must be a string, got {type(query).__name__}")
    return [chunk for chunk in query.split() if _WORD.search(chunk.replace("_", ""))]


def cutoff_seconds(days: float) -> int:
    """The stored timestamp (epoch seconds, local time as the reference) ``days`` ago."""
    return int((datetime.now() - timedelta(days=days)).timestamp())


def storage_bytes(db_path: Path) -> int:
    """Bytes a store takes: the file and its sidecars (``-wal``, ``.wal``, ...),
    or every file under it for an old directory-layout store."""
    if not db_path.exists():
        return 0
    if db_path.is_dir():
        return sum(f.stat().st_size for f in db_path.rglob("*") if f.is_file())
    return sum(p.stat().st_size for p in db_path.parent.glob(f"{db_path.name}*") if p.is_file())
