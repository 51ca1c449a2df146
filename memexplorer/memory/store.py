"""ExperienceStore: experiences with validation, a storage quota and retention.

The reference library's high-level class over :class:`MemoryConnector`. Each
:meth:`ExperienceStore.add` validates the experience, checks the on-disk size
against ``max_memory_mb`` (raising :class:`MemoryQuotaExceededError`), stores
it, then runs retention: with ``auto_compress`` experiences older than 30 days
are marked compressed; ``max_age_days`` deletes older ones; ``max_experiences``
keeps the newest ones plus every PATTERN of confidence >= 0.8.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memexplorer.memory.connector import DEFAULT_BACKEND, MemoryConnector
from memexplorer.memory.experience import Experience
from memexplorer.memory.experience_backend import (
    ExperienceFilter,
    check_experience,
    storage_bytes,
)
from memexplorer.memory.experience_search import ExperienceSearch
from memexplorer.storage.exceptions import InvalidInputError, MemoryQuotaExceededError

__all__ = ["ExperienceStore"]


def _limit(name: str, value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise InvalidInputError(f"{name} must be a positive integer or None, got {value!r}")
    return value


class ExperienceStore(ExperienceSearch):
    """One agent's experiences with automatic management.

    Attributes: ``agent_name``, ``auto_compress``, ``max_age_days``,
    ``max_experiences``, ``max_memory_mb``, ``storage_path`` and ``backend``
    (as given), and ``connector`` (the :class:`MemoryConnector` underneath).
    """

    def __init__(
        self,
        agent_name: str,
        auto_compress: bool = True,
        max_age_days: int | None = None,
        max_experiences: int | None = None,
        max_memory_mb: int = 100,
        storage_path: str | Path | None = None,
        backend: str = DEFAULT_BACKEND,
    ) -> None:
        self.auto_compress = bool(auto_compress)
        self.max_age_days = _limit("max_age_days", max_age_days)
        self.max_experiences = _limit("max_experiences", max_experiences)
        self.max_memory_mb = max_memory_mb
        self.backend = backend
        self.connector = MemoryConnector(
            agent_name=agent_name,
            storage_path=storage_path,
            max_memory_mb=max_memory_mb,
            enable_compression=self.auto_compress,
            backend=backend,
        )
        self.agent_name = self.connector.agent_name
        self.storage_path = self.connector.storage_path

    # -- writing -------------------------------------------------------------------------
    def add(self, experience: Experience) -> str:
        """Validate, check the quota, store, then apply retention; returns the id."""
        check_experience(experience)
        self._check_quota()
        experience_id = self.connector.store_experience(experience)
        if self.auto_compress or self.max_age_days or self.max_experiences:
            self._cleanup()
        return experience_id

    def _cleanup(self) -> None:
        """Apply this store's retention now (add() does it after each write)."""
        self.connector.cleanup(
            auto_compress=self.auto_compress,
            max_age_days=self.max_age_days,
            max_experiences=self.max_experiences,
        )

    cleanup = _cleanup

    def _check_quota(self) -> None:
        """Raise when the store and its sidecar files exceed ``max_memory_mb``."""
        size_mb = storage_bytes(self.connector.db_path) / (1024 * 1024)
        if size_mb > self.max_memory_mb:
            raise MemoryQuotaExceededError(
                f"Storage quota exceeded: {size_mb:.1f}MB > {self.max_memory_mb}MB"
            )

    # -- reading -------------------------------------------------------------------------
    def _matches(self, query: str, wanted: ExperienceFilter, limit: int | None) -> list[Experience]:
        return self.connector._matches(query, wanted, limit)

    def get_statistics(self) -> dict[str, Any]:
        """total_experiences, by_type ({ExperienceType: n}), storage_size_kb and
        compressed_experiences (no compression_ratio, as the reference)."""
        return self.connector.get_statistics()

    # -- lifecycle -----------------------------------------------------------------------
    def close(self) -> None:
        self.connector.close()

    def __enter__(self) -> ExperienceStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
