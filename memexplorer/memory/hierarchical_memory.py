"""HierarchicalMemory: Graph RAG over SemanticMemory and EpisodicMemory (seed 003).

This module opens the store, switches it to writing and carries transfer and
discoveries; the writing (:mod:`.hierarchical_writing`) and the reading
(:mod:`.hierarchical_reading`) are halves of their own.

The public API is the reference library's, so agent code runs unchanged. Two
things differ on purpose: an existing store opens read-only and switches to
writing only when the caller first writes (a running agent's store is never
locked or changed by reading it), and stores follow the spec where the
reference did not (TRANSITIONED_TO edges, lowered confidence of superseded
facts).
"""

from __future__ import annotations

import json
from collections import deque
from pathlib import Path
from typing import Any, Literal

from memexplorer.memory.hierarchical_reading import FactReading
from memexplorer.memory.hierarchical_schema import create_schema
from memexplorer.memory.hierarchical_writing import FactWriting
from memexplorer.memory.inspection import open_graph
from memexplorer.memory.knowledge import (
    KnowledgeEdge,
    KnowledgeNode,
    KnowledgeSubgraph,
    MemoryCategory,
    MemoryClassifier,
)
from memexplorer.memory.memory_handle import GraphHandle
from memexplorer.memory.temporal import TemporalIndex
from memexplorer.storage.exceptions import (
    InvalidInputError,
    ReadOnlyStoreError,
    SchemaMismatchError,
)
from memexplorer.storage.graph_open import open_graph_store
from memexplorer.storage.graph_shape import (
    GRAPH_SHAPE,
    from_graph_shape,
    is_graph_shape,
    to_graph_shape,
)
from memexplorer.storage.graph_store import GraphStore
from memexplorer.storage.names import validate_agent_name
from memexplorer.storage.private_dirs import enforce_private_store, make_private_dirs
from memexplorer.storage.progress import TaskControl
from memexplorer.storage.stores import resolve_hierarchical_path

__all__ = [
    "GraphEngine",
    "HierarchicalMemory",
    "KnowledgeEdge",
    "KnowledgeNode",
    "KnowledgeSubgraph",
    "MemoryCategory",
    "MemoryClassifier",
]

Mode = Literal["auto", "read", "write"]
#: The graph engines a new store can be created with.
GraphEngine = Literal["kuzu", "ladybug"]


class HierarchicalMemory(GraphHandle[GraphStore], FactReading, FactWriting):
    """One agent's knowledge graph in a Kuzu store.

    ``mode``: "auto" (default) opens an existing store read-only and reopens it
    for writing on the first write, creating a new store when none exists;
    "read" never writes; "write" takes the write lock at once. ``engine``
    ("kuzu" or "ladybug") is the one a NEW store is created with (an agent
    folder gets its ``kuzu_db`` or ``ladybug_db``); an existing store keeps its own.
    ``buffer_pool_size`` (bytes) is the pool a writing open gets (default: the
    engine's, most of the machine's memory; kuzu keeps state for every page of
    it, some 40 MB for 19 GiB): an import's staged store opens with its own.
    """

    def __init__(
        self,
        agent_name: str,
        db_path: str | Path | None = None,
        *,
        mode: Mode = "auto",
        engine: GraphEngine = "kuzu",
        buffer_pool_size: int | None = None,
    ) -> None:
        self.agent_name = validate_agent_name(agent_name)
        if db_path is None:
            db_path = Path.home() / ".amplihack" / "hierarchical_memory" / self.agent_name
        self.db_path = resolve_hierarchical_path(
            Path(db_path).expanduser(), new_name=f"{engine}_db"
        )
        self.mode = mode
        self.engine = engine
        self._write_pool = buffer_pool_size
        self._classifier = MemoryClassifier()
        self._graph: GraphStore | None = None
        self._recent: deque[dict[str, Any]] | None = None
        self._temporal: TemporalIndex | None = None
        self._rel_tables: set[str] | None = None
        if mode == "read" or (mode == "auto" and self.db_path.exists()):
            self._graph = open_graph(self.db_path, read_only=True)
        else:
            self._open_for_writing()

    # -- connection management (graph, read_only: GraphHandle) -------------------------
    def _open_for_writing(self) -> None:
        if self.db_path.exists():
            graph = open_graph(self.db_path, read_only=False, buffer_pool_size=self._write_pool)
        else:
            make_private_dirs(self.db_path.parent)
            graph = open_graph_store(self.db_path, read_only=False, create=self.engine,
                                     buffer_pool_size=self._write_pool)  # fmt: skip
        enforce_private_store(self.db_path)
        create_schema(graph)
        columns = [name for name, _ in graph.columns("SIMILAR_TO")]
        if columns != ["weight", "metadata"]:
            graph.close()
            raise SchemaMismatchError(
                self.db_path, f"SIMILAR_TO has columns {columns}, not the spec's (weight, metadata)"
            )
        self._graph = graph
        self._rel_tables = None
        self._recent = None
        self._temporal = TemporalIndex(graph, self.agent_name)

    def _writable(self) -> GraphStore:
        graph = self.graph
        if not graph.read_only:
            return graph
        if self.mode == "read":
            raise ReadOnlyStoreError(self.db_path, "This memory was opened read-only")
        graph.close()
        self._graph = None
        try:
            self._open_for_writing()
        except Exception:
            self._graph = open_graph(self.db_path, read_only=True)
            raise
        return self.graph

    def rel_tables(self) -> set[str]:
        """The rel tables present (cached: only our own writes change the schema)."""
        if self._rel_tables is None:
            self._rel_tables = set(self.graph.rel_tables())
        return self._rel_tables

    # -- transfer --------------------------------------------------------------------------
    def export_to_json(self) -> dict[str, Any]:
        """The agent's graph in the reference's format "1.0"."""
        from memexplorer.memory.hierarchical_export import export_agent

        return export_agent(self.graph, self.agent_name, "1.0")

    def export_graph(
        self, format_version: str = GRAPH_SHAPE, *, control: TaskControl | None = None
    ) -> dict[str, Any]:
        """The agent's graph as seed 003 gives it, ``{"nodes", "edges", "agent_name",
        "exported_at"}`` (:mod:`.graph_shape`); ``"1.1"`` (or ``"1.0"``) gives the
        transfer format of seed 002 instead, with TRANSITIONED_TO in 1.1.

        ``control`` (memexplorer's addition) hears of each table read and can cancel.
        """
        from memexplorer.memory.hierarchical_export import export_agent

        if format_version == GRAPH_SHAPE:
            return to_graph_shape(export_agent(self.graph, self.agent_name, "1.1", control))
        return export_agent(self.graph, self.agent_name, format_version, control)

    def import_from_json(
        self, data: dict[str, Any], merge: bool = False, *, control: TaskControl | None = None
    ) -> dict[str, Any]:
        """Import a format 1.0 or 1.1 export into this agent, atomically.

        The caller's agent name is the only partition key; the file's
        ``agent_name`` is informational. Without ``merge`` the agent's current
        data is replaced; with it, ids that exist already are skipped and counted.
        One kuzu transaction: a failed import changes nothing. A process killed
        while kuzu commits may still lose the import's rows (kuzu 0.11 writes
        COPY data outside its log); ``transfer.import_agent_store`` is safe
        against that too, and is what the CLI uses. ``control`` (memexplorer's
        addition) reports progress and can cancel before the commit.
        """
        from memexplorer.memory.hierarchical_transfer import import_agent, precheck_import

        precheck_import(data, merge=merge)
        graph = self._writable()
        result = import_agent(graph, self.agent_name, data, merge=merge, control=control)
        self._recent = None
        self._temporal = TemporalIndex(graph, self.agent_name)
        return result

    def import_graph(self, data: dict[str, Any], merge: bool = False) -> None:
        """Import what :meth:`export_graph` returns, in seed 003's shape or in transfer
        format 1.0/1.1, as :meth:`import_from_json` does (returns nothing)."""
        self.import_from_json(from_graph_shape(data) if is_graph_shape(data) else data, merge=merge)

    # -- discoveries (the spec's static helpers) ------------------------------------------
    @staticmethod
    def store_discovery(
        db_path: str | Path | None, agent_name: str, discovery: dict[str, Any]
    ) -> str:
        """Store a discovery dict as a fact tagged "discovery"; return its id."""
        if not isinstance(discovery, dict) or not discovery:
            raise InvalidInputError("discovery must be a non-empty dict")
        kind = str(discovery.get("type") or "discovery")
        content = str(
            discovery.get("content") or discovery.get("description") or json.dumps(discovery)
        )
        memory = HierarchicalMemory(agent_name, db_path)
        try:
            return memory.store_knowledge(
                content,
                concept=kind,
                confidence=float(discovery.get("confidence", 0.8)),
                tags=["discovery", kind],
                temporal_metadata={"discovery": discovery},
            )
        finally:
            memory.close()

    @staticmethod
    def get_recent_discoveries(
        db_path: str | Path | None, agent_name: str, limit: int = 10
    ) -> list[dict[str, Any]]:
        """The newest discoveries stored with :meth:`store_discovery`, newest first."""
        memory = HierarchicalMemory(agent_name, db_path, mode="read")
        try:
            nodes = memory._facts("m.tags CONTAINS '\"discovery\"'", {}, "m.created_at DESC", limit)
        finally:
            memory.close()
        return [
            {**node.metadata.get("discovery", {}), "node_id": node.node_id,
             "created_at": node.created_at}
            for node in nodes
        ]  # fmt: skip

    def close(self) -> None:
        if self._graph is not None:
            self._graph.close()
            self._graph = None
