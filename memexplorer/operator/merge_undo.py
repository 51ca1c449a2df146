"""Undo a merge from its backup: the added edges go, the facts get their values back.

Run by :func:`.backups.restore_backup` (inside the store's write gate) for a
backup whose restore mode is ``merge``. Before anything changes, every row the
merge wrote or changed must be as the merge left it: each fact holds the values
the merge gave it, each added edge is there exactly once (and, in amplihack-rs's
SQLite store, no edge row was added after the merge's). Otherwise the store
changed since, and undo refuses with what it found, changing nothing. All of it
is one transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memexplorer.memory.rs_sqlite_schema import SEMANTIC_TABLE
from memexplorer.operator.backup_records import BackupRecord, TableRestore
from memexplorer.operator.graph_rows import save_nodes
from memexplorer.operator.graph_rows_write import replace_nodes
from memexplorer.operator.merge_plan import PlannedChange, PlannedEdge
from memexplorer.operator.merge_write import (
    SEQUENCE_TABLE,
    delete_graph_edge,
    delete_sqlite_edge,
    sqlite_sequence,
)
from memexplorer.operator.saved_rows import SavedTable
from memexplorer.operator.sqlite_rows import replace_rows, save_rows
from memexplorer.storage.exceptions import InvalidInputError, StoreChangedError
from memexplorer.storage.graph_open import open_graph_store
from memexplorer.storage.sqlite_db import SqliteConnection
from memexplorer.storage.sqlite_writer import sqlite_writer

__all__ = ["MergeRestore", "undo_merge"]


@dataclass(frozen=True)
class MergeRestore(TableRestore):
    """What undo did with one table: besides the values put back, the edges the merge
    added that it took out."""

    removed: int = 0


def _merge_record(record: BackupRecord) -> dict[str, Any]:
    merge = record.selection.get("merge")
    if not isinstance(merge, dict) or not isinstance(merge.get("edges"), list):
        raise InvalidInputError(
            f"{record.path} is a merge backup without its merge record",
            hint="Restore merges from the backups memexplorer wrote for them.",
        )
    return merge


def _facts_table(tables: list[SavedTable], name: str) -> SavedTable:
    for table in tables:
        if table.name == name:
            return table
    raise InvalidInputError(f"The merge backup holds no saved {name} rows")


def _expected(saved: SavedTable, changes: list[PlannedChange]) -> dict[str, dict[str, Any]]:
    """Each fact's row as the merge left it: the saved row with its changes made."""
    rows = {str(row["memory_id"]): dict(row) for row in saved.rows}
    for change in changes:
        rows[change.memory_id][change.column] = change.after
    return rows


def _check_facts(store: Path, now: list[dict[str, Any]], expected: dict[str, dict]) -> None:
    found = {str(row["memory_id"]): row for row in now}
    for memory_id, row in expected.items():
        if memory_id not in found:
            raise StoreChangedError(
                store, f"Fact {memory_id} the merge touched is gone, so the store changed "
                "since the merge; nothing was undone",
            )  # fmt: skip
        for column, value in row.items():
            if found[memory_id].get(column) != value:
                raise StoreChangedError(
                    store, f"Fact {memory_id}'s {column} is {found[memory_id].get(column)!r}, "
                    f"not {value!r} as the merge left it, so the store changed since the "
                    "merge; nothing was undone",
                )  # fmt: skip


def _undo_graph(store: Path, merge: dict[str, Any], tables: list[SavedTable]) -> dict:
    edges = [PlannedEdge.from_dict(e) for e in merge["edges"]]
    changes = [PlannedChange.from_dict(c) for c in merge.get("changes", [])]
    saved = _facts_table(tables, "SemanticMemory")
    expected = _expected(saved, changes)
    with open_graph_store(store, read_only=False) as graph, graph.transaction():
        _check_facts(store, save_nodes(graph, saved.name, list(expected)).rows, expected)
        for edge in edges:
            delete_graph_edge(graph, store, edge)
        if changes:
            replace_nodes(graph, saved)
    return _counts(edges, changes)


def _restore_sequence(
    connection: SqliteConnection, store: Path, merge: dict[str, Any], ids: list[int]
) -> None:
    """AUTOINCREMENT's counter back where it was, unless a row was added after ours."""
    if not ids:
        return
    now = sqlite_sequence(connection, "SUPERSEDES")
    if now != max(ids):
        raise StoreChangedError(
            store, f"supersedes_edges gave out id {now} after the merge's last ({max(ids)}), "
            "so the store changed since the merge; nothing was undone",
        )  # fmt: skip
    before = merge.get("sqlite_sequence")
    if before is None:
        connection.execute(f"DELETE FROM {SEQUENCE_TABLE} WHERE name = 'supersedes_edges'")
    else:
        connection.execute(
            f"UPDATE {SEQUENCE_TABLE} SET seq = ? WHERE name = 'supersedes_edges'", (int(before),)
        )


def _undo_sqlite(store: Path, merge: dict[str, Any], tables: list[SavedTable]) -> dict:
    edges = [PlannedEdge.from_dict(e) for e in merge["edges"]]
    changes = [PlannedChange.from_dict(c) for c in merge.get("changes", [])]
    saved = _facts_table(tables, SEMANTIC_TABLE)
    expected = _expected(saved, changes)
    with sqlite_writer(store) as connection:
        now = save_rows(connection, SEMANTIC_TABLE, "memory_id", list(expected)).rows
        _check_facts(store, now, expected)
        ids = [delete_sqlite_edge(connection, store, edge) for edge in edges]
        _restore_sequence(connection, store, merge, ids)
        if changes:
            replace_rows(connection, saved)
    return _counts(edges, changes)


def _counts(edges: list[PlannedEdge], changes: list[PlannedChange]) -> dict[str, MergeRestore]:
    """Facts whose values were put back, and per rel the edges taken out."""
    counts = {"facts": MergeRestore(replaced=len({c.memory_id for c in changes}))}
    for edge in edges:
        before = counts.get(edge.rel, MergeRestore())
        counts[edge.rel] = MergeRestore(removed=before.removed + 1)
    return counts


def undo_merge(record: BackupRecord, tables: list[SavedTable]) -> dict[str, TableRestore]:
    """Take back the merge this backup records (the caller holds the write gate)."""
    merge = _merge_record(record)
    if record.restored:
        raise InvalidInputError(
            f"This merge was undone already, at {record.restored_at}: {record.path}",
            hint="`memexplorer duplicates AGENT` shows the facts as they are now.",
        )
    if record.engine == "sqlite":
        return _undo_sqlite(record.store, merge, tables)
    return _undo_graph(record.store, merge, tables)
