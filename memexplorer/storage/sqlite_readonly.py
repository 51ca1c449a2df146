"""Opening an SQLite store so that reading cannot change a byte of it.

Below inspection and every SQLite reader, so a reader (flat memory, experience,
amplihack-rs stores) and the inspection that picks among them import it without
importing each other.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from memexplorer.storage.exceptions import CorruptStoreError, StoreLockedError

__all__ = ["open_sqlite_readonly"]


def _quiet_wal_store(path: Path) -> bool:
    """A WAL-mode file with no ``-wal`` beside it: no writer has it open."""
    with path.open("rb") as handle:
        header = handle.read(20)
    wal_mode = len(header) >= 20 and header[18] == 2 and header[19] == 2
    return wal_mode and not Path(f"{path}-wal").exists()


def open_sqlite_readonly(path: str | Path) -> sqlite3.Connection:
    """An SQLite connection that cannot write, even by accident.

    Even a read-only open of a WAL-mode database creates ``-wal`` and ``-shm``
    files; when no writer is active (no ``-wal`` file) the database is opened
    as immutable instead, so reading leaves the folder exactly as it was.
    """
    path = Path(path)
    flags = "mode=ro&immutable=1" if _quiet_wal_store(path) else "mode=ro"
    uri = f"{path.resolve().as_uri()}?{flags}"
    try:
        connection = sqlite3.connect(uri, uri=True, check_same_thread=False)
        connection.execute("PRAGMA query_only = ON")
        connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError as exc:
        text = str(exc)
        if "locked" in text:
            raise StoreLockedError(path, "Another process holds this SQLite store") from None
        raise CorruptStoreError(path, f"SQLite cannot read this file ({text})") from None
    return connection
