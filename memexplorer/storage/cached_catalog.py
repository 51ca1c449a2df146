"""A read-only graph store's catalog, asked of the engine once.

Summarising a store reads its tables, each rel table's FROM/TO pairs and each
node table's columns, and the counting code after it asks the same again: on
the demo home that was 148 small queries, half of them catalog calls repeated
(``memexplorer stats``, issue 17). A store opened read-only cannot change its
tables while it is open, so :class:`CachedCatalog` keeps the answers for as long
as it is used and passes every other call to the store itself. One
``CALL show_tables()`` answers both the node and the rel tables.
"""

from __future__ import annotations

from typing import Any

from memexplorer.storage.graph_store import GraphStore, RelTable, literal

__all__ = ["CachedCatalog"]


class CachedCatalog:
    """A read-only :class:`~.graph_store.GraphStore` whose catalog calls are kept."""

    def __init__(self, graph: GraphStore) -> None:
        if not graph.read_only:
            raise ValueError("Only a store opened read-only keeps its catalog")
        self._graph = graph
        self._tables: list[tuple[str, str]] | None = None
        self._rels: dict[str, RelTable] | None = None
        self._columns: dict[str, list[tuple[str, str]]] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._graph, name)

    def _all_tables(self) -> list[tuple[str, str]]:
        if self._tables is None:
            rows = self._graph.rows("CALL show_tables() RETURN *")
            self._tables = [(row[1], row[2]) for row in rows]
        return self._tables

    def node_tables(self) -> list[str]:
        return sorted(name for name, kind in self._all_tables() if kind == "NODE")

    def rel_tables(self) -> dict[str, RelTable]:
        if self._rels is None:
            rels: dict[str, RelTable] = {}
            for name, kind in sorted(self._all_tables()):
                if kind == "REL":
                    pairs = self._graph.rows(f"CALL show_connection({literal(name)}) RETURN *")
                    rels[name] = RelTable(name, tuple((p[0], p[1]) for p in pairs))
            self._rels = rels
        return dict(self._rels)

    def has_table(self, name: str) -> bool:
        return any(table == name for table, _ in self._all_tables())

    def columns(self, table: str) -> list[tuple[str, str]]:
        if table not in self._columns:
            self._columns[table] = self._graph.columns(table)
        return list(self._columns[table])
