"""Graph stores and experience backends let go of their store once: a second close
does nothing, and a closed store refuses queries."""

from __future__ import annotations

import threading

import pytest

from memexplorer.storage.closes_once import ClosesOnce
from memexplorer.storage.graph_store import QueryError
from memexplorer.storage.graphdb import KuzuStore


class _Counting(ClosesOnce):
    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._closed = False
        self.released = 0

    def _release(self) -> None:
        self.released += 1


def test_a_second_close_releases_nothing() -> None:
    holder = _Counting()
    holder.close()
    holder.close()
    assert holder.released == 1


def test_a_closed_kuzu_store_refuses_queries_and_closes_again_quietly(tmp_path) -> None:
    store = KuzuStore(tmp_path / "db", read_only=False)
    assert store.rows("RETURN 1") == [[1]]
    store.close()
    store.close()
    with pytest.raises(QueryError, match="closed"):
        store.rows("RETURN 1")
