"""Seed 003's graph shape of an export, beside transfer format 1.1.

Seed 003 ("Export / Import") gives ``export_graph()`` the shape
``{"nodes": [...], "edges": [...], "agent_name": "...", "exported_at": "..."}``
and no more; neither reference code has the method. memexplorer fills the lists
losslessly from format 1.1: a node is its 1.1 record with ``"type"`` (its table,
``SemanticMemory`` or ``EpisodicMemory``) in front, an edge its 1.1 record with
``"type"`` (its rel table). So the two shapes convert into each other and back
without loss, and an import takes either (docs/rust-stores.md, "graph shape").
"""

from __future__ import annotations

from typing import Any

from memexplorer.storage.exceptions import ImportDataError

__all__ = [
    "GRAPH_SHAPE",
    "from_graph_shape",
    "is_graph_shape",
    "to_graph_shape",
]

#: The name of the shape, as ``export_graph(format_version=...)`` and ``--format`` take it.
GRAPH_SHAPE = "graph"

_NODE_LISTS = {"SemanticMemory": "semantic_nodes", "EpisodicMemory": "episodic_nodes"}
_EDGE_LISTS = {
    "SIMILAR_TO": "similar_to_edges",
    "DERIVES_FROM": "derives_from_edges",
    "SUPERSEDES": "supersedes_edges",
    "TRANSITIONED_TO": "transitioned_to_edges",
}
_STATISTICS = {
    "semantic_nodes": "semantic_node_count",
    "episodic_nodes": "episodic_node_count",
    **{key: f"{key[:-1]}_count" for key in _EDGE_LISTS.values()},
}


def is_graph_shape(data: dict[str, Any]) -> bool:
    """Whether ``data`` is in seed 003's shape (``nodes`` and ``edges``, no 1.1 lists)."""
    return "nodes" in data and "edges" in data and "semantic_nodes" not in data


def to_graph_shape(data: dict[str, Any]) -> dict[str, Any]:
    """Seed 003's shape of a format 1.0 or 1.1 export (lists absent from it stay empty)."""
    nodes = [
        {"type": table, **node} for table, key in _NODE_LISTS.items() for node in data.get(key, [])
    ]
    edges = [
        {"type": rel, **edge} for rel, key in _EDGE_LISTS.items() for edge in data.get(key, [])
    ]
    return {
        "agent_name": data.get("agent_name", ""),
        "exported_at": data.get("exported_at", ""),
        "nodes": nodes,
        "edges": edges,
    }


def _split(items: Any, lists: dict[str, str], what: str) -> dict[str, list[dict[str, Any]]]:
    if not isinstance(items, list):
        raise ImportDataError(
            f"The export's {what} is a {type(items).__name__}, not a list",
            hint="A graph export holds 'nodes' and 'edges' lists (seed 003).",
        )
    split: dict[str, list[dict[str, Any]]] = {key: [] for key in lists.values()}
    for number, item in enumerate(items):
        kind = item.get("type") if isinstance(item, dict) else None
        if kind not in lists:
            raise ImportDataError(
                f"{what}[{number}] has type {kind!r}; expected one of {', '.join(lists)}",
                hint="Each node and edge of a graph export names its table in 'type'.",
            )
        split[lists[kind]].append({k: v for k, v in item.items() if k != "type"})
    return split


def from_graph_shape(data: dict[str, Any]) -> dict[str, Any]:
    """Format 1.1 of an export in seed 003's shape; a record of an unknown type is an
    :class:`~.exceptions.ImportDataError` naming it."""
    lists = {
        **_split(data.get("nodes"), _NODE_LISTS, "nodes"),
        **_split(data.get("edges"), _EDGE_LISTS, "edges"),
    }
    return {
        "agent_name": data.get("agent_name", ""),
        "exported_at": data.get("exported_at", ""),
        "format_version": "1.1",
        **lists,
        "statistics": {stat: len(lists[key]) for key, stat in _STATISTICS.items()},
    }
