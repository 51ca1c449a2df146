"""Folders only their owner can read: exports, imports, migrations and backups hold
an agent's whole memory."""

from __future__ import annotations

from pathlib import Path

__all__ = ["make_private_dirs"]


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
