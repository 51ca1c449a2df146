"""One write transaction on an SQLite store: ``BEGIN IMMEDIATE`` (the write lock up
front, so another writer is found before anything is planned), then COMMIT, or
ROLLBACK on any error.

Shared by clean, merge and merge undo (the last run by restore), restore,
redaction, correction's undo and the flat and experience stores, so none of
them imports another to reach it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from memexplorer.storage.exceptions import StoreError, StoreLockedError
from memexplorer.storage.sqlite_db import (
    SqliteConnection,
    SqliteStatementError,
    open_sqlite_autocommit,
)

__all__ = ["another_writer", "immediate_transaction", "sqlite_writer"]

#: What a refused BEGIN IMMEDIATE is raised as (None: as SQLite raised it).
OnBusy = Callable[[SqliteStatementError], StoreError | None]


def another_writer(path: Path) -> OnBusy:
    """A refused BEGIN as StoreLockedError: another process is writing ``path``."""
    return lambda exc: StoreLockedError(path, f"Another process is writing this store ({exc})")


@contextmanager
def immediate_transaction(
    db: SqliteConnection, on_busy: OnBusy | None = None
) -> Iterator[SqliteConnection]:
    """BEGIN IMMEDIATE on an open autocommit connection; COMMIT when the block ends,
    ROLLBACK when it raises. ``on_busy`` says what a refused BEGIN is raised as."""
    try:
        db.execute("BEGIN IMMEDIATE")
    except SqliteStatementError as exc:
        error = on_busy(exc) if on_busy is not None else None
        if error is None:
            raise
        raise error from None
    try:
        yield db
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


@contextmanager
def sqlite_writer(path: Path) -> Iterator[SqliteConnection]:
    """One write transaction on a connection of its own, which holds the store from
    planning to commit."""
    db = open_sqlite_autocommit(path)
    try:
        with immediate_transaction(db, another_writer(path)):
            yield db
    finally:
        db.close()
