"""What merging duplicates reads from a store: the agent's facts, which of them are
superseded already, and whose code writes the store's supersessions.

A merge writes what the store's own writer writes when one fact supersedes
another (docs/curation.md, "Merge duplicates"), so the writer is told from the
store: amplihack-rs for its SQLite store and its LadybugDB ``graph_db``; the
Python library (Kuzu and LadybugDB eras) for a graph store without a
TRANSITIONED_TO table
(the library never creates one); memexplorer's own HierarchicalMemory, which
follows seed 003 (SUPERSEDES with TRANSITIONED_TO, the older fact's confidence
lowered), for a graph store that has one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from memexplorer.memory.hierarchical_schema import loads_json
from memexplorer.memory.inspection import open_sqlite_readonly
from memexplorer.memory.rs_sqlite_schema import SEMANTIC_TABLE, is_rs_hierarchical
from memexplorer.memory.temporal import temporal_index_of
from memexplorer.operator.duplicates_grouping import DuplicateFact
from memexplorer.storage.exceptions import InvalidInputError, NotAStoreError
from memexplorer.storage.graph_open import open_graph_store
from memexplorer.storage.graphdb import GraphStore
from memexplorer.storage.names import validate_agent_name
from memexplorer.storage.progress import TaskControl, checkpoint
from memexplorer.storage.sqlite_db import SqliteConnection, sqlite_tables
from memexplorer.storage.stores import resolve_hierarchical_path, sniff

__all__ = [
    "AgentInStore",
    "StoreFacts",
    "Writer",
    "agent_store",
    "graph_writer",
    "merge_store_path",
    "read_facts",
    "read_graph_facts",
    "read_sqlite_facts",
]

#: Whose supersession step a merge reproduces (see the module's docstring).
Writer = Literal["amplihack-memory-lib", "amplihack-rs", "memexplorer"]


@dataclass(frozen=True)
class AgentInStore:
    """One agent of one store, and whose code wrote the store: what a duplicates
    report and a merge plan are about (their JSON starts with these four)."""

    store: Path
    agent: str
    engine: str
    writer: Writer

    def header(self) -> dict[str, Any]:
        return {
            "store": str(self.store), "agent": self.agent, "engine": self.engine,
            "writer": self.writer,
        }  # fmt: skip


_GRAPH_FACTS = """MATCH (m:SemanticMemory) WHERE m.agent_id = $agent
    RETURN m.memory_id, m.concept, m.content, m.tags, m.confidence, m.created_at, m.metadata"""
_GRAPH_SUPERSEDED = """MATCH (n:SemanticMemory)-[:SUPERSEDES]->(o:SemanticMemory)
    WHERE o.agent_id = $agent RETURN DISTINCT o.memory_id, n.memory_id"""
_GRAPH_TRANSITIONS = """MATCH (n:SemanticMemory)-[:TRANSITIONED_TO]->(o:SemanticMemory)
    WHERE o.agent_id = $agent RETURN DISTINCT n.memory_id, o.memory_id"""
_SQLITE_TRANSITIONS = (
    f"SELECT DISTINCT e.source_id, e.target_id FROM transitioned_to_edges e "
    f"JOIN {SEMANTIC_TABLE} o ON o.memory_id = e.target_id WHERE o.agent_id = ?"
)
_SQLITE_FACTS = (
    "SELECT memory_id, concept, content, tags, confidence, created_at, metadata "
    f"FROM {SEMANTIC_TABLE} WHERE agent_id = ?"
)
_SQLITE_SUPERSEDED = (
    f"SELECT DISTINCT e.target_id, e.source_id FROM supersedes_edges e "
    f"JOIN {SEMANTIC_TABLE} o ON o.memory_id = e.target_id WHERE o.agent_id = ?"
)


@dataclass(frozen=True)
class StoreFacts(AgentInStore):
    """An agent's facts in one store, and which of them a newer fact supersedes."""

    facts: tuple[DuplicateFact, ...]
    #: memory_id -> the memory_id of a fact that supersedes it.
    superseded: dict[str, str]
    #: (newer, older) of every TRANSITIONED_TO edge into the agent's facts.
    transitions: frozenset[tuple[str, str]] = frozenset()

    def current(self) -> list[DuplicateFact]:
        return [fact for fact in self.facts if fact.memory_id not in self.superseded]


def _facts(rows: Iterable[Sequence[Any]], control: TaskControl | None) -> tuple[DuplicateFact, ...]:
    """The rows as facts; ``control`` hears the count and may stop the read between chunks."""
    facts: list[DuplicateFact] = []
    for row in rows:
        if len(facts) % 2048 == 0:
            checkpoint(control, "reading facts", len(facts), None, "facts")
        facts.append(_fact(row))
    checkpoint(control, "reading facts", len(facts), len(facts), "facts")
    return tuple(facts)


def _fact(row: Sequence[Any]) -> DuplicateFact:
    tags = loads_json(row[3], [])
    metadata = loads_json(row[6], {})
    return DuplicateFact(
        memory_id=str(row[0]),
        concept=row[1] or "",
        content=row[2] or "",
        tags=tuple(str(t) for t in tags) if isinstance(tags, list) else (),
        confidence=float(row[4] or 0.0),
        created_at=str(row[5] or ""),
        temporal_index=temporal_index_of(metadata if isinstance(metadata, dict) else {}),
        metadata=row[6] if isinstance(row[6], str) else "",
    )


def graph_writer(store: Path, engine: str, rel_tables: set[str] | list[str]) -> Writer:
    """Whose supersession step a merge in this graph store reproduces: amplihack-rs
    writes ``graph_db`` with the lbug crate (LadybugDB); a Kuzu ``graph_db`` is one
    memexplorer wrote (the demo home's)."""
    if store.name == "graph_db" and engine == "ladybug":
        return "amplihack-rs"
    return "memexplorer" if "TRANSITIONED_TO" in rel_tables else "amplihack-memory-lib"


def _require_hierarchical(graph: GraphStore, store: Path) -> None:
    if not graph.has_table("SemanticMemory") or not graph.has_table("EpisodicMemory"):
        raise NotAStoreError(
            store, "Duplicates are found in HierarchicalMemory stores; this is another kind",
            hint="Name an agent's hierarchical_memory store (memexplorer stats lists them).",
        )  # fmt: skip


def read_graph_facts(
    graph: GraphStore, store: Path, engine: str, agent: str, control: TaskControl | None = None
) -> StoreFacts:
    """The agent's facts in an open Kuzu or LadybugDB hierarchical store."""
    _require_hierarchical(graph, store)
    rels = set(graph.rel_tables())
    facts = _facts(graph.rows(_GRAPH_FACTS, {"agent": agent}), control)
    superseded: dict[str, str] = {}
    if "SUPERSEDES" in rels:
        for old, new in graph.rows(_GRAPH_SUPERSEDED, {"agent": agent}):
            superseded.setdefault(str(old), str(new))
    transitions: frozenset[tuple[str, str]] = frozenset()
    if "TRANSITIONED_TO" in rels:
        rows = graph.rows(_GRAPH_TRANSITIONS, {"agent": agent})
        transitions = frozenset((str(a), str(b)) for a, b in rows)
    writer = graph_writer(store, engine, rels)
    return StoreFacts(store, agent, engine, writer, facts, superseded, transitions)


def read_sqlite_facts(
    connection: SqliteConnection, store: Path, agent: str, control: TaskControl | None = None
) -> StoreFacts:
    """The agent's facts in amplihack-rs's SQLite hierarchical store."""
    names = sqlite_tables(connection)
    if not is_rs_hierarchical(names):
        raise NotAStoreError(
            store, "Duplicates are found in hierarchical stores; this SQLite file is not one",
            hint="Name an agent's hierarchical_memory/<agent>.db or its graph store.",
        )  # fmt: skip
    facts = _facts(connection.execute(_SQLITE_FACTS, (agent,)), control)
    superseded: dict[str, str] = {}
    for old, new in connection.execute(_SQLITE_SUPERSEDED, (agent,)):
        superseded.setdefault(str(old), str(new))
    rows = connection.execute(_SQLITE_TRANSITIONS, (agent,))
    transitions = frozenset((str(a), str(b)) for a, b in rows)
    return StoreFacts(store, agent, "sqlite", "amplihack-rs", facts, superseded, transitions)


def agent_store(agent: str, store: str | Path | None, home: str | Path | None) -> Path:
    """The store an operator means for ``agent``, as ``query`` and ``chain`` find it:
    amplihack-rs's ``<agent>.db`` (named, or with AMPLIHACK_MEMORY_BACKEND=sqlite),
    else the graph store of ``store`` (file, agent folder or home) or of the home."""
    from memexplorer.operator.agent_memory import agent_store_path
    from memexplorer.operator.retrieval_rs_sqlite import rs_query_store

    validate_agent_name(agent)
    rs_store = rs_query_store(agent, store, home)
    return merge_store_path(
        rs_store if rs_store is not None else agent_store_path(agent, store, home)
    )


def merge_store_path(store: str | Path) -> Path:
    """The store file (an agent folder resolves as HierarchicalMemory resolves it)."""
    path = resolve_hierarchical_path(Path(store).expanduser())
    if not path.exists():
        raise InvalidInputError(
            f"No store at {path}", hint="Name an agent's store file or folder, or its home."
        )
    return path


def read_facts(store: Path, agent: str, control: TaskControl | None = None) -> StoreFacts:
    """The agent's facts, read from the store opened read-only (``control``: see
    :func:`.progress.checkpoint`)."""
    validate_agent_name(agent)
    fmt = sniff(store)
    if fmt.engine == "sqlite":
        connection = open_sqlite_readonly(store)
        try:
            return read_sqlite_facts(connection, store, agent, control)
        finally:
            connection.close()
    with open_graph_store(store, read_only=True) as graph:
        return read_graph_facts(graph, store, fmt.engine, agent, control)
