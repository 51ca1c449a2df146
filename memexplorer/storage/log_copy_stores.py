"""The stores read from a private copy: at the last checkpoint, or with the log replayed.

See :mod:`.writer_log` for why. They are apart from it so that finding out
whether a store has such a log (every read-only open asks) does not load the
LadybugDB driver.
"""

from __future__ import annotations

import secrets
import shutil
import tempfile
from pathlib import Path
from typing import Any

from memexplorer.storage.atomic_files import copy_to_private_file
from memexplorer.storage.exceptions import StoreLockedError
from memexplorer.storage.ladybug_store import LadybugStore
from memexplorer.storage.memory_budget import DEFAULT_LIMITS, EngineLimits
from memexplorer.storage.worker_process import WorkerRuntime
from memexplorer.storage.writer_log import UnreplayableLog, held_by_a_writer

__all__ = ["CheckpointStore", "ReplayedLogStore"]


class _PrivateCopyStore(LadybugStore):
    """A store opened read-only on a private (0700) copy of its file (and of a log,
    given one) in a folder of its own, deleted on close. ``path`` names the real
    store, which is never opened."""

    def __init__(self, store: Path, prefix: str, log: Path | None, **options: Any) -> None:
        # Named before it is made, so a ctrl+c just after mkdir still removes it
        # (mkdtemp, stopped between its mkdir and its return, left it behind).
        self.folder = Path(tempfile.gettempdir(), f"{prefix}{secrets.token_hex(8)}")
        copy = self.folder / store.name
        try:
            self.folder.mkdir(mode=0o700)
            copy_to_private_file(store, copy, sync=False)
            if log is not None:
                copy_to_private_file(log, copy.with_name(copy.name + ".wal"), sync=False)
            super().__init__(copy, read_only=True, **options)
        except FileExistsError:  # the name was taken: not ours to remove
            raise
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

    def __init__(self, found: UnreplayableLog, *, limits: EngineLimits = DEFAULT_LIMITS) -> None:
        super().__init__(
            found.store, "memexplorer-checkpoint-", None, storage_version=found.found, limits=limits
        )
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
        limits: EngineLimits = DEFAULT_LIMITS,
    ) -> None:
        if held_by_a_writer(store):
            raise StoreLockedError(
                store, f"A {runtime.package} writer of storage version {storage_version} "
                "holds this store",
            )  # fmt: skip
        super().__init__(
            store, "memexplorer-replay-", log, storage_version=storage_version, runtime=runtime,
            limits=limits,
        )  # fmt: skip
        self.replayed_log = log
