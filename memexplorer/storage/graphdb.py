"""Kuzu behind the storage seam: the only module that imports ``kuzu``.

:class:`KuzuStore` implements :class:`~.graph_store.GraphStore` in process.
LadybugDB stores go through :mod:`.ladybug_store` instead (the two engines
cannot share a process); :func:`~.graph_open.open_graph_store` picks one from
the file header. The protocol and its helpers are re-exported here for the
modules that import them from this one.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa

from memexplorer.storage.database_leases import lease_database
from memexplorer.storage.exceptions import StoreError
from memexplorer.storage.graph_store import (
    DEFAULT_BUFFER_POOL,
    GraphStore,
    GraphStoreBase,
    QueryError,
    RelTable,
    copy_statement,
    identifier,
    literal,
    translate_open_error,
    translate_query_error,
)
from memexplorer.storage.memory_budget import DEFAULT_LIMITS, EngineLimits
from memexplorer.storage.stores import KUZU_STORAGE_VERSION

__all__ = [
    "DEFAULT_BUFFER_POOL",
    "GraphStore",
    "KuzuStore",
    "QueryError",
    "RelTable",
    "identifier",
    "literal",
    "open_kuzu",
]


def _translate(path: Path, exc: Exception, *, read_only: bool = True) -> StoreError:
    """Turn a kuzu RuntimeError raised while opening into an engine error."""
    return translate_open_error(path, str(exc), "kuzu", read_only=read_only)


class KuzuStore(GraphStoreBase):
    """A Kuzu 0.11 database file, opened read-only unless asked otherwise."""

    engine = "kuzu"
    storage_version: int | None = KUZU_STORAGE_VERSION

    def __init__(
        self,
        path: str | Path,
        *,
        read_only: bool = True,
        limits: EngineLimits = DEFAULT_LIMITS,
        lend: bool = False,
    ) -> None:
        """``lend``: a read-write store whose database this process's read-only opens
        of the same file share while it is open (see :mod:`.database_leases`)."""
        import kuzu

        super().__init__(path, read_only=read_only)
        self._prepared: dict[str, Any] = {}
        # Waits while this process writes the store (or, to write, reads it).
        self._lease = lease_database(self.path, read_only=read_only)
        try:
            if self._lease.database is not None:  # the writer's own, on a connection of ours
                self._db = self._lease.database
                self._conn = kuzu.Connection(self._db)
                self._closed = False
                return
            # max_db_size bounds the address space kuzu maps (8 TB by default),
            # which many stores open in one process can exhaust; 0 keeps the default.
            bounds = {"max_db_size": limits.max_db_size} if limits.max_db_size > 0 else {}
            if limits.max_threads > 0:  # 0: kuzu's default, one per core
                bounds["max_num_threads"] = limits.max_threads
            self._db = kuzu.Database(
                str(self.path), read_only=read_only, buffer_pool_size=limits.pool(read_only),
                **bounds,
            )  # fmt: skip
            self._conn = kuzu.Connection(self._db)
        except RuntimeError as exc:
            self._lease.give_back()
            raise _translate(self.path, exc, read_only=read_only) from None
        except BaseException:
            self._lease.give_back()
            raise
        if not read_only:
            self._lease.opened(self._db, lend=lend)
        self._closed = False

    # -- queries -----------------------------------------------------------------
    def _compiled(self, cypher: str) -> Any:
        """A statement compiled once and kept: planning costs about as much as
        running a small write, and store_knowledge repeats the same few writes."""
        statement = self._prepared.get(cypher)
        if statement is None:
            with warnings.catch_warnings():
                # kuzu 0.11 (its last release) marks prepare() deprecated; it
                # still halves the cost of a repeated statement.
                warnings.simplefilter("ignore", DeprecationWarning)
                statement = self._conn.prepare(cypher)
            if not statement.is_success():
                raise QueryError(f"Kuzu refused a query: {statement.get_error_message()}")
            self._prepared[cypher] = statement
        return statement

    def _run(self, cypher: str, params: dict[str, Any] | None, reuse: bool = False) -> Any:
        if self._closed:
            raise QueryError(f"The store is closed: {self.path}")
        try:
            if reuse:
                return self._conn.execute(self._compiled(cypher), params or {})
            return self._conn.execute(cypher, params or {})
        except RuntimeError as exc:
            raise translate_query_error(self.path, str(exc), "kuzu") from None

    def rows(
        self, cypher: str, params: dict[str, Any] | None = None, *, reuse: bool = False
    ) -> list[list[Any]]:
        """Run a parameterised query and return every row (``reuse``: keep the
        compiled statement for the next call with the same text)."""
        with self._lock:
            result = self._run(cypher, params, reuse)
            out: list[list[Any]] = []
            while result.has_next():
                out.append(result.get_next())
            result.close()
            return out

    def execute(
        self, cypher: str, params: dict[str, Any] | None = None, *, reuse: bool = False
    ) -> None:
        with self._lock:
            result = self._run(cypher, params, reuse)
            result.close()

    def copy_arrow(self, table: str, data: pa.Table, pair: tuple[str, str] | None = None) -> None:
        """Bulk-insert an Arrow table whose columns are ``table``'s, in order (a rel's
        two endpoint keys first; ``pair`` names its FROM and TO tables when it has several)."""
        memexplorer_copy_rows = data  # noqa: F841
        with self._lock:
            if self._closed:
                raise QueryError(f"The store is closed: {self.path}")
            try:
                # kuzu finds the Arrow table by its variable name in this frame.
                self._conn.execute(copy_statement(table, "memexplorer_copy_rows", pair))
            except RuntimeError as exc:
                first = str(exc).splitlines()[0]
                more = ("The buffer pool is too small for these rows (a very large value?): "
                        "run again with more memory, e.g. --memory 2G. "
                        if "Buffer manager exception" in first else "")  # fmt: skip
                raise QueryError(
                    f"Kuzu refused a bulk insert into {table}: {first}",
                    hint=f"{more}Store: {self.path}",
                ) from None

    def rows_capped(
        self, cypher: str, cap: int, *, timeout_ms: int
    ) -> tuple[list[str], list[list[Any]], bool]:
        """Column names, at most ``cap`` rows, and whether more were left unread;
        kuzu stops the query after ``timeout_ms`` (the console's operator text)."""
        with self._lock:
            self._conn.set_query_timeout(timeout_ms)
            try:
                result = self._run(cypher, None)
                names = list(result.get_column_names())
                rows: list[list[Any]] = []
                while result.has_next() and len(rows) < cap:
                    rows.append(result.get_next())
                more = result.has_next()
                result.close()
                return names, rows, more
            finally:
                self._conn.set_query_timeout(0)

    def arrow(self, cypher: str, params: dict[str, Any] | None = None) -> pa.Table:
        """Run a parameterised query and return its rows as one Arrow table."""
        with self._lock:
            result = self._run(cypher, params)
            try:
                return result.get_as_arrow(chunk_size=10_000)
            finally:
                result.close()

    # -- lifecycle (interrupt and close: GraphStoreBase) -----------------------------
    def _interrupt_engine(self) -> None:
        self._conn.interrupt()

    def _release(self) -> None:
        self._prepared.clear()
        self._conn.close()
        if self._lease.database is None:  # ours, not a writer's we shared
            if not self.read_only:
                self._lease.closing()  # the threads sharing it are done first
            self._db.close()
        self._lease.give_back()


def open_kuzu(path: str | Path, *, read_only: bool = True) -> KuzuStore:
    """Open a Kuzu store; callers check the file header first (see stores.py)."""
    return KuzuStore(path, read_only=read_only)
