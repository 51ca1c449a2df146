"""The writing step of a streamed import: the rows the first pass checked and kept
on disk (:class:`~.import_spill.RowSpill`) written into a store a batch at a time,
so memory holds one batch of rows, never the file.

It writes only into the import's staged copy (see :mod:`.transfer_import`), which
replaces the store in one rename once it is whole, or is removed: so each batch
commits in a transaction of its own (one transaction for a million facts filled kuzu's buffer
pool: "Unable to allocate memory" with a 256 MiB pool). The checks that need the
store (ids owned by another agent, a merge's edges naming the agent's existing
nodes) come first, from the ids the first pass kept
(:class:`~.import_stream_check.FileSummary`).
"""

from __future__ import annotations

from typing import Any

from .export_schema import EDGE_SPECS
from .export_validation import Problems
from .graph_store import GraphStore, arrow_schema
from .hierarchical_transfer import agents_ids, bulk_insert, clear_agent, table_order
from .import_spill import RowSpill
from .import_stream_check import NODE_TABLES, FileSummary
from .progress import TaskControl, checkpoint

__all__ = ["write_export_file"]


def _store_checks(
    graph: GraphStore, agent_id: str, summary: FileSummary, merge: bool
) -> dict[str, set[str]]:
    """Refuse ids another agent owns and a merge's edges naming no node at all;
    return the agent's ids already in the store (skipped by a merge)."""
    wanted = {table: summary.ids[table] | set(summary.outside[table]) for table in summary.ids}
    existing = agents_ids(graph, agent_id, wanted, summary.ids, merge)
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
    spill: RowSpill,
    summary: FileSummary,
    *,
    merge: bool,
    control: TaskControl | None = None,
) -> dict[str, Any]:
    """Write the rows the first pass kept in ``spill`` into ``agent_id``; the counts
    as :func:`~.hierarchical_transfer.import_agent` returns them."""
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
    for table in spill.tables():
        order = None
        for batch in spill.batches(table):
            checkpoint(control, f"writing {table}", done, summary.total)
            if table in counted:  # the store's spelling of the agent's name
                at = batch.schema.get_field_index("agent_id")
                batch = batch.set_column(at, "agent_id", pa.array([agent_id] * batch.num_rows))
            rows = batch
            if known is not None:
                if table in counted:
                    drop = pc.is_in(batch["memory_id"], value_set=known)
                else:
                    drop = pc.and_(pc.is_in(batch["source_id"], value_set=known),
                                   pc.is_in(batch["target_id"], value_set=known))  # fmt: skip
                rows = batch.filter(pc.invert(drop))
            result["skipped"] += batch.num_rows - rows.num_rows
            if table in counted:
                result[counted[table]] += rows.num_rows
            else:
                result["edges_imported"] += rows.num_rows
                result["edges_by_type"][table] += rows.num_rows
            if rows.num_rows:
                order = order or _order(graph, table, rows.column_names)
                _insert(graph, table, order, rows)
            done += batch.num_rows
            checkpoint(control, f"writing {table}", done, summary.total)
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
