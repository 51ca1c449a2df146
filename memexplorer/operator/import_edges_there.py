"""How many of an import file's edges the store holds already, for the preview: an
edge is there when the store has an edge of the same type from the same source id
to the same target id (read-only, before anything is written)."""

from __future__ import annotations

from typing import Any

from memexplorer.memory.export_schema import EDGE_SPECS
from memexplorer.operator.sqlite_in import chunks, marks
from memexplorer.storage.graphdb import identifier

__all__ = ["edges_there"]


def _graph_pairs(graph: Any, rel: str, target: str, sources: list[str]) -> set[tuple[str, str]]:
    """The store's (source, target) pairs of ``rel`` leaving these sources."""
    if rel not in graph.rel_tables():
        return set()  # an older schema without this edge type holds none of it
    rows = graph.rows(
        f"MATCH (a:SemanticMemory)-[:{identifier(rel)}]->(b:{identifier(target)}) "
        "WHERE a.memory_id IN $ids RETURN DISTINCT a.memory_id, b.memory_id",
        {"ids": sources},
    )
    return {(str(a), str(b)) for a, b in rows}


def _sqlite_pairs(connection: Any, table: str, sources: list[str]) -> set[tuple[str, str]]:
    """The same in amplihack-rs's SQLite store, whose edge tables carry the file's names."""
    found: set[tuple[str, str]] = set()
    for chunk in chunks(sources):
        rows = connection.execute(
            f"SELECT source_id, target_id FROM {table} WHERE source_id IN ({marks(chunk)})",
            chunk,
        )
        found |= {(str(a), str(b)) for a, b in rows}
    return found


def edges_there(doc: dict[str, list[dict[str, Any]]], graph: Any, sqlite: Any) -> dict[str, int]:
    """Per edge list of the file, how many of its edges the store has already (0 for a
    new store: ``graph`` and ``sqlite`` both None)."""
    out: dict[str, int] = {}
    for spec in EDGE_SPECS:
        edges = doc.get(spec.key, [])
        sources = sorted({str(e["source_id"]) for e in edges})
        if not edges or (graph is None and sqlite is None):
            out[spec.key] = 0
            continue
        if sqlite is not None:
            stored = _sqlite_pairs(sqlite, spec.key, sources)
        else:
            stored = _graph_pairs(graph, spec.rel, spec.target_table, sources)
        ends = ((str(e["source_id"]), str(e["target_id"])) for e in edges)
        out[spec.key] = sum(1 for pair in ends if pair in stored)
    return out
