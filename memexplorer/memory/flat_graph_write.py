"""Writing a flat graph store: a memory node with its Session (and Agent) and the
edge that says whose it is, every column the reference writers set; and removing
sessions with their memories. The caller checks input and writability first.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from memexplorer.memory.flat_graph_rows import FlatCatalog, naive_utc
from memexplorer.memory.flat_graph_schema import MemoryTable
from memexplorer.memory.flat_model import DeletedSessions, utc_now
from memexplorer.memory.flat_store_base import Learning
from memexplorer.storage.exceptions import InvalidInputError
from memexplorer.storage.graphdb import GraphStore, identifier

__all__ = ["delete_graph_sessions", "store_graph_learning"]


def _node_values(table: MemoryTable, base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """Every column the reference writers set for this memory type."""
    now, importance = base["created_at"], extra.get("importance")
    per_type: dict[str, dict[str, Any]] = {
        "episodic": {
            "timestamp": now, "event_type": extra["metadata"].get("event_type", "general"),
            "emotional_valence": 0.0,
            "importance_score": float(importance) if importance is not None else None,
        },
        "semantic": {
            "concept": base["title"], "category": extra["metadata"].get("category", "session_end"),
            "confidence_score": extra.get("confidence", 1.0), "last_updated": now, "version": 1,
        },
        "procedural": {
            "procedure_name": base["title"], "description": base["content"], "steps": "[]",
            "preconditions": "[]", "postconditions": "[]", "success_rate": 1.0,
            "usage_count": 0, "last_used": now,
        },
        "prospective": {
            "intention": base["content"], "trigger_condition": "", "priority": "medium",
            "due_date": base.get("expires_at"), "status": "pending", "scope": "session",
            "completion_criteria": "",
        },
        "working": {
            "memory_type": "goal", "priority": importance or 0, "ttl_seconds": 3600,
        },
    }  # fmt: skip
    return {**base, **per_type[table.memory_type]}


_REL_VALUES: dict[str, dict[str, Any]] = {
    "CONTAINS_EPISODIC": {"sequence_number": 0},
    "CONTRIBUTES_TO_SEMANTIC": {"contribution_type": "created", "delta": "initial_creation"},
    "USES_PROCEDURE": {"success": True, "notes": ""},
    "CREATES_INTENTION": {},
    "CONTAINS_WORKING": {"activation_level": 1.0},
}


def _is_duplicate(
    graph: GraphStore, catalog: FlatCatalog, session_id: str, agent_id: str, content: str
) -> bool:
    for table in catalog.tables:
        rel, node = identifier(table.rel), identifier(table.label)
        hits = graph.scalar(
            f"MATCH (s:Session {{session_id: $sid}})-[:{rel}]->(m:{node}) "
            "WHERE m.agent_id = $agent AND m.content = $content RETURN count(m)",
            {"sid": session_id, "agent": agent_id, "content": content},
        )
        if hits:
            return True
    return False


def _touch(
    graph: GraphStore, label: str, key: str, value: str, fields: dict[str, Any], now: datetime
) -> None:
    """Create the Session or Agent node, or mark it used now."""
    node = identifier(label)
    if graph.scalar(f"MATCH (n:{node} {{{key}: $id}}) RETURN count(n)", {"id": value}):
        stamp = "last_accessed" if label == "Session" else "last_used"
        graph.execute(
            f"MATCH (n:{node} {{{key}: $id}}) SET n.{stamp} = $now", {"id": value, "now": now}
        )
        return
    values = {key: value, **fields}
    columns = ", ".join(f"{identifier(c)}: ${c}" for c in values)
    graph.execute(f"CREATE (n:{node} {{{columns}}})", values)


def store_graph_learning(
    graph: GraphStore, catalog: FlatCatalog, target: MemoryTable, learning: Learning
) -> str | None:
    """Store one memory in ``target``'s table; an identical (session, agent, content)
    already stored gives None."""
    session_id, agent_id, content = learning.session_id, learning.agent_id, learning.content
    importance, confidence = learning.importance, learning.confidence
    columns = catalog.columns[target.label]
    if learning.expires_at is not None and "expires_at" not in columns:
        raise InvalidInputError(
            f"{target.memory_type} memories never expire in graph-db",
            hint="Only episodic, prospective and working memories take expires_at.",
        )
    now = naive_utc(utc_now())
    extra = {"metadata": dict(learning.metadata or {}), "importance": importance}
    has_column = {"importance_score", "priority"} & columns
    if importance is not None and (not has_column or target.memory_type == "prospective"):
        # Semantic and procedural nodes have no importance column (and a
        # prospective priority is a word): keep the number in metadata.
        extra["metadata"]["importance"] = importance
    if confidence is not None:
        extra["confidence"] = float(confidence)
    base = {
        "memory_id": str(uuid.uuid4()), "title": learning.title or content.strip()[:50],
        "content": content, "metadata": json.dumps(extra["metadata"]),
        "tags": json.dumps(list(learning.tags)) if learning.tags else "", "created_at": now,
        "accessed_at": now, "agent_id": agent_id,
        "expires_at": naive_utc(learning.expires_at) if learning.expires_at else None,
    }  # fmt: skip
    values = {k: v for k, v in _node_values(target, base, extra).items() if k in columns}
    with graph.transaction():
        if _is_duplicate(graph, catalog, session_id, agent_id, content):
            return None
        session_fields = {
            "start_time": now, "status": "active", "created_at": now,
            "last_accessed": now, "metadata": "{}",
        }  # fmt: skip
        _touch(graph, "Session", "session_id", session_id, session_fields, now)
        if catalog.has_agent:
            agent_fields = {"name": agent_id, "first_used": now, "last_used": now}
            _touch(graph, "Agent", "agent_id", agent_id, agent_fields, now)
        node = identifier(target.label)
        assign = ", ".join(f"{identifier(c)}: ${c}" for c in values)
        graph.execute(f"CREATE (m:{node} {{{assign}}})", values)
        rel_values = dict(_REL_VALUES[target.rel])
        if target.rel != "CONTAINS_EPISODIC" and target.rel != "CONTAINS_WORKING":
            rel_values["timestamp"] = now
        props = ", ".join(f"{identifier(k)}: $r_{k}" for k in rel_values)
        graph.execute(
            f"MATCH (s:Session {{session_id: $sid}}), (m:{node} {{memory_id: $mid}}) "
            f"CREATE (s)-[:{identifier(target.rel)} {{{props}}}]->(m)",
            {"sid": session_id, "mid": values["memory_id"],
             **{f"r_{k}": v for k, v in rel_values.items()}},
        )  # fmt: skip
    return str(values["memory_id"])


def delete_graph_sessions(
    graph: GraphStore, catalog: FlatCatalog, session_ids: Iterable[str]
) -> DeletedSessions:
    """Remove these sessions and all their memories (expired ones too), atomically."""
    removed: list[str] = []
    memories = 0
    with graph.transaction():
        for session_id in dict.fromkeys(session_ids):
            params = {"sid": session_id}
            if not graph.scalar("MATCH (s:Session {session_id: $sid}) RETURN count(s)", params):
                continue
            for table in catalog.tables:
                pattern = (
                    f"MATCH (s:Session {{session_id: $sid}})-[:{identifier(table.rel)}]->"
                    f"(m:{identifier(table.label)})"
                )
                memories += int(graph.scalar(f"{pattern} RETURN count(m)", params) or 0)
                graph.execute(f"{pattern} DETACH DELETE m", params)
            graph.execute("MATCH (s:Session {session_id: $sid}) DETACH DELETE s", params)
            removed.append(session_id)
    return DeletedSessions(removed, memories)
