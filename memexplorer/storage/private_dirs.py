"""Folders and files only their owner can read: exports, imports, migrations,
backups and the stores themselves hold an agent's whole memory."""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

__all__ = ["AGENT_FOLDERS", "enforce_private_store", "make_private_dirs"]

#: The spec's folder of per-agent folders (``<home>/hierarchical_memory/<agent>/``).
AGENT_FOLDERS = "hierarchical_memory"
_SIDECARS = (".wal", ".shadow")


def make_private_dirs(folder: Path) -> None:
    """Create ``folder`` and its missing parents as 0o700 (``mkdir(parents=True)``
    would give the parents the umask's mode). A dangling symlink is not created over."""
    missing = []
    current = folder
    while not current.exists() and not current.is_symlink():
        missing.append(current)
        current = current.parent
    for path in reversed(missing):
        path.mkdir(mode=0o700)


def _tighten(path: Path, mode: int) -> None:
    """chmod ``path`` to ``mode`` if it is ours, not a link, and looser than that."""
    with contextlib.suppress(FileNotFoundError):
        info = os.stat(path, follow_symlinks=False)
        if stat.S_ISLNK(info.st_mode) or info.st_uid != os.geteuid():
            return
        if stat.S_IMODE(info.st_mode) & ~mode:
            os.chmod(path, stat.S_IMODE(info.st_mode) & mode)


def enforce_private_store(store: Path) -> None:
    """Seed 002's file permissions, checked whenever the engine opens a store to write
    it: the store file and its log 0o600, and the agent's folder
    (``hierarchical_memory/<agent>/``) 0o700. Only what this user owns is changed;
    a folder outside that layout (``--storage-path /some/where``) is the operator's
    and is left alone, and so is every store opened only to read."""
    if store.is_file():
        for suffix in ("", *_SIDECARS):
            _tighten(store.with_name(store.name + suffix), 0o600)
    if store.parent.parent.name == AGENT_FOLDERS:
        _tighten(store.parent, 0o700)
