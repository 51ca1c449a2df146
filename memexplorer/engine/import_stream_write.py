"""The second pass of a streamed import: the checked file read again and written
into a store in batches, so memory holds one batch of rows, never the file.

It writes only into the import's staged copy (see :mod:`.transfer_import`), which
replaces the store in one rename once it is whole, or is removed: so each batch
commits on its own (one transaction for a million facts filled kuzu's buffer
pool: "Unable to allocate memory" with a 256 MiB pool). The checks that need the
store (ids owned by another agent, a merge's edges naming the agent's existing
nodes) come first, from the ids the first pass kept (:class:`~.import_stream_check.FileSummary`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .exceptions import ImportDataError
from .export_reader import iter_export
from .export_schema import EDGE_SPECS
from .export_validation import Problems, check_edge, check_node
from .graph_store import GraphStore
from .hierarchical_transfer import bulk_insert, clear_agent, ids_by_agent, table_order
from .import_stream_check import NODE_TABLES, FileSummary
from .progress import TaskControl, checkpoint

__all__ = ["BATCH_ROWS", "NODE_BATCH_ROWS", "write_export_file"]

#: Edges bulk-inserted at a time: each batch joins against a scan of the node table.
BATCH_ROWS = 100_000
#: Nodes at a time: a node row holds its text, so fewer of them (25k: some 30 MB).
NODE_BATCH_ROWS = 25_000
_SPECS = {spec.key: spec for spec in EDGE_SPECS}


def _store_checks(
    graph: GraphStore, agent_id: str, summary: FileSummary, merge: bool
) -> dict[str, set[str]]:
    """Refuse ids another agent owns and a merge's edges naming no node at all;
    return the agent's ids already in the store (skipped by a merge)."""
    wanted = {table: summary.ids[table] | set(summary.outside[table]) for table in summary.ids}
    owners = {table: ids_by_agent(graph, table, sorted(ids)) for table, ids in wanted.items()}
    foreign = sorted(
        memory_id
        for table, found in owners.items()
        for memory_id, owner in found.items()
        if owner != agent_id and memory_id in summary.ids[table]
    )
    if foreign:
        raise ImportDataError(
            f"{len(foreign)} id(s) in the file belong to another agent in this store "
            f"(first: {foreign[0]!r}); nothing was written",
            hint="Import into a separate store, or into the agent that owns them.",
        )
    existing = {
        table: ({i for i, owner in found.items() if owner == agent_id} if merge else set())
        for table, found in owners.items()
    }
    problems = Problems()
    for table, outside in summary.outside.items():
        for memory_id, where in sorted(outside.items(), key=lambda item: item[1]):
            if memory_id not in existing[table]:
                problems.add(where, f"names no {table} node ({memory_id!r})")
    problems.raise_if_any()
    return existing


def write_export_file(
    graph: GraphStore,
    agent_id: str,
    source: Path,
    summary: FileSummary,
    *,
    merge: bool,
    control: TaskControl | None = None,
) -> dict[str, Any]:
    """Write the file the first pass checked into ``agent_id``; the counts as
    :func:`~.hierarchical_transfer.import_agent` returns them."""
    checkpoint(control, "checking the file against the store")
    existing = _store_checks(graph, agent_id, summary, merge)
    for ids in (*summary.ids.values(), *summary.outside.values()):
        ids.clear()  # a million ids are some 100 MB; the batches need that room
    skip = existing["SemanticMemory"] | existing["EpisodicMemory"]
    result: dict[str, Any] = {
        "semantic_nodes_imported": 0, "episodic_nodes_imported": 0, "edges_imported": 0,
        "skipped": 0, "errors": 0,
        "edges_by_type": {spec.rel: 0 for spec in EDGE_SPECS},
    }  # fmt: skip
    done = 0
    writer = _Batches(graph, lambda n: checkpoint(control, "writing", done + n, summary.total))
    if not merge:
        clear_agent(graph, agent_id)
    passes = [None] if summary.nodes_first else [set(NODE_TABLES), set(_SPECS)]
    for only in passes:
        for key, position, item in iter_export(source):
            if position is None or (only is not None and key not in only):
                continue
            done += 1
            if key in NODE_TABLES:
                node = check_node(key, position, item, set(), Problems())
                assert node is not None  # the first pass checked it
                if node["memory_id"] in skip:
                    result["skipped"] += 1
                    continue
                node.update(agent_id=agent_id, tags=json.dumps(node["tags"]),
                            metadata=json.dumps(node["metadata"]))  # fmt: skip
                result[f"{key}_imported"] += 1
                writer.add(NODE_TABLES[key], node)
            elif key in _SPECS:
                spec = _SPECS[key]
                edge = check_edge(spec, position, item, Problems())
                assert edge is not None
                if edge["source_id"] in skip and edge["target_id"] in skip:
                    result["skipped"] += 1
                    continue
                if "metadata" in edge:
                    edge["metadata"] = json.dumps(edge["metadata"]) if edge["metadata"] else ""
                result["edges_imported"] += 1
                result["edges_by_type"][spec.rel] += 1
                writer.add(spec.rel, edge)
        writer.flush_all()
    return result


class _Batches:
    """Rows waiting to be bulk-inserted, per table, flushed at :data:`BATCH_ROWS`."""

    def __init__(self, graph: GraphStore, progress: Callable[[int], None]) -> None:
        self.graph = graph
        self.progress = progress
        self.rows: dict[str, list[dict[str, Any]]] = {}
        self.orders: dict[str, list[str]] = {}

    def add(self, table: str, row: dict[str, Any]) -> None:
        rows = self.rows.get(table)
        if rows is None:  # a new list: what came before goes in (nodes before edges)
            self.flush_all()
            rows = self.rows[table] = []
        rows.append(row)
        if len(rows) >= (NODE_BATCH_ROWS if table in NODE_TABLES.values() else BATCH_ROWS):
            self.flush(table)

    def flush(self, table: str) -> None:
        rows = self.rows.pop(table, [])
        if not rows:
            return
        if table not in self.orders:
            self.orders[table] = self._order(table, rows[0])
        self.progress(0)
        bulk_insert(self.graph, table, self.orders[table], rows)

    def flush_all(self) -> None:
        for table in [t for t in NODE_TABLES.values() if t in self.rows] + list(self.rows):
            self.flush(table)

    def _order(self, table: str, row: dict[str, Any]) -> list[str]:
        if table in NODE_TABLES.values():
            return table_order(self.graph, table, set(row))
        names = set(row) - {"source_id", "target_id"}
        table_order(self.graph, table, names)
        return ["source_id", "target_id", *[c for c, _ in self.graph.columns(table)]]
