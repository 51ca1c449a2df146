"""Wording shared by the app and the CLI: counts that read right for one and for many,
and store names that tell stores apart."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memexplorer.operator.backup_diff import StoreDifference
    from memexplorer.operator.backup_records import BackupRecord

__all__ = [
    "counted",
    "distinct_places",
    "restored_summary",
    "rows_and_edges",
    "whole_store_question",
    "with_article",
]


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``1 row``, ``2 rows``, ``1,204 edges``: the count with the noun it agrees with."""
    word = noun if count == 1 else plural or f"{noun}s"
    return f"{count:,} {word}"


def with_article(noun: str) -> str:
    """``an experience``, ``a cognitive``: the noun with the article it is said with
    (by its first letter, which is right for every store kind memexplorer names)."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


def rows_and_edges(rows: int, edges: int) -> str:
    """The one way counts of a clean, its undo and its backup are said: ``1 row and
    2 edges``, where rows are nodes (or SQLite rows) and edges the rels between them."""
    return f"{counted(rows, 'row')} and {counted(edges, 'edge')}"


def restored_summary(
    restored: int, already_there: int, store: str, whole_store: bool, edges: int = 0
) -> str:
    """What a restore put back: the whole store, or its rows and edges (and those
    already there), in the words the clean that took them out used."""
    if whole_store:
        return f"Put back the whole of {store} as it was before the change"
    there = f" ({counted(already_there, 'row')} already there)" if already_there else ""
    return f"Restored {rows_and_edges(restored - edges, edges)} into {store}{there}"


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


def whole_store_question(record: BackupRecord, difference: StoreDifference) -> str:
    """The confirm of a whole-store restore: when the copy is from and what goes back."""
    when = f"{difference.copied_at:%Y-%m-%d %H:%M:%S} UTC"
    head = f"Put back the WHOLE of {record.store} as it was at {when} (before a {record.action})?"
    if not difference.differing:
        return f"{head}\n\nThe store holds the same rows as the copy: nothing changes."
    lost, back = counted(difference.lost, "row"), counted(difference.back, "row")
    lines = [f"{head}\n\nEvery change since is undone: {lost} now in the store go, "
             f"{back} of the copy come back."]  # fmt: skip
    for name, table in difference.differing.items():
        lines.append(f"  {name}: {table.lost:,} go, {table.back:,} come back")
    return "\n".join(lines)
