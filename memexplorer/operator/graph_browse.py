"""Browsing a Kuzu or LadybugDB graph store, read-only: an agent's tables, pages
of rows, one node with its edges.

Apart from browse.py, as the SQLite browsers are: each kind of store has its
browser in a module of its own, and browse.py only chooses between them.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from memexplorer.operator.browse_types import (
    ColumnInfo,
    Page,
    PageQuery,
    TableInfo,
    agents_named,
    check_page_query,
)
from memexplorer.operator.graph_node_detail import GraphNodeDetail
from memexplorer.operator.graph_pages import graph_page
from memexplorer.storage.exceptions import InvalidInputError
from memexplorer.storage.graph_counts import agent_column, agent_counts
from memexplorer.storage.graphdb import GraphStore, identifier, literal

__all__ = ["GraphBrowser"]


class GraphBrowser(GraphNodeDetail):
    """Browse a Kuzu store, read-only. Node tables are filtered by their agent
    column; rel tables by the agent of the edge's source node. One node's view
    comes from :class:`.graph_node_detail.GraphNodeDetail`."""

    def __init__(self, graph: GraphStore) -> None:
        self.graph = graph
        self.path = graph.path
        self._node_tables = graph.node_tables()
        self._rels = graph.rel_tables()
        self._columns = {t: graph.columns(t) for t in [*self._node_tables, *self._rels]}
        self._keys = {t: graph.primary_key(t) for t in self._node_tables}
        self._schemas: dict[str, pa.Schema] = {}

    def _agent_column(self, table: str) -> str | None:
        return agent_column(name for name, _ in self._columns.get(table, []))

    def _rel_sources(self, rel: str) -> list[str]:
        return sorted({source for source, _ in self._rels[rel].pairs})

    def agents(self) -> list[str]:
        return agents_named(self._node_tables, self._agent_column, self._distinct)

    def _distinct(self, table: str, column: str) -> list[Any]:
        query = f"MATCH (n:{identifier(table)}) RETURN DISTINCT n.{identifier(column)}"
        return [row[0] for row in self.graph.rows(query)]

    # -- which rows belong to the agent --------------------------------------------------
    def _node_match(self, table: str, agent: str) -> tuple[str, dict[str, Any]]:
        column = self._agent_column(table)
        match = f"MATCH (n:{identifier(table)})"
        if column is None:
            return match, {}
        return f"{match} WHERE n.{identifier(column)} = $agent", {"agent": agent}

    def _rel_match(self, rel: str, agent: str) -> tuple[str, dict[str, Any]]:
        sources = [s for s in self._rel_sources(rel) if self._agent_column(s)]
        pattern = f"MATCH (a)-[n:{identifier(rel)}]->(b)"
        if not sources:
            return pattern, {}
        tests = [
            f"(label(a) = {literal(s)} AND a.{identifier(self._agent_column(s) or '')} = $agent)"
            for s in sources
        ]
        return f"{pattern} WHERE {' OR '.join(tests)}", {"agent": agent}

    def _count(self, table: str, agent: str, known: dict[str, int] | None) -> int:
        if known is not None:
            return known.get(table, 0)
        if table in self._rels:
            match, params = self._rel_match(table, agent)
        else:
            match, params = self._node_match(table, agent)
        return int(self.graph.scalar(f"{match} RETURN count(n)", params) or 0)

    def tables(self, agent: str) -> list[TableInfo]:
        # A named agent's counts without a join of every edge (graph_counts); the
        # rows of no agent ("" or none) are counted as their pages select them.
        known = agent_counts(self.graph).get(agent, {}) if agent else None
        out: list[TableInfo] = []
        for table in self._node_tables:
            if self._agent_column(table) is None and agent:
                continue
            count = self._count(table, agent, known)
            columns = tuple(ColumnInfo(n, t) for n, t in self._columns[table])
            out.append(TableInfo(table, "node", count, columns, self._keys[table]))
        for rel, info in self._rels.items():
            _, params = self._rel_match(rel, agent)
            if not params and agent:
                continue
            count = self._count(rel, agent, known)
            columns = (
                ColumnInfo("_from", "STRING"),
                ColumnInfo("_to", "STRING"),
                *(ColumnInfo(n, t) for n, t in self._columns[rel]),
            )
            out.append(TableInfo(rel, "rel", count, columns, None, info.pairs))
        return out

    # -- pages ---------------------------------------------------------------------------
    def _key_expression(self, variable: str, tables: list[str]) -> str:
        keys = {self._keys.get(t) for t in tables}
        if len(keys) == 1 and None not in keys:
            return f"{variable}.{identifier(keys.pop() or '')}"
        return f"label({variable}) + ':' + string(offset(id({variable})))"

    def _selection(
        self, table: TableInfo, agent: str, text: str, *, place: str | None = None
    ) -> tuple[str, str, dict[str, Any]]:
        """The rows a page shows, before RETURN (their columns named as in the table,
        and ``place``, when given, naming the row's place in storage), the same
        match for a count, and the parameters of both."""
        params: dict[str, Any]
        if table.kind == "rel":
            match, params = self._rel_match(table.name, agent)
            sources = [s for s, _ in table.endpoints]
            targets = [t for _, t in table.endpoints]
            projections = [
                f"{self._key_expression('a', sources)} AS _from",
                f"{self._key_expression('b', targets)} AS _to",
            ]
            projections += [f"n.{identifier(c)} AS {identifier(c)}" for c, _ in
                            self._columns[table.name]]  # fmt: skip
        else:
            match, params = self._node_match(table.name, agent)
            projections = [f"n.{identifier(c.name)} AS {identifier(c.name)}" for c in
                           table.columns]  # fmt: skip
        if place is not None:
            projections.append(f"offset(id(n)) AS {identifier(place)}")
        params = dict(params)
        if not text:
            return f"{match} WITH {', '.join(projections)}", match, params
        text_columns = [c.name for c in table.columns if c.is_text]
        params["text"] = text.lower()
        tests = " OR ".join(f"lower({identifier(c)}) CONTAINS $text" for c in text_columns)
        filtered = f"{match} WITH {', '.join(projections)} WHERE {tests or 'false'}"
        return filtered, filtered, params

    def page(self, table: TableInfo, agent: str, query: PageQuery) -> Page:
        """A page in a stable order, read from its nearer end (see graph_pages)."""
        check_page_query(table, query)
        return graph_page(self, table, agent, query)

    def page_schema(self, table: TableInfo) -> pa.Schema:
        """The Arrow schema of a node table's pages, as Kuzu gives it (kept per table)."""
        schema = self._schemas.get(table.name)
        if schema is None:
            names = [identifier(c.name) for c in table.columns]
            projection = ", ".join(f"n.{name} AS {name}" for name in names)
            found = self.graph.arrow(
                f"MATCH (n:{identifier(table.name)}) RETURN {projection} LIMIT 0"
            )
            schema = self._schemas[table.name] = found.schema
        return schema

    def matching_keys(self, table: TableInfo, agent: str, text: str) -> list[str]:
        """The key of every row a filter shows, over all pages, in one scan."""
        if table.primary_key is None:
            raise InvalidInputError(f"{table.name} rows have no key to list")
        rows, _, params = self._selection(table, agent, text)
        found = self.graph.arrow(f"{rows} RETURN {identifier(table.primary_key)}", params)
        return [str(key) for key in found.column(0).to_pylist()]

    def interrupt(self) -> None:
        self.graph.interrupt()

    def close(self) -> None:
        self.graph.close()
