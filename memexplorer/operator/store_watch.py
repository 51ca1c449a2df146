"""Which stores changed on disk since the last look: stat calls only, never a read.

An agent may write to a store while the app shows it. The app cannot learn that
from the store itself without reading it (and a kuzu file opened read-only here
is locked against writers anyway), so it compares each store file's size and
modification time, and those of the sidecars a writer touches first: kuzu's
``<file>.wal``, SQLite's ``<file>-wal`` and ``<file>-journal``. Stat calls cost
microseconds, so a check every few seconds is free even for many stores.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["SIDECAR_SUFFIXES", "FileStamp", "StoreWatch", "stamp_store", "store_place"]

#: Files beside a store that a writer changes: kuzu's WAL, SQLite's WAL and journal.
SIDECAR_SUFFIXES = (".wal", "-wal", "-journal")


@dataclass(frozen=True)
class FileStamp:
    size: int
    mtime_ns: int


def _stamp(path: Path) -> FileStamp | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return FileStamp(info.st_size, info.st_mtime_ns)


def stamp_store(path: Path) -> tuple[FileStamp | None, ...]:
    """The store file's stamp and each sidecar's (None where absent).

    An empty sidecar counts as absent: a reader opening a SQLite store in WAL mode
    may create an empty ``-wal`` file, and that is not a write.
    """
    stamps: list[FileStamp | None] = [_stamp(path)]
    for suffix in SIDECAR_SUFFIXES:
        stamp = _stamp(path.with_name(path.name + suffix))
        stamps.append(stamp if stamp is not None and stamp.size else None)
    return tuple(stamps)


class StoreWatch:
    """Remembers each watched store's stamps; :meth:`changed` says which moved."""

    def __init__(self, paths: Iterable[Path] = ()) -> None:
        self._stamps: dict[Path, tuple[FileStamp | None, ...]] = {}
        self.watch(paths)

    @property
    def paths(self) -> list[Path]:
        return list(self._stamps)

    def watch(self, paths: Iterable[Path]) -> None:
        """Watch exactly these stores: new ones start from how they are now, stores
        already watched keep their last look (so a change is not lost to a re-listing),
        stores no longer listed are dropped."""
        wanted = list(dict.fromkeys(paths))
        self._stamps = {
            path: self._stamps[path] if path in self._stamps else stamp_store(path)
            for path in wanted
        }

    def accept(self, paths: Iterable[Path]) -> None:
        """Take these stores as they are now (after the app reloaded them)."""
        for path in paths:
            if path in self._stamps:
                self._stamps[path] = stamp_store(path)

    def changed(self) -> list[Path]:
        """The stores whose files changed since the last look, in watch order."""
        moved = []
        for path, before in self._stamps.items():
            now = stamp_store(path)
            if now != before:
                self._stamps[path] = now
                moved.append(path)
        return moved


def store_place(path: Path, root: Path) -> str:
    """How the stores tree names a store: its last two parts under the root."""
    try:
        parts = path.relative_to(root).parts or (path.name,)
    except ValueError:
        parts = path.parts
    return "/".join(parts[-2:])
