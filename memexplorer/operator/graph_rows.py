"""Save, delete and write back whole rows of any Kuzu table, from the catalog.

Nodes are named by their primary key; an edge by its endpoints' keys, its
endpoint tables and its properties. Id lists go through ``UNWIND`` with key
lookups (a ``WHERE n.id IN $ids`` filter is quadratic in kuzu 0.11), in
chunks, so a selection of 100k nodes stays fast.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

from memexplorer.operator.saved_rows import (
    EDGE_FIELDS,
    SavedTable,
    check_types,
    decode_value,
    encode_value,
    is_array_type,
)
from memexplorer.storage.exceptions import SchemaMismatchError
from memexplorer.storage.graphdb import GraphStore, QueryError, identifier, literal

__all__ = [
    "EdgeCounts",
    "count_edges",
    "delete_nodes",
    "dump_graph",
    "existing_keys",
    "insert_edges",
    "insert_nodes",
    "node_key",
    "replace_nodes",
    "save_edges",
    "save_nodes",
]

CHUNK = 20_000
EdgeCounts = dict[str, int]


def _chunks(items: list[Any], size: int = CHUNK) -> Iterator[list[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def node_key(graph: GraphStore, table: str) -> str:
    """A node table's primary key; every node table in Kuzu has one."""
    key = graph.primary_key(table)
    if key is None:
        raise SchemaMismatchError(graph.path, f"Node table {table} has no primary key")
    return key


def _row(columns: list[tuple[str, str]], values: Iterable[Any]) -> dict[str, Any]:
    return {name: encode_value(kind, v) for (name, kind), v in zip(columns, values, strict=True)}


def _returned(var: str, columns: list[tuple[str, str]]) -> str:
    return ", ".join(f"{var}.{identifier(name)}" for name, _ in columns) or "1"


def save_nodes(graph: GraphStore, table: str, ids: Iterable[Any] | None = None) -> SavedTable:
    """Every column of the nodes with these keys (all nodes when ``ids`` is None)."""
    columns = graph.columns(table)
    check_types(table, columns)
    key = node_key(graph, table)
    returned, name = _returned("n", columns), identifier(table)
    saved = SavedTable(table, "node", columns, key=[key])
    if ids is None:
        rows = graph.rows(f"MATCH (n:{name}) RETURN {returned}")
    else:
        query = f"UNWIND $ids AS i MATCH (n:{name} {{{identifier(key)}: i}}) RETURN {returned}"
        rows = [row for chunk in _chunks(list(ids)) for row in graph.rows(query, {"ids": chunk})]
    saved.rows = [_row(columns, row) for row in rows]
    return saved


def existing_keys(graph: GraphStore, table: str, ids: Iterable[Any]) -> set[Any]:
    """Which of these keys have a node in ``table`` now."""
    key = identifier(node_key(graph, table))
    query = f"UNWIND $ids AS i MATCH (n:{identifier(table)} {{{key}: i}}) RETURN n.{key}"
    return {
        row[0]
        for chunk in _chunks(list(dict.fromkeys(ids)))
        for row in graph.rows(query, {"ids": chunk})
    }


def _edge_queries(
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
    returned = _returned("r", columns) if columns else ""
    for source, target in graph.rel_tables()[rel].pairs:
        seen: set[int] = set()
        out_query, in_query, _, _ = _edge_queries(graph, rel, source, target, returned)
        for table, query in ((source, out_query), (target, in_query)):
            for chunk in _chunks(selected.get(table, [])):
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
            out_query, in_query, everything, _ = _edge_queries(graph, rel, source, target, "")
            if source in whole or target in whole:
                head = everything[: everything.index(" RETURN ")]
                total += int(graph.rows(f"{head} RETURN count(r)")[0][0])
                continue
            seen: set[int] = set()
            for table, query in ((source, out_query), (target, in_query)):
                for chunk in _chunks(selected.get(table, [])):
                    offsets = graph.arrow(query, {"ids": chunk}).column(2)
                    seen.update(offsets.to_pylist())
            total += len(seen)
        if total:
            counts[rel] = total
    return counts


def _edge_row(columns: list[tuple[str, str]], source: str, target: str, row: list[Any]):
    edge = dict(zip(EDGE_FIELDS, (source, row[0], target, row[1]), strict=True))
    edge.update(_row(columns, row[3:]) if columns else {})
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
                _, _, everything, _ = _edge_queries(
                    graph, rel, source, target, _returned("r", columns) if columns else ""
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
    """Remove these nodes and every edge on them (call inside a transaction)."""
    key = identifier(node_key(graph, table))
    query = f"UNWIND $ids AS i MATCH (n:{identifier(table)} {{{key}: i}}) DETACH DELETE n"
    for chunk in _chunks(ids):
        graph.execute(query, {"ids": chunk})


def _check_columns(graph: GraphStore, saved: SavedTable) -> dict[str, str]:
    """The store's column types for the saved columns; refuse a changed schema."""
    if not graph.has_table(saved.name):
        raise SchemaMismatchError(
            graph.path,
            f"The store has no table {saved.name} any more; nothing was restored",
            hint="Restore into the store the backup was taken from, with its schema.",
        )
    current = dict(graph.columns(saved.name))
    missing = [name for name, _ in saved.columns if name not in current]
    if missing:
        raise SchemaMismatchError(
            graph.path,
            f"{saved.name} no longer has the columns {missing}; nothing was restored",
            hint="Restore into the store the backup was taken from, with its schema.",
        )
    return {name: current[name] for name, _ in saved.columns}


def _value(var: str, name: str, kind: str) -> str:
    if is_array_type(kind):
        if not all(part.isalnum() or part in "_[]" for part in kind):
            raise QueryError(f"Unexpected column type {kind!r}")
        return f"CAST({var}.{identifier(name)} AS {kind})"
    return f"{var}.{identifier(name)}"


def _by_filled(rows: list[dict[str, Any]], names: list[str]) -> dict[tuple[str, ...], list]:
    """Rows grouped by which columns hold a value: kuzu cannot type a list of
    rows whose array column is null in some of them, so each group names only
    the columns it fills."""
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for row in rows:
        filled = tuple(name for name in names if row.get(name) is not None)
        groups.setdefault(filled, []).append(row)
    return groups


def _decoded(row: dict[str, Any], types: dict[str, str]) -> dict[str, Any]:
    return {name: decode_value(kind, row.get(name)) for name, kind in types.items()}


def insert_nodes(graph: GraphStore, saved: SavedTable) -> tuple[int, int]:
    """Write back the saved nodes whose keys are free; (inserted, already there)."""
    types = _check_columns(graph, saved)
    key = saved.key[0]
    present = existing_keys(graph, saved.name, [row[key] for row in saved.rows])
    fresh = [row for row in saved.rows if row[key] not in present]
    for filled, rows in _by_filled(fresh, list(types)).items():
        values = ", ".join(f"{identifier(n)}: {_value('r', n, types[n])}" for n in filled)
        query = f"UNWIND $rows AS r CREATE (n:{identifier(saved.name)} {{{values}}})"
        for chunk in _chunks([_decoded(row, types) for row in rows]):
            graph.execute(query, {"rows": chunk})
    return len(fresh), len(saved.rows) - len(fresh)


def replace_nodes(graph: GraphStore, saved: SavedTable) -> tuple[int, int]:
    """Put the saved values back on nodes that exist (and insert the missing
    ones); (replaced, inserted). For backups of changed rows (redaction).

    Only columns whose value differs are written: kuzu refuses to SET a
    column under a vector index (``embedding``), which redaction never changes.
    """
    types = _check_columns(graph, saved)
    key = saved.key[0]
    present = existing_keys(graph, saved.name, [row[key] for row in saved.rows])
    there = [row for row in saved.rows if row[key] in present]
    current = {row[key]: row for row in save_nodes(graph, saved.name, list(present)).rows}
    groups: dict[tuple[tuple[str, ...], tuple[str, ...]], list[dict[str, Any]]] = {}
    for row in there:
        changed = [n for n in types if n != key and row.get(n) != current[row[key]].get(n)]
        filled = tuple(n for n in changed if row.get(n) is not None)
        emptied = tuple(n for n in changed if row.get(n) is None)
        if changed:
            groups.setdefault((filled, emptied), []).append(row)
    for (filled, emptied), rows in groups.items():
        sets = [f"n.{identifier(n)} = {_value('r', n, types[n])}" for n in filled]
        sets += [f"n.{identifier(n)} = NULL" for n in emptied]
        query = (
            f"UNWIND $rows AS r MATCH (n:{identifier(saved.name)} "
            f"{{{identifier(key)}: r.{identifier(key)}}}) SET {', '.join(sets)}"
        )
        for chunk in _chunks([_decoded(row, types) for row in rows]):
            graph.execute(query, {"rows": chunk})
    missing = SavedTable(
        saved.name,
        saved.kind,
        saved.columns,
        [r for r in saved.rows if r[key] not in present],
        saved.key,
    )
    inserted, _ = insert_nodes(graph, missing)
    return len(there), inserted


def _props(row: dict[str, Any], names: list[str]) -> tuple[str, ...]:
    return tuple(repr(row.get(name)) for name in names)


def insert_edges(graph: GraphStore, saved: SavedTable) -> tuple[int, int, int]:
    """Write back saved edges; (inserted, already there, skipped: an endpoint is gone).

    An edge is already there when the rel holds one between the same nodes
    with the same properties (each existing edge accounts for one saved edge).
    """
    types = _check_columns(graph, saved)
    names = list(types)
    returned = _returned("r", list(types.items())) if names else ""
    pairs: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in saved.rows:
        pairs.setdefault((row["_from_table"], row["_to_table"]), []).append(row)
    inserted = existing = skipped = 0
    for (source, target), rows in pairs.items():
        sources = existing_keys(graph, source, [r["_from"] for r in rows])
        targets = existing_keys(graph, target, [r["_to"] for r in rows])
        *_, lookup = _edge_queries(graph, saved.name, source, target, returned)
        found: Counter[tuple[Any, ...]] = Counter()
        ends = list({(r["_from"], r["_to"]): None for r in rows})
        for chunk in _chunks([{"f": f, "t": t} for f, t in ends]):
            for hit in graph.rows(lookup, {"pairs": chunk}):
                found[(hit[0], hit[1], *_props(_row(list(types.items()), hit[3:]), names))] += 1
        fresh = []
        for row in rows:
            identity = (row["_from"], row["_to"], *_props(row, names))
            if found[identity] > 0:
                found[identity] -= 1
                existing += 1
            elif row["_from"] in sources and row["_to"] in targets:
                fresh.append(row)
            else:
                skipped += 1
        _write_edges(graph, saved.name, source, target, types, fresh)
        inserted += len(fresh)
    return inserted, existing, skipped


def _write_edges(
    graph: GraphStore,
    rel: str,
    source: str,
    target: str,
    types: dict[str, str],
    rows: list[dict[str, Any]],
) -> None:
    if not rows:
        return
    decoded = [{"_from": row["_from"], "_to": row["_to"], **_decoded(row, types)} for row in rows]
    if not any(is_array_type(kind) for kind in types.values()):
        # COPY FROM (UNWIND ...) is atomic inside the transaction and far faster
        # for rels than MATCH ... CREATE.
        columns = ", ".join(["r._from", "r._to", *(f"r.{identifier(n)}" for n in types)])
        query = (
            f"COPY {identifier(rel)} FROM (UNWIND $rows AS r RETURN {columns}) "
            f"(from={literal(source)}, to={literal(target)})"
        )
        for chunk in _chunks(decoded):
            graph.execute(query, {"rows": chunk})
        return
    skey, tkey = identifier(node_key(graph, source)), identifier(node_key(graph, target))
    for filled, group in _by_filled(decoded, list(types)).items():
        values = ", ".join(f"{identifier(n)}: {_value('r', n, types[n])}" for n in filled)
        query = (
            f"UNWIND $rows AS r MATCH (a:{identifier(source)} {{{skey}: r._from}}), "
            f"(b:{identifier(target)} {{{tkey}: r._to}}) "
            f"CREATE (a)-[:{identifier(rel)} {{{values}}}]->(b)"
        )
        for chunk in _chunks(group):
            graph.execute(query, {"rows": chunk})
