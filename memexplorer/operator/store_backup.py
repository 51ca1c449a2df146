"""Whole-store backups, for changes no list of rows can describe: an operator's own
Cypher or SQL write in the console may touch any table, so the store file itself is
saved before it runs and put back on restore.

The backup is an ordinary backup folder (``backups.py``: manifest, an empty
``rows.json``, written whole or not at all, listed by ``memexplorer backups``) that
also holds ``store.<engine>``, a consistent copy of the store taken through the
app's own read-write handle: kuzu checkpoints first, so the file alone holds every
committed change; SQLite copies through its online backup API.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memexplorer import __version__
from memexplorer.memory.inspection import open_graph
from memexplorer.operator.backup_records import (
    BACKUP_FORMAT,
    BackupError,
    BackupRecord,
    backups_folder,
    record_from_manifest,
    write_backup_folder,
)
from memexplorer.operator.browse import GraphBrowser, SqliteBrowser, StoreBrowser
from memexplorer.operator.transfer_files import copy_into_private_file
from memexplorer.operator.write_gate import write_gate
from memexplorer.storage.atomic_files import create_private_file, replace_file
from memexplorer.storage.exceptions import InvalidInputError
from memexplorer.storage.sqlite_db import SqliteError, open_sqlite
from memexplorer.storage.stores import stage_path

__all__ = ["FILE_MODE", "restore_store_file", "write_closed_store_backup", "write_store_backup"]

#: The manifest's restore_mode of a whole-store backup.
FILE_MODE = "file"
#: Kuzu files written beside a store; a stale one would be replayed over a restored file.
_KUZU_SIDECARS = (".wal", ".shadow")


def _copy_graph(browser: GraphBrowser, target: Path) -> None:
    graph = browser.graph
    if graph.read_only:
        raise InvalidInputError(f"{browser.path} is open read-only: nothing to back up for")
    graph.execute("CHECKPOINT")
    copy_into_private_file(Path(browser.path), target)


def _copy_sqlite(browser: SqliteBrowser, target: Path) -> None:
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.close(fd)
    copy = open_sqlite(target)
    try:
        browser.connection.backup(copy)
    finally:
        copy.close()


def _write_backup(
    home: str | Path, store: Path, engine: str, *, action: str, kind: str,
    selection: dict[str, Any] | None, copy: Callable[[Path], None],
) -> BackupRecord:  # fmt: skip
    """A backup folder holding ``copy``'s copy of the store, written whole or not at all."""
    now = datetime.now(UTC)
    short = uuid.uuid4().hex[:8]
    name = f"{now.strftime('%Y%m%dT%H%M%S%fZ')}-{action}-{short}"
    manifest = {
        "format": BACKUP_FORMAT, "id": short, "action": action,
        "store": str(Path(store).absolute()), "kind": kind, "engine": engine,
        "agents": [], "selection": selection or {}, "counts": {},
        "restore_mode": FILE_MODE, "file": f"store.{engine}", "created_at": now.isoformat(),
        "memexplorer_version": __version__,
    }  # fmt: skip
    rows = json.dumps({"tables": []}).encode()
    try:
        path = write_backup_folder(
            home, name, manifest, rows, fill=lambda staging: copy(staging / manifest["file"])
        )
    except (OSError, SqliteError) as exc:
        folder = backups_folder(home)
        raise BackupError(f"Could not copy the store into {folder} ({exc})") from None
    return record_from_manifest(path, manifest, None)


def write_store_backup(
    home: str | Path,
    browser: StoreBrowser,
    *,
    action: str,
    kind: str,
    selection: dict[str, Any] | None = None,
) -> BackupRecord:
    """Save a copy of the whole store ``browser`` has open read-write, before a
    change. Raises BackupError (nothing saved, nothing changed) when it cannot."""
    if isinstance(browser, GraphBrowser):
        engine = browser.graph.engine

        def copy(target: Path) -> None:
            _copy_graph(browser, target)
    elif isinstance(browser, SqliteBrowser):
        engine = "sqlite"

        def copy(target: Path) -> None:
            _copy_sqlite(browser, target)
    else:
        raise InvalidInputError(f"Cannot back up {browser.path}")
    return _write_backup(home, Path(browser.path), engine, action=action, kind=kind,
                         selection=selection, copy=copy)  # fmt: skip


def write_closed_store_backup(
    home: str | Path, store: Path, *, engine: str, kind: str, action: str
) -> BackupRecord:
    """Save a copy of a graph store no handle may write, byte for byte, before a
    change that would rewrite it (opening an older LadybugDB store for writing
    upgrades its file). A write-ahead log beside it means a writer holds or left
    changes not yet in the file: then nothing is copied and the caller is told."""
    wal = store.with_name(store.name + ".wal")
    if wal.exists():
        raise BackupError(
            f"{wal} exists: a process is writing to {store} or left changes in its log; "
            "a copy of the file alone would miss them, so nothing was backed up",
            hint="Stop the agent (or let it close the store), then try again.",
        )

    def copy(target: Path) -> None:
        copy_into_private_file(store, target)

    return _write_backup(home, store, engine, action=action, kind=kind, selection=None,
                         copy=copy)  # fmt: skip


def restore_store_file(record: BackupRecord, manifest: dict[str, Any]) -> None:
    """Put the saved copy back in place of the store.

    Inside the store's write gate (reentrant: :func:`~.backups.restore_backup` holds
    it already). A kuzu store must not be open in this process (the app closes its
    browser first); opening it read-write here fails with StoreLockedError while another
    process holds it, and then nothing is changed. SQLite restores through its
    backup API, in one transaction, under the store's write lock.
    """
    saved = record.path / str(manifest.get("file", ""))
    if not saved.is_file() or saved.parent != record.path:
        raise BackupError(f"The store copy is missing from {record.path}")
    store = record.store
    with write_gate(store, action="restore") as ticket:
        if record.engine == "sqlite":
            source, target = open_sqlite(saved), open_sqlite(store, wait_s=2.0)
            try:
                source.backup(target)
            finally:
                source.close()
                target.close()
            return
        open_graph(store, read_only=False).close()  # refused while another process holds it
        ticket.accept_changes()  # that open may checkpoint; from here nothing else may write
        temporary = stage_path(store, "restore", uuid.uuid4().hex[:8])

        def last_check() -> None:
            ticket.ensure_unchanged()
            for suffix in _KUZU_SIDECARS:
                store.with_name(store.name + suffix).unlink(missing_ok=True)

        try:
            # Created 0600 first: copyfile keeps the mode of a file it overwrites.
            os.close(create_private_file(temporary))
            shutil.copyfile(saved, temporary)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
        # The store keeps its own permission bits.
        mode = stat.S_IMODE(store.stat().st_mode)
        replace_file(temporary, store, mode=mode, before_replace=last_check)
