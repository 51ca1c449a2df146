"""The write gate's lock file: one ``flock`` per store, shared by every process.

The lock is ``fcntl.flock`` on a file beside the store, so the kernel drops it
when its holder exits in any way (SIGKILL included) and the next writer simply
takes it: a stale file is never a stale lock. The file names its holder (PID,
command line, action, start time) as JSON so a refused writer can say who is
writing. It is removed on release while still locked; a writer that opened the
old file in between notices (its open file is no longer the one at the path)
and opens again, so two writers never hold two different files.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shlex
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from memexplorer.storage.exceptions import StoreBusyError, StorePermissionError

__all__ = ["LOCK_SUFFIX", "acquire_lock", "lock_path_for", "read_holder", "release_lock"]

#: Appended to the store's name (a file or a folder) to name its lock file.
LOCK_SUFFIX = ".memexplorer-lock"
#: How long a refused writer waits for a holder that has just taken the lock to
#: finish writing its name into the file.
_HOLDER_WAIT_S = 0.2
_COMMAND_MAX = 300


def lock_path_for(store: Path) -> Path:
    """``<store>.memexplorer-lock`` beside the store (beside a folder-layout store too)."""
    return store.with_name(store.name + LOCK_SUFFIX)


def _command() -> str:
    argv = getattr(sys, "orig_argv", None) or sys.argv
    command = shlex.join(str(part) for part in argv)
    return command if len(command) <= _COMMAND_MAX else command[: _COMMAND_MAX - 1] + "…"


def _holder(store: Path, action: str) -> dict[str, object]:
    return {
        "pid": os.getpid(),
        "command": _command(),
        "action": action,
        "started_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "store": str(store),
    }


def read_holder(lock: Path) -> dict[str, object]:
    """What the lock file says about its holder ({} when it cannot be read)."""
    deadline = time.monotonic() + _HOLDER_WAIT_S
    while True:
        try:
            data = json.loads(lock.read_text(encoding="utf-8"))
            if isinstance(data, dict):
                return data
        except (OSError, ValueError):
            pass
        if time.monotonic() >= deadline:
            return {}
        time.sleep(0.01)  # the holder creates the file before it writes its name in it


def _open(lock: Path, store: Path) -> int:
    try:
        return os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except PermissionError:
        raise StorePermissionError(
            store, f"Cannot create the write lock {lock.name} beside this store"
        ) from None
    except OSError as exc:
        raise StorePermissionError(
            store,
            f"Cannot open the write lock {lock} ({exc.strerror})",
            hint="Make the store's folder writable (and the lock file not a link), then retry.",
        ) from None


def _same_file(fd: int, lock: Path) -> bool:
    try:
        there = os.stat(lock, follow_symlinks=False)
    except FileNotFoundError:
        return False
    here = os.fstat(fd)
    return (there.st_dev, there.st_ino) == (here.st_dev, here.st_ino)


def acquire_lock(store: Path, action: str) -> int:
    """Take the store's lock at once or raise :class:`StoreBusyError`; returns its fd."""
    lock = lock_path_for(store)
    while True:
        fd = _open(lock, store)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise StoreBusyError(store, read_holder(lock)) from None
        if _same_file(fd, lock):
            break
        os.close(fd)  # the previous holder removed this file as we opened it: again
    data = json.dumps(_holder(store, action)).encode()
    try:
        os.fchmod(fd, 0o600)
        # Written first, then cut to length: ext4 flushes a file on close after a
        # truncate to zero (about 4 ms), which this order never does.
        os.pwrite(fd, data, 0)
        os.ftruncate(fd, len(data))
    except OSError:
        release_lock(store, fd)
        raise
    return fd


def release_lock(store: Path, fd: int) -> None:
    """Remove the lock file (still holding it, so no one holds a removed file), unlock."""
    with contextlib.suppress(OSError):
        if _same_file(fd, lock_path_for(store)):
            os.unlink(lock_path_for(store))
    os.close(fd)  # closing the last descriptor drops the flock
