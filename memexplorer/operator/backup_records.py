"""Backup folders on disk: where they live, their manifest, reading them back, and
the record of what a restore did.

The part of backups that writers of a backup (:mod:`.backups` for saved rows,
:mod:`.store_backup` for a whole-store copy) and its readers share, apart from
restore, so restore can use both writers without a circle of imports.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memexplorer.operator.saved_rows import SavedTable
from memexplorer.storage.atomic_files import atomic_file, publish_folder, write_new_file
from memexplorer.storage.exceptions import InvalidInputError, MemoryError
from memexplorer.storage.private_dirs import make_private_dirs

__all__ = [
    "BACKUP_FORMAT",
    "MANIFEST",
    "RESTORED",
    "ROWS",
    "BackupError",
    "BackupRecord",
    "BadBackupError",
    "RestoreResult",
    "TableRestore",
    "backups_folder",
    "list_backups",
    "mark_restored",
    "private_backups_dirs",
    "read_backup",
    "read_manifest",
    "record_from_manifest",
    "write_backup_folder",
]

BACKUP_FORMAT = 1
MANIFEST, ROWS, RESTORED = "manifest.json", "rows.json", "restored.json"


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


def private_backups_dirs(folder: Path) -> None:
    """Create ``folder`` and missing parents as 0o700; a symlink is refused."""
    make_private_dirs(folder)
    if folder.is_symlink():
        raise BackupError(f"The backups folder is a symbolic link, which is not followed: {folder}")


def write_backup_folder(
    home: str | Path,
    name: str,
    manifest: dict[str, Any],
    rows: bytes,
    fill: Callable[[Path], None] | None = None,
) -> Path:
    """Write the backup folder ``<home>/backups/<name>`` whole or not at all.

    A hidden 0o700 staging folder gets ``fill``'s files (a store copy), then
    ``rows.json`` and ``manifest.json`` (0o600, synced), and is renamed into
    place (:func:`~.atomic_files.publish_folder`); any failure removes it and
    is raised as it came, for the caller to word.
    """
    folder = backups_folder(home)
    staging = folder / f".{name}.tmp"
    private_backups_dirs(folder)
    try:
        staging.mkdir(mode=0o700)
        if fill is not None:
            fill(staging)
        write_new_file(staging / ROWS, rows)
        write_new_file(staging / MANIFEST, json.dumps(manifest, indent=2).encode())
        publish_folder(staging, folder / name)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return folder / name


def record_from_manifest(
    path: Path, manifest: dict[str, Any], restored_at: str | None
) -> BackupRecord:
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


def mark_restored(path: Path, details: dict[str, Any]) -> None:
    """Note in backup ``path`` that what it saved was put back (a restore, an undo),
    when and how: the Backups list then says so."""
    marker = {"restored_at": datetime.now(UTC).isoformat(), **details}
    with atomic_file(path / RESTORED, temporary=path / f".{RESTORED}.tmp") as out:
        out.write(json.dumps(marker, indent=2).encode())


def _restored_at(path: Path) -> str | None:
    marker = path / RESTORED
    if not marker.is_file():
        return None
    data = _read_json(marker)
    return str(data.get("restored_at")) if isinstance(data, dict) else None


def read_manifest(path: Path) -> dict[str, Any]:
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
            records.append(record_from_manifest(entry, read_manifest(entry), _restored_at(entry)))
        except BadBackupError:
            continue
    return sorted(records, key=lambda r: (r.created_at, r.id))


def read_backup(path: str | Path) -> tuple[BackupRecord, list[SavedTable]]:
    """A backup's record and its saved tables."""
    path = Path(path).expanduser()
    if not path.is_dir():
        raise BadBackupError(f"No backup folder at {path}")
    manifest = read_manifest(path)
    data = _read_json(path / ROWS)
    try:
        tables = [SavedTable.from_json(t) for t in data["tables"]]
    except (KeyError, TypeError, ValueError) as exc:
        raise BadBackupError(f"{path / ROWS} is damaged ({exc})") from None
    return record_from_manifest(path, manifest, _restored_at(path)), tables
