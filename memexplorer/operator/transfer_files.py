"""Files that appear whole or not at all, private from their first byte.

Every file a transfer writes is created 0o600 (``O_EXCL``, before a byte is in
it) under a temporary name, filled, synced and renamed over its target; a
failure or a cancel removes the temporary file, and a full disk becomes a
:class:`~.exceptions.FileWriteError` naming the file. Imports build the new
store in a stage folder (0o700) beside the store, so even a file the database
engine creates there is unreachable by anyone else while it is built.
"""

from __future__ import annotations

import errno
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from memexplorer.storage.atomic_files import (
    atomic_file,
    copy_to_private_file,
    create_private_file,
    fsync_folder,
    replace_file,
)
from memexplorer.storage.exceptions import FileWriteError, StorePermissionError
from memexplorer.storage.private_dirs import make_private_dirs
from memexplorer.storage.progress import TaskControl, checkpoint
from memexplorer.storage.stores import StageKind, stage_path

__all__ = [
    "copy_file_atomically",
    "copy_into_private_file",
    "copy_tree",
    "fsync_folder",
    "keep_bak_copy",
    "remove_stale_stages",
    "stage_folder",
    "write_atomically",
]


@contextmanager
def _writing(path: Path) -> Iterator[None]:
    """Turn an OSError while writing ``path`` into one clear engine error."""
    try:
        yield
    except PermissionError as exc:
        raise StorePermissionError(path, f"Cannot write here ({exc.strerror})") from None
    except OSError as exc:
        reason = "the disk is full" if exc.errno in (errno.ENOSPC, errno.EDQUOT) else exc.strerror
        raise FileWriteError(path, f"Could not write the file ({reason})") from None


def _private_file(path: Path) -> int:
    """Create ``path`` 0o600 (a leftover of a killed run is replaced); return its fd."""
    path.unlink(missing_ok=True)
    return create_private_file(path)


def write_atomically(
    target: Path, write: Callable[[TextIO], None], control: TaskControl | None = None
) -> None:
    """Let ``write`` fill a temporary 0o600 file, then rename it over ``target``: the
    file is whole or absent, and a cancel (checked while writing) leaves it absent."""
    temporary = target.with_name(target.name + ".tmp")
    with _writing(target):
        make_private_dirs(target.parent)
        with atomic_file(
            target,
            text=True,
            temporary=temporary,
            before_replace=lambda: checkpoint(control, "putting the file in place"),
        ) as handle:
            write(handle)


def copy_into_private_file(source: Path, target: Path, control: TaskControl | None = None) -> None:
    """Copy ``source`` into a new 0o600 ``target`` (mode set before the first byte;
    a leftover of a killed run is replaced), synced; ``control`` may cancel between
    pieces. The caller removes ``target`` on failure."""
    with _writing(target):
        target.unlink(missing_ok=True)
        copy_to_private_file(
            source, target,
            before_piece=lambda done, size: checkpoint(
                control, "copying the store", done, size, "bytes"
            ),
        )  # fmt: skip


def copy_file_atomically(source: Path, target: Path, control: TaskControl | None = None) -> None:
    """Copy ``source`` to ``target``, whole or not at all."""
    temporary = target.with_name(target.name + ".tmp")
    try:
        copy_into_private_file(source, temporary, control)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    with _writing(target):
        replace_file(temporary, target)


def copy_tree(source: Path, target: Path, warnings: list[str]) -> None:
    """Copy an old folder-layout store, skipping (and naming) symlinks inside; files
    0o600 and folders 0o700. An existing ``target`` is swapped out last."""
    temporary = target.with_name(target.name + ".tmp")
    shutil.rmtree(temporary, ignore_errors=True)
    try:
        with _writing(target):
            temporary.mkdir(mode=0o700)
            for entry in sorted(source.rglob("*")):
                relative = entry.relative_to(source)
                if entry.is_symlink():
                    warnings.append(f"skipped symbolic link {entry}")
                elif entry.is_dir():
                    (temporary / relative).mkdir(mode=0o700, exist_ok=True)
                else:
                    copy_into_private_file(entry, temporary / relative)
            if target.exists():
                old = target.with_name(target.name + ".old")
                shutil.rmtree(old, ignore_errors=True)
                os.replace(target, old)
                os.replace(temporary, target)
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.replace(temporary, target)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise


def keep_bak_copy(store: Path, bak: Path, sidecars: tuple[str, ...]) -> None:
    """Make ``bak`` hold the store as it is (the spec's ``.bak`` sibling), leaving the
    store at its path: a hard link (no bytes copied; the import later renames a
    new file over the store, so the linked file never changes), else a copy."""
    for suffix in ("", *sidecars):
        old = bak.with_name(bak.name + suffix)
        if old.is_dir() and not old.is_symlink():
            shutil.rmtree(old)
        else:
            old.unlink(missing_ok=True)
    with _writing(bak):
        if store.is_dir():
            shutil.copytree(store, bak, symlinks=True, copy_function=os.link)
            return
        try:
            os.link(store, bak)
        except OSError:
            copy_file_atomically(store, bak)


def stage_folder(store: Path) -> Path:
    """A new private folder beside ``store`` for this process's staged copy."""
    remove_stale_stages(store)
    folder = stage_path(store, "import", str(os.getpid()))
    shutil.rmtree(folder, ignore_errors=True)
    with _writing(folder):
        folder.mkdir(mode=0o700)
    return folder


def remove_stale_stages(store: Path, kind: StageKind = "import") -> None:
    """Remove stages left by imports (or ``kind``: migrations) whose process died."""
    for stage in store.parent.glob(stage_path(store, kind, "*").name):
        pid = stage.name.rsplit("-", 1)[-1].split(".", 1)[0]
        if not pid.isdigit() or _process_alive(int(pid)):
            continue
        if stage.is_dir() and not stage.is_symlink():
            shutil.rmtree(stage, ignore_errors=True)
        else:
            stage.unlink(missing_ok=True)


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
