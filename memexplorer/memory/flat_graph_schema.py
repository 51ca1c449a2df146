"""The graph-db flat memory schema (``~/.amplihack/memory_graph.db``).

Seed 002 says only that graph-db keeps flat memory in "an equivalent node
schema". The tables here are the ones the amplihack projects really write:
``GRAPH_BACKEND_SCHEMA`` and ``GRAPH_MEMORY_TABLES`` in amplihack-rs
(src/.../memory/backend/graph_db.rs) and ``KuzuBackend._initialize_sync`` in
the Python amplihack (src/amplihack/memory/backends/kuzu_backend.py): Session
and Agent nodes, one node table per memory type, and one Session-to-memory
rel table per type. Only these memory tables carry flat session memory; the
Python backend's code-graph tables are not part of it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["AGENT_DDL", "MEMORY_TABLES", "SESSION_DDL", "MemoryTable", "table_for_type"]

SESSION_DDL = (
    "CREATE NODE TABLE IF NOT EXISTS Session(session_id STRING, start_time TIMESTAMP, "
    "end_time TIMESTAMP, user_id STRING, context STRING, status STRING, "
    "created_at TIMESTAMP, last_accessed TIMESTAMP, metadata STRING, PRIMARY KEY (session_id))"
)
AGENT_DDL = (
    "CREATE NODE TABLE IF NOT EXISTS Agent(agent_id STRING, name STRING, "
    "first_used TIMESTAMP, last_used TIMESTAMP, PRIMARY KEY (agent_id))"
)


@dataclass(frozen=True)
class MemoryTable:
    """One memory type: its node table, the rel from Session, and their DDL."""

    label: str
    rel: str
    memory_type: str
    node_ddl: str
    rel_ddl: str


MEMORY_TABLES: tuple[MemoryTable, ...] = (
    MemoryTable(
        "EpisodicMemory", "CONTAINS_EPISODIC", "episodic",
        "CREATE NODE TABLE IF NOT EXISTS EpisodicMemory(memory_id STRING, timestamp TIMESTAMP, "
        "content STRING, event_type STRING, emotional_valence DOUBLE, importance_score DOUBLE, "
        "title STRING, metadata STRING, tags STRING, created_at TIMESTAMP, "
        "accessed_at TIMESTAMP, expires_at TIMESTAMP, agent_id STRING, PRIMARY KEY (memory_id))",
        "CREATE REL TABLE IF NOT EXISTS CONTAINS_EPISODIC(FROM Session TO EpisodicMemory, "
        "sequence_number INT64)",
    ),
    MemoryTable(
        "SemanticMemory", "CONTRIBUTES_TO_SEMANTIC", "semantic",
        "CREATE NODE TABLE IF NOT EXISTS SemanticMemory(memory_id STRING, concept STRING, "
        "content STRING, category STRING, confidence_score DOUBLE, last_updated TIMESTAMP, "
        "version INT64, title STRING, metadata STRING, tags STRING, created_at TIMESTAMP, "
        "accessed_at TIMESTAMP, agent_id STRING, PRIMARY KEY (memory_id))",
        "CREATE REL TABLE IF NOT EXISTS CONTRIBUTES_TO_SEMANTIC(FROM Session TO SemanticMemory, "
        "contribution_type STRING, timestamp TIMESTAMP, delta STRING)",
    ),
    MemoryTable(
        "ProceduralMemory", "USES_PROCEDURE", "procedural",
        "CREATE NODE TABLE IF NOT EXISTS ProceduralMemory(memory_id STRING, "
        "procedure_name STRING, description STRING, steps STRING, preconditions STRING, "
        "postconditions STRING, success_rate DOUBLE, usage_count INT64, last_used TIMESTAMP, "
        "title STRING, content STRING, metadata STRING, tags STRING, created_at TIMESTAMP, "
        "accessed_at TIMESTAMP, agent_id STRING, PRIMARY KEY (memory_id))",
        "CREATE REL TABLE IF NOT EXISTS USES_PROCEDURE(FROM Session TO ProceduralMemory, "
        "timestamp TIMESTAMP, success BOOL, notes STRING)",
    ),
    MemoryTable(
        "ProspectiveMemory", "CREATES_INTENTION", "prospective",
        "CREATE NODE TABLE IF NOT EXISTS ProspectiveMemory(memory_id STRING, intention STRING, "
        "trigger_condition STRING, priority STRING, due_date TIMESTAMP, status STRING, "
        "scope STRING, completion_criteria STRING, title STRING, content STRING, "
        "metadata STRING, tags STRING, created_at TIMESTAMP, accessed_at TIMESTAMP, "
        "expires_at TIMESTAMP, agent_id STRING, PRIMARY KEY (memory_id))",
        "CREATE REL TABLE IF NOT EXISTS CREATES_INTENTION(FROM Session TO ProspectiveMemory, "
        "timestamp TIMESTAMP)",
    ),
    MemoryTable(
        "WorkingMemory", "CONTAINS_WORKING", "working",
        "CREATE NODE TABLE IF NOT EXISTS WorkingMemory(memory_id STRING, content STRING, "
        "memory_type STRING, priority INT64, created_at TIMESTAMP, ttl_seconds INT64, "
        "title STRING, metadata STRING, tags STRING, accessed_at TIMESTAMP, "
        "expires_at TIMESTAMP, agent_id STRING, PRIMARY KEY (memory_id))",
        "CREATE REL TABLE IF NOT EXISTS CONTAINS_WORKING(FROM Session TO WorkingMemory, "
        "activation_level DOUBLE)",
    ),
)  # fmt: skip

#: store_session_learning's default type lands in SemanticMemory, as amplihack-rs does.
_ALIASES = {"learning": "semantic"}


def table_for_type(memory_type: str) -> MemoryTable | None:
    """The table holding ``memory_type`` (``learning`` is stored as semantic)."""
    wanted = _ALIASES.get(memory_type, memory_type)
    return next((t for t in MEMORY_TABLES if t.memory_type == wanted), None)
