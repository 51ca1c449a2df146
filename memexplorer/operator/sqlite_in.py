"""SQLite questions about a long list of values, asked ``IN (?, …)`` a chunk at a time.

SQLite limits the parameters of one statement (999 in older releases), so a list
of ids or session ids goes in chunks of :data:`CHUNK`, each with its own marks.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from memexplorer.storage.graphdb import identifier

__all__ = ["CHUNK", "chunks", "count_in", "marks"]

#: Values asked of SQLite at once, under its oldest limit on parameters.
CHUNK = 400


def chunks(values: list[Any]) -> Iterator[list[Any]]:
    """``values`` in lists of at most :data:`CHUNK`, each one ``IN (?, …)`` query's."""
    for start in range(0, len(values), CHUNK):
        yield values[start : start + CHUNK]


def marks(chunk: Sequence[Any]) -> str:
    """The parameter marks of ``IN (…)`` for one chunk: ``?, ?, ?``."""
    return ", ".join("?" * len(chunk))


def count_in(connection: Any, table: str, column: str, values: list[Any]) -> int:
    """How many rows of ``table`` hold one of ``values`` in ``column``."""
    query = f"SELECT count(*) FROM {identifier(table)} WHERE {identifier(column)} IN "
    return sum(
        connection.execute(f"{query}({marks(chunk)})", chunk).fetchone()[0]
        for chunk in chunks(values)
    )
