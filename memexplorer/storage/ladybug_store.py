"""LadybugDB behind the storage seam, through a worker process.

kuzu and ladybug cannot share a Python process, so :class:`LadybugStore` runs
ladybug in :mod:`.ladybug_worker` and forwards each call over a pipe. It
implements :class:`~.graph_store.GraphStore` exactly as
:class:`~.graphdb.KuzuStore` does (same rows, same errors), so nothing above
the seam knows which engine holds a store. Idle workers are kept for the
next store this process opens: starting one (Python and ladybug) costs about
0.3 s, a call about 0.1 ms.
"""

from __future__ import annotations

import importlib.util
import pickle
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa

from memexplorer.storage.exceptions import (
    EngineWorkerError,
    MemoryError,
    StoreUpgradeRequired,
    UnsupportedEngineError,
)
from memexplorer.storage.graph_store import (
    GraphStoreBase,
    QueryError,
    copy_statement,
    translate_open_error,
    translate_query_error,
)
from memexplorer.storage.ladybug_worker import ARROW, ERROR, VALUE
from memexplorer.storage.memory_budget import DEFAULT_LIMITS, EngineLimits
from memexplorer.storage.storage_versions import LADYBUG_INSTALL, LADYBUG_PINNED, ladybug_release
from memexplorer.storage.worker_process import (
    PINNED_LADYBUG,
    WorkerGone,
    WorkerRuntime,
    cached_worker,
    give_back,
    take_worker,
)

__all__ = ["LadybugStore", "installed_ladybug", "ladybug_installed"]


def ladybug_installed() -> bool:
    """Whether the ``ladybug`` package can be found (without importing it:
    this process may hold kuzu, and the two cannot be loaded together)."""
    try:
        return importlib.util.find_spec("ladybug") is not None
    except (ImportError, ValueError):
        return False


def installed_ladybug() -> tuple[str, int] | None:
    """The installed ladybug's release and the storage version it writes, asked of a
    worker (None when ladybug is missing or does not load)."""
    if not ladybug_installed():
        return None
    worker = take_worker()
    if worker.hello is None:
        return None  # the worker has stopped itself
    hello = worker.hello
    give_back(worker)
    return hello


def _missing(path: Path, found: int | None, why: str) -> UnsupportedEngineError:
    return UnsupportedEngineError(
        path,
        f"This is a LadybugDB store (storage version {found}); {why}",
        hint=f"Install ladybug {LADYBUG_PINNED}, which reads it: {LADYBUG_INSTALL}.",
    )


class LadybugStore(GraphStoreBase):
    """A LadybugDB file, opened read-only unless asked otherwise.

    Never upgrades a store as a side effect: opening read-only leaves the file
    exactly as it is, whatever its storage version. ladybug rewrites a store
    to its own storage version as soon as it opens it for writing, after which
    the release that wrote the store cannot open it; so a read-write open of a
    store whose version differs from the installed ladybug's raises
    :class:`StoreUpgradeRequired` (with ``found`` and ``installed``) unless
    ``allow_upgrade`` is set. A caller that sets it should ask the operator
    first and keep a backup of the file. ``storage_version`` is the version
    read from the header (None for a new store).

    With a ``runtime`` of a cached release (:mod:`.engine_cache`) the worker runs
    that release instead, kuzu or ladybug, read-only only: ``engine`` is then the
    runtime's package, and ``read_by`` names the release.
    """

    engine = "ladybug"

    def __init__(
        self,
        path: str | Path,
        *,
        read_only: bool = True,
        storage_version: int | None = None,
        limits: EngineLimits = DEFAULT_LIMITS,
        allow_upgrade: bool = False,
        runtime: WorkerRuntime = PINNED_LADYBUG,
    ) -> None:
        super().__init__(path, read_only=read_only)
        self._gone: EngineWorkerError | None = None
        #: Which release reads the store (``"ladybug 0.17.1"``), for stats and the tree.
        self.read_by = runtime.label
        #: The interpreter that has that release (console queries run under it too).
        self.python = runtime.python
        #: Read by a release from the engine cache (read-only), not memexplorer's own.
        self.read_by_cache = not runtime.pinned
        #: The log a cached release replayed on a private copy (see writer_log).
        self.replayed_log: Path | None = None
        if not runtime.pinned:
            self.engine = runtime.package
            worker = cached_worker(self.path, runtime, storage_version, read_only)
        elif not ladybug_installed():
            raise _missing(self.path, storage_version, "the 'ladybug' package is not installed")
        else:
            worker = take_worker()
        if worker.hello is None:
            raise _missing(
                self.path, storage_version, f"the 'ladybug' package cannot be loaded "
                f"({worker.import_error})"
            )  # fmt: skip
        self.ladybug_version, installed = worker.hello
        #: The storage version the installed ladybug writes (a new store gets it).
        self.installed_storage_version = installed
        try:
            if runtime.pinned:
                self._check_version(storage_version, installed, allow_upgrade)
        except MemoryError:
            give_back(worker)
            raise
        self.storage_version = storage_version if read_only and storage_version else installed
        self._worker = worker
        try:
            kind, payload = worker.call(
                "open", str(self.path), read_only, limits.pool(read_only), limits.max_db_size,
                limits.max_threads,
            )  # fmt: skip
        except WorkerGone:
            raise self._stopped() from None
        if kind == ERROR:
            give_back(worker)
            raise translate_open_error(
                self.path, pickle.loads(payload)[1], self.engine, read_only=read_only
            )
        self._closed = False

    def _check_version(self, found: int | None, installed: int, allow_upgrade: bool) -> None:
        if found is None or found == installed:
            return
        if found > installed:
            raise UnsupportedEngineError(
                self.path,
                f"This LadybugDB store has storage version {found}; the installed "
                f"ladybug {self.ladybug_version} reads versions up to {installed}",
                hint=f"Open it with {ladybug_release(found)} (pip install 'ladybug>=…').",
            )
        if not self.read_only and not allow_upgrade:
            raise StoreUpgradeRequired(
                self.path,
                f"Opening this store for writing would rewrite it from storage version "
                f"{found} to {installed} (ladybug {self.ladybug_version}), and "
                f"{ladybug_release(found)}, which wrote it, could no longer open it",
                found=found,
                installed=installed,
                hint=(
                    "Reading needs no upgrade. To write, switch the store to writing in the "
                    "app (w): it asks first and saves a copy of the file before upgrading."
                ),
            )

    # -- calls -------------------------------------------------------------------
    def _stopped(self) -> EngineWorkerError:
        """The worker died: this store is unusable from now on."""
        self._closed = True
        if self._gone is None:
            words = self._worker.last_words()
            self._worker.stop()
            self._gone = EngineWorkerError(self.path, f"The LadybugDB process stopped ({words})")
        return self._gone

    def _call(self, op: str, *args: Any, what: str = "a query") -> Any:
        with self._lock:
            if self._gone is not None:
                raise self._gone
            if self._closed:
                raise QueryError(f"The store is closed: {self.path}")
            try:
                kind, payload = self._worker.call(op, *args)
            except WorkerGone:
                raise self._stopped() from None
        if kind == VALUE:
            return pickle.loads(payload)
        if kind == ARROW:
            import pyarrow as pa

            return pa.ipc.open_stream(pa.py_buffer(payload)).read_all()
        raise translate_query_error(self.path, pickle.loads(payload)[1], self.engine, what)

    def rows(
        self, cypher: str, params: dict[str, Any] | None = None, *, reuse: bool = False
    ) -> list[list[Any]]:
        """Run a parameterised query and return every row. ``reuse`` is kept for
        the protocol: the worker's ladybug reuses every parameterised statement."""
        result = self._call("rows", cypher, params)
        if isinstance(result, list):
            return result
        columns = [column.to_pylist() for column in result.columns]
        return [list(row) for row in zip(*columns, strict=True)]

    def execute(
        self, cypher: str, params: dict[str, Any] | None = None, *, reuse: bool = False
    ) -> None:
        self._call("execute", cypher, params)

    def arrow(self, cypher: str, params: dict[str, Any] | None = None) -> pa.Table:
        """Run a parameterised query and return its rows as one Arrow table."""
        return self._call("arrow", cypher, params, 10_000)

    def rows_capped(
        self, cypher: str, cap: int, *, timeout_ms: int
    ) -> tuple[list[str], list[list[Any]], bool]:
        """Column names, at most ``cap`` rows, and whether more were left unread;
        ladybug stops the query after ``timeout_ms`` (the console's operator text)."""
        names, rows, more = self._call("capped", cypher, cap, timeout_ms)
        return names, rows, more

    def copy_arrow(self, table: str, data: pa.Table, pair: tuple[str, str] | None = None) -> None:
        """Bulk-insert an Arrow table (see KuzuStore.copy_arrow), sent as an IPC stream."""
        import pyarrow as pa

        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, data.schema) as writer:
            writer.write_table(data)
        query = copy_statement(table, "$memexplorer_rows", pair)
        self._call("copy", query, sink.getvalue().to_pybytes(), what=f"a bulk insert into {table}")

    # -- lifecycle (interrupt and close: GraphStoreBase) -----------------------------
    def _interrupt_engine(self) -> None:
        self._worker.interrupt()

    def _release(self) -> None:
        """Close the database; the worker waits, idle, for the next store."""
        try:
            kind, _ = self._worker.call("close")
        except WorkerGone:
            self._worker.stop()
            return
        if kind == VALUE:
            give_back(self._worker)
        else:
            self._worker.stop()
