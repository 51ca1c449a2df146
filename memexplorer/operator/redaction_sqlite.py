"""Redacting an SQLite store: in one BEGIN IMMEDIATE transaction with
``secure_delete`` on (overwritten and freed content is zeroed, not left in free
pages), the changing rows backed up first, then updated by their key, and any
FTS index rebuilt.
"""

from __future__ import annotations

from pathlib import Path

from memexplorer.memory.inspection import sqlite_kind
from memexplorer.operator.audit import FindingLocation
from memexplorer.operator.backups import write_backup
from memexplorer.operator.redaction_plan import (
    RedactionResult,
    agents_of,
    by_table,
    planned_changes,
)
from memexplorer.operator.saved_rows import SavedTable
from memexplorer.operator.sqlite_rows import rebuild_fts, save_rows
from memexplorer.storage.graphdb import identifier
from memexplorer.storage.sqlite_db import SqliteConnection, open_sqlite_autocommit, sqlite_tables
from memexplorer.storage.sqlite_writer import another_writer, immediate_transaction

__all__ = ["redact_sqlite"]


def redact_sqlite(path: Path, locations: list[FindingLocation], home: Path) -> RedactionResult:
    result = RedactionResult(path, None)
    connection = open_sqlite_autocommit(path)
    try:
        # Overwritten and freed content is zeroed instead of left in free pages.
        connection.execute("PRAGMA secure_delete = ON")
        with immediate_transaction(connection, another_writer(path)):
            _redact_sqlite_rows(connection, path, locations, home, result)
    finally:
        connection.close()
    return result


def _redact_sqlite_rows(
    connection: SqliteConnection,
    path: Path,
    locations: list[FindingLocation],
    home: Path,
    result: RedactionResult,
) -> None:
    backups: list[SavedTable] = []
    plans = []
    key_names_of = {where.table: [name for name, _ in where.key] for where in locations}
    for table, wanted in by_table(locations).items():
        key_names = key_names_of[table]
        saved = save_rows(connection, table, key_names[0], [values[0] for values in wanted])
        saved.key = key_names
        kept, changes = planned_changes(saved, wanted, result.not_redacted)
        if changes:
            backups.append(kept)
            plans.append((table, key_names, changes))
    if not plans:
        return
    kind = sqlite_kind(sqlite_tables(connection))  # a store of no known kind is recorded as ""
    result.backup = write_backup(
        home, action="redact", store=path, kind="" if kind == "unknown" else kind, engine="sqlite",
        tables=backups, agents=agents_of(backups), selection={"audit": "redact"},
        restore_mode="replace",
    )  # fmt: skip
    for table, key_names, changes in plans:
        # A quoted `rowid` is still the rowid (or the column of that name, as bare).
        where = " AND ".join(f"{identifier(k)} = ?" for k in key_names)
        for row, new in changes:
            sets = ", ".join(f"{identifier(column)} = ?" for column in new)
            connection.execute(
                f"UPDATE {identifier(table)} SET {sets} WHERE {where}",
                [*new.values(), *(row[k] for k in key_names)],
            )
        result.values[table] = len(changes)
    rebuild_fts(connection, [table for table, _, _ in plans])
