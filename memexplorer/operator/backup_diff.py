"""What restoring a whole-store backup would change, computed before it is confirmed.

A whole-store backup (taken before a console write, or before a store's upgrade)
is put back as a file: every change made since is lost. The confirm says how
much that is: per table, the rows the store holds now that the copy lacks (they
go) and the rows of the copy the store no longer holds (they come back). Rows
are compared whole, as multisets, so a changed row counts once each way.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from memexplorer.operator.backup_records import BackupRecord, read_backup
from memexplorer.operator.browse import GraphBrowser, SqliteBrowser, StoreBrowser
from memexplorer.operator.graph_rows import dump_graph
from memexplorer.operator.saved_rows import SavedTable
from memexplorer.operator.sqlite_rows import dump_sqlite
from memexplorer.storage.exceptions import InvalidInputError
from memexplorer.storage.graph_open import open_graph_store
from memexplorer.storage.sqlite_db import open_sqlite_mode_ro

__all__ = ["StoreDifference", "TableDifference", "whole_store_difference"]


@dataclass(frozen=True)
class TableDifference:
    """One table: rows only in the store now (lost by a restore), rows only in the copy."""

    lost: int
    back: int


@dataclass(frozen=True)
class StoreDifference:
    """What a whole-store restore would do to the store as it is now."""

    copied_at: datetime
    tables: dict[str, TableDifference] = field(default_factory=dict)

    @property
    def lost(self) -> int:
        return sum(table.lost for table in self.tables.values())

    @property
    def back(self) -> int:
        return sum(table.back for table in self.tables.values())

    @property
    def differing(self) -> dict[str, TableDifference]:
        return {name: t for name, t in self.tables.items() if t.lost or t.back}


def _rows(tables: list[SavedTable]) -> dict[str, Counter[str]]:
    """Each table's rows as a multiset of canonical JSON texts."""
    return {
        table.name: Counter(json.dumps(row, sort_keys=True, default=str) for row in table.rows)
        for table in tables
    }


def _copy_tables(record: BackupRecord, manifest_file: str, engine: str) -> list[SavedTable]:
    copy = record.path / manifest_file
    if engine == "sqlite":
        connection = open_sqlite_mode_ro(copy)
        try:
            return dump_sqlite(connection)
        finally:
            connection.close()
    with open_graph_store(copy, read_only=True) as graph:
        return dump_graph(graph)


def _current_tables(current: StoreBrowser) -> list[SavedTable]:
    if isinstance(current, GraphBrowser):
        return dump_graph(current.graph)
    if isinstance(current, SqliteBrowser):
        return dump_sqlite(current.connection)
    raise InvalidInputError(f"Cannot compare {current.path} with a backup")


def whole_store_difference(
    backup: str | Path | BackupRecord, current: StoreBrowser
) -> StoreDifference:
    """Compare a whole-store backup's copy with ``current`` (the store, open now)."""
    record = backup if isinstance(backup, BackupRecord) else read_backup(backup)[0]
    manifest: dict[str, Any] = json.loads((record.path / "manifest.json").read_text())
    if manifest.get("restore_mode") != "file":
        raise InvalidInputError(
            f"{record.path.name} saved rows, not the whole store",
            hint="Only a whole-store backup replaces the store's file.",
        )
    then = _rows(_copy_tables(record, str(manifest["file"]), record.engine))
    now = _rows(_current_tables(current))
    tables = {}
    for name in sorted(set(then) | set(now)):
        old, new = then.get(name, Counter()), now.get(name, Counter())
        tables[name] = TableDifference(
            lost=sum((new - old).values()), back=sum((old - new).values())
        )
    return StoreDifference(record.created_at, tables)
