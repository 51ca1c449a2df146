"""Test helpers shared across test folders: checksums and a store held elsewhere."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

HOLDER = (
    "import kuzu, sys; db = kuzu.Database(sys.argv[1], read_only=sys.argv[2] == 'ro'); "
    "print('ready', flush=True); sys.stdin.read()"
)


@contextmanager
def held_by_another_process(path: Path, mode: str) -> Iterator[None]:
    """Another process keeps ``path`` open ("ro" or "rw") until the block ends."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path), mode],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "ready"
        yield
    finally:
        holder.communicate("")


def checksums(root: Path) -> dict[str, str]:
    """sha256 of every file at or under ``root``, by relative path."""
    files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
    return {
        str(p.relative_to(root) if p != root else p.name): hashlib.sha256(
            p.read_bytes()
        ).hexdigest()
        for p in files
    }
