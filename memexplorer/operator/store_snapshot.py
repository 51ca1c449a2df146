"""What a store's files look like on disk (stat only), to notice a writer.

A write that prepares a staged copy and renames it over the store must not
replace changes someone else made meanwhile. The gate takes a snapshot when
it is entered and compares it just before the rename: size, ``mtime_ns`` and
inode of the store and of the sidecars a writer touches first (kuzu's
``.wal`` and ``.shadow``, SQLite's ``-wal`` and ``-journal``). SQLite's
``-shm`` is left out: readers write to it too. A folder-layout store is its
files, one level deep.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["FileState", "StoreSnapshot", "snapshot_store"]

#: Files beside a store that a writer creates or changes.
WRITER_SIDECARS = (".wal", ".shadow", "-wal", "-journal")


@dataclass(frozen=True)
class FileState:
    size: int
    mtime_ns: int
    inode: int


@dataclass(frozen=True)
class StoreSnapshot:
    """Each file's state; a file absent when the snapshot was taken maps to None."""

    files: dict[str, FileState | None]

    def differences(self, now: StoreSnapshot) -> list[str]:
        """What changed from this snapshot to ``now``, in words (empty: nothing)."""
        out = []
        for name in sorted(set(self.files) | set(now.files)):
            before, after = self.files.get(name), now.files.get(name)
            if before == after:
                continue
            if before is None:
                out.append(f"{name} appeared")
            elif after is None:
                out.append(f"{name} disappeared")
            elif before.inode != after.inode:
                out.append(f"{name} was replaced by another file")
            elif before.size != after.size:
                out.append(f"{name} went from {before.size:,} to {after.size:,} bytes")
            else:
                out.append(f"{name} was modified")
        return out


def _state(path: Path) -> FileState | None:
    try:
        info = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    return FileState(info.st_size, info.st_mtime_ns, info.st_ino)


def snapshot_store(store: Path) -> StoreSnapshot:
    """The store's files as they are now (a missing store is recorded as absent)."""
    files: dict[str, FileState | None] = {store.name: _state(store)}
    if store.is_dir() and not store.is_symlink():
        for entry in sorted(os.scandir(store), key=lambda e: e.name):
            files[f"{store.name}/{entry.name}"] = _state(Path(entry.path))
    for suffix in WRITER_SIDECARS:
        sidecar = store.with_name(store.name + suffix)
        files[sidecar.name] = _state(sidecar)
    return StoreSnapshot(files)
