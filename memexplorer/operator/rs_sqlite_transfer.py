"""Export and import for amplihack-rs's SQLite hierarchical stores (seed 002, "Transfer").

Where the store is follows the Rust code (``transfer/paths.rs``):
``<home>/hierarchical_memory/<agent>.db``, or ``<storage-path>/<agent>.db``; a
storage path naming an existing file is that file (the app passes the store it
shows). JSON export reads as the Rust loaders do (:mod:`.rs_sqlite_read`);
import checks the whole file first, saves a whole copy of the store in
``<home>/backups`` before a replace (``memexplorer restore`` puts it back), and
writes inside the write gate in one transaction (:mod:`.rs_sqlite_write`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memexplorer.memory.export_validation import (
    Problems,
    check_endpoints,
    file_ids,
    parse_export,
    validate_export,
)
from memexplorer.memory.rs_sqlite_read import agent_graph, counts_by_agent
from memexplorer.memory.rs_sqlite_schema import is_rs_hierarchical, rs_store_name
from memexplorer.operator.rs_sqlite_write import insert_agent, open_rs_writable
from memexplorer.storage.exceptions import CorruptStoreError, InvalidInputError, NotAStoreError
from memexplorer.storage.private_dirs import make_private_dirs
from memexplorer.storage.progress import TaskControl, checkpoint
from memexplorer.storage.sqlite_db import SqliteConnection, SqliteDatabaseError
from memexplorer.storage.sqlite_readonly import open_sqlite_readonly
from memexplorer.storage.stores import sniff

__all__ = ["is_rs_store", "read_rs_agent", "rs_agent_counts", "rs_import", "rs_store_path"]

#: Rust table names -> the graph tables an export's counts are keyed by.
GRAPH_NAMES = {
    "semantic_memories": "SemanticMemory", "episodic_memories": "EpisodicMemory",
    "similar_to_edges": "SIMILAR_TO", "derives_from_edges": "DERIVES_FROM",
    "supersedes_edges": "SUPERSEDES", "transitioned_to_edges": "TRANSITIONED_TO",
}  # fmt: skip


def rs_store_path(agent: str, *, storage_path: str | Path | None, home: str | Path) -> Path:
    """The agent's SQLite hierarchical store, as amplihack-rs resolves it."""
    if storage_path is not None:
        given = Path(storage_path).expanduser()
        return given if given.is_file() else given / rs_store_name(agent)
    return Path(home).expanduser() / "hierarchical_memory" / rs_store_name(agent)


def is_rs_store(path: Path) -> bool:
    """Whether ``path`` is an existing amplihack-rs SQLite hierarchical store (read-only)."""
    try:
        if not path.is_file() or sniff(path).engine != "sqlite":
            return False
    except NotAStoreError:
        return False
    connection = open_sqlite_readonly(path)
    try:
        names = {r[0] for r in connection.execute("SELECT name FROM sqlite_master")}
    finally:
        connection.close()
    return is_rs_hierarchical(names)


def _reading(store: Path) -> SqliteConnection:
    connection = open_sqlite_readonly(store)
    names = {r[0] for r in connection.execute("SELECT name FROM sqlite_master")}
    if not is_rs_hierarchical(names):
        connection.close()
        raise InvalidInputError(
            f"{store} is an SQLite file without amplihack-rs's hierarchical tables",
            hint="Name the agent's hierarchical_memory/<agent>.db.",
        )
    return connection


def read_rs_agent(store: Path, agent: str) -> dict[str, Any]:
    """The agent's graph in transfer format 1.1, read-only."""
    connection = _reading(store)
    try:
        return agent_graph(connection, agent)
    except SqliteDatabaseError as exc:
        raise CorruptStoreError(store, f"SQLite cannot read this file ({exc})") from None
    finally:
        connection.close()


def rs_agent_counts(store: Path, agent: str) -> dict[str, int]:
    """The agent's rows per table, keyed by the graph tables' names."""
    connection = _reading(store)
    try:
        counts = counts_by_agent(connection).get(agent, {})
    finally:
        connection.close()
    return {GRAPH_NAMES[table]: count for table, count in counts.items()}


def _checked(connection: SqliteConnection, agent: str, data: Any, merge: bool) -> dict:
    """The file checked as a whole: a replace against itself, a merge's edges
    against its own nodes and the agent's in the store."""
    if not merge:
        return validate_export(data)
    problems = Problems()
    doc = parse_export(data, problems)
    known = file_ids(doc)
    for table, name in (("semantic_memories", "SemanticMemory"),
                        ("episodic_memories", "EpisodicMemory")):  # fmt: skip
        rows = connection.execute(f"SELECT memory_id FROM {table} WHERE agent_id = ?", (agent,))
        known[name] |= {row[0] for row in rows}
    check_endpoints(doc, known, problems)
    problems.raise_if_any()
    return doc


def rs_import(
    agent: str,
    store: Path,
    data: dict[str, Any],
    *,
    merge: bool,
    backup_home: Path,
    control: TaskControl | None = None,
) -> tuple[dict[str, Any], Path | None]:
    """Import a JSON export into the agent's SQLite store (created if missing).
    The caller holds the store's write gate. Returns the counts and the backup
    folder of a replaced store."""
    from memexplorer.operator.rs_sqlite_browse import RsSqliteBrowser
    from memexplorer.operator.store_backup import write_store_backup

    if store.exists() and not is_rs_store(store):
        raise NotAStoreError(
            store, "This file is not an amplihack-rs hierarchical store; nothing was imported",
            hint="Name the agent's hierarchical_memory/<agent>.db, or a path that does not exist.",
        )  # fmt: skip
    make_private_dirs(store.parent)
    backup = None
    if store.exists() and not merge:
        checkpoint(control, "saving a copy of the store")
        browser = RsSqliteBrowser(store, writable=True)
        try:
            record = write_store_backup(backup_home, browser, action="import", kind="hierarchical")
        finally:
            browser.close()
        backup = record.path
    connection = open_rs_writable(store)
    try:
        doc = _checked(connection, agent, data, merge)
        result = insert_agent(connection, agent, doc, merge=merge, control=control)
    finally:
        connection.close()
    return result, backup
