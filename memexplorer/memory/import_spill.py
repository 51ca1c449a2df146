"""The rows of a checked export, kept on disk between the import's two steps.

The first pass (:mod:`.import_stream_check`) parses each record once; the rows it
makes of them go in batches into one Arrow IPC file per table in a private
temporary folder, so the writing step reads Arrow batches back instead of parsing
and checking the JSON a second time (at 1M facts that second pass cost some 15 s
of CPU). Memory holds one batch per table being filled.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memexplorer.memory.export_schema import EDGE_SPECS, EdgeSpec
from memexplorer.memory.export_validation import NODE_FIELDS

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["BATCH_ROWS", "NODE_BATCH_ROWS", "RowSpill"]

#: Edges per batch of the file (the writing step puts batches together for a COPY):
#: 100k edges as dicts took the check from some 100 MB to 170 MB at 100k facts.
BATCH_ROWS = 25_000
#: Nodes per batch: a node row holds its text, so fewer of them (25k: some 30 MB).
NODE_BATCH_ROWS = 25_000
_NODE_TABLES = {"semantic_nodes": "SemanticMemory", "episodic_nodes": "EpisodicMemory"}


@cache
def _schemas() -> dict[str, pa.Schema]:
    """Each table's Arrow schema as the file's fields make it (JSON text for lists
    and objects); the writing step casts to the store's own column types."""
    import pyarrow as pa

    arrow = {str: pa.string(), float: pa.float64(), int: pa.int64(), list: pa.string(),
             dict: pa.string()}  # fmt: skip

    def schema(fields: tuple[tuple[str, type, Any], ...], ends: tuple[str, ...]) -> pa.Schema:
        names = [(name, arrow[kind]) for name, kind, _ in fields]
        return pa.schema([*names, *((end, pa.string()) for end in ends)])

    nodes = {table: schema(NODE_FIELDS[key], ("memory_id", "agent_id"))
             for key, table in _NODE_TABLES.items()}  # fmt: skip
    edges = {spec.rel: schema(spec.fields, ("source_id", "target_id")) for spec in EDGE_SPECS}
    return {**nodes, **edges}


class RowSpill:
    """Rows ready for the store, per table, in Arrow IPC files under ``folder``."""

    def __init__(self, folder: Path, agent_id: str) -> None:
        self.folder = folder
        self.agent_id = agent_id
        self.rows: dict[str, list[dict[str, Any]]] = {}
        self.writers: dict[str, Any] = {}
        self.counts: dict[str, int] = {}

    def node(self, key: str, node: dict[str, Any]) -> None:
        node["agent_id"] = self.agent_id
        node["tags"] = json.dumps(node["tags"])
        node["metadata"] = json.dumps(node["metadata"])
        self._add(_NODE_TABLES[key], node, NODE_BATCH_ROWS)

    def edge(self, spec: EdgeSpec, edge: dict[str, Any]) -> None:
        if "metadata" in edge:
            edge["metadata"] = json.dumps(edge["metadata"]) if edge["metadata"] else ""
        self._add(spec.rel, edge, BATCH_ROWS)

    def _add(self, table: str, row: dict[str, Any], limit: int) -> None:
        rows = self.rows.setdefault(table, [])
        rows.append(row)
        if len(rows) >= limit:
            self._flush(table)

    def _flush(self, table: str) -> None:
        import pyarrow as pa

        rows = self.rows.pop(table, [])
        if not rows:
            return
        schema = _schemas()[table]
        writer = self.writers.get(table)
        if writer is None:
            path = self.folder / f"{table}.arrow"
            writer = self.writers[table] = pa.ipc.new_file(str(path), schema)
        writer.write_table(pa.Table.from_pylist(rows, schema=schema))
        self.counts[table] = self.counts.get(table, 0) + len(rows)

    def close(self) -> None:
        """Write what is left and close every file (before :meth:`batches`)."""
        for table in list(self.rows):
            self._flush(table)
        for writer in self.writers.values():
            writer.close()
        self.writers.clear()

    def tables(self) -> list[str]:
        """Tables with rows, nodes first (an edge's endpoints must be in first)."""
        order = [*_NODE_TABLES.values(), *(spec.rel for spec in EDGE_SPECS)]
        return [table for table in order if self.counts.get(table)]

    def batches(self, table: str, rows: int) -> Iterator[pa.Table]:
        """The table's rows in tables of about ``rows`` rows (whole batches of the
        file put together), read (not mapped) from its file."""
        import pyarrow as pa

        with pa.OSFile(str(self.folder / f"{table}.arrow")) as source:
            reader = pa.ipc.open_file(source)
            held: list[pa.RecordBatch] = []
            count = 0
            for index in range(reader.num_record_batches):
                batch = reader.get_batch(index)
                held.append(batch)
                count += batch.num_rows
                if count >= rows:
                    yield pa.Table.from_batches(held)
                    held, count = [], 0
            if held:
                yield pa.Table.from_batches(held)
