"""SQLite for the layers above storage: the opens they need, the errors they catch,
the types they annotate.

Only :mod:`memexplorer.storage` imports the driver (an import-linter contract says
so): memory, operator, app and cli reach SQLite through this module, through
:mod:`.sqlite_readonly` (a reader that cannot change a byte) and through
:mod:`.sqlite_writer` (one write transaction held from planning to commit). Each
open here says what it is for, so a caller never chooses connect flags itself, and
the error names say what a caller means when it catches them.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

__all__ = [
    "SqliteConnection",
    "SqliteConstraintError",
    "SqliteCursor",
    "SqliteDatabaseError",
    "SqliteError",
    "SqliteRow",
    "SqliteStatementError",
    "open_sqlite",
    "open_sqlite_autocommit",
    "open_sqlite_in_memory",
    "open_sqlite_mode_ro",
    "sqlite_tables",
]

#: An open database (for annotations; made by the opens below).
SqliteConnection = sqlite3.Connection
#: The rows of one statement, read as they are fetched.
SqliteCursor = sqlite3.Cursor
#: A row whose columns are read by name (set as a connection's ``row_factory``).
SqliteRow = sqlite3.Row

#: Any error SQLite raises, including misuse of a closed connection.
SqliteError = sqlite3.Error
#: The database could not do what was asked: a file that is not a database or is
#: corrupt, a lock held elsewhere, a missing table, a refused row. Readers catch
#: this to say "SQLite cannot read this file".
SqliteDatabaseError = sqlite3.DatabaseError
#: One statement could not run: the store is locked or busy, the query was
#: interrupted, a table, column or ``rowid`` is missing, the connection is read-only.
SqliteStatementError = sqlite3.OperationalError
#: A constraint refused a row (a key already stored, a NOT NULL left empty).
SqliteConstraintError = sqlite3.IntegrityError


def open_sqlite(
    path: str | Path, *, wait_s: float = 5.0, any_thread: bool = False
) -> SqliteConnection:
    """A connection that may write, in the driver's own transaction handling (a
    transaction opens before a change and ends with ``commit()``): for copies made
    with the backup API, staging files and flat memory. ``wait_s`` is how long a
    statement waits for another process's lock; ``any_thread`` lets other threads
    use the connection (the caller serialises them)."""
    return sqlite3.connect(path, timeout=wait_s, check_same_thread=not any_thread)


def open_sqlite_autocommit(
    path: str | Path, *, wait_s: float = 2.0, any_thread: bool = False
) -> SqliteConnection:
    """A connection that may write and opens no transaction by itself: the caller's
    ``BEGIN IMMEDIATE`` takes the write lock up front, so another writer is found
    before any planning rather than at commit. Waits ``wait_s`` for a lock."""
    return sqlite3.connect(
        path, timeout=wait_s, isolation_level=None, check_same_thread=not any_thread
    )


def open_sqlite_mode_ro(path: str | Path, *, any_thread: bool = False) -> SqliteConnection:
    """A connection SQLite opens read-only (``mode=ro``), without the immutable open,
    query-only guard and translated errors of :func:`.open_sqlite_readonly`: for
    files memexplorer made itself (backup copies, the keyword index) and for the
    source of a backup-API copy, whose errors the caller handles."""
    uri = f"{Path(path).resolve().as_uri()}?mode=ro"
    return sqlite3.connect(uri, uri=True, check_same_thread=not any_thread)


def open_sqlite_in_memory() -> SqliteConnection:
    """An empty database in memory (a scratch copy that no file ever sees)."""
    return sqlite3.connect(":memory:")


def sqlite_tables(connection: SqliteConnection) -> set[str]:
    """The names of the tables the file holds (SQLite's own and virtual tables
    among them): what a store's kind is told by."""
    return {name for (name,) in connection.execute(_TABLES)}


_TABLES = "SELECT name FROM sqlite_master WHERE type = 'table'"
