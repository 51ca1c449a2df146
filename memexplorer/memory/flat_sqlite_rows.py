"""A flat SQLite store's schema (seed 002's DDL, exactly), its one expiry rule as an
SQL function, and a memory_entries row as a :class:`.flat_model.FlatMemory`.
"""

from __future__ import annotations

from datetime import datetime

from memexplorer.memory.flat_model import FlatMemory, is_live, json_list, json_object, utc_now
from memexplorer.storage.sqlite_db import SqliteConnection, SqliteRow

__all__ = [
    "FLAT_SQLITE_SCHEMA",
    "FLAT_TABLES",
    "LIVE",
    "MEMORY_COLUMNS",
    "install_live",
    "live_agent_counts",
    "sqlite_memory",
]

FLAT_SQLITE_SCHEMA = """
CREATE TABLE IF NOT EXISTS memory_entries (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    agent_id TEXT NOT NULL,
    memory_type TEXT NOT NULL,
    title TEXT NOT NULL,
    content TEXT NOT NULL,
    content_hash TEXT,
    metadata TEXT NOT NULL DEFAULT '{}',
    tags TEXT DEFAULT NULL,
    importance INTEGER DEFAULT NULL,
    created_at TEXT NOT NULL,
    accessed_at TEXT NOT NULL,
    expires_at TEXT DEFAULT NULL,
    parent_id TEXT DEFAULT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
    session_id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    last_accessed TEXT NOT NULL,
    metadata TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS session_agents (
    session_id TEXT NOT NULL,
    agent_id TEXT NOT NULL,
    first_used TEXT NOT NULL,
    last_used TEXT NOT NULL,
    PRIMARY KEY (session_id, agent_id)
);
"""

FLAT_TABLES = {"memory_entries", "sessions", "session_agents"}
MEMORY_COLUMNS = (
    "id, session_id, agent_id, memory_type, title, content, importance, "
    "created_at, accessed_at, expires_at, tags, metadata"
)
LIVE = "flat_live(expires_at, :now)"


def install_live(connection: SqliteConnection) -> None:
    """Give the connection ``flat_live(expires_at, now)``: the one expiry rule."""

    def flat_live(expires_at: object, now: float) -> int:
        return int(is_live(expires_at, datetime.fromtimestamp(now, utc_now().tzinfo)))

    connection.create_function("flat_live", 2, flat_live, deterministic=True)


def live_agent_counts(connection: SqliteConnection) -> dict[str, dict[str, int]]:
    """Live memory_entries per agent, as inspection's summaries report them (sorted by
    agent: SQL promises no order without ORDER BY)."""
    install_live(connection)
    rows = connection.execute(
        f"SELECT agent_id, count(*) FROM memory_entries WHERE {LIVE} GROUP BY agent_id "
        "ORDER BY agent_id",
        {"now": utc_now().timestamp()},
    )
    return {agent or "": {"memory_entries": count} for agent, count in rows}


def sqlite_memory(row: SqliteRow) -> FlatMemory:
    """A memory_entries row (read with MEMORY_COLUMNS) as the record both backends return."""
    metadata = json_object(row["metadata"])
    confidence = metadata.get("confidence", metadata.get("confidence_score"))
    usage = metadata.get("usage_count")
    return FlatMemory(
        memory_id=row["id"],
        session_id=row["session_id"],
        agent_id=row["agent_id"],
        memory_type=row["memory_type"],
        title=row["title"] or "",
        content=row["content"] or "",
        importance=row["importance"] if isinstance(row["importance"], int) else None,
        confidence=float(confidence) if isinstance(confidence, int | float) else None,
        usage_count=usage if isinstance(usage, int) and not isinstance(usage, bool) else None,
        created_at=str(row["created_at"] or ""),
        accessed_at=str(row["accessed_at"] or ""),
        expires_at=row["expires_at"],
        tags=json_list(row["tags"]),
        metadata=metadata,
    )
