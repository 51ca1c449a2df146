"""Files and folders that appear whole or not at all: the one way memexplorer does it.

A new file is created under a temporary name (``O_EXCL``, private from its first
byte), filled, synced, and renamed over its target; then the folder is synced,
so the rename survives a crash too. A file something else built (a database
engine, SQLite's backup API, a copy) is synced and renamed the same way, and a
folder is synced and renamed into place. A failure at any step removes what
was written under the temporary name and leaves the target as it was.

Errors are the system's own ``OSError``: each caller says what failed in its
own words (a transfer's FileWriteError, the history's HistoryError).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

__all__ = [
    "PRIVATE_FILE",
    "atomic_file",
    "copy_to_private_file",
    "create_private_file",
    "fsync_folder",
    "publish_folder",
    "replace_file",
    "sync_file",
    "write_new_file",
]

#: Readable and writable by the user only: every file memexplorer writes.
PRIVATE_FILE = 0o600
#: A copy goes in pieces this big, so whoever watches it is heard between them.
COPY_PIECE = 64 * 1024 * 1024


def fsync_folder(folder: Path) -> None:
    """Make the names in ``folder`` (a rename, a new file) durable."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def create_private_file(path: Path, mode: int = PRIVATE_FILE) -> int:
    """Create ``path`` with ``mode`` before a byte is in it; refuse an existing file
    or a symbolic link in its place. Returns the open file descriptor."""
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)


def copy_to_private_file(
    source: Path,
    target: Path,
    *,
    before_piece: Callable[[int, int], None] | None = None,
    sync: bool = True,
) -> None:
    """Copy ``source`` into a new ``target`` made private before a byte is in it
    (:func:`create_private_file`), synced unless ``sync`` is off (a scratch copy
    nobody keeps). ``before_piece(done, size)`` is called before each piece of
    :data:`COPY_PIECE` bytes: a cancel raised there stops the copy."""
    out = create_private_file(target)
    try:
        with open(source, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            done = 0
            while True:
                if before_piece is not None:
                    before_piece(done, size)
                sent = os.sendfile(out, handle.fileno(), done, COPY_PIECE)
                if sent == 0:
                    break
                done += sent
        if sync:
            os.fsync(out)
    finally:
        os.close(out)


def write_new_file(path: Path, payload: bytes, mode: int = PRIVATE_FILE) -> None:
    """A new file holding ``payload``, synced: for the files of a folder that is
    then published whole (:func:`publish_folder`), so needs no rename of its own."""
    with os.fdopen(create_private_file(path, mode), "wb") as handle:
        handle.write(payload)
        handle.flush()
        os.fsync(handle.fileno())


def sync_file(path: Path, mode: int | None = None) -> None:
    """Give ``path`` its final ``mode`` (when one is given) and sync its bytes."""
    if mode is not None:
        os.chmod(path, mode)
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())


def replace_file(
    built: Path,
    target: Path,
    *,
    mode: int | None = None,
    before_replace: Callable[[], None] | None = None,
) -> None:
    """Put the finished file ``built`` in place of ``target``, durably.

    ``built`` gets ``mode`` (if given) and is synced; ``before_replace`` runs
    right before the rename (a last check that may still refuse); the folder is
    synced after it. ``built`` is removed if any step fails.
    """
    try:
        sync_file(built, mode)
        if before_replace is not None:
            before_replace()
        os.replace(built, target)
    except BaseException:
        built.unlink(missing_ok=True)
        raise
    fsync_folder(target.parent)


def _temporary_name(target: Path) -> Path:
    """A name beside ``target`` no other writer of it uses."""
    return target.with_name(f".{target.name}.{uuid.uuid4().hex[:12]}.tmp")


@contextmanager
def atomic_file(
    target: Path,
    *,
    text: bool = False,
    mode: int = PRIVATE_FILE,
    temporary: Path | None = None,
    before_replace: Callable[[], None] | None = None,
) -> Iterator[IO[Any]]:
    """Write ``target`` whole or not at all: yields the open temporary file (text
    in UTF-8 with ``text``, else bytes).

    The temporary file (``temporary``, else a unique hidden name beside the
    target; a leftover at a fixed name is replaced) is created with ``mode``;
    when the block ends it is synced and renamed over ``target`` (after
    ``before_replace``, a last check that may still refuse) and the folder
    synced. An error in the block or in any step removes it; ``target`` is then
    as it was.
    """
    if temporary is None:
        temporary = _temporary_name(target)
    else:
        temporary.unlink(missing_ok=True)
    fd = create_private_file(temporary, mode)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") if text else os.fdopen(fd, "wb") as out:
            yield out
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    replace_file(temporary, target, before_replace=before_replace)


def publish_folder(staging: Path, final: Path) -> None:
    """Rename the filled folder ``staging`` to ``final`` (which must not exist),
    syncing its names first and the parent's after: it appears whole or not at all."""
    fsync_folder(staging)
    os.rename(staging, final)
    fsync_folder(final.parent)
