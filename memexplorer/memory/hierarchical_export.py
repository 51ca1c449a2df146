"""JSON export of one agent's hierarchical graph, a page of rows at a time.

Format "1.0" is what the reference library's ``export_to_json`` writes; "1.1"
(seed 002) adds ``transitioned_to_edges`` and more statistics. Nodes come in
(created_at, memory_id) order, edges in (source, target) order, as before the
export paged; the pages (:mod:`.export_pages`) keep every query inside the
buffer pool, so a million facts export in the default 256 MiB.
:func:`export_agent` returns the document (the library API);
:func:`spill_agent_export` keeps its lists on disk for writing to a file.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memexplorer.memory.export_merge import merged, spill
from memexplorer.memory.export_pages import edge_pages, edge_sort_key, node_pages, node_sort_key
from memexplorer.memory.export_schema import EDGE_SPECS, FORMAT_VERSIONS, EdgeSpec
from memexplorer.memory.export_text import (
    CACHE_LIMIT,
    StoredText,
    edge_text,
    episodic_text,
    semantic_text,
)
from memexplorer.memory.hierarchical_schema import loads_json
from memexplorer.storage.exceptions import ImportDataError
from memexplorer.storage.graph_store import GraphStore
from memexplorer.storage.memory_budget import page_rows
from memexplorer.storage.progress import TaskControl, checkpoint

__all__ = ["export_agent", "spill_agent_export"]

Row = Sequence[Any]
_SEMANTIC = ["memory_id", "concept", "content", "confidence", "source_id",
             "tags", "metadata", "created_at", "entity_name"]  # fmt: skip
_EPISODIC = ["memory_id", "content", "source_label", "tags", "metadata", "created_at"]


_SCALARS = (str, int, float, bool, type(None))


class _Parsed:
    """``loads_json(stored, default)`` for a JSON column, a fresh value each time.

    Tags and metadata repeat from record to record (an agent has a few shapes), so
    a value of scalars (a list of tags, a flat dict) is parsed once per stored text
    and copied after; anything nested is parsed every time. At 100k facts this is
    most of the difference to the reference's own ``export_to_json``.
    """

    def __init__(self, default: list[Any] | dict[str, Any]) -> None:
        self.default = default
        self.known: dict[str, list[Any] | dict[str, Any]] = {}

    def __call__(self, stored: str | None) -> Any:
        if not stored:
            return self.default.copy()
        value = self.known.get(stored)
        if value is not None:
            return value.copy()
        value = loads_json(stored, self.default)
        scalars = value.values() if isinstance(value, dict) else value
        if all(isinstance(item, _SCALARS) for item in scalars):
            if len(self.known) >= CACHE_LIMIT:
                self.known.clear()
            self.known[stored] = value
            return value.copy()
        return value


def _semantic(tags: _Parsed, metadata: _Parsed) -> Callable[[Row], dict[str, Any]]:
    def record(r: Row) -> dict[str, Any]:
        return {
            "memory_id": r[0], "concept": r[1] or "", "content": r[2] or "",
            "confidence": r[3], "source_id": r[4] or "", "tags": tags(r[5]),
            "metadata": metadata(r[6]), "created_at": r[7] or "",
            "entity_name": r[8] or "",
        }  # fmt: skip

    return record


def _episodic(tags: _Parsed, metadata: _Parsed) -> Callable[[Row], dict[str, Any]]:
    def record(r: Row) -> dict[str, Any]:
        return {
            "memory_id": r[0], "content": r[1] or "", "source_label": r[2] or "",
            "tags": tags(r[3]), "metadata": metadata(r[4]), "created_at": r[5] or "",
        }  # fmt: skip

    return record


def _edge_record(spec: EdgeSpec, metadata: _Parsed) -> Callable[[Row], dict[str, Any]]:
    names = ("source_id", "target_id", *(name for name, _, _ in spec.fields))
    parsed = [name for name, kind, _ in spec.fields if kind is dict]
    defaults = [(name, default) for name, kind, default in spec.fields if kind is not dict]

    def record(row: Row) -> dict[str, Any]:
        edge = dict(zip(names, row, strict=True))
        for name in parsed:
            edge[name] = metadata(edge[name])
        if None in row:
            for name, default in defaults:
                if edge[name] is None:
                    edge[name] = default
        return edge

    return record


@dataclass(frozen=True)
class _Section:
    """One list of the document: where its sorted pages come from, their order,
    and how a row becomes a record."""

    key: str
    table: str
    pages: Callable[[], Iterator[list[Row]]]
    order: Callable[[Row], Any]
    record: Callable[[Row], dict[str, Any]]
    #: The record's JSON text, made from the row (:mod:`.export_text`).
    text: Callable[[Row], str]


def _sections(graph: GraphStore, agent: str, version: str) -> list[_Section]:
    page = page_rows()
    tags, metadata = StoredText([]), StoredText({})
    tag_values, metadata_values = _Parsed([]), _Parsed({})
    sections = [
        _Section("semantic_nodes", "SemanticMemory",
                 lambda: node_pages(graph, "SemanticMemory", agent, _SEMANTIC, page),
                 node_sort_key(7), _semantic(tag_values, metadata_values),
                 semantic_text(tags, metadata)),
        _Section("episodic_nodes", "EpisodicMemory",
                 lambda: node_pages(graph, "EpisodicMemory", agent, _EPISODIC, page),
                 node_sort_key(5), _episodic(tag_values, metadata_values),
                 episodic_text(tags, metadata)),
    ]  # fmt: skip
    present = set(graph.rel_tables())
    for spec in EDGE_SPECS:
        if version not in spec.versions:
            continue
        if spec.rel in present:
            pages = lambda spec=spec: edge_pages(graph, spec, agent, page)  # noqa: E731
        else:
            pages = lambda: iter(())  # noqa: E731
        sections.append(_Section(spec.key, spec.rel, pages, edge_sort_key,
                                 _edge_record(spec, metadata_values),
                                 edge_text(spec, metadata)))  # fmt: skip
    return sections


def _header(agent: str, version: str) -> dict[str, str]:
    if version not in FORMAT_VERSIONS:
        raise ImportDataError(f"Unknown export format {version!r}; use 1.0 or 1.1")
    exported_at = (
        datetime.now(UTC).replace(tzinfo=None).isoformat() if version == "1.0"
        else str(int(time.time()))
    )  # fmt: skip
    return {"agent_name": agent, "exported_at": exported_at, "format_version": version}


def _statistics(counts: dict[str, int]) -> dict[str, int]:
    stats = {
        "semantic_node_count": counts["semantic_nodes"],
        "episodic_node_count": counts["episodic_nodes"],
    }
    for key, count in counts.items():
        if key.endswith("_edges"):
            stats[f"{key.removesuffix('_edges')}_edge_count"] = count
    return stats


def export_agent(
    graph: GraphStore, agent_id: str, version: str = "1.1", control: TaskControl | None = None
) -> dict[str, Any]:
    """Every node and edge of ``agent_id`` (edges counted for the agent of their source).

    ``control`` hears of each table as it is read, and may stop the export between them.
    """
    data: dict[str, Any] = _header(agent_id, version)
    sections = _sections(graph, agent_id, version)
    collecting = gc.isenabled()
    gc.disable()  # a tree of new dicts and lists, no cycles: the collector only
    try:  # walked it again and again (a fifth of the time at 100k facts)
        for number, section in enumerate(sections):
            checkpoint(control, f"reading {section.table}", number, len(sections), "tables")
            rows = merged(section.pages(), section.order)
            data[section.key] = [section.record(row) for row in rows]
    finally:
        if collecting:
            gc.enable()
    data["statistics"] = _statistics({s.key: len(data[s.key]) for s in sections})
    return data


def spill_agent_export(
    graph: GraphStore,
    agent_id: str,
    folder: Path,
    version: str = "1.1",
    control: TaskControl | None = None,
) -> dict[str, Any]:
    """What :func:`export_agent` returns, with each list kept in sorted run files in
    ``folder`` (private, the caller's to remove): a
    :class:`~.export_merge.SpilledRecords` of encoded records, which
    :func:`~.export_json.write_export_json` writes as it would the list. Holds one
    page of rows in memory at a time."""
    data: dict[str, Any] = _header(agent_id, version)
    sections = _sections(graph, agent_id, version)
    for number, section in enumerate(sections):
        checkpoint(control, f"reading {section.table}", number, len(sections), "tables")
        data[section.key] = spill(section.pages(), section.order, section.text, folder)
    data["statistics"] = _statistics({s.key: len(data[s.key]) for s in sections})
    return data
