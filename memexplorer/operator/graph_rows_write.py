"""Write saved rows back into any Kuzu table: insert the nodes whose keys are free,
put saved values back on nodes that exist, and insert edges not already there.

The store's schema must still hold the saved columns; a changed one is refused
with nothing written (the caller's transaction rolls back).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from memexplorer.operator.graph_rows import (
    chunks,
    edge_queries,
    encoded_row,
    existing_keys,
    node_key,
    returned_columns,
    save_nodes,
)
from memexplorer.operator.saved_rows import SavedTable, decode_value, is_array_type
from memexplorer.storage.exceptions import SchemaMismatchError
from memexplorer.storage.graphdb import GraphStore, QueryError, identifier, literal

__all__ = ["insert_edges", "insert_nodes", "replace_nodes"]


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
        for chunk in chunks([_decoded(row, types) for row in rows]):
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
        for chunk in chunks([_decoded(row, types) for row in rows]):
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
    returned = returned_columns("r", list(types.items())) if names else ""
    pairs: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in saved.rows:
        pairs.setdefault((row["_from_table"], row["_to_table"]), []).append(row)
    inserted = existing = skipped = 0
    for (source, target), rows in pairs.items():
        sources = existing_keys(graph, source, [r["_from"] for r in rows])
        targets = existing_keys(graph, target, [r["_to"] for r in rows])
        *_, lookup = edge_queries(graph, saved.name, source, target, returned)
        found: Counter[tuple[Any, ...]] = Counter()
        ends = list({(r["_from"], r["_to"]): None for r in rows})
        for chunk in chunks([{"f": f, "t": t} for f, t in ends]):
            for hit in graph.rows(lookup, {"pairs": chunk}):
                props = _props(encoded_row(list(types.items()), hit[3:]), names)
                found[(hit[0], hit[1], *props)] += 1
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
        for chunk in chunks(decoded):
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
        for chunk in chunks(group):
            graph.execute(query, {"rows": chunk})
