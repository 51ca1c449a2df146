"""Open any graph store with the engine its header names.

Every graph store the engine opens goes through :func:`open_graph_store`:
the header (see :mod:`.stores`) says Kuzu or LadybugDB, and the store comes
back as a :class:`~.graph_store.GraphStore` either way. A store no installed
engine can open is refused before any engine sees it, with the package and
release that can, and the command that installs it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from memexplorer.storage.exceptions import (
    CheckpointInProgressError,
    StoreNotFoundError,
    UnsupportedEngineError,
)
from memexplorer.storage.graph_store import GraphStore
from memexplorer.storage.graphdb import KuzuStore
from memexplorer.storage.memory_budget import EngineLimits
from memexplorer.storage.private_dirs import make_private_dirs
from memexplorer.storage.storage_versions import (
    LADYBUG_INSTALL,
    LADYBUG_PINNED,
    LADYBUG_READS,
    ladybug_release,
)
from memexplorer.storage.store_readers import store_log, store_reader
from memexplorer.storage.stores import StoreFormat, require_kuzu_readable, sniff
from memexplorer.storage.writer_log import unreplayable_log

if TYPE_CHECKING:
    from memexplorer.storage.worker_process import WorkerRuntime

__all__ = ["open_graph_store", "require_graph_readable", "require_replayable"]


def require_graph_readable(fmt: StoreFormat) -> None:
    """Raise a clear error unless an installed engine can open this graph store: the
    pinned release, or a release of the store's storage version in the engine cache.
    A refusal names the command that installs the release that reads it."""
    reader = store_reader(fmt)
    if reader is not None and reader.runtime is not None:
        return
    command = reader.add_command if reader is not None else None
    try:
        _require_pinned_reads(fmt)
    except UnsupportedEngineError as refused:
        if not command:
            raise
        raise UnsupportedEngineError(
            fmt.path,
            refused.message.removesuffix(f": {fmt.path}"),
            hint=_with_command(refused.hint, command),
            add_command=command,
        ) from None


def _with_command(hint: str, command: str) -> str:
    added = f"add the release that wrote it, and memexplorer reads the store with it: {command}"
    return f"{hint} Or {added}." if hint else f"To read it, {added}."


def _require_pinned_reads(fmt: StoreFormat) -> None:
    if fmt.engine != "ladybug":
        require_kuzu_readable(fmt)
        return
    from memexplorer.storage.ladybug_store import ladybug_installed  # kuzu stores never need it

    version = fmt.storage_version
    if fmt.layout == "directory":
        raise UnsupportedEngineError(
            fmt.path, "This is a folder-layout LadybugDB database; only single-file stores open"
        )
    if not ladybug_installed():
        raise UnsupportedEngineError(
            fmt.path,
            f"This is a LadybugDB store (storage version {version}); kuzu cannot open it "
            "and the 'ladybug' package is not installed",
            hint=f"Install ladybug {LADYBUG_PINNED}, which reads LadybugDB storage versions "
            f"{LADYBUG_READS.start} to {LADYBUG_READS.stop - 1}: {LADYBUG_INSTALL}.",
        )
    if version is not None and version < LADYBUG_READS.start:
        raise UnsupportedEngineError(
            fmt.path,
            f"This LadybugDB store has storage version {version}, older than any "
            f"ladybug release memexplorer knows (they read {LADYBUG_READS.start} and up)",
            hint=f"Open it with {ladybug_release(version)}.",
        )


def require_replayable(fmt: StoreFormat) -> None:
    """Raise :class:`~.exceptions.UnreplayableLogError` when an older ladybug writer
    stopped without closing this store (see :mod:`.writer_log`): the one place the
    error comes from, for every write (open for writing, or rewrite the file)."""
    left_behind = unreplayable_log(fmt)
    if left_behind is not None:
        raise left_behind.error()


def open_graph_store(
    path: str | Path,
    *,
    read_only: bool = True,
    create: Literal["kuzu", "ladybug"] | None = None,
    allow_upgrade: bool = False,
    buffer_pool_size: int | None = None,
    max_db_size: int = 0,
    max_threads: int = 0,
    lend: bool = False,
) -> GraphStore:
    """Open the Kuzu or LadybugDB store at ``path`` (read-only by default).
    ``max_threads`` bounds the engine's threads (0: one per core); a store read
    through a cached release ignores it. ``lend``: a Kuzu store opened read-write
    for as long as the operator keeps it (the app's writing mode) serves this
    process's read-only opens of the same file (see :mod:`.database_leases`).

    A missing path is created with the ``create`` engine ("kuzu" or
    "ladybug") when ``read_only`` is off and ``create`` is given; otherwise it
    raises :class:`~.exceptions.StoreNotFoundError`.

    Never upgrades a store: a read-write open of a LadybugDB store whose
    storage version differs from the installed ladybug's raises
    :class:`~.exceptions.StoreUpgradeRequired` unless ``allow_upgrade`` is set;
    callers that set it ask the operator first and keep a backup (see
    :class:`~.ladybug_store.LadybugStore`). Kuzu stores are always version 39.

    A store of another storage version than the pinned releases read, or whose
    older writer stopped without closing (a log the installed ladybug cannot
    replay, see :mod:`.writer_log`), opens read-only through the release of its
    storage version in the engine cache (:mod:`.store_readers`), which replays
    such a log on a private copy. Without that release, such a LadybugDB store
    opens read-only at its last checkpoint, with ``unreplayed_log`` set; any
    write open raises :class:`~.exceptions.UnreplayableLogError`, the one story
    told everywhere.
    """
    path = Path(path)
    limits = EngineLimits(buffer_pool_size, max_db_size, max_threads)
    fmt: StoreFormat | None = None
    if path.exists() or path.is_symlink():
        fmt = sniff(path)
        reader = store_reader(fmt)
        if reader is not None and reader.runtime is not None:
            if not read_only:
                require_replayable(fmt)  # the one story for a crashed writer's store
            return _open_cached(fmt, reader.runtime, read_only, limits)
        require_graph_readable(fmt)
        engine = fmt.engine
        if not read_only:
            require_replayable(fmt)
        elif (left_behind := unreplayable_log(fmt)) is not None:
            from memexplorer.storage.log_copy_stores import CheckpointStore

            return CheckpointStore(left_behind, limits=limits)
    elif read_only or create is None:
        raise StoreNotFoundError(path, "No store at this path")
    else:
        engine = create
        make_private_dirs(path.parent)
    store = _waiting_for_checkpoints(
        read_only,
        partial(_open_once, path, engine, fmt, read_only, allow_upgrade, limits, lend),
    )
    if fmt is None and path.is_file():
        path.chmod(0o600)  # a store this call created: private before any row is in it
    return store


def _open_cached(
    fmt: StoreFormat, runtime: WorkerRuntime, read_only: bool, limits: EngineLimits
) -> GraphStore:
    """Read a store with a cached release of its storage version: a log a writer left
    is replayed on a private copy (never on the store); otherwise the store itself
    is opened read-only. Writing is refused (see ``cached_worker``). The release
    runs on as many threads as it likes: ``max_threads`` is not passed on."""
    from memexplorer.storage.ladybug_store import LadybugStore
    from memexplorer.storage.log_copy_stores import ReplayedLogStore

    log = store_log(fmt)
    version = fmt.storage_version or 0
    limits = replace(limits, max_threads=0)
    if log is not None and read_only:
        return ReplayedLogStore(fmt.path, log, runtime, version, limits=limits)
    return LadybugStore(
        fmt.path, read_only=read_only, storage_version=version, runtime=runtime, limits=limits
    )


#: How long a read-only open waits for a writer's checkpoint to finish (it takes
#: milliseconds; a writer that stopped midway leaves it unfinished for good).
CHECKPOINT_WAIT_S = 3.0


def _waiting_for_checkpoints(read_only: bool, open_once: Callable[[], GraphStore]) -> GraphStore:
    """``open_once()``; a read-only open that meets a checkpoint under way (a writer
    closing the store: an undo, the agent itself) tries again until the checkpoint
    is over or CHECKPOINT_WAIT_S has passed."""
    deadline = time.monotonic() + CHECKPOINT_WAIT_S
    while True:
        try:
            return open_once()
        except CheckpointInProgressError:
            if not read_only or time.monotonic() >= deadline:
                raise
            time.sleep(0.05)


def _open_once(
    path: Path,
    engine: str,
    fmt: StoreFormat | None,
    read_only: bool,
    allow_upgrade: bool,
    limits: EngineLimits,
    lend: bool = False,
) -> GraphStore:
    if engine == "ladybug":
        from memexplorer.storage.ladybug_store import LadybugStore  # loaded for LadybugDB only

        return LadybugStore(
            path,
            read_only=read_only,
            storage_version=fmt.storage_version if fmt else None,
            limits=limits,
            allow_upgrade=allow_upgrade,
        )
    return KuzuStore(path, read_only=read_only, limits=limits, lend=lend)
