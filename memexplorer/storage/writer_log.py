"""A LadybugDB store whose writer, an older ladybug, stopped without closing.

The writer leaves ``<store>.wal``, a log of the writes made since the last
checkpoint; the release that wrote it replays the log on the next open. The
installed ladybug cannot replay a log of an older storage version (it calls
it "Corrupted wal file"), yet nothing is damaged, and a restore from a backup
would throw the agent's last writes away. So such a store is named for what
it is, by one exception raised in one place (:func:`~.graph_open.open_graph_store`),
and read at its last checkpoint: the file alone, copied into a private
temporary folder, so neither the file nor its log changes by a byte.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memexplorer.storage.engine_cache import add_command
from memexplorer.storage.exceptions import StoreLockedError, UnreplayableLogError
from memexplorer.storage.ladybug_store import LadybugStore
from memexplorer.storage.storage_versions import (
    LADYBUG_PINNED,
    LADYBUG_WRITES,
    ladybug_release,
    newest_writer,
)
from memexplorer.storage.stores import StoreFormat
from memexplorer.storage.worker_process import WorkerRuntime

__all__ = ["CheckpointStore", "ReplayedLogStore", "UnreplayableLog", "unreplayable_log"]


@dataclass(frozen=True)
class UnreplayableLog:
    """The store, its log, and the storage versions that keep the log from replaying."""

    store: Path
    log: Path
    log_bytes: int
    found: int
    installed: int

    @property
    def story(self) -> str:
        """What happened, the same words everywhere."""
        return (
            f"A writer stopped without closing; its log ({self.log.name}, {self.log_bytes:,} "
            f"bytes) was written by ladybug storage version {self.found}, which the installed "
            f"ladybug {LADYBUG_PINNED} (storage version {self.installed}) cannot replay"
        )

    @property
    def note(self) -> str:
        """What a reader of the checkpoint is shown (app banner, stats, audit)."""
        return f"read at its last checkpoint; {self.log_bytes:,} bytes of log not replayed"

    @property
    def add_command(self) -> str:
        """The command that installs the release that replays this log."""
        return add_command("ladybug", newest_writer("ladybug", self.found) or "")

    def to_dict(self) -> dict[str, object]:
        return {
            "log": str(self.log), "log_bytes": self.log_bytes,
            "log_storage_version": self.found, "installed_storage_version": self.installed,
        }  # fmt: skip

    def error(self) -> UnreplayableLogError:
        return UnreplayableLogError(
            self.store,
            self.story,
            found=self.found,
            installed=self.installed,
            log_bytes=self.log_bytes,
            hint=(
                "The store is not damaged: do not restore it from a backup, the log holds the "
                "agent's last writes. memexplorer reads it at its last checkpoint, read-only, "
                f"and writes nothing to it. To keep the logged writes, open it once with "
                f"{ladybug_release(self.found)} (restart the agent that wrote it), which "
                "replays the log; nothing was changed. To read the logged writes here: "
                f"{self.add_command}."
            ),
        )


def _held_by_a_writer(path: Path) -> bool:
    """Whether a live process holds ladybug's lock on the file (a writer still running)."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        fcntl.lockf(descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(descriptor)  # closing drops the probe's lock
    return False


def unreplayable_log(fmt: StoreFormat) -> UnreplayableLog | None:
    """The log the installed ladybug cannot replay, if this store has one.

    Raises :class:`StoreLockedError` when the older writer is still running:
    its log is live, not left behind.
    """
    if fmt.engine != "ladybug" or fmt.layout != "file" or fmt.storage_version is None:
        return None
    if fmt.storage_version >= LADYBUG_WRITES:
        return None
    log = fmt.path.with_name(fmt.path.name + ".wal")
    try:
        size = log.stat().st_size
    except FileNotFoundError:
        return None
    if size == 0:
        return None
    if _held_by_a_writer(fmt.path):
        raise StoreLockedError(
            fmt.path,
            f"A ladybug writer of storage version {fmt.storage_version} holds this store",
        )
    return UnreplayableLog(fmt.path, log, size, fmt.storage_version, LADYBUG_WRITES)


class _PrivateCopyStore(LadybugStore):
    """A store opened read-only on a private (0700) copy of its file (and of a log,
    given one) in a folder of its own, deleted on close. ``path`` names the real
    store, which is never opened."""

    def __init__(self, store: Path, prefix: str, log: Path | None, **options: Any) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix=prefix))
        copy = self.folder / store.name
        try:
            shutil.copyfile(store, copy)
            if log is not None:
                shutil.copyfile(log, copy.with_name(copy.name + ".wal"))
            super().__init__(copy, read_only=True, **options)
        except BaseException:
            shutil.rmtree(self.folder, ignore_errors=True)
            raise
        self.path = store
        #: The file actually open (the private copy): what another reader opens too.
        self.opened_path = copy

    def close(self) -> None:
        try:
            super().close()
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)


class CheckpointStore(_PrivateCopyStore):
    """The store read at its last checkpoint: a private copy of the file without
    its log; ``unreplayed_log`` says what was left out."""

    def __init__(
        self, found: UnreplayableLog, *, buffer_pool_size: int | None = None, max_db_size: int = 0
    ) -> None:
        super().__init__(
            found.store, "memexplorer-checkpoint-", None, storage_version=found.found,
            buffer_pool_size=buffer_pool_size, max_db_size=max_db_size,
        )  # fmt: skip
        self.unreplayed_log = found


class ReplayedLogStore(_PrivateCopyStore):
    """The store with its log replayed by the release that wrote it: the file and
    its log copied privately, opened by a cached release of the store's storage
    version; ``replayed_log`` says which log was read."""

    def __init__(
        self,
        store: Path,
        log: Path,
        runtime: WorkerRuntime,
        storage_version: int,
        *,
        buffer_pool_size: int | None = None,
        max_db_size: int = 0,
    ) -> None:
        if _held_by_a_writer(store):
            raise StoreLockedError(
                store, f"A {runtime.package} writer of storage version {storage_version} "
                "holds this store",
            )  # fmt: skip
        super().__init__(
            store, "memexplorer-replay-", log, storage_version=storage_version, runtime=runtime,
            buffer_pool_size=buffer_pool_size, max_db_size=max_db_size,
        )  # fmt: skip
        self.replayed_log = log
