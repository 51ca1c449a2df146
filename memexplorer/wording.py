"""Wording shared by the app and the CLI: counts that read right for one and for many,
and store names that tell stores apart."""

from __future__ import annotations

from pathlib import Path

__all__ = ["counted", "distinct_places", "restored_summary"]


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


def _place(path: Path, root: Path) -> tuple[str, ...]:
    try:
        return path.relative_to(root).parts or (path.name,)
    except ValueError:
        return path.parts


def distinct_places(paths: list[Path], root: Path, shortest: int = 2) -> list[str]:
    """Each store's place under the root: its last ``shortest`` parts, more where two
    stores would otherwise read the same (two agents' ``ops-agent/ladybug_db``)."""
    places = [_place(path, root) for path in paths]
    lengths = [min(shortest, len(parts)) for parts in places]
    while True:
        shown = ["/".join(parts[-n:]) for parts, n in zip(places, lengths, strict=True)]
        clashing = {label for label in shown if shown.count(label) > 1}
        grown = False
        for index, label in enumerate(shown):
            if label in clashing and lengths[index] < len(places[index]):
                lengths[index] += 1
                grown = True
        if not grown:
            return shown
