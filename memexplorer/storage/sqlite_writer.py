"""One write transaction on an SQLite store, held from planning to commit.

Shared by clean, merge and merge undo (the last run by restore), so none of them
imports another to reach it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memexplorer.storage.exceptions import StoreLockedError

__all__ = ["sqlite_writer"]


@contextmanager
def sqlite_writer(path: Path) -> Iterator[sqlite3.Connection]:
    """One write transaction that holds the store from planning to commit."""
    db = sqlite3.connect(path, timeout=2.0, isolation_level=None)
    try:
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise StoreLockedError(path, f"Another process is writing this store ({exc})") from None
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
    finally:
        db.close()
