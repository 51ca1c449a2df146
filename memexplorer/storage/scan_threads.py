"""Run a block of queries with the database scanning on one thread.

Why: a ``LIMIT`` without ``ORDER BY`` returns the first rows the scan hands
over. With several scan threads, which node groups come first depends on
which thread finishes first, so the reference library's own answer changes
now and then between runs. On one thread the node groups come in table order,
which is the answer the library gives in nearly every run; the ``library``
profile asks that way so its answer is the library's and is repeatable.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, suppress

from memexplorer.storage.exceptions import MemoryError
from memexplorer.storage.graph_store import GraphStore, QueryError

__all__ = ["one_scan_thread"]


@contextmanager
def one_scan_thread(graph: GraphStore) -> Iterator[None]:
    """Set the connection's ``threads`` to 1 for the block, then put it back."""
    try:
        before = graph.rows("CALL current_setting('threads') RETURN *")[0][0]
        graph.rows("CALL threads=1")
    except (QueryError, IndexError):
        before = None
    try:
        yield
    finally:
        if before is not None:
            # A store closed meanwhile (a stopped export) has nothing to put back.
            with suppress(MemoryError):
                graph.rows(f"CALL threads={int(before)}")
