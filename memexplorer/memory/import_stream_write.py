"""The writing step of a streamed import: the rows the first pass checked and kept
on disk (:class:`~.import_spill.RowSpill`) written into a store a batch at a time,
so memory holds one batch of rows, never the file.

It writes only into the import's staged copy (see :mod:`.transfer_import`), which
replaces the store in one rename once it is whole, or is removed: so each batch
commits in a transaction of its own (one transaction for a million facts filled kuzu's buffer
pool: "Unable to allocate memory" with a 256 MiB pool). The checks that need the
store (ids owned by another agent, a merge's edges naming the agent's existing
nodes) come first, from the ids the first pass kept
(:class:`~.import_stream_check.FileSummary`); a store with no nodes yet (a new
one) is not asked. The budget (:func:`~.memory_budget.import_sizes`) sets the
pool, the rows per COPY, and how often the store is closed and opened again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memexplorer.memory.export_schema import EDGE_SPECS
from memexplorer.memory.export_validation import Problems
from memexplorer.memory.hierarchical_transfer import (
    agents_ids,
    bulk_insert,
    clear_agent,
    table_order,
)
from memexplorer.memory.import_spill import RowSpill
from memexplorer.memory.import_stream_check import NODE_TABLES, FileSummary
from memexplorer.storage.graph_open import open_graph_store
from memexplorer.storage.graph_store import GraphStore, arrow_schema, identifier
from memexplorer.storage.memory_budget import ImportSizes, give_back_freed_memory, import_sizes
from memexplorer.storage.progress import TaskControl, checkpoint

__all__ = ["write_export_file"]


def _store_checks(
    graph: GraphStore, agent_id: str, summary: FileSummary, merge: bool
) -> dict[str, set[str]]:
    """Refuse ids another agent owns and a merge's edges naming no node at all;
    return the agent's ids already in the store (skipped by a merge).

    A store with no nodes (a new one, or the fresh file that stands in for the
    agent's own store) owns none of them: asking it about a million ids cost
    some 200 MB of the import's peak for nothing."""
    if any(_holds_nodes(graph, table) for table in summary.ids):
        wanted = {
            table: ids | set(summary.outside[table]) if summary.outside[table] else ids
            for table, ids in summary.ids.items()
        }
        existing = agents_ids(graph, agent_id, wanted, summary.ids, merge)
    else:
        existing = {table: set() for table in summary.ids}
    problems = Problems()
    for table, outside in summary.outside.items():
        for memory_id, where in sorted(outside.items(), key=lambda item: item[1]):
            if memory_id not in existing[table]:
                problems.add(where, f"names no {table} node ({memory_id!r})")
    problems.raise_if_any()
    return existing


def _holds_nodes(graph: GraphStore, table: str) -> bool:
    return bool(graph.rows(f"MATCH (n:{identifier(table)}) RETURN n.memory_id LIMIT 1"))


class _Reopening:
    """The staged store, opened for writing when a batch needs it and closed after
    each table and every ``rows_per_open`` rows: kuzu gives back what an open
    database gathered while copying only when it is closed."""

    def __init__(self, path: Path, sizes: ImportSizes) -> None:
        self.path = path
        self.sizes = sizes
        self.graph: GraphStore | None = None
        self.copied = 0

    def store(self) -> GraphStore:
        if self.graph is None:
            self.graph = open_graph_store(self.path, read_only=False,
                                          buffer_pool_size=self.sizes.pool,
                                          max_threads=self.sizes.threads)  # fmt: skip
            self.copied = 0
        return self.graph

    def count(self, rows: int) -> None:
        self.copied += rows
        if self.copied >= self.sizes.rows_per_open:
            self.close()

    def close(self) -> None:
        if self.graph is not None:
            self.graph.close()  # a checkpoint: the rows so far are in the file
            self.graph = None
            give_back_freed_memory()


def write_export_file(
    graph: GraphStore,
    agent_id: str,
    spill: RowSpill,
    summary: FileSummary,
    *,
    merge: bool,
    control: TaskControl | None = None,
) -> dict[str, Any]:
    """Write the rows the first pass kept in ``spill`` into ``agent_id``; the counts
    as :func:`~.hierarchical_transfer.import_agent` returns them.

    ``graph`` (the import's staged copy) is closed when this returns: the rows go
    in through stores opened on its file with the sizes of
    :func:`~.memory_budget.import_sizes`."""
    import pyarrow as pa
    import pyarrow.compute as pc

    checkpoint(control, "checking the file against the store")
    existing = _store_checks(graph, agent_id, summary, merge)
    for ids in (*summary.ids.values(), *summary.outside.values()):
        ids.clear()  # a million ids are some 100 MB; the batches need that room
    skip = existing["SemanticMemory"] | existing["EpisodicMemory"]
    known = pa.array(sorted(skip), pa.string()) if skip else None
    result: dict[str, Any] = {
        "semantic_nodes_imported": 0, "episodic_nodes_imported": 0, "edges_imported": 0,
        "skipped": 0, "errors": 0,
        "edges_by_type": {spec.rel: 0 for spec in EDGE_SPECS},
    }  # fmt: skip
    counted = {table: f"{key}_imported" for key, table in NODE_TABLES.items()}
    done = 0
    if not merge:
        with graph.transaction():
            clear_agent(graph, agent_id)
    sizes = import_sizes(records=summary.total)
    staged = _Reopening(graph.path, sizes)
    graph.close()
    give_back_freed_memory()
    try:
        for table in spill.tables():
            order = None
            node = table in counted
            for batch in spill.batches(table, sizes.node_rows if node else sizes.edge_rows):
                checkpoint(control, f"writing {table}", done, summary.total)
                if node:  # the store's spelling of the agent's name
                    at = batch.schema.get_field_index("agent_id")
                    names = pa.array([agent_id] * batch.num_rows, pa.string())
                    batch = batch.set_column(at, "agent_id", names)
                rows = batch
                if known is not None:
                    if node:
                        drop = pc.is_in(batch["memory_id"], value_set=known)
                    else:
                        drop = pc.and_(pc.is_in(batch["source_id"], value_set=known),
                                       pc.is_in(batch["target_id"], value_set=known))  # fmt: skip
                    rows = batch.filter(pc.invert(drop))
                result["skipped"] += batch.num_rows - rows.num_rows
                if node:
                    result[counted[table]] += rows.num_rows
                else:
                    result["edges_imported"] += rows.num_rows
                    result["edges_by_type"][table] += rows.num_rows
                if rows.num_rows:
                    store = staged.store()
                    order = order or _order(store, table, rows.column_names)
                    _insert(store, table, order, rows)
                    staged.count(rows.num_rows)
                done += batch.num_rows
                del batch, rows
                checkpoint(control, f"writing {table}", done, summary.total)
            staged.close()
    finally:
        staged.close()
    return result


def _order(graph: GraphStore, table: str, names: list[str]) -> list[str]:
    """The store's column order for ``table``; refuses a table unlike the spec's."""
    if table in NODE_TABLES.values():
        return table_order(graph, table, set(names))
    table_order(graph, table, set(names) - {"source_id", "target_id"})
    return ["source_id", "target_id", *[c for c, _ in graph.columns(table)]]


def _insert(graph: GraphStore, table: str, order: list[str], rows: Any) -> None:
    """Bulk-insert an Arrow batch, cast to the store's column types (row by row
    through :func:`~.hierarchical_transfer.bulk_insert` where Arrow cannot say them)."""
    kinds = dict(graph.columns(table))
    schema = arrow_schema([(name, kinds.get(name, "STRING")) for name in order])
    data = rows.select(order)
    with graph.transaction():  # one batch: committed whole, in the staged copy
        if schema is None:
            bulk_insert(graph, table, order, data.to_pylist())
        else:
            graph.copy_arrow(table, data.cast(schema))
