"""Reading an amplihack-rs SQLite hierarchical store: counts, and an agent's graph.

Read-only (:func:`~.sqlite_readonly.open_sqlite_readonly`), so reading never changes
a byte. The export follows the Rust loaders (``transfer/sqlite_backend/
loaders.rs``) field for field: nodes by ``created_at``, edges whose source fact
is the agent's, tags that are not a JSON array of strings read as ``[]`` and
metadata that is not JSON as ``{}`` (empty text too), ``exported_at`` in Unix
seconds. Node order breaks ``created_at`` ties by id, so two exports of one
store are the same file.
"""

from __future__ import annotations

import json
import time
from typing import Any

from memexplorer.memory.rs_sqlite_schema import (
    EDGE_TABLES,
    EPISODIC_TABLE,
    NODE_TABLES,
    SEMANTIC_TABLE,
)
from memexplorer.storage.graphdb import identifier
from memexplorer.storage.sqlite_db import SqliteConnection

__all__ = ["agent_graph", "agents_of", "counts_by_agent", "edge_counts"]

_STAT_KEYS = {SEMANTIC_TABLE: "semantic_node_count", EPISODIC_TABLE: "episodic_node_count"}


def agents_of(connection: SqliteConnection) -> list[str]:
    """Every agent with a fact or an episode in the store, sorted."""
    rows = connection.execute(
        f"SELECT agent_id FROM {SEMANTIC_TABLE} UNION SELECT agent_id FROM {EPISODIC_TABLE}"
    )
    return sorted(row[0] for row in rows)


def edge_counts(connection: SqliteConnection, table: str) -> dict[str, int]:
    """Rows of an edge table per agent of their source fact (the Rust export's join)."""
    sql = (
        f"SELECT s.agent_id, count(*) FROM {identifier(table)} e "
        f"JOIN {SEMANTIC_TABLE} s ON e.source_id = s.memory_id GROUP BY s.agent_id"
    )
    return dict(connection.execute(sql).fetchall())


def counts_by_agent(connection: SqliteConnection) -> dict[str, dict[str, int]]:
    """Every agent's rows in each of the six tables (0 where it has none)."""
    agents = {agent: dict.fromkeys((*NODE_TABLES, *(e.name for e in EDGE_TABLES)), 0)
              for agent in agents_of(connection)}  # fmt: skip
    for table in NODE_TABLES:
        sql = f"SELECT agent_id, count(*) FROM {table} GROUP BY agent_id"
        for agent, count in connection.execute(sql):
            agents[agent][table] = count
    for edge in EDGE_TABLES:
        for agent, count in edge_counts(connection, edge.name).items():
            agents[agent][edge.name] = count
    return agents


def _tags(raw: Any) -> list[str]:
    try:
        value = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        return []
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return value
    return []


def _metadata(raw: Any) -> Any:
    if not isinstance(raw, str) or raw == "":
        return {}
    try:
        return json.loads(raw)
    except ValueError:
        return {}


def _nodes(connection: SqliteConnection, agent: str, semantic: bool) -> list[dict[str, Any]]:
    if semantic:
        names = ("memory_id", "concept", "content", "confidence", "source_id", "tags",
                 "metadata", "created_at", "entity_name")  # fmt: skip
        table = SEMANTIC_TABLE
    else:
        names = ("memory_id", "content", "source_label", "tags", "metadata", "created_at")
        table = EPISODIC_TABLE
    sql = (
        f"SELECT {', '.join(names)} FROM {table} WHERE agent_id = ? "
        "ORDER BY created_at ASC, memory_id ASC"
    )
    nodes = []
    for row in connection.execute(sql, (agent,)):
        node = dict(zip(names, row, strict=True))
        node["tags"] = _tags(node["tags"])
        node["metadata"] = _metadata(node["metadata"])
        nodes.append(node)
    return nodes


def _edges(connection: SqliteConnection, agent: str) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for edge in EDGE_TABLES:
        columns = ", ".join(f"e.{c}" for c in edge.columns)
        sql = (
            f"SELECT e.source_id, e.target_id, {columns} FROM {edge.name} e "
            f"JOIN {SEMANTIC_TABLE} s ON e.source_id = s.memory_id WHERE s.agent_id = ? "
            "ORDER BY e.id"
        )
        rows = []
        for row in connection.execute(sql, (agent,)):
            item = dict(zip(("source_id", "target_id", *edge.columns), row, strict=True))
            if "metadata" in item:
                item["metadata"] = _metadata(item["metadata"])
            rows.append(item)
        out[edge.name] = rows
    return out


def agent_graph(connection: SqliteConnection, agent: str) -> dict[str, Any]:
    """The agent's graph as JSON transfer format 1.1, as the Rust CLI exports it."""
    semantic = _nodes(connection, agent, semantic=True)
    episodic = _nodes(connection, agent, semantic=False)
    edges = _edges(connection, agent)
    statistics = {"semantic_node_count": len(semantic), "episodic_node_count": len(episodic)}
    for name, rows in edges.items():
        statistics[f"{name.removesuffix('_edges')}_edge_count"] = len(rows)
    return {
        "agent_name": agent,
        "exported_at": str(int(time.time())),
        "format_version": "1.1",
        "semantic_nodes": semantic,
        "episodic_nodes": episodic,
        **edges,
        "statistics": statistics,
    }
