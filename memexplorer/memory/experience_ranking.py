"""Seed 004's tag filter and relevance order for experience search.

Seed 004 ("Query Patterns" 3 and 4) filters by ``e.tags CONTAINS $tag`` and
orders a context search by ``length(e.context) / $ref_len DESC, e.timestamp
DESC``. The reference library's ``search()`` has neither: it matches the query in
context or outcome and returns the newest first, which stays the default here.
Where the seed and the code's data differ, the code's data wins:

- tags are matched as whole elements of the decoded list, not as a substring of
  the stored text: the library writes them base64 of JSON into LadybugDB stores,
  where a substring test never matches, and ``"db"`` must not match ``"mongodb"``;
- ``$ref_len`` (not defined by the seed) is the query's length, at least 1; a
  positive constant divisor, so the order is longest context first, newest first
  among equal lengths.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from memexplorer.memory.experience import Experience
from memexplorer.storage.exceptions import InvalidInputError

__all__ = ["SEARCH_ORDERS", "SearchOrder", "check_search_options", "refine", "relevance"]

SearchOrder = Literal["recent", "relevance"]
SEARCH_ORDERS: tuple[SearchOrder, ...] = ("recent", "relevance")


def check_search_options(tags: Sequence[str] | None, order: str) -> tuple[str, ...]:
    """The tags to filter by; raises InvalidInputError for a bad order or tag list."""
    if order not in SEARCH_ORDERS:
        raise InvalidInputError(
            f"order must be one of {', '.join(SEARCH_ORDERS)}, got {order!r}",
            hint="recent: newest first (the library's order); relevance: seed 004's.",
        )
    if tags is None:
        return ()
    if isinstance(tags, str) or not all(isinstance(t, str) and t for t in tags):
        raise InvalidInputError(
            f"tags must be a list of non-empty strings, got {tags!r}",
            hint='Pass tags=["deploy"], not tags="deploy".',
        )
    return tuple(tags)


def relevance(experience: Experience, query: str) -> float:
    """Seed 004's ``1.0 * length(e.context) / $ref_len``, with ``$ref_len`` the
    query's length (at least 1)."""
    return len(experience.context) / max(len(query), 1)


def refine(
    found: list[Experience],
    query: str,
    *,
    tags: Sequence[str],
    order: SearchOrder,
    limit: int | None,
) -> list[Experience]:
    """``found`` (newest first) kept when it holds every tag, ordered as asked, cut
    to ``limit`` (None or 0: no cut beyond what the caller asked the backend for)."""
    kept = [e for e in found if all(tag in e.tags for tag in tags)]
    if order == "relevance":
        kept.sort(key=lambda e: (relevance(e, query), e.timestamp), reverse=True)
    return kept[:limit] if limit else kept
