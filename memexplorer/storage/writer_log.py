"""A LadybugDB store whose writer, an older ladybug, stopped without closing.

The writer leaves ``<store>.wal``, a log of the writes made since the last
checkpoint; the release that wrote it replays the log on the next open. The
installed ladybug cannot replay a log of an older storage version (it calls
it "Corrupted wal file"), yet nothing is damaged, and a restore from a backup
would throw the agent's last writes away. So such a store is named for what
it is, by one exception raised in one place (:func:`~.graph_open.open_graph_store`),
and read at its last checkpoint: the file alone, copied into a private
temporary folder, so neither the file nor its log changes by a byte
(:mod:`.log_copy_stores`; finding the log here loads no engine).
"""

from __future__ import annotations

import fcntl
import os
from dataclasses import dataclass
from pathlib import Path

from memexplorer.storage.exceptions import StoreLockedError, UnreplayableLogError
from memexplorer.storage.storage_versions import (
    LADYBUG_PINNED,
    LADYBUG_WRITES,
    ladybug_release,
    newest_writer,
)
from memexplorer.storage.stores import StoreFormat

__all__ = ["UnreplayableLog", "held_by_a_writer", "unreplayable_log"]


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
        from memexplorer.storage.engine_cache import add_command

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


def held_by_a_writer(path: Path) -> bool:
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
    if held_by_a_writer(fmt.path):
        raise StoreLockedError(
            fmt.path,
            f"A ladybug writer of storage version {fmt.storage_version} holds this store",
        )
    return UnreplayableLog(fmt.path, log, size, fmt.storage_version, LADYBUG_WRITES)
