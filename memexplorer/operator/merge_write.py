"""The statements a merge runs, each the store's own writer's (docs/curation.md):

- Python library, Kuzu and LadybugDB eras (``_detect_supersedes``): one
  ``CREATE (new_m)-[:SUPERSEDES {reason, temporal_delta}]->(old_m)`` per pair;
- amplihack-rs graph-db (``graph_import.rs``): its own SUPERSEDES statement;
- amplihack-rs SQLite (``import_helpers.rs``): its ``INSERT INTO supersedes_edges``;
- memexplorer's seed-003 writer: ``HierarchicalMemory._write_supersession``.

And the reverse for undo: each added edge found by its endpoints and properties
(exactly one must match, else the store changed since) and deleted.
"""

from __future__ import annotations

from typing import Any

from memexplorer.memory.hierarchical_memory import HierarchicalMemory
from memexplorer.memory.rs_sqlite_schema import EDGE_TABLES
from memexplorer.operator.merge_plan import MergePlan, PlannedEdge
from memexplorer.operator.rs_sqlite_write import edge_insert_sql
from memexplorer.storage.exceptions import InvalidInputError, StoreChangedError
from memexplorer.storage.graphdb import GraphStore
from memexplorer.storage.sqlite_db import SqliteConnection

__all__ = [
    "SEQUENCE_TABLE",
    "delete_graph_edge",
    "delete_sqlite_edge",
    "sqlite_sequence",
    "write_graph_plan",
    "write_sqlite_plan",
]

_LIBRARY_SUPERSEDES = """
    MATCH (new_m:SemanticMemory {memory_id: $new_id})
    MATCH (old_m:SemanticMemory {memory_id: $old_id})
    CREATE (new_m)-[:SUPERSEDES {reason: $reason, temporal_delta: $delta}]->(old_m)"""
_RUST_SUPERSEDES = (
    "MATCH (newer:SemanticMemory {memory_id: $new_id}) MATCH (older:SemanticMemory "
    "{memory_id: $old_id}) CREATE (newer)-[:SUPERSEDES {reason: $reason, "
    "temporal_delta: $delta}]->(older)"
)
#: The rels a merge writes and their properties, in the writers' order; names read
#: from a backup are checked against these before they go into a query.
_REL_COLUMNS = {
    "SUPERSEDES": ("reason", "temporal_delta"),
    "TRANSITIONED_TO": ("from_value", "to_value", "turn", "transition_type"),
}
_SQLITE_TABLES = {edge.rel: edge for edge in EDGE_TABLES if edge.rel in _REL_COLUMNS}
#: The table SQLite's AUTOINCREMENT keeps the last id of each table in.
SEQUENCE_TABLE = "sqlite_sequence"


def write_graph_plan(graph: GraphStore, plan: MergePlan) -> None:
    """Every edge and change of ``plan``, in the caller's transaction."""
    if plan.writer == "memexplorer":
        for step in plan.steps:
            HierarchicalMemory._write_supersession(graph, step)
        return
    statement = _RUST_SUPERSEDES if plan.writer == "amplihack-rs" else _LIBRARY_SUPERSEDES
    for edge in plan.edges:
        props = dict(edge.properties)
        params = {"new_id": edge.source, "old_id": edge.target}
        graph.execute(statement, {**params, "reason": props["reason"],
                                  "delta": props["temporal_delta"]})  # fmt: skip


def write_sqlite_plan(connection: SqliteConnection, plan: MergePlan) -> None:
    """The Rust import's insert of each SUPERSEDES row, in the caller's transaction."""
    for edge in plan.edges:
        table = _SQLITE_TABLES[edge.rel]
        props = dict(edge.properties)
        values = (edge.source, edge.target, *(props[c] for c in table.columns))
        connection.execute(edge_insert_sql(table), values)


def _columns(edge: PlannedEdge) -> tuple[str, ...]:
    columns = _REL_COLUMNS.get(edge.rel)
    if columns is None or tuple(name for name, _ in edge.properties) != columns:
        raise InvalidInputError(
            f"The backup names an edge no merge writes ({edge.rel} with "
            f"{', '.join(name for name, _ in edge.properties)})",
            hint="Restore merges from the backups memexplorer wrote for them.",
        )
    return columns


def _gone(store: object, edge: PlannedEdge, found: int) -> StoreChangedError:
    return StoreChangedError(
        str(store),
        f"The {edge.rel} edge the merge added from {edge.source} to {edge.target} is "
        f"{'not there' if not found else f'there {found} times'} now, so the store changed "
        "since the merge; nothing was undone",
    )


def delete_graph_edge(graph: GraphStore, store: object, edge: PlannedEdge) -> None:
    """Delete the one edge the merge added; refuse unless exactly one matches."""
    columns = _columns(edge)
    where = " AND ".join(f"r.{name} = $p{i}" for i, name in enumerate(columns))
    match = (
        f"MATCH (a:SemanticMemory {{memory_id: $source}})-[r:{edge.rel}]->"
        f"(b:SemanticMemory {{memory_id: $target}}) WHERE {where}"
    )
    params: dict[str, Any] = {"source": edge.source, "target": edge.target}
    params.update({f"p{i}": value for i, (_, value) in enumerate(edge.properties)})
    found = int(graph.scalar(f"{match} RETURN count(r)", params))
    if found != 1:
        raise _gone(store, edge, found)
    graph.execute(f"{match} DELETE r", params)


def delete_sqlite_edge(connection: SqliteConnection, store: object, edge: PlannedEdge) -> int:
    """Delete the one row the merge added and return its id; refuse unless exactly one
    matches."""
    columns = _columns(edge)
    table = _SQLITE_TABLES[edge.rel].name
    where = " AND ".join(f"{name} = ?" for name in ("source_id", "target_id", *columns))
    values = [edge.source, edge.target, *(value for _, value in edge.properties)]
    ids = [r[0] for r in connection.execute(f"SELECT id FROM {table} WHERE {where}", values)]
    if len(ids) != 1:
        raise _gone(store, edge, len(ids))
    connection.execute(f"DELETE FROM {table} WHERE id = ?", (ids[0],))
    return int(ids[0])


def sqlite_sequence(connection: SqliteConnection, rel: str) -> int | None:
    """The last id AUTOINCREMENT gave the rel's table (None: no row yet)."""
    row = connection.execute(
        f"SELECT seq FROM {SEQUENCE_TABLE} WHERE name = ?", (_SQLITE_TABLES[rel].name,)
    ).fetchone()
    return None if row is None else int(row[0])
