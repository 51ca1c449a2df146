"""The checking pass of a streamed import: every record of the file checked, nothing
written, so a file bad anywhere (even in its last record) never reaches a store.

It keeps only what the writing step and the store checks need: the ids of the
file's nodes, per list the number of records, and the edge endpoints that name no
node of the file (none in an export; a merge looks them up in the store, a
replace refuses them). Records are not kept: each correct one, made into a row for
the store, goes to a :class:`~.import_spill.RowSpill` on disk when one is given.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from memexplorer.memory.export_reader import iter_export
from memexplorer.memory.export_schema import EDGE_SPECS, FORMAT_VERSIONS
from memexplorer.memory.export_validation import Problems, check_edge, check_node
from memexplorer.memory.import_file import refuse_replace
from memexplorer.memory.import_spill import RowSpill

__all__ = ["NODE_TABLES", "FileSummary", "check_export_file", "check_replace_summary"]

NODE_TABLES = {"semantic_nodes": "SemanticMemory", "episodic_nodes": "EpisodicMemory"}
_SPECS = {spec.key: spec for spec in EDGE_SPECS}


@dataclass
class FileSummary:
    """What the first pass learned of a file it found correct."""

    version: str = "1.0"
    keys: list[str] = field(default_factory=list)  # top-level keys in file order
    counts: dict[str, int] = field(default_factory=dict)  # records of each list
    ids: dict[str, set[str]] = field(
        default_factory=lambda: {table: set() for table in NODE_TABLES.values()}
    )
    #: Per table, endpoints naming no node of the file: id -> the first edge naming it.
    outside: dict[str, dict[str, str]] = field(
        default_factory=lambda: {table: {} for table in NODE_TABLES.values()}
    )

    @property
    def graph_shape(self) -> bool:
        """Seed 003's shape (``nodes`` and ``edges``): read whole, as before."""
        return "nodes" in self.keys and "edges" in self.keys and "semantic_nodes" not in self.keys

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def check_export_file(source: Path, *, merge: bool, spill: RowSpill | None = None) -> FileSummary:
    """Check every record of ``source`` (one streaming pass); raise one
    :class:`ImportDataError` naming the problems (up to ten) with their JSON paths.
    ``spill`` receives each correct record as a row for the store."""
    summary = FileSummary()
    problems = Problems()
    pending: list[tuple[str, str, str, str]] = []  # (where, end, table, id) not yet known
    for key, position, item in iter_export(source):
        if position is None or (position == 0 and key not in summary.counts):
            summary.keys.append(key)
        if position is None:
            if key == "format_version":
                summary.version = item
            elif isinstance(item, list):  # an empty list
                summary.counts[key] = 0
            elif key in NODE_TABLES or key in _SPECS:
                problems.add(key, f"expected a list, got {type(item).__name__}")
            continue
        summary.counts[key] = position + 1
        if key in NODE_TABLES:
            node = check_node(key, position, item, summary.ids[NODE_TABLES[key]], problems)
            if node is not None and spill is not None and not problems.count:
                spill.node(key, node)  # a record with a problem may lack a field
        elif key in _SPECS:
            spec = _SPECS[key]
            edge = check_edge(spec, position, item, problems)
            if edge is None:
                continue
            if spill is not None and not problems.count:
                spill.edge(spec, edge)  # nothing is written once a problem is found
            where = f"{key}[{position}]"
            if edge["source_id"] not in summary.ids["SemanticMemory"]:
                pending.append((where, "source_id", "SemanticMemory", edge["source_id"]))
            if edge["target_id"] not in summary.ids[spec.target_table]:
                pending.append((where, "target_id", spec.target_table, edge["target_id"]))
    _finish(summary, problems, pending, merge=merge)
    problems.raise_if_any()
    return summary


def _finish(
    summary: FileSummary,
    problems: Problems,
    pending: list[tuple[str, str, str, str]],
    *,
    merge: bool,
) -> None:
    if summary.graph_shape:
        return
    if summary.version not in FORMAT_VERSIONS:
        problems.add("format_version", f"unknown version {summary.version!r} (expected 1.0 or 1.1)")
    if not any(key in summary.keys for key in NODE_TABLES):
        problems.add("$", "no semantic_nodes or episodic_nodes: not a memory export")
    refused: set[str] = set()
    for where, end, table, memory_id in pending:
        if memory_id in summary.ids[table] or where in refused:
            continue
        if merge:
            summary.outside[table].setdefault(memory_id, f"{where}.{end}")
        else:
            problems.add(f"{where}.{end}", f"names no {table} node ({memory_id!r})")
            refused.add(where)  # like check_endpoints: the source, else the target


def check_replace_summary(summary: FileSummary, *, allow_empty: bool) -> None:
    """A replace import's refusals (see :func:`~.import_file.check_replace_file`)."""
    if allow_empty:
        return
    has_nodes = any(summary.counts.get(key) for key in NODE_TABLES)
    refuse_replace(summary.version, summary.keys, has_nodes)
