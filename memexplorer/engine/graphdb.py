"""The storage seam: every graph-database call of the engine goes through here.

One small protocol, :class:`GraphStore`, and its Kuzu implementation. A second
engine (LadybugDB) implements the same protocol; nothing above this module
imports ``kuzu``. Raw engine messages never escape: they become errors of the
engine's family that say what happened and what to do.
"""

from __future__ import annotations

import re
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import pyarrow as pa

from .exceptions import (
    CorruptStoreError,
    MemoryError,
    NotAStoreError,
    ReadOnlyStoreError,
    StoreError,
    StoreLockedError,
    StoreNotFoundError,
)

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

#: Buffer pool for each store opened read-only. Kuzu's default reserves 80% of
#: RAM per database, wasteful when an operator opens a whole home at once. A
#: store opened for writing keeps kuzu's default: one transaction (a large
#: import) must fit its uncommitted pages in the pool.
DEFAULT_BUFFER_POOL = 256 * 1024 * 1024


class QueryError(MemoryError):
    title = "Query failed"


@dataclass(frozen=True)
class RelTable:
    name: str
    pairs: tuple[tuple[str, str], ...]

    @property
    def sources(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(src for src, _ in self.pairs))


class GraphStore(Protocol):
    """What the engine needs from a graph database."""

    path: Path
    read_only: bool
    engine: str

    def rows(
        self, cypher: str, params: dict[str, Any] | None = None, *, reuse: bool = False
    ) -> list[list[Any]]: ...

    def execute(
        self, cypher: str, params: dict[str, Any] | None = None, *, reuse: bool = False
    ) -> None: ...

    def transaction(self) -> Any: ...

    def node_tables(self) -> list[str]: ...

    def rel_tables(self) -> dict[str, RelTable]: ...

    def columns(self, table: str) -> list[tuple[str, str]]: ...

    def copy_rows(
        self, table: str, columns: list[tuple[str, str]], rows: list[dict[str, Any]]
    ) -> bool: ...

    def primary_key(self, table: str) -> str | None: ...

    def arrow(self, cypher: str, params: dict[str, Any] | None = None) -> pa.Table: ...

    def has_table(self, name: str) -> bool: ...

    def interrupt(self) -> None: ...

    def close(self) -> None: ...


#: Kuzu column types that bulk inserts pass as Arrow (see KuzuStore.copy_rows).
_ARROW_TYPES = {
    "STRING": "string", "DOUBLE": "float64", "FLOAT": "float32", "INT64": "int64",
    "INT32": "int32", "INT16": "int16", "INT8": "int8", "BOOL": "bool", "BOOLEAN": "bool",
}  # fmt: skip

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")


def identifier(name: str) -> str:
    """A table or column name checked and quoted for Cypher.

    Kuzu takes no parameters for names (``CALL table_info`` wants a literal), so
    names, which come from the store's own catalog, are checked against a strict
    pattern and quoted; anything else is refused.
    """
    if not _IDENTIFIER.match(name):
        raise QueryError(f"Not a valid table or column name: {name!r}")
    return f"`{name}`"


def literal(name: str) -> str:
    """A checked table name as a Cypher string literal, for CALL functions."""
    identifier(name)
    return f"'{name}'"


def _translate(path: Path, exc: Exception) -> StoreError:
    """Turn a kuzu RuntimeError raised while opening into an engine error."""
    text = str(exc)
    if "Could not set lock" in text:
        return StoreLockedError(path, "Another process holds this store for writing")
    if "not a valid Kuzu database" in text:
        return NotAStoreError(path, "Not a Kuzu database")
    if "Reading past the end of the file" in text or "Corrupted" in text:
        return CorruptStoreError(path, "The store is truncated or damaged")
    if "READ ONLY mode" in text:
        return StoreNotFoundError(path, "No store at this path")
    if "Permission denied" in text:
        return StoreError(
            path, "Permission denied", hint="Run as a user who can read (and lock) the file."
        )
    return CorruptStoreError(path, f"Kuzu could not open the store ({text.splitlines()[0]})")


class KuzuStore:
    """A Kuzu 0.11 database file, opened read-only unless asked otherwise."""

    engine = "kuzu"

    def __init__(
        self,
        path: str | Path,
        *,
        read_only: bool = True,
        buffer_pool_size: int | None = None,
        max_db_size: int = 0,
    ) -> None:
        import kuzu

        self.path = Path(path)
        self.read_only = read_only
        self._lock = threading.RLock()
        self._in_transaction = False
        self._prepared: dict[str, Any] = {}
        try:
            if buffer_pool_size is None:
                buffer_pool_size = DEFAULT_BUFFER_POOL if read_only else 0
            # max_db_size bounds the address space kuzu maps (8 TB by default),
            # which many stores open in one process can exhaust; 0 keeps the default.
            limits = {"max_db_size": max_db_size} if max_db_size > 0 else {}
            self._db = kuzu.Database(
                str(self.path), read_only=read_only, buffer_pool_size=buffer_pool_size, **limits
            )
            self._conn = kuzu.Connection(self._db)
        except RuntimeError as exc:
            raise _translate(self.path, exc) from None
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
            text = str(exc)
            if "read-only database" in text:
                raise ReadOnlyStoreError(self.path, "This store is open read-only") from None
            if "Interrupted" in text:
                raise QueryError("The query was cancelled.") from None
            raise QueryError(
                f"Kuzu refused a query: {text.splitlines()[0]}",
                hint=f"Store: {self.path}",
            ) from None

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

    def scalar(self, cypher: str, params: dict[str, Any] | None = None) -> Any:
        rows = self.rows(cypher, params)
        return rows[0][0] if rows else None

    def execute(
        self, cypher: str, params: dict[str, Any] | None = None, *, reuse: bool = False
    ) -> None:
        with self._lock:
            result = self._run(cypher, params, reuse)
            result.close()

    @contextmanager
    def transaction(self) -> Iterator[KuzuStore]:
        """All writes inside commit together or not at all (re-entrant)."""
        with self._lock:
            if self._in_transaction:
                yield self
                return
            self.execute("BEGIN TRANSACTION")
            self._in_transaction = True
            try:
                yield self
            except BaseException:
                self._in_transaction = False
                # kuzu may already have aborted the transaction itself (out of
                # buffer memory, say); then ROLLBACK fails, and the original
                # error is the one worth reporting.
                with suppress(QueryError):
                    self.execute("ROLLBACK")
                raise
            self._in_transaction = False
            self.execute("COMMIT")

    # -- catalog -----------------------------------------------------------------
    def _tables(self) -> list[tuple[str, str]]:
        return [(row[1], row[2]) for row in self.rows("CALL show_tables() RETURN *")]

    def node_tables(self) -> list[str]:
        return sorted(name for name, kind in self._tables() if kind == "NODE")

    def rel_tables(self) -> dict[str, RelTable]:
        out: dict[str, RelTable] = {}
        for name, kind in self._tables():
            if kind != "REL":
                continue
            pairs = self.rows(f"CALL show_connection({literal(name)}) RETURN *")
            out[name] = RelTable(name, tuple((p[0], p[1]) for p in pairs))
        return dict(sorted(out.items()))

    def columns(self, table: str) -> list[tuple[str, str]]:
        rows = self.rows(f"CALL table_info({literal(table)}) RETURN *")
        return [(row[1], row[2]) for row in rows]

    def copy_rows(
        self, table: str, columns: list[tuple[str, str]], rows: list[dict[str, Any]]
    ) -> bool:
        """Bulk-insert ``rows`` (dicts keyed by the ``columns`` names, in the table's
        column order; a rel's two endpoint keys first) through an Arrow table.

        Kuzu scans an Arrow table five to ten times faster than a list parameter
        (COPY of 30k facts: 0.13 s against 0.74 s). Returns False, writing
        nothing, when a column type has no plain Arrow equivalent.
        """
        import pyarrow as pa

        types = [_ARROW_TYPES.get(kind.upper()) for _, kind in columns]
        if None in types:
            return False
        schema = pa.schema([(name, kind) for (name, _), kind in zip(columns, types, strict=True)])
        memexplorer_copy_rows = pa.Table.from_pylist(rows, schema=schema)  # noqa: F841
        with self._lock:
            if self._closed:
                raise QueryError(f"The store is closed: {self.path}")
            try:
                # kuzu finds the Arrow table by its variable name in this frame.
                self._conn.execute(f"COPY {identifier(table)} FROM memexplorer_copy_rows")
            except RuntimeError as exc:
                raise QueryError(
                    f"Kuzu refused a bulk insert into {table}: {str(exc).splitlines()[0]}",
                    hint=f"Store: {self.path}",
                ) from None
        return True

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

    def primary_key(self, table: str) -> str | None:
        """A node table's primary-key column (rel tables have none)."""
        rows = self.rows(f"CALL table_info({literal(table)}) RETURN *")
        return next((row[1] for row in rows if len(row) > 4 and row[4] is True), None)

    def arrow(self, cypher: str, params: dict[str, Any] | None = None) -> pa.Table:
        """Run a parameterised query and return its rows as one Arrow table."""
        with self._lock:
            result = self._run(cypher, params)
            try:
                return result.get_as_arrow(chunk_size=10_000)
            finally:
                result.close()

    def has_table(self, name: str) -> bool:
        return any(table == name for table, _ in self._tables())

    # -- lifecycle ---------------------------------------------------------------
    def interrupt(self) -> None:
        """Cancel the query running on this store (from another thread)."""
        if not self._closed:
            self._conn.interrupt()

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._prepared.clear()
            self._conn.close()
            self._db.close()

    def __enter__(self) -> KuzuStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_kuzu(path: str | Path, *, read_only: bool = True) -> KuzuStore:
    """Open a Kuzu store; callers check the file header first (see stores.py)."""
    return KuzuStore(path, read_only=read_only)
