"""Which release reads a graph store: memexplorer's own, or the one that wrote it.

The header's storage version names the releases that write it
(:mod:`.storage_versions`). The pinned releases read what they can without
changing a byte: kuzu 0.11.3 its own version 39, ladybug 0.22.0 every
LadybugDB version from 40 to 49, but replays only its own log. Everything
else (an older kuzu, a folder-layout kuzu, a log an older ladybug left
behind) is read by a release of the store's own storage version from
memexplorer's engine cache (:mod:`.engine_cache`), read-only. Without one,
:attr:`StoreReader.add_command` is the command that installs it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from memexplorer.storage.storage_versions import (
    KUZU_RELEASE,
    LADYBUG_PINNED,
    LADYBUG_READS,
    LADYBUG_WRITES,
    newest_writer,
    written_by,
)
from memexplorer.storage.stores import KUZU_STORAGE_VERSION, StoreFormat

if TYPE_CHECKING:
    from memexplorer.storage.worker_process import WorkerRuntime

__all__ = ["StoreReader", "store_log", "store_reader"]


@dataclass(frozen=True)
class StoreReader:
    """Who wrote a graph store and who reads it.

    ``runtime`` is set when a cached release reads it (None: the pinned release,
    or nobody); ``read_by`` is None when nothing at hand reads it;
    ``add_command`` is set when the release that wrote it is not cached and would
    read the store (or its log) where the pinned release does not."""

    written_by: str
    read_by: str | None
    add_command: str | None = None
    runtime: WorkerRuntime | None = None

    @property
    def pinned(self) -> bool:
        """Read by memexplorer's own release, as it is."""
        return self.runtime is None and self.read_by is not None and not self.add_command

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {"written_by": self.written_by, "read_by": self.read_by}
        if self.add_command:
            data["add_command"] = self.add_command
        return data


def store_log(fmt: StoreFormat) -> Path | None:
    """The write-ahead log a writer left beside a single-file store (None: none, or empty)."""
    if fmt.layout != "file":
        return None
    log = fmt.path.with_name(fmt.path.name + ".wal")
    try:
        return log if log.stat().st_size > 0 else None
    except OSError:
        return None


def _pinned_reads(fmt: StoreFormat) -> tuple[bool, str]:
    """Whether the pinned release reads this store whole, and the words for it."""
    version = fmt.storage_version
    if fmt.engine == "kuzu":
        fits = fmt.layout == "file" and version == KUZU_STORAGE_VERSION
        return fits, f"kuzu {KUZU_RELEASE}"
    from memexplorer.storage.ladybug_store import ladybug_installed  # LadybugDB stores only

    label = f"ladybug {LADYBUG_PINNED}"
    if fmt.layout != "file" or not ladybug_installed() or version not in LADYBUG_READS:
        return False, label
    if version is not None and version < LADYBUG_WRITES and store_log(fmt) is not None:
        return False, f"{label}, at its last checkpoint"
    return True, label


def store_reader(fmt: StoreFormat) -> StoreReader | None:
    """Who wrote this graph store and what reads it (None for SQLite)."""
    if fmt.engine not in ("kuzu", "ladybug"):
        return None
    package, version = fmt.engine, fmt.storage_version
    wrote = written_by(package, version)
    whole, pinned_label = _pinned_reads(fmt)
    if whole:
        return StoreReader(wrote, pinned_label)
    # the pinned ladybug reads an older store at its checkpoint, not its log
    partial = pinned_label if pinned_label.endswith("checkpoint") else None
    if package == "ladybug" and fmt.layout != "file":
        return StoreReader(wrote, None)  # folder-layout LadybugDB: no release reads it here
    from memexplorer.storage.engine_cache import add_command, cached_engine  # not for pinned reads

    cached = cached_engine(package, version)
    if cached is not None:
        from memexplorer.storage.worker_process import WorkerRuntime

        runtime = WorkerRuntime(package, str(cached.python), cached.release)
        return StoreReader(wrote, runtime.label, runtime=runtime)
    newest = newest_writer(package, version)
    own = newest in (KUZU_RELEASE, LADYBUG_PINNED)  # the extra is missing: pip, not the cache
    command = add_command(package, newest) if newest and not own else None
    return StoreReader(wrote, partial, command)
