"""Say what a path is before anything opens it.

A store is a Kuzu file (``KUZU`` magic + storage version), a LadybugDB file
(``LBUG``), an SQLite file, or an old directory-layout Kuzu database. Reading
the header first lets us name the engine a file needs instead of handing the
operator a raw engine message, and guarantees we never ask kuzu to open (and
possibly rewrite) a file it does not understand.
"""

from __future__ import annotations

import os
import re
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

from memexplorer.storage.exceptions import (
    NotAStoreError,
    StoreNotFoundError,
    UnsupportedEngineError,
)

__all__ = [
    "KUZU_STORAGE_VERSION",
    "StageKind",
    "StoreFormat",
    "empty_folder",
    "find_stores",
    "require_kuzu_readable",
    "resolve_hierarchical_path",
    "sniff",
    "stage_path",
]

Engine = Literal["kuzu", "ladybug", "sqlite"]

#: The storage version kuzu 0.11.x writes and reads.
KUZU_STORAGE_VERSION = 39

_SQLITE_MAGIC = b"SQLite format 3\x00"
_SIDECAR_SUFFIXES = (
    "-wal",
    "-shm",
    "-journal",
    ".wal",
    ".shadow",
    ".lock",
    ".tmp",
    ".memexplorer-lock",
)
_OLD_KUZU_MARKERS = ("catalog.kz", "data.kz")
#: Folder names searched for stores (skip caches and our own backups).
#: Not searched for stores; "backups" holds memexplorer's own backups (whole-store copies
#: among them), which are not live stores.
_SKIP_DIRS = {"__pycache__", ".git", "node_modules", "backups"}
#: The writes that build a private copy beside a store (``.kuzu_db.import-PID``):
#: one a killed writer left is half built, never a store of the home.
StageKind = Literal["import", "migrate", "compact", "restore"]
_STAGE_DIR = re.compile(rf"\..+\.({'|'.join(get_args(StageKind))})-[0-9a-f]+")


def stage_path(store: Path, kind: StageKind, tag: str) -> Path:
    """The private copy a write of ``kind`` builds beside ``store``; ``tag`` (the
    writer's pid, or random hex) tells writers apart. :func:`find_stores` passes
    over these names (``*`` as ``tag`` makes the glob of them all)."""
    return store.with_name(f".{store.name}.{kind}-{tag}")


@dataclass(frozen=True)
class StoreFormat:
    """What the bytes on disk say a store is."""

    path: Path
    engine: Engine
    storage_version: int | None
    layout: Literal["file", "directory"] = "file"

    @property
    def label(self) -> str:
        version = f" (storage version {self.storage_version})" if self.storage_version else ""
        names = {"kuzu": "Kuzu", "ladybug": "LadybugDB", "sqlite": "SQLite"}
        return f"{names[self.engine]}{version}"


def _read_header(path: Path) -> bytes:
    try:
        with path.open("rb") as handle:
            return handle.read(16)
    except PermissionError:
        raise NotAStoreError(
            path, "Cannot read this file", hint="Run as a user who can read it."
        ) from None


def _graph_header(path: Path, header: bytes) -> StoreFormat | None:
    if len(header) >= 12 and header[:4] in (b"KUZU", b"LBUG"):
        (version,) = struct.unpack_from("<Q", header, 4)
        engine: Engine = "kuzu" if header[:4] == b"KUZU" else "ladybug"
        return StoreFormat(path, engine, int(version))
    return None


def sniff(path: str | Path) -> StoreFormat:
    """Identify the store at ``path`` from its header, without opening it."""
    path = Path(path)
    if not path.exists() and not path.is_symlink():
        raise StoreNotFoundError(path, "No such file or folder")
    if path.is_dir():
        for marker in _OLD_KUZU_MARKERS:
            candidate = path / marker
            if candidate.is_file():
                found = _graph_header(candidate, _read_header(candidate))
                engine: Engine = found.engine if found else "kuzu"
                version = found.storage_version if found else None
                return StoreFormat(path, engine, version, "directory")
        raise NotAStoreError(path, "This folder is not a database")
    if path.exists() and not path.is_file():  # reading a FIFO's header would wait forever
        raise NotAStoreError(path, "Not a regular file (a pipe, socket or device)")
    header = _read_header(path)
    if not header:
        raise NotAStoreError(path, "The file is empty")
    found = _graph_header(path, header)
    if found:
        return found
    if header.startswith(_SQLITE_MAGIC):
        return StoreFormat(path, "sqlite", None)
    raise NotAStoreError(path, "Not a Kuzu, LadybugDB or SQLite file (unknown header)")


def require_kuzu_readable(fmt: StoreFormat) -> None:
    """Raise a clear error unless kuzu 0.11.3 can open this store."""
    if fmt.engine == "ladybug":
        raise UnsupportedEngineError(
            fmt.path,
            f"This is a LadybugDB store (storage version {fmt.storage_version}); "
            "kuzu cannot open it",
            hint="LadybugDB stores need the 'ladybug' package: pip install 'memexplorer[ladybug]'.",
        )
    if fmt.engine != "kuzu":
        raise UnsupportedEngineError(fmt.path, f"This is an {fmt.label} file, not a Kuzu store")
    if fmt.layout == "directory":
        raise UnsupportedEngineError(
            fmt.path,
            "This is a directory-layout Kuzu database (written by kuzu 0.10 or older); "
            "kuzu 0.11.3 reads only single-file stores",
            hint="Export it with the kuzu version that wrote it, then import the export.",
        )
    if fmt.storage_version != KUZU_STORAGE_VERSION:
        raise UnsupportedEngineError(
            fmt.path,
            f"This Kuzu store has storage version {fmt.storage_version}; "
            f"kuzu 0.11.3 reads version {KUZU_STORAGE_VERSION} only",
            hint="Open it with the Kuzu release that wrote it, or export and re-import it.",
        )


def resolve_hierarchical_path(db_path: str | Path, *, new_name: str = "kuzu_db") -> Path:
    """Where a HierarchicalMemory database lives for a given ``db_path``.

    A folder holding ``graph_db`` uses it (seed 002 prefers it; an empty
    ``graph_db`` folder does not count), else its
    ``ladybug_db`` (what the reference library writes since it moved to
    LadybugDB), else its ``kuzu_db``; a folder that is itself an old Kuzu
    database (or holds amplihack-rs's ``kuzu.lock``) is used as is; any other
    folder gets a new ``new_name`` inside,
    as the reference library does. A file path (or a path that does not exist
    yet) is the database.
    """
    path = Path(db_path)
    if not path.is_dir():
        return path
    for name in ("graph_db", "ladybug_db", "kuzu_db"):
        if (path / name).exists() and not empty_folder(path / name):
            return path / name
    if any((path / m).exists() for m in ("lock", "kuzu.lock", *_OLD_KUZU_MARKERS)):
        return path
    return path / new_name


def empty_folder(path: Path) -> bool:
    """amplihack-rs ``is_dir_empty``: a folder with no entries (not a file, not
    missing). An empty folder is no store: amplihack-rs reads ``kuzu_db`` over an
    empty ``graph_db`` folder left by a failed run (transfer/paths.rs)."""
    try:
        with os.scandir(path) as entries:
            return next(entries, None) is None
    except OSError:
        return False


def _is_candidate(path: Path) -> bool:
    name = path.name
    return not name.endswith(_SIDECAR_SUFFIXES) and not name.startswith(".")


def find_stores(root: str | Path, *, max_depth: int = 6) -> list[StoreFormat]:
    """Every store at or under ``root`` (a store, an agent folder or a home).

    Symlinks are not followed, so a link can never lead the search (or a later
    write) outside the tree the operator named. Files that are not stores are
    skipped silently; a missing root raises.
    """
    root = Path(root)
    if not root.exists():
        raise StoreNotFoundError(root, "No such file or folder")
    if root.is_file():
        return [sniff(root)]
    try:
        return [sniff(root)]
    except NotAStoreError:
        pass
    found: list[StoreFormat] = []
    base_depth = len(root.parts)
    for folder, dirs, files in os.walk(root, followlinks=False):
        here = Path(folder)
        keep = []
        for name in sorted(dirs):
            sub = here / name
            if name in _SKIP_DIRS or _STAGE_DIR.fullmatch(name) or sub.is_symlink():
                continue
            if any((sub / marker).is_file() for marker in _OLD_KUZU_MARKERS):
                found.append(sniff(sub))
                continue
            keep.append(name)
        dirs[:] = keep if len(here.parts) - base_depth < max_depth else []
        for name in sorted(files):
            candidate = here / name
            if candidate.is_symlink() or not _is_candidate(candidate):
                continue
            try:
                found.append(sniff(candidate))
            except NotAStoreError:
                continue
    return sorted(found, key=lambda f: str(f.path))
