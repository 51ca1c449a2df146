"""One write transaction on an SQLite store, held from planning to commit.

Shared by clean, merge and merge undo (the last run by restore), so none of them
imports another to reach it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memexplorer.storage.exceptions import StoreLockedError
from memexplorer.storage.sqlite_db import (
    SqliteConnection,
    SqliteStatementError,
    open_sqlite_autocommit,
)

__all__ = ["sqlite_writer"]


@contextmanager
def sqlite_writer(path: Path) -> Iterator[SqliteConnection]:
    """One write transaction that holds the store from planning to commit."""
    db = open_sqlite_autocommit(path)
    try:
        try:
            db.execute("BEGIN IMMEDIATE")
        except SqliteStatementError as exc:
            raise StoreLockedError(path, f"Another process is writing this store ({exc})") from None
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
    finally:
        db.close()
