"""Wording shared by the app and the CLI: counts that read right for one and for many."""

from __future__ import annotations

__all__ = ["counted"]


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``1 row``, ``2 rows``, ``1,204 edges``: the count with the noun it agrees with."""
    word = noun if count == 1 else plural or f"{noun}s"
    return f"{count:,} {word}"
