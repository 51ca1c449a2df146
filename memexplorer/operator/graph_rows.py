"""Save and delete whole rows of any Kuzu table, from the catalog.

Nodes are named by their primary key; an edge by its endpoints' keys, its
endpoint tables and its properties. Id lists go through ``UNWIND`` with key
lookups (a ``WHERE n.id IN $ids`` filter is quadratic in kuzu 0.11), in
chunks, so a selection of 100k nodes stays fast. Writing saved rows back is
:mod:`.graph_rows_write`'s.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from memexplorer.operator.saved_rows import EDGE_FIELDS, SavedTable, check_types, encode_value
from memexplorer.storage.exceptions import SchemaMismatchError
from memexplorer.storage.graphdb import GraphStore, identifier

__all__ = [
    "CHUNK",
    "EdgeCounts",
    "chunks",
    "count_edges",
    "delete_nodes",
    "dump_graph",
    "edge_queries",
    "encoded_row",
    "existing_keys",
    "node_key",
    "returned_columns",
    "save_edges",
    "save_nodes",
]

CHUNK = 20_000
EdgeCounts = dict[str, int]


def chunks(items: list[Any], size: int = CHUNK) -> Iterator[list[Any]]:
    """``items`` in lists of at most ``size``: the unit of every UNWIND here."""
    for start in range(0, len(items), size):
        yield items[start : start + size]


def node_key(graph: GraphStore, table: str) -> str:
    """A node table's primary key; every node table in Kuzu has one."""
    key = graph.primary_key(table)
    if key is None:
        raise SchemaMismatchError(graph.path, f"Node table {table} has no primary key")
    return key


def encoded_row(columns: list[tuple[str, str]], values: Iterable[Any]) -> dict[str, Any]:
    """A returned row as saved: each value encoded for JSON by its column's type."""
    return {name: encode_value(kind, v) for (name, kind), v in zip(columns, values, strict=True)}


def returned_columns(var: str, columns: list[tuple[str, str]]) -> str:
    """The RETURN list of these columns of ``var`` ("1" when there are none)."""
    return ", ".join(f"{var}.{identifier(name)}" for name, _ in columns) or "1"


def save_nodes(graph: GraphStore, table: str, ids: Iterable[Any] | None = None) -> SavedTable:
    """Every column of the nodes with these keys (all nodes when ``ids`` is None)."""
    columns = graph.columns(table)
    check_types(table, columns)
    key = node_key(graph, table)
    returned, name = returned_columns("n", columns), identifier(table)
    saved = SavedTable(table, "node", columns, key=[key])
    if ids is None:
        rows = graph.rows(f"MATCH (n:{name}) RETURN {returned}")
    else:
        query = f"UNWIND $ids AS i MATCH (n:{name} {{{identifier(key)}: i}}) RETURN {returned}"
        rows = [row for chunk in chunks(list(ids)) for row in graph.rows(query, {"ids": chunk})]
    saved.rows = [encoded_row(columns, row) for row in rows]
    return saved


def existing_keys(graph: GraphStore, table: str, ids: Iterable[Any]) -> set[Any]:
    """Which of these keys have a node in ``table`` now."""
    key = identifier(node_key(graph, table))
    query = f"UNWIND $ids AS i MATCH (n:{identifier(table)} {{{key}: i}}) RETURN n.{key}"
    return {
        row[0]
        for chunk in chunks(list(dict.fromkeys(ids)))
        for row in graph.rows(query, {"ids": chunk})
    }


def edge_queries(
    graph: GraphStore, rel: str, source: str, target: str, returned: str
) -> tuple[str, str, str, str]:
    """Queries for a rel pair's edges, from the selected side and from the other."""
    skey, tkey = identifier(node_key(graph, source)), identifier(node_key(graph, target))
    head = f"(a:{identifier(source)}"
    arrow = f")-[r:{identifier(rel)}]->(b:{identifier(target)}"
    tail = f"RETURN a.{skey}, b.{tkey}, offset(ID(r)){', ' + returned if returned else ''}"
    return (
        f"UNWIND $ids AS i MATCH {head} {{{skey}: i}}{arrow}) {tail}",
        f"UNWIND $ids AS i MATCH {head}{arrow} {{{tkey}: i}}) {tail}",
        f"MATCH {head}{arrow}) {tail}",
        f"UNWIND $pairs AS p MATCH {head} {{{skey}: p.f}}{arrow} {{{tkey}: p.t}}) {tail}",
    )


def _touching(
    graph: GraphStore, rel: str, columns: list[tuple[str, str]], selected: dict[str, list[Any]]
) -> Iterator[tuple[str, str, list[Any]]]:
    """Each edge of ``rel`` with a selected endpoint, once, as (source, target, row)."""
    returned = returned_columns("r", columns) if columns else ""
    for source, target in graph.rel_tables()[rel].pairs:
        seen: set[int] = set()
        out_query, in_query, _, _ = edge_queries(graph, rel, source, target, returned)
        for table, query in ((source, out_query), (target, in_query)):
            for chunk in chunks(selected.get(table, [])):
                for row in graph.rows(query, {"ids": chunk}):
                    if row[2] not in seen:
                        seen.add(row[2])
                        yield source, target, row


def _table_size(graph: GraphStore, table: str) -> int:
    return int(graph.rows(f"MATCH (n:{identifier(table)}) RETURN count(n)")[0][0])


def count_edges(graph: GraphStore, selected: dict[str, list[Any]]) -> EdgeCounts:
    """How many edges of each rel table touch the selected nodes (each counted once).

    When every node of an endpoint table is selected, the pair's edges are
    counted in kuzu; otherwise their offsets come back as Arrow columns (no
    per-row Python work) and are counted once each.
    """
    whole = {t for t, ids in selected.items() if ids and len(ids) == _table_size(graph, t)}
    counts: EdgeCounts = {}
    for rel, info in graph.rel_tables().items():
        total = 0
        for source, target in info.pairs:
            if not (selected.get(source) or selected.get(target)):
                continue
            out_query, in_query, everything, _ = edge_queries(graph, rel, source, target, "")
            if source in whole or target in whole:
                head = everything[: everything.index(" RETURN ")]
                total += int(graph.rows(f"{head} RETURN count(r)")[0][0])
                continue
            seen: set[int] = set()
            for table, query in ((source, out_query), (target, in_query)):
                for chunk in chunks(selected.get(table, [])):
                    offsets = graph.arrow(query, {"ids": chunk}).column(2)
                    seen.update(offsets.to_pylist())
            total += len(seen)
        if total:
            counts[rel] = total
    return counts


def _edge_row(columns: list[tuple[str, str]], source: str, target: str, row: list[Any]):
    edge = dict(zip(EDGE_FIELDS, (source, row[0], target, row[1]), strict=True))
    edge.update(encoded_row(columns, row[3:]) if columns else {})
    return edge


def save_edges(graph: GraphStore, selected: dict[str, list[Any]] | None = None) -> list[SavedTable]:
    """Every edge touching the selected nodes (every edge when ``selected`` is None)."""
    saved = []
    for rel, info in graph.rel_tables().items():
        columns = graph.columns(rel)
        check_types(rel, columns)
        table = SavedTable(rel, "rel", columns)
        if selected is None:
            for source, target in info.pairs:
                _, _, everything, _ = edge_queries(
                    graph, rel, source, target, returned_columns("r", columns) if columns else ""
                )
                table.rows += [
                    _edge_row(columns, source, target, r) for r in graph.rows(everything)
                ]
        else:
            table.rows = [
                _edge_row(columns, s, t, r) for s, t, r in _touching(graph, rel, columns, selected)
            ]
        if table.rows or selected is None:
            saved.append(table)
    return saved


def dump_graph(graph: GraphStore) -> list[SavedTable]:
    """The whole store: every node of every table, then every edge."""
    return [save_nodes(graph, table) for table in graph.node_tables()] + save_edges(graph)


def delete_nodes(graph: GraphStore, table: str, ids: list[Any]) -> None:
    """Remove these nodes and every edge on them (call inside a transaction).

    The edges go first, by their own DELETE: kuzu 0.11.3's replay of a committed
    DETACH DELETE from its log (the writer killed before its checkpoint) leaves
    the edges coming in to the deleted nodes behind."""
    node = f"(n:{identifier(table)} {{{identifier(node_key(graph, table))}: i}})"
    queries = [f"UNWIND $ids AS i MATCH {node}-[r]->() DELETE r",
               f"UNWIND $ids AS i MATCH ()-[r]->{node} DELETE r",
               f"UNWIND $ids AS i MATCH {node} DETACH DELETE n"]  # fmt: skip
    for chunk in chunks(ids):
        for query in queries:
            graph.execute(query, {"ids": chunk})
