"""Every row of a graph store, read table by table, with a count and a checksum.

Compaction copies a store into a fresh file and must prove the copy holds
exactly the same rows before it replaces anything. Rows come back in no
promised order (a rewrite renumbers them), so a table's checksum is the sum
of one hash per row, modulo 2**64: equal multisets of rows give equal sums
whatever their order, and a changed, lost or extra row changes it. The sums
are compared within one process, never stored.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memexplorer.storage.graph_store import GraphStore, identifier

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["TableDigest", "TableRows", "digest_rows", "read_tables", "store_digest"]

_MODULUS = 1 << 64


@dataclass(frozen=True)
class TableDigest:
    """How many rows a table (or one FROM/TO pair of a rel table) holds, and their sum."""

    rows: int
    checksum: str


@dataclass(frozen=True)
class TableRows:
    """One node table, or one FROM/TO pair of a rel table, as an Arrow table whose
    columns are the table's in order (a rel's endpoint keys first)."""

    name: str
    pair: tuple[str, str] | None
    data: pa.Table

    @property
    def label(self) -> str:
        return f"{self.name}({self.pair[0]}->{self.pair[1]})" if self.pair else self.name


def _hashable(column: Any) -> list[Any]:
    """A column's values, lists (vectors, list columns) as tuples so rows hash."""
    import pyarrow as pa  # not at import time: the CLI starts without it

    values = column.to_pylist()
    if pa.types.is_list(column.type) or pa.types.is_fixed_size_list(column.type):
        return [tuple(v) if v is not None else None for v in values]
    return values


def digest_rows(data: pa.Table) -> TableDigest:
    """The count and order-free checksum of an Arrow table's rows.

    Each row is hashed with Python's ``hash`` (salted per process: the two sides
    of a comparison are always hashed in the same process), a sixth of the cost
    of a cryptographic hash of each row; a NaN never equals itself, so a table
    holding one is refused rather than passed."""
    total = 0
    columns = [_hashable(column) for column in data.columns]
    for row_hash in map(hash, zip(*columns, strict=True)):
        total = (total + row_hash) % _MODULUS
    return TableDigest(data.num_rows, f"{total:016x}")


def _node_query(graph: GraphStore, table: str) -> str:
    names = [name for name, _ in graph.columns(table)]
    returned = ", ".join(f"n.{identifier(c)} AS {identifier(c)}" for c in names)
    return f"MATCH (n:{identifier(table)}) RETURN {returned}"


def _rel_query(graph: GraphStore, table: str, pair: tuple[str, str]) -> str:
    source, target = pair
    source_key, target_key = graph.primary_key(source), graph.primary_key(target)
    if source_key is None or target_key is None:
        raise ValueError(f"{source} or {target} has no primary key")
    returned = [f"a.{identifier(source_key)} AS `_from`", f"b.{identifier(target_key)} AS `_to`"]
    returned += [f"r.{identifier(c)} AS {identifier(c)}" for c, _ in graph.columns(table)]
    return (
        f"MATCH (a:{identifier(source)})-[r:{identifier(table)}]->(b:{identifier(target)}) "
        f"RETURN {', '.join(returned)}"
    )


def read_tables(graph: GraphStore) -> Iterator[TableRows]:
    """Every node table, then every rel table pair by pair, with all its rows."""
    for table in graph.node_tables():
        yield TableRows(table, None, graph.arrow(_node_query(graph, table)))
    for table, rel in graph.rel_tables().items():
        for pair in rel.pairs:
            yield TableRows(table, pair, graph.arrow(_rel_query(graph, table, pair)))


def store_digest(graph: GraphStore) -> dict[str, TableDigest]:
    """Count and checksum of every table of ``graph``, keyed by :attr:`TableRows.label`.

    Hashing runs in a second thread while the engine reads the next table (both
    engines release the GIL while a query runs)."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = {rows.label: pool.submit(digest_rows, rows.data) for rows in read_tables(graph)}
        return {label: future.result() for label, future in pending.items()}
