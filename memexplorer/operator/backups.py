"""Backups of exactly what a destructive action removes or changes, and restore.

Each backup is a folder ``<home>/backups/<timestamp>-<action>-<short id>/``
(0o700) holding ``manifest.json`` (what store, kind, engine, agents, the
selection, counts per table, when, which memexplorer) and ``rows.json`` (every
column of every row, and the edges touching them), both 0o600. The folder is
written under a hidden temporary name, synced, and renamed into place, so a
backup either exists whole or not at all; callers delete nothing until
:func:`write_backup` has returned. Restore writes the rows back in one
transaction (nodes, then edges) and leaves ``restored.json`` beside them,
inside the store's write gate (:mod:`.write_gate`), so it never interleaves with
another memexplorer writer.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from memexplorer import __version__
from memexplorer.operator.backup_records import (
    BACKUP_FORMAT,
    BackupError,
    BackupRecord,
    RestoreResult,
    TableRestore,
    backups_folder,
    mark_restored,
    read_backup,
    read_manifest,
    record_from_manifest,
    write_backup_folder,
)
from memexplorer.operator.graph_rows_write import insert_edges, insert_nodes, replace_nodes
from memexplorer.operator.saved_rows import SavedTable
from memexplorer.operator.sqlite_rows import insert_rows, rebuild_fts, replace_rows
from memexplorer.operator.write_gate import write_gate
from memexplorer.storage.exceptions import InvalidInputError, StoreNotFoundError
from memexplorer.storage.graph_open import open_graph_store
from memexplorer.storage.sqlite_writer import sqlite_writer

__all__ = [
    "restore_backup",
    "write_backup",
]

RestoreMode = Literal["insert", "replace", "merge"]
_ACTION = re.compile(r"^[a-z][a-z0-9-]{0,31}$")


def write_backup(
    home: str | Path,
    *,
    action: str,
    store: str | Path,
    kind: str,
    engine: str,
    tables: Iterable[SavedTable],
    agents: Iterable[str] = (),
    selection: dict[str, Any] | None = None,
    restore_mode: RestoreMode = "insert",
) -> BackupRecord:
    """Write one backup of ``tables`` (what is about to be removed or changed).

    ``restore_mode`` says what restore does with a row whose key exists again:
    "insert" (after a deletion) reports it and leaves it; "replace" (after a
    change such as redaction) puts the saved values back; "merge" takes a merge
    back (:mod:`.merge_undo`). Raises
    :class:`BackupError` and leaves no backup folder when anything fails.
    """
    if not _ACTION.match(action):
        raise InvalidInputError(f"Not a valid backup action name: {action!r}")
    saved = list(tables)
    now = datetime.now(UTC)
    short = uuid.uuid4().hex[:8]
    name = f"{now.strftime('%Y%m%dT%H%M%S%fZ')}-{action}-{short}"
    manifest = {
        "format": BACKUP_FORMAT,
        "id": short,
        "action": action,
        "store": str(Path(store).absolute()),
        "kind": kind,
        "engine": engine,
        "agents": sorted(set(agents)),
        "selection": selection or {},
        "counts": {t.name: len(t.rows) for t in saved},
        "restore_mode": restore_mode,
        "created_at": now.isoformat(),
        "memexplorer_version": __version__,
    }
    try:
        rows = json.dumps({"tables": [t.to_json() for t in saved]}).encode()
        path = write_backup_folder(home, name, manifest, rows)
    except (OSError, TypeError, ValueError) as exc:
        folder = backups_folder(home)
        raise BackupError(f"Could not write the backup in {folder} ({exc})") from None
    return record_from_manifest(path, manifest, None)


def _put_back(
    store: Any,
    saved: SavedTable,
    mode: str,
    replace: Callable[[Any, SavedTable], tuple[int, int]],
    insert: Callable[[Any, SavedTable], tuple[int, int]],
) -> TableRestore:
    """One saved table back into ``store`` (an open graph or connection): in mode
    "replace" the saved values go back on rows that exist and missing rows are
    inserted; otherwise only missing rows are inserted."""
    if mode == "replace":
        replaced, inserted = replace(store, saved)
        return TableRestore(restored=inserted, replaced=replaced)
    inserted, there = insert(store, saved)
    return TableRestore(restored=inserted, already_there=there)


def _restore_graph(store: Path, tables: list[SavedTable], mode: str) -> dict[str, TableRestore]:
    out: dict[str, TableRestore] = {}
    with open_graph_store(store, read_only=False) as graph, graph.transaction():
        for saved in (t for t in tables if t.kind == "node"):
            out[saved.name] = _put_back(graph, saved, mode, replace_nodes, insert_nodes)
        for saved in (t for t in tables if t.kind == "rel"):
            inserted, there, missing = insert_edges(graph, saved)
            out[saved.name] = TableRestore(inserted, there, missing)
    return out


def _restore_sqlite(store: Path, tables: list[SavedTable], mode: str) -> dict[str, TableRestore]:
    out: dict[str, TableRestore] = {}
    with sqlite_writer(store) as connection:
        for saved in tables:
            out[saved.name] = _put_back(connection, saved, mode, replace_rows, insert_rows)
        rebuild_fts(connection, [t.name for t in tables])
    return out


def restore_backup(backup_path: str | Path) -> RestoreResult:
    """Bring a backup's rows back into its store, in one transaction.

    Rows whose key exists again are counted as already there (or, for a
    backup of changed rows, get their saved values back); edges whose
    endpoint no longer exists are counted and skipped. Raises StoreBusyError
    while another memexplorer process writes the store, WritesDisabledError
    under MEMEXPLORER_READ_ONLY=1; then nothing is written.
    """
    record, tables = read_backup(backup_path)
    manifest = read_manifest(record.path)
    store = record.store
    if not store.exists():
        raise StoreNotFoundError(store, "The store this backup came from is not there")
    mode = str(manifest.get("restore_mode", "insert"))
    with write_gate(store, action="restore"):
        if mode == "file":
            # A whole-store copy: loaded only when needed (it brings the browsers).
            from memexplorer.operator.store_backup import restore_store_file

            restore_store_file(record, manifest)
            counts: dict[str, TableRestore] = {}
        elif mode == "merge":
            from memexplorer.operator.merge_undo import undo_merge

            counts = undo_merge(record, tables)
        elif record.engine == "sqlite":
            counts = _restore_sqlite(store, tables, mode)
        else:
            counts = _restore_graph(store, tables, mode)
    result = RestoreResult(record.path, store, counts, whole_store=mode == "file")
    mark_restored(record.path, result.to_dict())
    return result
