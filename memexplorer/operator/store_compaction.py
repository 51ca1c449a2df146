"""Compact any store: the graph rewrite, or SQLite's own VACUUM.

One entry point for ``memexplorer compact``, ``clean --compact`` and redaction,
always inside the store's write gate (:mod:`.write_gate`).
A SQLite store is vacuumed with ``secure_delete`` on (VACUUM rebuilds the
file from its live rows), its write-ahead log checkpointed and truncated, and
its row counts compared before and after; graph stores go to
:func:`~.compaction.compact_graph_store`.
"""

from __future__ import annotations

import time
from pathlib import Path

from memexplorer.operator.compaction import CompactionResult, compact_graph_store
from memexplorer.operator.write_gate import GateTicket, write_gate
from memexplorer.storage.exceptions import CompactionError, StoreLockedError
from memexplorer.storage.graph_store import identifier
from memexplorer.storage.sqlite_db import (
    SqliteConnection,
    SqliteStatementError,
    open_sqlite_autocommit,
)
from memexplorer.storage.stores import resolve_hierarchical_path, sniff

__all__ = ["compact_store"]


def _counts(connection: SqliteConnection) -> dict[str, int]:
    names = [
        row[0]
        for row in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "ORDER BY name"
        )
    ]
    return {
        name: connection.execute(f"SELECT count(*) FROM {identifier(name)}").fetchone()[0]
        for name in names
        if "_fts_" not in name  # a search index's shadow tables follow their table
    }


def _compact_sqlite(path: Path) -> CompactionResult:
    started = time.perf_counter()
    before = path.stat().st_size
    connection = open_sqlite_autocommit(path)
    try:
        connection.execute("PRAGMA secure_delete = ON")
        counts = _counts(connection)
        try:
            connection.execute("VACUUM")
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except SqliteStatementError as exc:
            raise StoreLockedError(path, f"Another process is using this store ({exc})") from None
        after = _counts(connection)
    finally:
        connection.close()
    if after != counts:
        raise CompactionError(path, "VACUUM changed the store's row counts")
    return CompactionResult(
        store=path,
        engine="sqlite",
        storage_version=None,
        bytes_before=before,
        bytes_after=path.stat().st_size,
        tables=counts,
        verified=True,
        seconds=time.perf_counter() - started,
    )


def compact_store(path: str | Path, *, ticket: GateTicket | None = None) -> CompactionResult:
    """Rewrite the store at ``path`` (a store file, or an agent's folder holding one)
    so that no deleted or overwritten value is left in its bytes; its rows stay
    exactly as they were.

    Runs inside the store's write gate (entered here, or by the caller, which then
    passes its ``ticket``): the lock is held through the rewrite and the swap, and
    the swap is refused if the store changed on disk meanwhile.
    """
    path = resolve_hierarchical_path(Path(path).expanduser())
    if ticket is None:
        with write_gate(path, action="compact") as entered:
            return compact_store(path, ticket=entered)
    if sniff(path).engine == "sqlite":
        return _compact_sqlite(path)
    return compact_graph_store(path, before_swap=ticket.ensure_unchanged)
