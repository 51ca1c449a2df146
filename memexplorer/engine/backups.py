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
import os
import re
import shutil
import sqlite3
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from memexplorer import __version__

from .exceptions import InvalidInputError, MemoryError, StoreLockedError, StoreNotFoundError
from .graph_open import open_graph_store
from .graph_rows import insert_edges, insert_nodes, replace_nodes
from .private_dirs import make_private_dirs
from .saved_rows import SavedTable
from .sqlite_rows import insert_rows, rebuild_fts, replace_rows
from .transfer_files import fsync_folder
from .write_gate import write_gate

__all__ = [
    "BACKUP_FORMAT",
    "BackupError",
    "BackupRecord",
    "RestoreResult",
    "TableRestore",
    "backups_folder",
    "list_backups",
    "read_backup",
    "restore_backup",
    "write_backup",
]

BACKUP_FORMAT = 1
MANIFEST, ROWS, RESTORED = "manifest.json", "rows.json", "restored.json"
RestoreMode = Literal["insert", "replace", "merge"]
_ACTION = re.compile(r"^[a-z][a-z0-9-]{0,31}$")


class BackupError(MemoryError):
    title = "Backup failed"
    hint = "Nothing was deleted or changed. Make <home>/backups writable (or free space) and retry."


class BadBackupError(InvalidInputError):
    title = "Not a usable backup"
    hint = "Name a folder listed by `memexplorer backups`."


@dataclass(frozen=True)
class BackupRecord:
    """One backup on disk, as `memexplorer backups` lists it."""

    path: Path
    id: str
    created_at: datetime
    action: str
    store: Path
    kind: str
    engine: str
    agents: list[str]
    counts: dict[str, int]
    selection: dict[str, Any] = field(default_factory=dict)
    restored_at: str | None = None
    #: "file": a copy of the whole store, put back as a file; else saved rows.
    restore_mode: str = "insert"

    @property
    def restored(self) -> bool:
        return self.restored_at is not None

    @property
    def whole_store(self) -> bool:
        """A copy of the whole store: restoring it undoes every change made since."""
        return self.restore_mode == "file"

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "id": self.id,
            "created_at": self.created_at.isoformat(),
            "action": self.action,
            "store": str(self.store),
            "kind": self.kind,
            "engine": self.engine,
            "agents": self.agents,
            "counts": self.counts,
            "selection": self.selection,
            "restored": self.restored,
            "restored_at": self.restored_at,
            "whole_store": self.whole_store,
        }


@dataclass(frozen=True)
class TableRestore:
    """What restore did with one table's saved rows."""

    restored: int = 0
    already_there: int = 0
    missing_endpoint: int = 0
    replaced: int = 0


@dataclass(frozen=True)
class RestoreResult:
    backup: Path
    store: Path
    tables: dict[str, TableRestore]
    #: A copy of the whole store was put back (no rows are counted then).
    whole_store: bool = False

    @property
    def restored(self) -> int:
        return sum(t.restored + t.replaced for t in self.tables.values())

    @property
    def already_there(self) -> int:
        return sum(t.already_there for t in self.tables.values())

    @property
    def edges(self) -> int:
        """Of :attr:`restored`, the edges: rel tables are named in capitals."""
        return sum(t.restored + t.replaced for n, t in self.tables.items() if n.isupper())

    def to_dict(self) -> dict[str, Any]:
        return {
            "backup": str(self.backup),
            "store": str(self.store),
            "restored": self.restored,
            "already_there": self.already_there,
            "tables": {name: vars(t) for name, t in self.tables.items()},
        }


def backups_folder(home: str | Path) -> Path:
    return Path(home).expanduser() / "backups"


def _private_dirs(folder: Path) -> None:
    """Create ``folder`` and missing parents as 0o700; a symlink is refused."""
    make_private_dirs(folder)
    if folder.is_symlink():
        raise BackupError(f"The backups folder is a symbolic link, which is not followed: {folder}")


def _write_private(path: Path, payload: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(payload)
        handle.flush()
        os.fsync(handle.fileno())


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
    folder = backups_folder(home)
    staging = folder / f".{name}.tmp"
    try:
        _private_dirs(folder)
        staging.mkdir(mode=0o700)
        rows = json.dumps({"tables": [t.to_json() for t in saved]}).encode()
        _write_private(staging / ROWS, rows)
        _write_private(staging / MANIFEST, json.dumps(manifest, indent=2).encode())
        fsync_folder(staging)
        os.rename(staging, folder / name)
        fsync_folder(folder)
    except (OSError, TypeError, ValueError) as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise BackupError(f"Could not write the backup in {folder} ({exc})") from None
    return _record(folder / name, manifest, None)


def _record(path: Path, manifest: dict[str, Any], restored_at: str | None) -> BackupRecord:
    return BackupRecord(
        path=path,
        id=str(manifest["id"]),
        created_at=datetime.fromisoformat(manifest["created_at"]),
        action=str(manifest["action"]),
        store=Path(manifest["store"]),
        kind=str(manifest["kind"]),
        engine=str(manifest["engine"]),
        agents=list(manifest.get("agents", [])),
        counts=dict(manifest.get("counts", {})),
        selection=dict(manifest.get("selection", {})),
        restored_at=restored_at,
        restore_mode=str(manifest.get("restore_mode", "insert")),
    )


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise BadBackupError(f"Cannot read {path} ({exc})") from None


def _restored_at(path: Path) -> str | None:
    marker = path / RESTORED
    if not marker.is_file():
        return None
    data = _read_json(marker)
    return str(data.get("restored_at")) if isinstance(data, dict) else None


def _manifest(path: Path) -> dict[str, Any]:
    if not (path / MANIFEST).is_file():
        raise BadBackupError(f"No {MANIFEST} in {path}")
    manifest = _read_json(path / MANIFEST)
    needed = ("format", "id", "action", "store", "kind", "engine", "created_at")
    if not isinstance(manifest, dict) or any(key not in manifest for key in needed):
        raise BadBackupError(f"{path / MANIFEST} is not a memexplorer backup manifest")
    if manifest["format"] != BACKUP_FORMAT:
        raise BadBackupError(f"{path} has backup format {manifest['format']}, not {BACKUP_FORMAT}")
    return manifest


def list_backups(home: str | Path) -> list[BackupRecord]:
    """Every readable backup under ``<home>/backups``, oldest first."""
    folder = backups_folder(home)
    if not folder.is_dir():
        return []
    records = []
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith(".") or not entry.is_dir() or entry.is_symlink():
            continue
        try:
            records.append(_record(entry, _manifest(entry), _restored_at(entry)))
        except BadBackupError:
            continue
    return sorted(records, key=lambda r: (r.created_at, r.id))


def read_backup(path: str | Path) -> tuple[BackupRecord, list[SavedTable]]:
    """A backup's record and its saved tables."""
    path = Path(path).expanduser()
    if not path.is_dir():
        raise BadBackupError(f"No backup folder at {path}")
    manifest = _manifest(path)
    data = _read_json(path / ROWS)
    try:
        tables = [SavedTable.from_json(t) for t in data["tables"]]
    except (KeyError, TypeError, ValueError) as exc:
        raise BadBackupError(f"{path / ROWS} is damaged ({exc})") from None
    return _record(path, manifest, _restored_at(path)), tables


def _restore_graph(store: Path, tables: list[SavedTable], mode: str) -> dict[str, TableRestore]:
    out: dict[str, TableRestore] = {}
    with open_graph_store(store, read_only=False) as graph, graph.transaction():
        for saved in (t for t in tables if t.kind == "node"):
            if mode == "replace":
                replaced, inserted = replace_nodes(graph, saved)
                out[saved.name] = TableRestore(restored=inserted, replaced=replaced)
            else:
                inserted, there = insert_nodes(graph, saved)
                out[saved.name] = TableRestore(restored=inserted, already_there=there)
        for saved in (t for t in tables if t.kind == "rel"):
            inserted, there, missing = insert_edges(graph, saved)
            out[saved.name] = TableRestore(inserted, there, missing)
    return out


def _restore_sqlite(store: Path, tables: list[SavedTable], mode: str) -> dict[str, TableRestore]:
    out: dict[str, TableRestore] = {}
    connection = sqlite3.connect(store, timeout=2.0, isolation_level=None)
    try:
        try:
            connection.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise StoreLockedError(
                store, f"Another process is writing this store ({exc})"
            ) from None
        try:
            for saved in tables:
                if mode == "replace":
                    replaced, inserted = replace_rows(connection, saved)
                    out[saved.name] = TableRestore(restored=inserted, replaced=replaced)
                else:
                    inserted, there = insert_rows(connection, saved)
                    out[saved.name] = TableRestore(restored=inserted, already_there=there)
            rebuild_fts(connection, [t.name for t in tables])
        except BaseException:
            connection.execute("ROLLBACK")
            raise
        connection.execute("COMMIT")
    finally:
        connection.close()
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
    manifest = _manifest(record.path)
    store = record.store
    if not store.exists():
        raise StoreNotFoundError(store, "The store this backup came from is not there")
    mode = str(manifest.get("restore_mode", "insert"))
    with write_gate(store, action="restore"):
        if mode == "file":
            # A whole-store copy (store_backup.py imports this module, hence here).
            from .store_backup import restore_store_file

            restore_store_file(record, manifest)
            counts: dict[str, TableRestore] = {}
        elif mode == "merge":
            from .merge_undo import undo_merge

            counts = undo_merge(record, tables)
        elif record.engine == "sqlite":
            counts = _restore_sqlite(store, tables, mode)
        else:
            counts = _restore_graph(store, tables, mode)
    result = RestoreResult(record.path, store, counts, whole_store=mode == "file")
    marker = {"restored_at": datetime.now(UTC).isoformat(), **result.to_dict()}
    temporary = record.path / f".{RESTORED}.tmp"
    temporary.unlink(missing_ok=True)
    _write_private(temporary, json.dumps(marker, indent=2).encode())
    os.replace(temporary, record.path / RESTORED)
    return result
