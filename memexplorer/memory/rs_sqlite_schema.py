"""amplihack-rs's SQLite hierarchical store: its schema, and how to recognise one.

With ``AMPLIHACK_MEMORY_BACKEND=sqlite`` the Rust CLI keeps each agent's
hierarchical memory in ``hierarchical_memory/<agent>.db``. The tables, indexes
and column types below are the Rust code's (amplihack-rs,
``cli_memory/transfer/sqlite_backend/schema.rs``), so a store memexplorer
creates is one the Rust CLI reads without change. Edge tables have no agent
column: an edge is its source fact's agent's (the Rust export joins on it).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

__all__ = [
    "EDGE_TABLES",
    "EDGE_TABLE_NAMES",
    "EPISODIC_TABLE",
    "INDEXES",
    "NODE_TABLES",
    "SCHEMA",
    "SEMANTIC_TABLE",
    "EdgeTable",
    "edge_owner_sql",
    "is_rs_hierarchical",
    "rs_store_name",
]

SEMANTIC_TABLE = "semantic_memories"
EPISODIC_TABLE = "episodic_memories"
NODE_TABLES = (SEMANTIC_TABLE, EPISODIC_TABLE)

SCHEMA = """
CREATE TABLE IF NOT EXISTS semantic_memories (
    memory_id TEXT PRIMARY KEY,
    agent_id TEXT NOT NULL,
    concept TEXT NOT NULL DEFAULT '',
    content TEXT NOT NULL DEFAULT '',
    confidence REAL NOT NULL DEFAULT 0.0,
    source_id TEXT NOT NULL DEFAULT '',
    tags TEXT NOT NULL DEFAULT '[]',
    metadata TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL DEFAULT '',
    entity_name TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS episodic_memories (
    memory_id TEXT PRIMARY KEY,
    agent_id TEXT NOT NULL,
    content TEXT NOT NULL DEFAULT '',
    source_label TEXT NOT NULL DEFAULT '',
    tags TEXT NOT NULL DEFAULT '[]',
    metadata TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS similar_to_edges (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    source_id TEXT NOT NULL,
    target_id TEXT NOT NULL,
    weight REAL NOT NULL DEFAULT 0.0,
    metadata TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS derives_from_edges (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    source_id TEXT NOT NULL,
    target_id TEXT NOT NULL,
    extraction_method TEXT NOT NULL DEFAULT '',
    confidence REAL NOT NULL DEFAULT 0.0
);
CREATE TABLE IF NOT EXISTS supersedes_edges (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    source_id TEXT NOT NULL,
    target_id TEXT NOT NULL,
    reason TEXT NOT NULL DEFAULT '',
    temporal_delta TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS transitioned_to_edges (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    source_id TEXT NOT NULL,
    target_id TEXT NOT NULL,
    from_value TEXT NOT NULL DEFAULT '',
    to_value TEXT NOT NULL DEFAULT '',
    turn INTEGER NOT NULL DEFAULT 0,
    transition_type TEXT NOT NULL DEFAULT ''
);
"""

#: The 14 indexes, created one statement at a time after the tables, as the Rust code does.
INDEXES = (
    "CREATE INDEX IF NOT EXISTS idx_semantic_agent ON semantic_memories(agent_id)",
    "CREATE INDEX IF NOT EXISTS idx_semantic_concept ON semantic_memories(concept)",
    "CREATE INDEX IF NOT EXISTS idx_semantic_created ON semantic_memories(created_at)",
    "CREATE INDEX IF NOT EXISTS idx_episodic_agent ON episodic_memories(agent_id)",
    "CREATE INDEX IF NOT EXISTS idx_episodic_source ON episodic_memories(source_label)",
    "CREATE INDEX IF NOT EXISTS idx_episodic_created ON episodic_memories(created_at)",
    "CREATE INDEX IF NOT EXISTS idx_similar_source ON similar_to_edges(source_id)",
    "CREATE INDEX IF NOT EXISTS idx_similar_target ON similar_to_edges(target_id)",
    "CREATE INDEX IF NOT EXISTS idx_derives_source ON derives_from_edges(source_id)",
    "CREATE INDEX IF NOT EXISTS idx_derives_target ON derives_from_edges(target_id)",
    "CREATE INDEX IF NOT EXISTS idx_supersedes_source ON supersedes_edges(source_id)",
    "CREATE INDEX IF NOT EXISTS idx_supersedes_target ON supersedes_edges(target_id)",
    "CREATE INDEX IF NOT EXISTS idx_transitioned_source ON transitioned_to_edges(source_id)",
    "CREATE INDEX IF NOT EXISTS idx_transitioned_target ON transitioned_to_edges(target_id)",
)


@dataclass(frozen=True)
class EdgeTable:
    """One edge table: its name, the graph rel it stands for, the table its target
    is in, and its value columns in the Rust code's order."""

    name: str
    rel: str
    target_table: str
    columns: tuple[str, ...]


EDGE_TABLES = (
    EdgeTable("similar_to_edges", "SIMILAR_TO", SEMANTIC_TABLE, ("weight", "metadata")),
    EdgeTable("derives_from_edges", "DERIVES_FROM", EPISODIC_TABLE,
              ("extraction_method", "confidence")),
    EdgeTable("supersedes_edges", "SUPERSEDES", SEMANTIC_TABLE, ("reason", "temporal_delta")),
    EdgeTable("transitioned_to_edges", "TRANSITIONED_TO", SEMANTIC_TABLE,
              ("from_value", "to_value", "turn", "transition_type")),
)  # fmt: skip
#: The edge tables' names: rows of relationships, not records.
EDGE_TABLE_NAMES = frozenset(edge.name for edge in EDGE_TABLES)


def is_rs_hierarchical(tables: Collection[str]) -> bool:
    """Whether a SQLite file's tables are amplihack-rs's hierarchical schema."""
    present = set(tables)
    return present.issuperset(NODE_TABLES) and present.issuperset(EDGE_TABLE_NAMES)


def edge_owner_sql(table: str) -> str | None:
    """An SQL expression naming the agent of an edge row (its source fact's), or
    None for a table that is not an edge table (a catalog name, never input)."""
    if table not in EDGE_TABLE_NAMES:
        return None
    return f'(SELECT s.agent_id FROM {SEMANTIC_TABLE} s WHERE s.memory_id = "{table}".source_id)'


def rs_store_name(agent: str) -> str:
    """The file an agent's SQLite hierarchical memory lives in (``<agent>.db``)."""
    return f"{agent}.db"
