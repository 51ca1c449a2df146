"""What every CognitiveMemory part shares: opening, write switching, scoped reads.

An existing store opens read-only and switches to writing only on the first
write, so reading a running agent's store never locks or changes it. Several
agents on one path in one process share a single open database (see
:mod:`memexplorer.storage.shared_graph`), and every read is scoped to the agent.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import Any, Literal

from memexplorer.memory.cognitive_schema import (
    CATEGORY_TABLES,
    check_schema,
    create_missing_tables,
    dumps,
)
from memexplorer.memory.memory_handle import GraphHandle
from memexplorer.storage.exceptions import AgentNameError, InvalidInputError, ReadOnlyStoreError
from memexplorer.storage.shared_graph import SharedGraph, acquire_graph, release_graph

__all__ = ["CognitiveBase", "Mode", "epoch_seconds", "new_id"]

Mode = Literal["auto", "read", "write"]


def epoch_seconds() -> int:
    """Now in whole epoch seconds, the stores' time unit."""
    return int(time.time())


def new_id(prefix: str) -> str:
    """``<prefix>_<12 hex>``: the reference's id shape (sen_, wrk_, epi_, sem_, ...)."""
    return f"{prefix}_{uuid.uuid4().hex[:12]}"


class CognitiveBase(GraphHandle[SharedGraph]):
    """Connection handling, scoped reads and statistics of one agent's memory.

    ``mode``: "auto" (default) opens an existing store read-only and reopens it
    for writing on the first write, creating a new store when none exists;
    "read" never writes; "write" takes the write lock at once.
    ``buffer_pool_size`` and ``max_db_size`` (bytes, 0 for kuzu's defaults)
    bound the memory and address space of the database; the first memory to
    open a path sets them for everyone sharing it in this process.
    """

    #: The time source (epoch seconds); replace it on an instance to test expiry.
    clock = staticmethod(epoch_seconds)

    def __init__(
        self,
        agent_name: str,
        db_path: str | Path,
        buffer_pool_size: int = 0,
        max_db_size: int = 0,
        *,
        mode: Mode = "auto",
    ) -> None:
        # The name is only a column value here (never a path), so any
        # non-blank text is accepted, as the reference does.
        if not isinstance(agent_name, str) or not agent_name.strip():
            raise AgentNameError("agent_name cannot be empty")
        if mode not in ("auto", "read", "write"):
            raise InvalidInputError(f"mode must be 'auto', 'read' or 'write', got {mode!r}")
        if int(buffer_pool_size) < 0 or int(max_db_size) < 0:
            raise InvalidInputError("buffer_pool_size and max_db_size must be >= 0")
        self.agent_name = agent_name.strip()
        self.db_path = Path(db_path).expanduser()
        self.mode = mode
        shared = acquire_graph(
            self.db_path,
            create=mode != "read",
            buffer_pool_size=int(buffer_pool_size),
            max_db_size=int(max_db_size),
        )
        self._graph: SharedGraph | None = shared
        self._schema_ready = False
        try:
            check_schema(shared)
            # A store this process holds read-write (new, or written by another
            # agent's memory) gets its missing tables now; others on first write.
            if mode == "write" or (mode == "auto" and not shared.read_only):
                self._writable()
        except BaseException:
            self.close()
            raise

    # -- connection (graph, read_only, with-blocks: GraphHandle) ----------------------
    def _writable(self) -> SharedGraph:
        graph = self.graph
        if self.mode == "read":
            raise ReadOnlyStoreError(self.db_path, "This memory was opened read-only")
        graph.make_writable()
        if not self._schema_ready:
            create_missing_tables(graph)
            self._schema_ready = True
        return graph

    def _has(self, *tables: str) -> bool:
        """Whether the store holds these tables (a store may predate some)."""
        present = self.graph.table_names()
        return all(t in present for t in tables)

    def _rows(self, table: str, cypher: str, **params: Any) -> list[list[Any]]:
        """Rows of a read on ``table``, none when the store lacks it."""
        if not self._has(table):
            return []
        return self.graph.rows(cypher, {"agent": self.agent_name, **params}, reuse=True)

    def _count(self, table: str, where: str = "true", **params: Any) -> int:
        rows = self._rows(
            table,
            f"MATCH (n:{table}) WHERE n.agent_id = $agent AND {where} RETURN count(n)",
            **params,
        )
        return int(rows[0][0]) if rows else 0

    # -- shared by several memory types -----------------------------------------------
    def _create_episode(
        self,
        graph: SharedGraph,
        content: str,
        source_label: str,
        temporal_index: int | None,
        metadata: dict[str, Any] | None,
    ) -> str:
        if temporal_index is None:
            latest = graph.rows(
                "MATCH (e:EpisodicMemory) WHERE e.agent_id = $agent RETURN max(e.temporal_index)",
                {"agent": self.agent_name},
                reuse=True,
            )[0][0]
            temporal_index = (latest or 0) + 1
        node_id = new_id("epi")
        graph.execute(
            """CREATE (:EpisodicMemory {node_id: $id, agent_id: $agent, content: $content,
                 source_label: $label, temporal_index: $index, compressed: false,
                 metadata: $metadata, created_at: $now})""",
            {"id": node_id, "agent": self.agent_name, "content": content, "label": source_label,
             "index": int(temporal_index), "metadata": dumps(metadata or {}), "now": self.clock()},
            reuse=True,
        )  # fmt: skip
        return node_id

    # -- statistics and lifecycle ----------------------------------------------------------
    def get_statistics(self) -> dict[str, int]:
        """Rows per memory type for this agent, and their total."""
        stats = {category.value: self._count(table) for category, table in CATEGORY_TABLES.items()}
        stats["total"] = sum(stats.values())
        return stats

    def close(self) -> None:
        """Release this memory's share of the store (the last one closes it)."""
        if self._graph is not None:
            graph, self._graph = self._graph, None
            release_graph(graph)
