"""What every graph engine behind the storage seam provides, and what they share.

The engine talks to Kuzu (in process, :mod:`.graphdb`) and to LadybugDB (in a
worker process, :mod:`.ladybug_store`) through one protocol,
:class:`GraphStore`. The catalog calls, transactions and error wording are
the same for both, so they live here once; an engine only runs queries.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import pyarrow as pa

from memexplorer.storage.exceptions import (
    CheckpointInProgressError,
    CorruptStoreError,
    MemoryError,
    NotAStoreError,
    ReadOnlyStoreError,
    StoreError,
    StoreLockedError,
    StoreNotFoundError,
    UnsupportedEngineError,
)

__all__ = [
    "DEFAULT_BUFFER_POOL",
    "GraphStore",
    "GraphStoreBase",
    "QueryError",
    "RelTable",
    "copy_statement",
    "identifier",
    "literal",
    "translate_open_error",
    "translate_query_error",
]

#: Buffer pool for each store opened read-only. The engines' default reserves
#: 80% of RAM per database, wasteful when an operator opens a whole home at
#: once. A store opened for writing keeps the default: one transaction (a large
#: import) must fit its uncommitted pages in the pool.
DEFAULT_BUFFER_POOL = 256 * 1024 * 1024

#: Column types a bulk insert passes as Arrow (see ``copy_rows``).
ARROW_TYPES = {
    "STRING": "string", "DOUBLE": "float64", "FLOAT": "float32", "INT64": "int64",
    "INT32": "int32", "INT16": "int16", "INT8": "int8", "BOOL": "bool", "BOOLEAN": "bool",
}  # fmt: skip

_ENGINE_NAMES = {"kuzu": "Kuzu", "ladybug": "LadybugDB"}


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
    """What the engine needs from a graph database.

    ``engine`` is "kuzu" or "ladybug"; ``storage_version`` is the version in
    the file's header (what ``stats --json`` reports).
    """

    path: Path
    read_only: bool
    engine: str
    storage_version: int | None

    def rows(
        self, cypher: str, params: dict[str, Any] | None = None, *, reuse: bool = False
    ) -> list[list[Any]]: ...

    def scalar(self, cypher: str, params: dict[str, Any] | None = None) -> Any: ...

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

    def copy_arrow(
        self, table: str, data: pa.Table, pair: tuple[str, str] | None = None
    ) -> None: ...

    def rows_capped(
        self, cypher: str, cap: int, *, timeout_ms: int
    ) -> tuple[list[str], list[list[Any]], bool]: ...

    def primary_key(self, table: str) -> str | None: ...

    def arrow(self, cypher: str, params: dict[str, Any] | None = None) -> pa.Table: ...

    def has_table(self, name: str) -> bool: ...

    def interrupt(self) -> None: ...

    def close(self) -> None: ...

    def __enter__(self) -> GraphStore: ...

    def __exit__(self, *exc: object) -> None: ...


_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")


def identifier(name: str) -> str:
    """A table or column name checked and quoted for Cypher.

    The engines take no parameters for names (``CALL table_info`` wants a
    literal), so names, which come from the store's own catalog, are checked
    against a strict pattern and quoted; anything else is refused.
    """
    if not _IDENTIFIER.match(name):
        raise QueryError(f"Not a valid table or column name: {name!r}")
    return f"`{name}`"


def literal(name: str) -> str:
    """A checked table name as a Cypher string literal, for CALL functions."""
    identifier(name)
    return f"'{name}'"


def arrow_schema(columns: list[tuple[str, str]]) -> Any | None:
    """The Arrow schema for a bulk insert, or None when a column type has no
    plain Arrow equivalent (then the caller inserts row by row)."""
    import pyarrow as pa

    types = [ARROW_TYPES.get(kind.upper()) for _, kind in columns]
    if None in types:
        return None
    return pa.schema([(name, kind) for (name, _), kind in zip(columns, types, strict=True)])


def copy_statement(table: str, source: str, pair: tuple[str, str] | None = None) -> str:
    """``COPY table FROM source``; for a rel table with several FROM/TO pairs,
    ``pair`` says which one the rows belong to. Names are checked identifiers."""
    options = f" (from={literal(pair[0])}, to={literal(pair[1])})" if pair else ""
    return f"COPY {identifier(table)} FROM {source}{options}"


def translate_open_error(
    path: Path, text: str, engine: str, *, read_only: bool = True
) -> StoreError:
    """Turn an engine's message raised while opening into an engine error.

    A lock refused to a read-only open means a writer holds the store (readers
    share it); refused to a writing open, any open is the holder, a reader too
    (another memexplorer, an agent reading), so the error does not say "writing".
    """
    name = _ENGINE_NAMES.get(engine, engine)
    if "Could not set lock" in text:
        if read_only:
            return StoreLockedError(path, "Another process holds this store for writing")
        return StoreLockedError(
            path,
            "Another process has this store open, so it cannot be opened for writing",
            hint=(
                "A running agent, or another program reading the store (another "
                "memexplorer, an agent's reader), has it open. Close it, or retry when "
                "it has finished; memexplorer did not touch the file."
            ),
        )
    if "not a valid Kuzu database" in text or "not a valid Lbug database" in text:
        return NotAStoreError(path, f"Not a {name} database")
    if "different version" in text:
        return UnsupportedEngineError(
            path,
            f"The installed {engine} cannot read this store's storage version "
            f"({text.splitlines()[0]})",
            hint="Open it with the release that wrote it; memexplorer migrate can copy it.",
        )
    if "replay shadow pages" in text:
        # A checkpoint's shadow file is there: a writer is checkpointing right now,
        # or stopped in the middle of it. The store is not damaged.
        return CheckpointInProgressError(
            path,
            "A writer's checkpoint is unfinished; a read-only open cannot replay it",
            hint="Retry in a moment if a writer is running; if one stopped midway, open "
            "the store once with its own tool to finish the checkpoint. Nothing was changed.",
        )
    if any(m in text for m in ("Reading past the end", "Corrupted", "Cannot read checkpoint")):
        return CorruptStoreError(path, "The store is truncated or damaged")
    if "READ ONLY mode" in text:
        return StoreNotFoundError(path, "No store at this path")
    if "Permission denied" in text:
        return StoreError(
            path, "Permission denied", hint="Run as a user who can read (and lock) the file."
        )
    return CorruptStoreError(path, f"{name} could not open the store ({text.splitlines()[0]})")


def translate_query_error(path: Path, text: str, engine: str, what: str = "a query") -> MemoryError:
    """Turn an engine's message raised by ``what`` into an engine error."""
    if "read-only database" in text:
        return ReadOnlyStoreError(path, "This store is open read-only")
    if "Interrupted" in text:
        return QueryError("The query was cancelled.")
    name = _ENGINE_NAMES.get(engine, engine)
    first = text.splitlines()[0] if text else "no message"
    return QueryError(f"{name} refused {what}: {first}", hint=f"Store: {path}")


class GraphStoreBase:
    """Transactions and catalog calls, written once over ``rows``/``execute``."""

    path: Path
    read_only: bool
    engine: str
    storage_version: int | None
    _lock: threading.RLock
    _in_transaction: bool
    #: Set (an :class:`~.writer_log.UnreplayableLog`) when the store was read at its
    #: last checkpoint because the installed engine cannot replay its log.
    unreplayed_log: Any = None

    def rows(
        self, cypher: str, params: dict[str, Any] | None = None, *, reuse: bool = False
    ) -> list[list[Any]]:
        raise NotImplementedError

    def execute(
        self, cypher: str, params: dict[str, Any] | None = None, *, reuse: bool = False
    ) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def scalar(self, cypher: str, params: dict[str, Any] | None = None) -> Any:
        rows = self.rows(cypher, params)
        return rows[0][0] if rows else None

    @contextmanager
    def transaction(self) -> Iterator[Any]:
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
                # The engine may already have aborted the transaction itself
                # (out of buffer memory, say); then ROLLBACK fails, and the
                # original error is the one worth reporting.
                with suppress(MemoryError):
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

    def primary_key(self, table: str) -> str | None:
        """A node table's primary-key column (rel tables have none)."""
        rows = self.rows(f"CALL table_info({literal(table)}) RETURN *")
        return next((row[1] for row in rows if len(row) > 4 and row[4] is True), None)

    def has_table(self, name: str) -> bool:
        return any(table == name for table, _ in self._tables())

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
