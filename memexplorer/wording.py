"""Wording shared by the app and the CLI: counts that read right for one and for many."""

from __future__ import annotations

__all__ = ["counted", "restored_summary"]


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``1 row``, ``2 rows``, ``1,204 edges``: the count with the noun it agrees with."""
    word = noun if count == 1 else plural or f"{noun}s"
    return f"{count:,} {word}"


def restored_summary(restored: int, already_there: int, store: str, whole_store: bool) -> str:
    """What a restore put back: the whole store, or its rows (and those already there)."""
    if whole_store:
        return f"Put back the whole of {store} as it was before the change"
    there = f" ({counted(already_there, 'row')} already there)" if already_there else ""
    return f"Restored {counted(restored, 'row')} into {store}{there}"
