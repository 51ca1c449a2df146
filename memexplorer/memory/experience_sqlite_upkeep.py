"""An SQLite experience store's statistics and retention, for one agent.

Retention marks old experiences compressed and applies the age and count limits
(confident patterns and the newest experiences stay), keeps the FTS index exact
and gives deleted space back once a quarter of the file is free. Callers hold
the store's lock and turn SQLite errors into the engine's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memexplorer.memory.experience import ExperienceType
from memexplorer.memory.experience_backend import (
    COMPRESS_AFTER_DAYS,
    KEEP_PATTERN_CONFIDENCE,
    Retention,
    cutoff_seconds,
    storage_bytes,
)
from memexplorer.memory.experience_sqlite_schema import REBUILD_FTS, SchemaFacts
from memexplorer.storage.sqlite_db import SqliteConnection
from memexplorer.storage.sqlite_writer import immediate_transaction

__all__ = ["sqlite_cleanup", "sqlite_statistics"]


def sqlite_statistics(
    conn: SqliteConnection, agent: str, db_path: Path, schema: SchemaFacts
) -> dict[str, Any]:
    """total_experiences, by_type ({ExperienceType: n}), storage_size_kb and
    compressed_experiences, for this agent."""
    total = compressed = 0
    by_type: dict[ExperienceType, int] = {}
    if schema.has_table:
        rows = conn.execute(
            "SELECT experience_type, count(*), coalesce(sum(compressed != 0), 0) "
            "FROM experiences WHERE agent_name = ? GROUP BY experience_type",
            (agent,),
        ).fetchall()
        for kind, count, packed in rows:
            total += count
            compressed += packed
            if kind in ExperienceType._value2member_map_:
                by_type[ExperienceType(kind)] = count
    return {
        "total_experiences": total,
        "by_type": by_type,
        "storage_size_kb": storage_bytes(db_path) / 1024,
        "compressed_experiences": compressed,
    }


def sqlite_cleanup(
    conn: SqliteConnection, agent: str, retention: Retention, schema: SchemaFacts
) -> None:
    """Mark old experiences compressed, then apply the age and count limits, in one
    transaction on a connection open for writing; then reclaim the space."""
    deleted = 0
    with immediate_transaction(conn):
        if retention.auto_compress:
            conn.execute(
                "UPDATE experiences SET compressed = 1 "
                "WHERE agent_name = ? AND timestamp < ? AND compressed = 0",
                (agent, cutoff_seconds(COMPRESS_AFTER_DAYS)),
            )
        if retention.max_age_days:
            deleted += conn.execute(
                "DELETE FROM experiences WHERE agent_name = ? AND timestamp < ?",
                (agent, cutoff_seconds(retention.max_age_days)),
            ).rowcount
        if retention.max_experiences:
            deleted += conn.execute(
                """DELETE FROM experiences
                   WHERE agent_name = ?
                     AND NOT (experience_type = 'pattern' AND confidence >= ?)
                     AND rowid NOT IN (
                       SELECT rowid FROM experiences WHERE agent_name = ?
                       ORDER BY timestamp DESC, rowid DESC LIMIT ?)""",
                (agent, KEEP_PATTERN_CONFIDENCE, agent, retention.max_experiences),
            ).rowcount
        if deleted and not schema.exact_fts_delete:
            # The reference's delete trigger leaves stale index rows.
            conn.execute(REBUILD_FTS)
    if deleted:
        _reclaim(conn)


def _reclaim(conn: SqliteConnection) -> None:
    """VACUUM when a quarter of the file is free pages (the reference vacuums
    after every delete; this keeps its effect without rewriting big stores
    for one row)."""
    free = conn.execute("PRAGMA freelist_count").fetchone()[0]
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    if pages and free * 4 >= pages:
        conn.execute("VACUUM")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
