"""The similarity at which two facts count as duplicates, and its check.

Alone, so the command line can show the default in its help without loading the
duplicate search (which reads stores and groups facts).
"""

from __future__ import annotations

from memexplorer.storage.exceptions import InvalidInputError

__all__ = ["DEFAULT_THRESHOLD", "check_threshold"]

#: Pairs scoring at least this are duplicates unless the operator says otherwise.
DEFAULT_THRESHOLD = 0.85


def check_threshold(threshold: float) -> float:
    """The threshold as a float in (0, 1]; anything else is refused."""
    try:
        value = float(threshold)
    except (TypeError, ValueError):
        raise InvalidInputError(f"The threshold must be a number, got {threshold!r}") from None
    if not 0.0 < value <= 1.0:
        raise InvalidInputError(
            f"The threshold must be above 0 and at most 1, got {value}",
            hint="Similarity runs from 0 (nothing shared) to 1 (same words, tags and concept).",
        )
    return value
