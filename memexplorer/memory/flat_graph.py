"""Flat session memory in a Kuzu graph (``~/.amplihack/memory_graph.db``).

The schema is in flat_graph_schema.py (where it comes from is said there): a
memory belongs to the Session that has a CONTAINS_* / CONTRIBUTES_TO_* /
USES_* / CREATES_* edge to it, and its type is its node table. Tables an
existing store lacks are skipped, never created, unless the operator writes.
Expiry is ``expires_at <= now`` on the tables that have the column (Semantic
and Procedural memories never expire), applied inside every query.

This module opens the store and reads sessions and memories; nodes are read by
:mod:`.flat_graph_rows` and written by :mod:`.flat_graph_write`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from memexplorer.memory.flat_checks import check_learning
from memexplorer.memory.flat_graph_rows import FlatCatalog, graph_memory, live_agent_counts
from memexplorer.memory.flat_graph_schema import (
    AGENT_DDL,
    MEMORY_TABLES,
    SESSION_DDL,
    MemoryTable,
    table_for_type,
)
from memexplorer.memory.flat_graph_write import delete_graph_sessions, store_graph_learning
from memexplorer.memory.flat_model import (
    DEFAULT_LEARNING_TYPE,
    DeletedSessions,
    FlatMemory,
    FlatSession,
    iso,
    json_object,
)
from memexplorer.memory.flat_store_base import FlatMemoryStore, Learning, MemoryFilter
from memexplorer.storage.exceptions import InvalidInputError, SchemaMismatchError
from memexplorer.storage.graph_open import open_graph_store
from memexplorer.storage.graphdb import identifier

__all__ = ["GraphFlatStore"]


class GraphFlatStore(FlatMemoryStore):
    """One memory_graph.db, read-only unless opened with ``read_only=False``."""

    backend = "graph-db"
    engine = "kuzu"

    def _open(self, *, created: bool) -> None:
        self._graph = open_graph_store(
            self.path, read_only=self.read_only, create="kuzu" if created else None
        )
        try:
            if created:
                os.chmod(self.path, 0o600)
                self._create_schema()
            self._catalog = FlatCatalog(self._graph)
            if not self._catalog.has_session and not created:
                raise SchemaMismatchError(
                    self.path,
                    "This Kuzu store holds no flat session memory (no Session table)",
                    hint="Flat graph memory lives in memory_graph.db; hierarchical stores "
                    "are under hierarchical_memory/.",
                )
        except BaseException:
            self._graph.close()
            raise

    def _create_schema(self) -> None:
        with self._graph.transaction():
            self._graph.execute(SESSION_DDL)
            self._graph.execute(AGENT_DDL)
            for table in MEMORY_TABLES:
                self._graph.execute(table.node_ddl)
            for table in MEMORY_TABLES:
                self._graph.execute(table.rel_ddl)

    # -- reading -----------------------------------------------------------------
    def _tables(self, memory_type: str | None) -> list[MemoryTable]:
        if memory_type is None:
            return self._catalog.tables
        table = table_for_type(memory_type)
        if table is None:
            valid = ", ".join(t.memory_type for t in MEMORY_TABLES)
            raise InvalidInputError(
                f"{memory_type!r} is not a graph-db memory type",
                hint=f"Use one of: {valid} (learnings are stored as semantic).",
            )
        return [table] if table in self._catalog.tables else []

    def _match(
        self, table: MemoryTable, session_id: str | None, agent_id: str | None
    ) -> tuple[str, dict[str, Any]]:
        """MATCH ... WHERE for live memories of one table, with optional filters."""
        params: dict[str, Any] = {}
        clauses = [self._catalog.live(table, params)]
        if agent_id is not None:
            clauses.append("m.agent_id = $agent_id")
            params["agent_id"] = agent_id
        node, rel = identifier(table.label), identifier(table.rel)
        if session_id is not None:
            params["session_id"] = session_id
            head = f"MATCH (s:Session {{session_id: $session_id}})-[:{rel}]->(m:{node})"
        else:
            head = f"MATCH (m:{node}) OPTIONAL MATCH (s:Session)-[:{rel}]->(m) WITH s, m"
        return f"{head} WHERE {' AND '.join(clauses)}", params

    def list_sessions(self) -> list[FlatSession]:
        """Every session, most recently used first, with live counts per agent."""
        agents: dict[str, dict[str, int]] = {}
        for table in self._catalog.tables:
            match, params = self._match(table, None, None)
            for session, agent, count in self._graph.rows(
                f"{match} AND s IS NOT NULL RETURN s.session_id, m.agent_id, count(m)", params
            ):
                per = agents.setdefault(session, {})
                per[agent or ""] = per.get(agent or "", 0) + count
        if not self._catalog.has_session:
            return []
        rows = self._graph.rows(
            "MATCH (s:Session) RETURN s.session_id, s.created_at, s.last_accessed, s.metadata "
            "ORDER BY s.last_accessed DESC, s.session_id"
        )
        return [
            FlatSession(
                sid, iso(created), iso(accessed),
                sum(agents.get(sid, {}).values()), dict(sorted(agents.get(sid, {}).items())),
                json_object(metadata),
            )
            for sid, created, accessed, metadata in rows
        ]  # fmt: skip

    def _list_memories(
        self, wanted: MemoryFilter, limit: int | None, offset: int
    ) -> list[FlatMemory]:
        """Every table's page, merged: most recently accessed first, then by id."""
        found: list[tuple[Any, str, FlatMemory]] = []
        for table in self._tables(wanted.memory_type):
            match, params = self._match(table, wanted.session_id, wanted.agent_id)
            query = f"{match} RETURN s.session_id, m ORDER BY m.accessed_at DESC, m.memory_id"
            if limit is not None:
                query += " LIMIT $top"
                params["top"] = offset + max(limit, 0)
            for session, node in self._graph.rows(query, params):
                memory = graph_memory(table, session, node)
                found.append((node.get("accessed_at"), memory.memory_id, memory))
        found.sort(key=lambda item: item[1])
        found.sort(key=lambda item: item[0] or datetime.min, reverse=True)
        page = found[offset:] if limit is None else found[offset : offset + max(limit, 0)]
        return [memory for _, _, memory in page]

    def _count_memories(self, wanted: MemoryFilter) -> int:
        total = 0
        for table in self._tables(wanted.memory_type):
            match, params = self._match(table, wanted.session_id, wanted.agent_id)
            total += int(self._graph.scalar(f"{match} RETURN count(m)", params) or 0)
        return total

    def agent_counts(self) -> dict[str, int]:
        """collect_agent_counts: live memories per agent, over every memory table."""
        totals: dict[str, int] = {}
        for agent, per_table in live_agent_counts(self._graph).items():
            if agent:
                totals[agent] = sum(per_table.values())
        return dict(sorted((a, n) for a, n in totals.items() if n > 0))

    def memory_types(self) -> list[str]:
        return [t.memory_type for t in self._catalog.tables]

    # -- writing -----------------------------------------------------------------
    def _store_learning(self, learning: Learning) -> str | None:
        """In the table of its type (learnings are semantic here)."""
        self._require_writable()
        check_learning(learning)
        table = self._tables(learning.memory_type or DEFAULT_LEARNING_TYPE)
        if not table:
            raise SchemaMismatchError(
                self.path, f"This store has no table for {learning.memory_type!r}"
            )
        return store_graph_learning(self._graph, self._catalog, table[0], learning)

    def delete_sessions(self, session_ids: Iterable[str]) -> DeletedSessions:
        """Remove these sessions and all their memories (expired ones too), atomically."""
        self._require_writable()
        return delete_graph_sessions(self._graph, self._catalog, session_ids)

    def close(self) -> None:
        self._graph.close()
