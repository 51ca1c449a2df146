"""search() as MemoryConnector and ExperienceStore both offer it, written once.

The reference gives both classes ``search(query, experience_type=None,
min_confidence=0.0, limit=10)``, and an ExperienceStore searches through its
connector, so the two answer alike. memexplorer adds seed 004's keyword-only
``tags`` and ``order`` (:mod:`.experience_ranking`). Each class supplies only
where the matches come from (:meth:`ExperienceSearch._matches`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

from memexplorer.memory.experience import Experience, ExperienceType
from memexplorer.memory.experience_backend import ExperienceFilter, checked_filter
from memexplorer.memory.experience_ranking import SearchOrder, check_search_options, refine

__all__ = ["ExperienceSearch"]


class ExperienceSearch(ABC):
    """The reference's search(), checked, filtered and ordered here once."""

    def search(
        self,
        query: str,
        experience_type: ExperienceType | None = None,
        min_confidence: float = 0.0,
        limit: int = 10,
        *,
        tags: Sequence[str] | None = None,
        order: SearchOrder = "recent",
    ) -> list[Experience]:
        """Experiences holding every word of ``query`` (stemmed), newest first;
        a blank query returns the newest ones. ``tags`` keeps those holding every
        tag, ``order="relevance"`` orders by seed 004's relevance
        (:mod:`.experience_ranking`)."""
        tagged = check_search_options(tags, order)
        wanted = checked_filter(limit, experience_type, min_confidence)
        if not tagged and order == "recent":
            return self._matches(query, wanted, limit)
        if limit == 0:
            return []
        # Every match (limit None), newest first, then filtered and ordered.
        found = self._matches(query, wanted, None)
        return refine(found, query, tags=tagged, order=order, limit=limit)

    @abstractmethod
    def _matches(self, query: str, wanted: ExperienceFilter, limit: int | None) -> list[Experience]:
        """The backend's matches for ``query``, newest first, at most ``limit`` (None: all)."""
