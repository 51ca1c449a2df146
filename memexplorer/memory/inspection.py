"""Which schema a store holds, which agents it serves, and how much each has.

Everything here opens stores read-only and writes nothing, so an operator can
point it at the live stores of running agents.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from memexplorer.memory.rs_sqlite_read import counts_by_agent
from memexplorer.memory.rs_sqlite_schema import is_rs_hierarchical
from memexplorer.storage.cached_catalog import CachedCatalog
from memexplorer.storage.exceptions import CorruptStoreError
from memexplorer.storage.graph_counts import AGENT_COLUMNS, agent_column, agent_counts
from memexplorer.storage.graph_open import open_graph_store
from memexplorer.storage.graphdb import GraphStore, identifier
from memexplorer.storage.sqlite_db import SqliteConnection, SqliteDatabaseError, sqlite_tables
from memexplorer.storage.sqlite_readonly import open_sqlite_readonly
from memexplorer.storage.store_readers import store_reader
from memexplorer.storage.stores import StoreFormat, sniff

__all__ = [
    "AGENT_COLUMNS",
    "RS_SQLITE_LAYOUT",
    "SPEC_TABLES",
    "StoreSummary",
    "detect_kind",
    "open_graph",
    "sqlite_kind",
    "summarize_store",
]

Kind = Literal["hierarchical", "cognitive", "experience", "flat", "unknown"]

#: The node and rel tables the spec lists for each kind of graph store.
SPEC_TABLES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "hierarchical": (
        ("SemanticMemory", "EpisodicMemory"),
        ("SIMILAR_TO", "DERIVES_FROM", "SUPERSEDES", "TRANSITIONED_TO"),
    ),
    "cognitive": (
        (
            "SensoryMemory", "WorkingMemory", "EpisodicMemory", "SemanticMemory",
            "ProceduralMemory", "ProspectiveMemory", "ConsolidatedEpisode",
        ),
        ("SIMILAR_TO", "DERIVES_FROM", "PROCEDURE_DERIVES_FROM", "CONSOLIDATES", "ATTENDED_TO"),
    ),
    "experience": (("Experience",), ("SIMILAR_TO", "LEADS_TO")),
}  # fmt: skip

#: The layout of a hierarchical store amplihack-rs keeps in SQLite (``<agent>.db``).
RS_SQLITE_LAYOUT = "amplihack-rs sqlite"


@dataclass
class StoreSummary:
    """A store's identity and per-agent counts, as `memexplorer stats` reports it."""

    path: Path
    kind: Kind
    engine: str
    storage_version: int | None
    agents: dict[str, dict[str, int]] = field(default_factory=dict)
    absent_tables: list[str] = field(default_factory=list)
    layout: str = ""
    #: Set when the store was read at its last checkpoint (a log left unreplayed).
    note: str = ""
    unreplayed_log: dict[str, object] | None = None
    #: Graph stores: the releases that write its storage version, the release that
    #: read it, and the command that adds the release that reads it whole.
    written_by: str = ""
    read_by: str | None = None
    add_command: str = ""
    #: Read by a release from the engine cache, not memexplorer's own.
    read_by_cache: bool = False

    def counts_by_agent(self) -> dict[str, dict[str, int]]:
        """Every agent with every table of the store, 0 where it has no rows, so
        scripts see the same tables for each agent as the text table shows, and the
        agents in its order too: sorted by name, whichever kind of store."""
        tables = sorted({table for counts in self.agents.values() for table in counts})
        return {
            agent: {table: counts.get(table, 0) for table in tables}
            for agent, counts in sorted(self.agents.items())
        }

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {
            "path": str(self.path),
            "kind": self.kind,
            "engine": self.engine,
            "storage_version": self.storage_version,
            "agents": self.counts_by_agent(),
        }
        if self.absent_tables:
            data["absent_tables"] = self.absent_tables
        if self.layout:
            data["layout"] = self.layout
        if self.note:
            data["note"] = self.note
        if self.unreplayed_log:
            data["unreplayed_log"] = self.unreplayed_log
        if self.written_by:
            data["written_by"] = self.written_by
            data["read_by"] = self.read_by
        if self.add_command:
            data["add_command"] = self.add_command
        return data


def open_graph(
    path: str | Path,
    *,
    read_only: bool = True,
    allow_upgrade: bool = False,
    buffer_pool_size: int | None = None,
    lend: bool = False,
) -> GraphStore:
    """Open a graph store after checking its header names an engine we have
    (``allow_upgrade``, ``buffer_pool_size``, ``lend``: see :func:`open_graph_store`)."""
    return open_graph_store(path, read_only=read_only, allow_upgrade=allow_upgrade,
                            buffer_pool_size=buffer_pool_size, lend=lend)  # fmt: skip


def detect_kind(tables: set[str], columns: dict[str, set[str]]) -> Kind:
    """Name the schema from the tables (and key columns) a graph store holds."""
    semantic = columns.get("SemanticMemory", set())
    if "Session" in tables:
        return "flat"
    if {"SensoryMemory", "WorkingMemory", "ProspectiveMemory"} & tables or "node_id" in semantic:
        return "cognitive"
    if "memory_id" in semantic or ("EpisodicMemory" in tables and "SemanticMemory" in tables):
        return "hierarchical"
    if "Experience" in tables:
        return "experience"
    return "unknown"


def _experience_layout(columns: dict[str, set[str]], tables: set[str]) -> str:
    """The reference library's Experience table, or the seed-004 schema other tools write."""
    experience = columns.get("Experience", set())
    if "action" in experience or "importance" in experience or "Agent" in tables:
        return "seed-004"
    return "amplihack"


def _summarize_graph(fmt: StoreFormat) -> StoreSummary:
    reader = store_reader(fmt)
    with open_graph_store(fmt.path, read_only=True) as store:
        graph = CachedCatalog(store)  # the counts below ask the catalog again
        node_tables = graph.node_tables()
        rel_tables = graph.rel_tables()
        columns = {t: {c for c, _ in graph.columns(t)} for t in node_tables}
        tables = set(node_tables) | set(rel_tables)
        kind = detect_kind(tables, columns)
        summary = StoreSummary(fmt.path, kind, store.engine, store.storage_version)
        if (left := store.unreplayed_log) is not None:
            summary.note = f"{left.story}; {left.note}"
            summary.unreplayed_log = left.to_dict()
        if (log := getattr(store, "replayed_log", None)) is not None:
            summary.note = f"its writer's log ({log.name}) replayed on a private copy"
        if reader is not None:
            summary.written_by = reader.written_by
            summary.read_by = reader.read_by
            summary.add_command = reader.add_command or ""
            summary.read_by_cache = reader.runtime is not None
        if kind == "flat":
            from memexplorer.memory.flat_graph_rows import live_agent_counts

            summary.agents = live_agent_counts(graph)
        else:
            summary.agents = agent_counts(graph, columns)
        if kind in SPEC_TABLES:
            nodes, rels = SPEC_TABLES[kind]
            summary.absent_tables = [t for t in (*nodes, *rels) if t not in tables]
        if kind == "experience":
            summary.layout = _experience_layout(columns, tables)
    return summary


_SQLITE_KINDS: tuple[tuple[str, Kind], ...] = (
    ("experiences", "experience"),
    ("memory_entries", "flat"),
)


def sqlite_kind(tables: set[str]) -> Kind:
    """Name the schema from the tables an SQLite store holds (amplihack-rs's
    hierarchical layout, the experience store, flat memory)."""
    if is_rs_hierarchical(tables):
        return "hierarchical"
    return next((kind for table, kind in _SQLITE_KINDS if table in tables), "unknown")


def _summarize_rs_sqlite(fmt: StoreFormat, connection: SqliteConnection) -> StoreSummary:
    """amplihack-rs's per-agent SQLite hierarchical store (``<agent>.db``)."""
    summary = StoreSummary(fmt.path, "hierarchical", "sqlite", None, layout=RS_SQLITE_LAYOUT)
    summary.agents = counts_by_agent(connection)
    return summary


def _summarize_sqlite(fmt: StoreFormat) -> StoreSummary:
    connection = open_sqlite_readonly(fmt.path)
    try:
        names = sqlite_tables(connection)
        kind = sqlite_kind(names)
        if kind == "hierarchical":
            return _summarize_rs_sqlite(fmt, connection)
        summary = StoreSummary(fmt.path, kind, "sqlite", None)
        if kind == "flat":
            from memexplorer.memory.flat_sqlite_rows import live_agent_counts

            summary.agents = live_agent_counts(connection)
            return summary
        for table in sorted(names):
            if table.startswith("sqlite_") or "_fts" in table:
                continue
            cols = {row[1] for row in connection.execute(f"PRAGMA table_info({identifier(table)})")}
            column = agent_column(cols)
            if column is None:
                continue
            query = (
                f"SELECT {identifier(column)}, count(*) FROM {identifier(table)} "
                f"GROUP BY {identifier(column)}"
            )
            for agent, count in connection.execute(query):
                summary.agents.setdefault(agent or "", {})[table] = count
        if kind == "experience":
            summary.layout = "amplihack"
    except SqliteDatabaseError as exc:
        raise CorruptStoreError(fmt.path, f"SQLite cannot read this file ({exc})") from None
    finally:
        connection.close()
    return summary


def summarize_store(path: str | Path | StoreFormat) -> StoreSummary:
    """Kind, engine, storage version and per-agent table counts of one store, its
    agents sorted by name whatever the kind (engines group rows in no fixed order)."""
    fmt = path if isinstance(path, StoreFormat) else sniff(path)
    summary = _summarize_sqlite(fmt) if fmt.engine == "sqlite" else _summarize_graph(fmt)
    summary.agents = dict(sorted(summary.agents.items()))
    return summary
