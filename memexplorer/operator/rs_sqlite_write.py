"""Writing one agent's graph into an amplihack-rs SQLite hierarchical store.

The statements are the Rust import's (``transfer/sqlite_backend/
import_helpers.rs``): a replace clears the agent (edges whose source fact is
the agent's, then its facts and episodes) and inserts; a merge skips ids the
agent has and inserts every edge of the file, as the Rust code does (so an edge
merged twice is stored twice). Nodes go in with ``INSERT OR IGNORE``, episodes
first; tags and metadata as serde_json would write them (compact, keys sorted).
Unlike the Rust merge, which runs statement by statement, both run in one
``BEGIN IMMEDIATE`` transaction here, so a failure or a cancel changes nothing.
Callers hold the store's write gate (:mod:`.write_gate`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from memexplorer.memory.rs_sqlite_schema import (
    EDGE_TABLES,
    EPISODIC_TABLE,
    INDEXES,
    SCHEMA,
    SEMANTIC_TABLE,
    EdgeTable,
    is_rs_hierarchical,
)
from memexplorer.storage.exceptions import NotAStoreError, StoreError, StoreLockedError
from memexplorer.storage.progress import TaskControl, checkpoint
from memexplorer.storage.sqlite_db import (
    SqliteConnection,
    SqliteStatementError,
    open_sqlite_autocommit,
)

__all__ = [
    "edge_insert_sql",
    "enforce_rs_permissions",
    "insert_agent",
    "open_rs_writable",
    "serde_text",
]

_CLEAR_EDGES = (
    "DELETE FROM {table} WHERE source_id IN "
    "(SELECT memory_id FROM semantic_memories WHERE agent_id = ?)"
)
_INSERT_EPISODIC = (
    "INSERT OR IGNORE INTO episodic_memories (memory_id, agent_id, content, source_label, "
    "tags, metadata, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
)
_INSERT_SEMANTIC = (
    "INSERT OR IGNORE INTO semantic_memories (memory_id, agent_id, concept, content, "
    "confidence, source_id, tags, metadata, created_at, entity_name) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def serde_text(value: Any) -> str:
    """JSON text as ``serde_json::to_string`` writes it: compact, object keys sorted."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def enforce_rs_permissions(store: Path) -> None:
    """The Rust code's rule on every open: the file 0600; its folder 0700 when it
    is the home's ``hierarchical_memory`` (another folder is the operator's)."""
    if store.is_file() and not store.is_symlink():
        os.chmod(store, 0o600)
    if store.parent.name == "hierarchical_memory" and not store.parent.is_symlink():
        os.chmod(store.parent, 0o700)


def open_rs_writable(store: Path) -> SqliteConnection:
    """Open (creating, 0600 from its first byte) an amplihack-rs store to write it,
    with the Rust schema; a SQLite file of another schema is refused."""
    if not store.exists():
        os.close(os.open(store, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    connection = open_sqlite_autocommit(store, any_thread=True)
    try:
        names = {r[0] for r in connection.execute("SELECT name FROM sqlite_master")}
        if names and not is_rs_hierarchical(names):
            raise NotAStoreError(
                store, "This SQLite file is not an amplihack-rs hierarchical store",
                hint="Name the agent's hierarchical_memory/<agent>.db, or a new file.",
            )  # fmt: skip
        connection.executescript(SCHEMA)
        for statement in INDEXES:
            connection.execute(statement)
    except SqliteStatementError as exc:
        connection.close()
        if "locked" in str(exc) or "busy" in str(exc):
            raise StoreLockedError(store, "Another process is writing this SQLite store") from None
        raise StoreError(store, f"SQLite cannot write this store ({exc})") from None
    except BaseException:
        connection.close()
        raise
    enforce_rs_permissions(store)
    return connection


def edge_insert_sql(edge: EdgeTable) -> str:
    """The Rust import's insert of one edge row (``import_helpers.rs``): endpoints, then
    the edge's value columns in its order."""
    names = ", ".join(("source_id", "target_id", *edge.columns))
    marks = ", ".join("?" * (2 + len(edge.columns)))
    return f"INSERT INTO {edge.name} ({names}) VALUES ({marks})"


def _existing_ids(connection: SqliteConnection, agent: str) -> set[str]:
    return {
        row[0]
        for table in (SEMANTIC_TABLE, EPISODIC_TABLE)
        for row in connection.execute(f"SELECT memory_id FROM {table} WHERE agent_id = ?", (agent,))
    }


def _edge_row(edge: dict[str, Any], columns: tuple[str, ...]) -> tuple[Any, ...]:
    values = [serde_text(edge[c]) if c == "metadata" else edge[c] for c in columns]
    return (edge["source_id"], edge["target_id"], *values)


def insert_agent(
    connection: SqliteConnection,
    agent: str,
    doc: dict[str, list[dict[str, Any]]],
    *,
    merge: bool,
    control: TaskControl | None = None,
) -> dict[str, Any]:
    """Write a checked export document (:func:`~.export_validation.validate_export`)
    for ``agent`` in one transaction; returns the import's counts."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        existing = _existing_ids(connection, agent) if merge else set()
        if not merge:
            for edge in EDGE_TABLES:
                connection.execute(_CLEAR_EDGES.format(table=edge.name), (agent,))
            connection.execute(f"DELETE FROM {SEMANTIC_TABLE} WHERE agent_id = ?", (agent,))
            connection.execute(f"DELETE FROM {EPISODIC_TABLE} WHERE agent_id = ?", (agent,))
        episodes = [n for n in doc["episodic_nodes"] if n["memory_id"] not in existing]
        facts = [n for n in doc["semantic_nodes"] if n["memory_id"] not in existing]
        checkpoint(control, "writing episodic_memories", 0, 2 + len(EDGE_TABLES), "tables")
        connection.executemany(_INSERT_EPISODIC, [
            (n["memory_id"], agent, n["content"], n["source_label"], serde_text(n["tags"]),
             serde_text(n["metadata"]), n["created_at"]) for n in episodes
        ])  # fmt: skip
        checkpoint(control, "writing semantic_memories", 1, 2 + len(EDGE_TABLES), "tables")
        connection.executemany(_INSERT_SEMANTIC, [
            (n["memory_id"], agent, n["concept"], n["content"], float(n["confidence"]),
             n["source_id"], serde_text(n["tags"]), serde_text(n["metadata"]),
             n["created_at"], n["entity_name"]) for n in facts
        ])  # fmt: skip
        edges: dict[str, int] = {}
        for position, edge in enumerate(EDGE_TABLES, start=2):
            checkpoint(control, f"writing {edge.name}", position, 2 + len(EDGE_TABLES), "tables")
            rows = [_edge_row(e, edge.columns) for e in doc.get(edge.name, [])]
            connection.executemany(edge_insert_sql(edge), rows)
            edges[edge.rel] = len(rows)
        checkpoint(control, "saving the store")
        connection.execute("COMMIT")
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    skipped = len(doc["episodic_nodes"]) - len(episodes) + len(doc["semantic_nodes"]) - len(facts)
    return {"semantic_nodes_imported": len(facts), "episodic_nodes_imported": len(episodes),
            "edges_by_type": edges, "skipped": skipped, "errors": 0}  # fmt: skip
