"""What an import will do, read before anything is written: the rows per list of the
file, how many of its ids the agent's store already holds, and how many of its edges."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from memexplorer.memory.hierarchical_transfer import validate_export
from memexplorer.memory.import_file import read_export
from memexplorer.operator.import_edges_there import edges_there
from memexplorer.operator.rs_sqlite_browse import RsSqliteBrowser
from memexplorer.operator.sqlite_in import count_in
from memexplorer.storage.exceptions import StoreNotFoundError
from memexplorer.storage.graphdb import identifier

__all__ = ["NODE_TABLES", "ImportPreview", "read_preview"]

#: The file's node lists and the table (keyed by memory_id) each goes into.
NODE_TABLES = {"semantic_nodes": "SemanticMemory", "episodic_nodes": "EpisodicMemory"}
#: The same tables in amplihack-rs's SQLite store.
RS_NAMES = {"SemanticMemory": "semantic_memories", "EpisodicMemory": "episodic_memories"}


@dataclass(frozen=True)
class ImportPreview:
    """What a file holds (rows per list) and which of its ids the store has already."""

    source: Path
    counts: dict[str, int]
    existing: dict[str, int]
    store_counts: dict[str, int]
    #: Per edge list of the file: its edges the store has already (same type and ends).
    edges_there: dict[str, int] = field(default_factory=dict)


def _sqlite_lookup(connection, table: str, ids: list[str], agent: str) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    """(ids of the file already there, the agent's rows) in amplihack-rs's SQLite store."""
    name = RS_NAMES[table]
    found = count_in(connection, name, "memory_id", ids)
    mine = connection.execute(f"SELECT count(*) FROM {name} WHERE agent_id = ?", (agent,))
    return found, int(mine.fetchone()[0])


def read_preview(source: Path, browser, agent: str) -> ImportPreview:  # type: ignore[no-untyped-def]
    """Parse and check the file as the import will, then look its ids up, read-only
    (``browser`` None: the import makes a new store, which holds nothing yet). A file
    that is missing or cannot be read gets the same clear error the CLI gives."""
    graph = getattr(browser, "graph", None)
    sqlite = browser.connection if isinstance(browser, RsSqliteBrowser) else None
    if not source.exists():
        raise StoreNotFoundError(source, "No such file to import")
    data = read_export(source)  # the import's own checks: cap, UTF-8, JSON, depth, text
    doc = validate_export(data)
    counts = {name: len(rows) for name, rows in doc.items()}
    existing, store_counts = {}, {}
    for name, table in NODE_TABLES.items():
        ids = [row["memory_id"] for row in doc.get(name, [])]
        if sqlite is not None:
            existing[table], store_counts[table] = _sqlite_lookup(sqlite, table, ids, agent)
            continue
        if graph is None:
            existing[table] = store_counts[table] = 0
            continue
        found = graph.rows(
            f"MATCH (n:{identifier(table)}) WHERE n.memory_id IN $ids RETURN count(n)",
            {"ids": ids},
        )
        existing[table] = int(found[0][0])
        mine = graph.rows(
            f"MATCH (n:{identifier(table)}) WHERE n.agent_id = $agent RETURN count(n)",
            {"agent": agent},
        )
        store_counts[table] = int(mine[0][0])
    return ImportPreview(source, counts, existing, store_counts, edges_there(doc, graph, sqlite))
